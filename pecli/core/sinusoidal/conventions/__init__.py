"""How other libraries lay out the same encoding: layouts, column names and named presets.

:mod:`.layouts` says which columns hold the sines and the cosines, :mod:`.presets` what each
library does (:data:`PRESETS`, :data:`ALIASES`), :mod:`.resolve` applies explicit knobs to a
preset (:func:`convention`). The names are importable from
``pecli.core.sinusoidal.conventions``.
"""

from __future__ import annotations

from .layouts import component_names, layout_views
from .presets import ALIASES, PRESETS, Convention
from .resolve import convention

__all__ = ["ALIASES", "PRESETS", "Convention", "component_names", "convention", "layout_views"]
