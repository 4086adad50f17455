"""transformers' float32 steps of each rope type's ``inv_freq``, repeated in NumPy.

transformers 5 builds ``inv_freq`` in float32: ``torch.arange(0, dim, 2).float() / dim``, then
``base ** x`` and ``1.0 / …``, and each scaling step rounded to float32 with Python numbers
taken as float32 (``_compute_<type>_parameters`` in ``transformers/modeling_rope_utils.py``).
Each function here takes a checked :class:`~pecli.core.rope.spec.RopeSpec` (typed by its
fields, :class:`~.fields.RopeFields`; its type's
defaults applied, :func:`pecli.core.rope.spec.with_defaults`: every field the
formula reads is set, so none needs a fallback here) and the float32 powers ``base ** x``,
and returns the float32 ``inv_freq``; :mod:`pecli.core.rope.registry`
pairs each with its type, and :func:`pecli.core.rope.framework.transformers_inv_freq` computes
the powers. Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .fields import RopeFields

__all__ = ["default", "linear", "llama3", "yarn"]

_F = np.float32


def default(spec: RopeFields, pos: np.ndarray) -> np.ndarray:
    """``1.0 / (base ** x)`` in float32 (each model's ``compute_default_rope_parameters``).

    >>> default(None, np.float32([1, 10]))
    array([1. , 0.1], dtype=float32)
    """
    return _F(1.0) / pos


def linear(spec: RopeFields, pos: np.ndarray) -> np.ndarray:
    """``_compute_linear_scaling_rope_parameters``: ``inv_freq / factor`` in float32."""
    return default(spec, pos) / _F(spec.factor)  # type: ignore[arg-type]


def llama3(spec: RopeFields, pos: np.ndarray) -> np.ndarray:
    """``_compute_llama3_parameters``: its wavelength bands and smoothing, in float32."""
    inv = default(spec, pos)
    factor, low = _F(spec.factor), float(spec.low_freq_factor)  # type: ignore[arg-type]
    high = float(spec.high_freq_factor)  # type: ignore[arg-type]
    length = int(spec.original_max_position_embeddings)  # type: ignore[arg-type]
    low_wavelen, high_wavelen = _F(length / low), _F(length / high)
    wavelen = _F(2 * math.pi) / inv
    scaled = np.where(wavelen > low_wavelen, inv / factor, inv)
    smooth = (_F(length) / wavelen - _F(low)) / _F(high - low)
    smoothed = (_F(1) - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled).astype(_F)


def correction_dim(dim: int, length: float, base: float, rotations: float) -> float:
    """YaRN's ``find_correction_dim``, in Python floats: ``dim·ln(L/(2π·r)) / (2·ln θ)``."""
    return (dim * math.log(length / (rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn(spec: RopeFields, pos: np.ndarray) -> np.ndarray:
    """``_compute_yarn_parameters``: the correction range in Python floats, the ramp in float32."""
    dim, length = spec.rotary_dim, int(spec.original_max_position_embeddings)  # type: ignore[arg-type]
    factor = spec.factor or spec.max_position_embeddings / length  # type: ignore[operator]
    low = correction_dim(dim, length, spec.theta, spec.beta_fast)  # type: ignore[arg-type]
    high = correction_dim(dim, length, spec.theta, spec.beta_slow)  # type: ignore[arg-type]
    if spec.truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    high = high + 0.001 if low == high else high  # transformers: "prevent singularity"
    ramp = np.clip((np.arange(pos.size, dtype=_F) - _F(low)) / _F(high - low), 0, 1).astype(_F)
    extrapolation = _F(1) - ramp
    interpolation: np.ndarray = _F(1.0) / (_F(factor) * pos)
    mixed: np.ndarray = interpolation * (_F(1) - extrapolation) + (_F(1.0) / pos) * extrapolation
    return mixed.astype(_F)
