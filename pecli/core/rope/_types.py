"""One exact formula per ``rope_type`` (transformers 5, ``modeling_rope_utils.py``).

Each function takes a checked :class:`~pecli.core.rope.spec.RopeSpec` and returns the exact
inverse frequencies (decimals), each pair's scaling, the attention factor and derived notes.
The order of the cases and every default follow the source function named in each docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from . import _exact as ex
from .spec import RopeSpec

__all__ = ["COMPUTE", "default_inv_freq", "mscale"]

_Result = tuple[list[Decimal], list[str], Decimal, dict[str, Decimal]]
C = ex.CTX
ONE = Decimal(1)


def default_inv_freq(theta: float, dim: int, count: int | None = None) -> list[Decimal]:
    """``1/θ^(2i/dim)`` for ``i < count`` (default ``dim/2``).

    transformers: each model's ``compute_default_rope_parameters``.
    """
    t = ex.dec(theta)
    n = dim // 2 if count is None else count
    return [ex.inv_base(t, C.divide(Decimal(2 * i), Decimal(dim))) for i in range(n)]


def mscale(scale: Decimal, m: Decimal = ONE) -> Decimal:
    """YaRN's ``get_mscale``: 1 if scale <= 1, else ``0.1·m·ln(scale) + 1``."""
    if scale <= 1:
        return ONE
    return C.add(C.multiply(C.multiply(Decimal("0.1"), m), ex.ln(scale)), ONE)


def _default(s: RopeSpec) -> _Result:
    inv = default_inv_freq(s.theta, s.rotary_dim)
    return inv, ["unchanged"] * len(inv), ONE, {}


def _linear(s: RopeSpec) -> _Result:
    """``_compute_linear_scaling_rope_parameters``: every frequency divided by the factor."""
    f = ex.dec(s.factor)  # type: ignore[arg-type]
    inv = [C.divide(w, f) for w in default_inv_freq(s.theta, s.rotary_dim)]
    return inv, ["interpolated" if f != 1 else "unchanged"] * len(inv), ONE, {}


