"""Head splits several presets share: fixed per-axis widths, Wan's and Cosmos' splits.

Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ParameterError
from .plan import AxisPlan, per_axis

__all__ = ["cogvideox_plan", "cosmos_plan", "fixed", "wan_widths"]


def fixed(
    widths: list[int], theta: float, axes: tuple[str, ...] = ("t", "h", "w")
) -> Callable[[int], AxisPlan]:
    """A plan maker for widths that fill the head exactly (FLUX: 16, 56, 56 of 128).

    >>> fixed([4, 8], 100.0, ("y", "x"))(12).strip()
    'YYXXXX'

    """

    def make(head_dim: int) -> AxisPlan:
        if head_dim != sum(widths):
            rule = f"must be {sum(widths)} (the axes {widths} fill the head)"
            raise ParameterError("head_dim", rule, head_dim)
        return per_axis(widths, theta=theta, axes=axes)

    return make


def chronoedit_widths(head_dim: int) -> list[int]:
    """Wan's widths, where ChronoEdit's cut ``d − 2·(d//3), d//3, d//3`` falls between them.

    Its table is Wan's, cut at ``d//3`` channels per spatial axis: the same cut when
    ``d % 6 < 4`` (``d`` = 128: 44, 42, 42); otherwise it splits a pair between two axes,
    which no plan of whole pairs holds.

    >>> chronoedit_widths(128)
    [44, 42, 42]

    """
    widths = wan_widths(head_dim)
    if widths[1] != head_dim // 3:
        rule = "must leave d % 6 < 4 for ChronoEdit (its d//3 cut splits a pair otherwise)"
        raise ParameterError("head_dim", rule, head_dim)
    return widths


def wan_widths(head_dim: int) -> list[int]:
    """Wan's t/h/w widths ``head − 4·(head//6)``, ``2·(head//6)``, ``2·(head//6)``.

    >>> wan_widths(128)
    [44, 42, 42]

    """
    if head_dim < 12 or head_dim % 2:
        raise ParameterError("head_dim", "must be an even integer >= 12 for Wan", head_dim)
    side = 2 * (head_dim // 6)
    return [head_dim - 2 * side, side, side]


def cosmos_plan(
    head_dim: int, rope_scale: tuple[float, float, float] = (2.0, 1.0, 1.0)
) -> AxisPlan:
    """Cosmos 1.0: Wan's widths, θ per axis ``10000 · s^(w/(w−2))`` (NTK), ``[t h w]`` twice.

    diffusers ``transformer_cosmos.py`` ``CosmosRotaryPosEmbed``: ``cat([t, h, w] * 2)`` is the
    half-split layout over the whole head.

    >>> round(cosmos_plan(128).theta[0], 4)
    20671.1557

    """
    widths = wan_widths(head_dim)
    thetas = [_ntk_theta(s, w) for s, w in zip(rope_scale, widths, strict=True)]
    return per_axis(widths, theta=thetas, layout="half-split")


def _ntk_theta(scale: float, width: int) -> float:
    """``10000 · s^(w/(w−2))``; a scale whose θ overflows or falls to 1 or below is refused."""
    try:
        theta = float(10000.0 * scale ** (width / (width - 2)))
    except OverflowError:  # 1e308 ** (32/30): named here, not an internal error
        theta = float("inf")
    if not 1.0 < theta < float("inf"):
        rule = f"must keep each axis's θ = 10000·s^(w/(w−2)) finite and > 1 (w = {width})"
        raise ParameterError("rope_scale", rule, scale)
    return theta


def cogvideox_plan(head_dim: int) -> AxisPlan:
    """CogVideoX (1.0 and 1.5): t, h, w widths d/4, 3d/8, 3d/8, θ 10000.

    >>> cogvideox_plan(64).strip().count("T")
    8

    """
    if head_dim % 8:
        raise ParameterError("head_dim", "must be a multiple of 8 for CogVideoX", head_dim)
    return per_axis([head_dim // 4, head_dim // 8 * 3, head_dim // 8 * 3], theta=10000.0)
