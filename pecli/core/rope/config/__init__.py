"""A model's RoPE read from its ``config.json`` (as a dict), whatever the config's shape.

:mod:`.shapes` finds the text model and its rope parameters per label, :mod:`.widths` the head
and its rotated slice, :mod:`.families` what a model class decides when the file is silent,
:mod:`.reading` one label's checked spec, :mod:`.plans` the per-layer plan. Pure Python; no
I/O (the JSON is read by :mod:`pecli.io`).
"""

from .reading import KNOWN_FIELDS, RopeReading, read_rope, spec_from_config

__all__ = ["KNOWN_FIELDS", "RopeReading", "read_rope", "spec_from_config"]
