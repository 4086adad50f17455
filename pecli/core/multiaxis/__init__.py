"""Multi-axis rotary embeddings (FLUX, Wan, HunyuanVideo, Pixtral, Llama 4 vision, Qwen-VL …).

One core — :class:`~.plan.AxisPlan`, the channel → axis map with each pair's exact frequency —
and each model as a named preset of it (:mod:`.presets`). Pure NumPy and :mod:`decimal`; no
I/O. See docs/multiaxis.md.
"""

from .cache import axes_cache, axes_cache_blocks
from .plan import AxisPlan, per_axis, plan_frequencies, shared
from .presets import AXIS_PRESETS, axis_preset

__all__ = [
    "AXIS_PRESETS",
    "AxisPlan",
    "axes_cache",
    "axes_cache_blocks",
    "axis_preset",
    "per_axis",
    "plan_frequencies",
    "shared",
]
