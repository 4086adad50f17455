"""The exact formula of each ``rope_type`` (transformers 5, ``modeling_rope_utils.py``).

Each formula takes a checked :class:`~pecli.core.rope.spec.RopeSpec` (typed by its fields,
:class:`~.fields.RopeFields`) whose unset fields
already hold the type's defaults (:func:`pecli.core.rope.spec.with_defaults`)
and returns the exact inverse frequencies (decimals), each pair's scaling, the attention
factor and derived notes (:class:`Exact`). The order of the cases follows the source
function named in each docstring; :mod:`pecli.core.rope.registry` pairs each formula with its
type's fields and rules. Every formula runs with 50 significant digits
(:func:`~pecli.core.rope._exact.fifty_digits`), so it reads with operators. Pure standard
library; no I/O.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple

from ._exact import PI, dec, fifty_digits, inv_base

if TYPE_CHECKING:  # pragma: no cover
    from .fields import RopeFields

__all__ = [
    "Exact",
    "default",
    "default_inv_freq",
    "dynamic",
    "linear",
    "llama3",
    "longrope",
    "mscale",
    "proportional",
    "yarn",
]

ONE, ZERO = Decimal(1), Decimal(0)


class Exact(NamedTuple):
    """What a formula gives: exact ``inv_freq``, per-pair scaling, attention factor, notes."""

    inv_freq: list[Decimal]
    scaling: list[str]
    attention: Decimal
    notes: dict[str, Decimal]


@fifty_digits
def default_inv_freq(theta: float, dim: int, count: int | None = None) -> list[Decimal]:
    """``1/θ^(2i/dim)`` for ``i < count`` (default ``dim/2``).

    transformers: each model's ``compute_default_rope_parameters``.

    >>> [float(w) for w in default_inv_freq(10000.0, 4)]
    [1.0, 0.01]
    """
    t = dec(theta)
    n = dim // 2 if count is None else count
    return [inv_base(t, Decimal(2 * i) / Decimal(dim)) for i in range(n)]


@fifty_digits
def mscale(scale: Decimal, m: Decimal = ONE) -> Decimal:
    """YaRN's ``get_mscale``: 1 if scale <= 1, else ``0.1·m·ln(scale) + 1``."""
    if scale <= 1:
        return ONE
    return Decimal("0.1") * m * scale.ln() + ONE


def default(s: RopeFields) -> Exact:
    """Each model's ``compute_default_rope_parameters``: ``1/θ^(2i/dim)``."""
    inv = default_inv_freq(s.theta, s.rotary_dim)
    return Exact(inv, ["unchanged"] * len(inv), ONE, {})


@fifty_digits
def linear(s: RopeFields) -> Exact:
    """``_compute_linear_scaling_rope_parameters``: every frequency divided by the factor."""
    f = dec(s.factor)  # type: ignore[arg-type]
    inv = [w / f for w in default_inv_freq(s.theta, s.rotary_dim)]
    return Exact(inv, ["interpolated" if f != 1 else "unchanged"] * len(inv), ONE, {})


