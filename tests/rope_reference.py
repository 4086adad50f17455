"""mpmath references for the RoPE tests: each rope_type's formula written from the paper /
transformers' docstring, at 40 digits. Nothing here imports pecli."""

from __future__ import annotations

import mpmath

mpmath.mp.dps = 40

#: Llama 3.1's published ``rope_scaling`` (its config.json on the Hub), θ 500000 beside it.
LLAMA31_SCALING = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def default(theta: float, dim: int) -> list[mpmath.mpf]:
    """1/θ^(2i/dim), i < dim/2."""
    return [1 / mpmath.power(mpmath.mpf(theta), mpmath.mpf(2 * i) / dim) for i in range(dim // 2)]


def llama3(theta, dim, factor, low, high, orig) -> list[mpmath.mpf]:
    """Meta's apply_scaling (Llama 3.1): wavelengths below orig/high kept, above orig/low / f."""
    out = []
    for w in default(theta, dim):
        wavelen = 2 * mpmath.pi / w
        if wavelen < mpmath.mpf(orig) / high:
            out.append(w)
        elif wavelen > mpmath.mpf(orig) / low:
            out.append(w / factor)
        else:
            s = (mpmath.mpf(orig) / wavelen - low) / (mpmath.mpf(high) - low)
            out.append((1 - s) * w / factor + s * w)
    return out


def yarn_range(theta, dim, orig, beta_fast=32, beta_slow=1):
    """YaRN §3.2 correction dims: dim·ln(L/(2π·β)) / (2 ln θ) for β_fast and β_slow."""
    c = lambda b: dim * mpmath.log(mpmath.mpf(orig) / (2 * mpmath.pi * b)) / (2 * mpmath.log(theta))  # noqa: E731
    return c(beta_fast), c(beta_slow)


def yarn(theta, dim, factor, orig, truncate=True) -> list[mpmath.mpf]:
    """YaRN's ramp between θ^(-2i/dim) (i below the range) and it divided by the factor."""
    low, high = yarn_range(theta, dim, orig)
    if truncate:
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    out = []
    for i, w in enumerate(default(theta, dim)):
        ramp = min(max((i - low) / (high - low), 0), 1)
        out.append(w / factor * ramp + w * (1 - ramp))
    return out


def cache_row(position: int, inv: list[mpmath.mpf], scale: float, layout: str):
    """cos and sin of one position, times the attention factor, in the layout."""
    cos = [mpmath.cos(position * w) * scale for w in inv]
    sin = [mpmath.sin(position * w) * scale for w in inv]
    if layout == "interleaved":
        return [c for c in cos for _ in (0, 1)], [s for s in sin for _ in (0, 1)]
    return cos + cos, sin + sin
