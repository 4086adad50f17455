"""Multi-axis rotary embeddings (FLUX, Wan, HunyuanVideo, Pixtral, Llama 4 vision, Qwen-VL …).

One core — :class:`~.plan.AxisPlan`, the channel → axis map with each pair's exact frequency —
and each model as a named preset of it (:mod:`.presets`). Pure NumPy and :mod:`decimal`; no
I/O. See docs/multiaxis.md. The names below load on first use, so reading the preset records
(the command line's lists) does not load the cache kernels.
"""

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:  # pragma: no cover - what the lazy attributes below resolve to
    from .cache import AxesSpec, axes_cache, axes_cache_blocks
    from .plan import AxisPlan, per_axis, plan_frequencies, shared
    from .presets import AXIS_PRESETS, axis_preset

__all__ = [
    "AXIS_PRESETS",
    "AxesSpec",
    "AxisPlan",
    "axes_cache",
    "axes_cache_blocks",
    "axis_preset",
    "per_axis",
    "plan_frequencies",
    "shared",
]

__getattr__, __dir__, _ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "cache": ["AxesSpec", "axes_cache", "axes_cache_blocks"],
        "plan": ["AxisPlan", "per_axis", "plan_frequencies", "shared"],
        "presets": ["AXIS_PRESETS", "axis_preset"],
    },
)
