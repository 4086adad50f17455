"""Rotary position embeddings (RoPE): frequencies, caches, layouts, configs, permutation.

Pure NumPy (and :mod:`decimal` for the exact frequencies); no I/O. See docs/rope.md.
"""

from .frequencies import RopeFrequencies, rope_frequencies
from .spec import ROPE_TYPES, RopeSpec, check_spec

__all__ = ["ROPE_TYPES", "RopeFrequencies", "RopeSpec", "check_spec", "rope_frequencies"]