@fifty_digits
def dynamic(s: RopeFields) -> Exact:
    """``_compute_dynamic_ntk_parameters``: θ' = θ·(f·L/max − (f−1))^(dim/(dim−2))."""
    most = s.max_position_embeddings  # required, >= 1
    f, top = dec(s.factor), Decimal(most)  # type: ignore[arg-type]
    length = Decimal(max(s.seq_len or most, most))  # type: ignore[type-var, arg-type]
    grow = f * length / top - (f - ONE)
    dim = Decimal(s.rotary_dim)
    theta = dec(s.theta) * grow ** (dim / Decimal(s.rotary_dim - 2))  # 1^x is exactly 1
    inv = [inv_base(theta, Decimal(2 * i) / dim) for i in range(s.rotary_dim // 2)]
    kind = "unchanged" if grow == 1 else "rescaled"
    return Exact(inv, [kind] * len(inv), ONE, {"theta_effective": theta, "seq_len": length})


@fifty_digits
def _factor_or_ratio(s: RopeFields) -> Decimal:
    """``factor``, else ``max_position_embeddings / original_max_position_embeddings``."""
    if s.factor is not None:
        return dec(s.factor)
    top, orig = s.max_position_embeddings, s.original_max_position_embeddings
    return Decimal(top) / Decimal(orig)  # type: ignore[arg-type]


@fifty_digits
def _correction(s: RopeFields, rotations: float) -> Decimal:
    """``find_correction_dim``: dim·ln(L_orig/(2π·r)) / (2·ln θ)."""
    orig = Decimal(s.original_max_position_embeddings)  # type: ignore[arg-type]
    inner = orig / (dec(rotations) * (2 * PI))
    return Decimal(s.rotary_dim) * inner.ln() / (2 * dec(s.theta).ln())


@fifty_digits
def yarn(s: RopeFields) -> Exact:
    """``_compute_yarn_parameters``: a linear ramp between extrapolation and interpolation."""
    f = _factor_or_ratio(s)
    low = _correction(s, s.beta_fast)  # type: ignore[arg-type]
    high = _correction(s, s.beta_slow)  # type: ignore[arg-type]
    raw = {"correction_low": low, "correction_high": high, "factor": f}
    if s.truncate:
        low, high = (
            Decimal(int(low.to_integral_value("ROUND_FLOOR"))),
            high.to_integral_value("ROUND_CEILING"),
        )
    low, high = max(low, ZERO), min(high, Decimal(s.rotary_dim - 1))
    if low == high:  # transformers: "prevent singularity"
        high = high + Decimal("0.001")
    inv, kinds = [], []
    for i, w in enumerate(default_inv_freq(s.theta, s.rotary_dim)):
        ramp = min(max((Decimal(i) - low) / (high - low), ZERO), ONE)
        inv.append(w / f * ramp + w * (ONE - ramp))
        kinds.append("unchanged" if ramp == 0 else "interpolated" if ramp == 1 else "smoothed")
    notes = {**raw, "ramp_low": low, "ramp_high": high}
    return Exact(inv, kinds, _yarn_attention(s, f), notes)


def _yarn_attention(s: RopeFields, f: Decimal) -> Decimal:
    if s.attention_factor is not None:
        return dec(s.attention_factor)
    if s.mscale and s.mscale_all_dim:
        return mscale(f, dec(s.mscale)) / mscale(f, dec(s.mscale_all_dim))
    return mscale(f)


@fifty_digits
def longrope(s: RopeFields) -> Exact:
    """``_compute_longrope_parameters``: per-pair factors, long ones past L_orig."""
    orig = s.original_max_position_embeddings
    long = bool(s.seq_len and s.seq_len > orig)  # type: ignore[operator]
    factors = tuple((s.long_factor if long else s.short_factor) or ())
    base = default_inv_freq(s.theta, s.rotary_dim)
    inv = [w / dec(e) for w, e in zip(base, factors, strict=True)]
    kinds = ["unchanged" if e == 1 else "rescaled" for e in factors]
    f = _factor_or_ratio(s)
    if s.attention_factor is not None:
        attention = dec(s.attention_factor)
    elif f <= 1:
        attention = ONE
    else:
        attention = (ONE + f.ln() / Decimal(orig).ln()).sqrt()  # type: ignore[arg-type]
    return Exact(inv, kinds, attention, {"factor": f, "long_factors_used": Decimal(int(long))})


@fifty_digits
def llama3(s: RopeFields) -> Exact:
    """``_compute_llama3_parameters``: keep short wavelengths, divide long ones, smooth between."""
    f, low, high = (dec(v) for v in (s.factor, s.low_freq_factor, s.high_freq_factor))  # type: ignore[arg-type]
    orig = Decimal(s.original_max_position_embeddings)  # type: ignore[arg-type]
    low_wavelen, high_wavelen = orig / low, orig / high
    inv, kinds = [], []
    for w in default_inv_freq(s.theta, s.rotary_dim):
        wavelen = 2 * PI / w
        if wavelen < high_wavelen or (high == low and wavelen == low_wavelen):
            inv.append(w)
            kinds.append("unchanged")
        elif wavelen > low_wavelen:
            inv.append(w / f)
            kinds.append("interpolated")
        else:
            smooth = (orig / wavelen - low) / (high - low)
            inv.append((ONE - smooth) * (w / f) + smooth * w)
            kinds.append("smoothed")
    notes = {"low_freq_wavelen": low_wavelen, "high_freq_wavelen": high_wavelen}
    return Exact(inv, kinds, ONE, notes)


@fifty_digits
def proportional(s: RopeFields) -> Exact:
    """``_compute_proportional_rope_parameters``: exponent over the whole head, zeros after."""
    angles = int(s.partial_rotary_factor * s.head_dim // 2)
    f = dec(s.factor)  # type: ignore[arg-type]
    rotated = [w / f for w in default_inv_freq(s.theta, s.head_dim, angles)]
    kind = "unchanged" if f == 1 else "interpolated"
    zeros = s.head_dim // 2 - angles
    scaling = [kind] * angles + ["pass-through"] * zeros
    return Exact(rotated + [ZERO] * zeros, scaling, ONE, {})
