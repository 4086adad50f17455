"""The same RoPE in another arithmetic: float32 angles (transformers) or ggml's pair by pair.

Both tables read as one RoPE and differ only as much as float32 arithmetic allows: the angle
``p·ω_i`` of each entry, measured from cos and sin, is off by at most a few float32 roundings
of itself. transformers' rotary modules round ``inv_freq`` (one ``pow``, within an ulp) and the
product ``p·ω`` once each: ``4·2^-24·p·ω``. ggml (llama.cpp) starts from ``θ = p`` and
multiplies by ``θ_scale = base^(-2/d)`` once per pair: the error grows with the pair index,
``(2i + 4)·2^-24·p·ω``. Pure NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ....core.rope.forms import pair_columns
from ...rope.cache import split_cache
from .tables import Pair

__all__ = ["framework_arithmetic"]

U = 2.0**-24


def _angles(pair: Pair) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per entry, the angle gap between A and B, B's angle ``p·ω`` and the pair index."""
    ra, rb = pair.ra or {}, pair.rb or {}
    if ra.get("kind") != "cache" or rb.get("kind") != "cache" or pair.a.shape != pair.b.shape:
        return None
    if ra.get("layout") != rb.get("layout") or ra.get("layout") is None:
        return None
    start = next((r["start"] for r in (rb, ra) if r.get("start") is not None), pair.start)
    ca, sa = split_cache(pair.a)
    cb, sb = split_cache(pair.b)
    if start is None or ca is None or sa is None or cb is None or sb is None:
        return None
    za, zb = (
        pair_columns(c.astype(np.float64), ra["layout"])
        + 1j * pair_columns(s.astype(np.float64), ra["layout"])
        for c, s in ((ca, sa), (cb, sb))
    )
    if np.any(np.abs(np.abs(za) - np.abs(zb)) > 8 * U):
        return None  # a factor on one side: values.factor's
    gap = np.abs(np.angle(za * np.conj(zb)))
    omega = _omega(ra, rb, zb)
    p = start + np.arange(len(zb), dtype=np.float64)
    return gap, np.outer(p, omega), np.arange(zb.shape[1], dtype=np.float64)


def _omega(ra: dict[str, Any], rb: dict[str, Any], zb: np.ndarray) -> np.ndarray:
    """Each pair's ω: θ^(-2i/d) of an unscaled reading, else B's step from row 0 to row 1.

    Far from position 0 a float32 angle is off by up to ``2^-24·p·ω``, more than a step
    between rows measures: the reading's own schedule is used where there is one.
    """
    h = zb.shape[1]
    for r in (rb, ra):
        if r.get("rope_type") == "default" and r.get("theta") and r.get("rotary_dim") == 2 * h:
            return np.asarray(float(r["theta"]) ** (-np.arange(h) * 2.0 / (2 * h)))
    return np.abs(np.angle(zb[1] * np.conj(zb[0]))) if len(zb) > 1 else np.zeros(h)


def framework_arithmetic(pair: Pair) -> str | None:
    """The same RoPE, one side in float32 arithmetic (transformers' or ggml's), by the gaps."""
    found = _angles(pair)
    if found is None:
        return None
    gap, angle, i = found
    floor = 8 * U  # cos and sin rounded to float32 on each side
    if not gap.any() or np.any(gap > floor + (2 * i + 8) * U * angle):
        return None
    if np.all(gap <= floor + 4 * U * angle):
        return (
            "framework float32 arithmetic: the same RoPE, the angles p·ω differ by float32 "
            "roundings only (transformers computes inv_freq and p·ω in float32; the "
            "difference grows with the position)"
        )
    return (
        "ggml's float32 arithmetic: the same RoPE, the angles differ by float32 roundings "
        "that grow with the pair index (llama.cpp multiplies θ by base^(-2/d) once per "
        "pair)"
    )