def _dynamic(s: RopeSpec) -> _Result:
    """``_compute_dynamic_ntk_parameters``: θ' = θ·(f·L/max − (f−1))^(dim/(dim−2))."""
    f, top = ex.dec(s.factor), Decimal(s.max_position_embeddings)  # type: ignore[arg-type]
    length = Decimal(max(s.seq_len or 0, s.max_position_embeddings or 0))
    grow = C.subtract(C.divide(C.multiply(f, length), top), C.subtract(f, ONE))
    power = C.divide(Decimal(s.rotary_dim), Decimal(s.rotary_dim - 2))
    theta = C.multiply(ex.dec(s.theta), C.power(grow, power)) if grow != 1 else ex.dec(s.theta)
    dim = Decimal(s.rotary_dim)
    inv = [ex.inv_base(theta, C.divide(Decimal(2 * i), dim)) for i in range(s.rotary_dim // 2)]
    kind = "unchanged" if grow == 1 else "rescaled"
    return inv, [kind] * len(inv), ONE, {"theta_effective": theta, "seq_len": length}


def _factor_or_ratio(s: RopeSpec) -> Decimal:
    if s.factor is not None:
        return ex.dec(s.factor)
    top, orig = s.max_position_embeddings, s.original_max_position_embeddings
    return C.divide(Decimal(top), Decimal(orig))  # type: ignore[arg-type]


def _correction(s: RopeSpec, rotations: float) -> Decimal:
    """``find_correction_dim``: dim·ln(L_orig/(2π·r)) / (2·ln θ)."""
    orig = Decimal(s.original_max_position_embeddings)  # type: ignore[arg-type]
    inner = C.divide(orig, C.multiply(ex.dec(rotations), C.multiply(2, ex.PI)))
    return C.divide(
        C.multiply(Decimal(s.rotary_dim), ex.ln(inner)), C.multiply(2, ex.ln(ex.dec(s.theta)))
    )


def _yarn(s: RopeSpec) -> _Result:
    """``_compute_yarn_parameters``: a linear ramp between extrapolation and interpolation."""
    f = _factor_or_ratio(s)
    low = _correction(s, s.beta_fast or 32)  # `or`: transformers treats 0 as unset
    high = _correction(s, s.beta_slow or 1)
    raw = {"correction_low": low, "correction_high": high, "factor": f}
    if s.truncate:
        low, high = (
            Decimal(int(low.to_integral_value("ROUND_FLOOR"))),
            high.to_integral_value("ROUND_CEILING"),
        )
    low, high = max(low, Decimal(0)), min(high, Decimal(s.rotary_dim - 1))
    if low == high:
        high = C.add(high, Decimal("0.001"))
    inv, kinds = [], []
    for i, w in enumerate(default_inv_freq(s.theta, s.rotary_dim)):
        ramp = min(
            max(C.divide(C.subtract(Decimal(i), low), C.subtract(high, low)), Decimal(0)), ONE
        )
        inv.append(C.add(C.multiply(C.divide(w, f), ramp), C.multiply(w, C.subtract(ONE, ramp))))
        kinds.append("unchanged" if ramp == 0 else "interpolated" if ramp == 1 else "smoothed")
    notes = {**raw, "ramp_low": low, "ramp_high": high}
    return inv, kinds, _yarn_attention(s, f), notes


def _yarn_attention(s: RopeSpec, f: Decimal) -> Decimal:
    if s.attention_factor is not None:
        return ex.dec(s.attention_factor)
    if s.mscale and s.mscale_all_dim:
        return C.divide(mscale(f, ex.dec(s.mscale)), mscale(f, ex.dec(s.mscale_all_dim)))
    return mscale(f)


def _longrope(s: RopeSpec) -> _Result:
    """``_compute_longrope_parameters``: per-pair factors, long ones past L_orig."""
    orig = s.original_max_position_embeddings
    long = bool(s.seq_len and s.seq_len > orig)  # type: ignore[operator]
    ext = s.long_factor if long else s.short_factor
    factors = tuple(ext or ())
    base = default_inv_freq(s.theta, s.rotary_dim)
    inv = [C.divide(w, ex.dec(e)) for w, e in zip(base, factors, strict=True)]
    kinds = ["unchanged" if e == 1 else "rescaled" for e in factors]
    f = _factor_or_ratio(s)
    if s.attention_factor is not None:
        attention = ex.dec(s.attention_factor)
    elif f <= 1:
        attention = ONE
    else:
        attention = C.sqrt(C.add(ONE, C.divide(ex.ln(f), ex.ln(Decimal(orig)))))  # type: ignore[arg-type]
    return inv, kinds, attention, {"factor": f, "long_factors_used": Decimal(int(long))}


def _llama3(s: RopeSpec) -> _Result:
    """``_compute_llama3_parameters``: keep short wavelengths, divide long ones, smooth between."""
    f, low, high = (ex.dec(v) for v in (s.factor, s.low_freq_factor, s.high_freq_factor))  # type: ignore[arg-type]
    orig = Decimal(s.original_max_position_embeddings)  # type: ignore[arg-type]
    low_wavelen, high_wavelen = C.divide(orig, low), C.divide(orig, high)
    inv, kinds = [], []
    for w in default_inv_freq(s.theta, s.rotary_dim):
        wavelen = C.divide(C.multiply(2, ex.PI), w)
        if wavelen < high_wavelen:
            inv.append(w)
            kinds.append("unchanged")
        elif wavelen > low_wavelen:
            inv.append(C.divide(w, f))
            kinds.append("interpolated")
        else:
            smooth = C.divide(C.subtract(C.divide(orig, wavelen), low), C.subtract(high, low))
            inv.append(
                C.add(C.multiply(C.subtract(ONE, smooth), C.divide(w, f)), C.multiply(smooth, w))
            )
            kinds.append("smoothed")
    return inv, kinds, ONE, {"low_freq_wavelen": low_wavelen, "high_freq_wavelen": high_wavelen}


def _proportional(s: RopeSpec) -> _Result:
    """``_compute_proportional_rope_parameters``: exponent over the whole head, zeros after."""
    angles = int(s.partial_rotary_factor * s.head_dim // 2)
    f = ex.dec(s.factor if s.factor is not None else 1.0)
    rotated = [C.divide(w, f) for w in default_inv_freq(s.theta, s.head_dim, angles)]
    kind = "unchanged" if f == 1 else "interpolated"
    zeros = s.head_dim // 2 - angles
    return rotated + [Decimal(0)] * zeros, [kind] * angles + ["pass-through"] * zeros, ONE, {}


COMPUTE: dict[str, Callable[[RopeSpec], _Result]] = {
    "default": _default,
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "longrope": _longrope,
    "llama3": _llama3,
    "proportional": _proportional,
}
