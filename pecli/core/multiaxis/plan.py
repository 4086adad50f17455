"""The channel → axis map of a multi-axis rotary embedding, and its exact frequencies.

A multi-axis rotary embedding splits the ``h = rotary_dim/2`` rotary pairs of a head among
position axes (t, h, w, …) and rotates pair ``j`` by ``pos[axis(j)] · ω_j``. Every scheme is an
:class:`AxisPlan`: per pair, the axis, and ``ω_j = θ_j^(-2·k_j/D_j)`` — a schedule per axis over
the axis's own width (FLUX, Wan: ``k`` restarts at 0, ``D`` = that width) or one shared schedule
(Qwen-VL M-RoPE, Pixtral: ``k`` = the pair's index in it, ``D`` = its width) — plus where each
pair's two channels sit (``interleaved`` ``(2j, 2j+1)``, ``half-split`` ``(j, j+h)`` over the
whole rotated width, or ``half-split`` inside each axis block). Frequencies are evaluated in
50-digit decimal arithmetic and rounded once to float64, with their residual (exact − float64),
as for 1-D caches (:mod:`pecli.core.rope.frequencies`). Pure NumPy and :mod:`decimal`; no I/O.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ..errors import ParameterError
from ..rope import _exact as ex
from ..rope.number_rules import check_theta
from ..turns import rational_power

__all__ = [
    "LAYOUTS",
    "AxisPlan",
    "channel_pairs",
    "check_layout",
    "per_axis",
    "plan_frequencies",
    "shared",
]

#: Where the two channels of pair ``j`` sit: ``(2j, 2j+1)``, ``(j, j+h)``, or ``(j, j+h)``
#: inside each contiguous block of one axis's pairs (Allegro-style).
LAYOUTS = ("interleaved", "half-split", "half-split-per-axis")


@dataclass(frozen=True)
class AxisPlan:
    """Which axis drives each rotary pair, and the pair's frequency ``θ^(-2k/D)``.

    Attributes
    ----------
    axes : tuple of str
        The position axes' names, e.g. ``("t", "h", "w")``; position ids have one column each.
    axis : tuple of int
        Per pair ``j`` (in the order of the half-width vector): the index into ``axes``.
    index, denominator : tuple of int
        Per pair: ``k`` and ``D`` of ``ω = θ^(-2k/D)``.
    theta : tuple of float
        Per pair: ``θ`` (taken as the exact value of the float64).
    layout : str
        One of :data:`LAYOUTS`.
    schedule : str
        ``inverse``: ``ω = θ^(-2k/D)``; ``ladder`` or ``ladder-float32``: ``ω = (π/2) ·
        θ^(k/D)``, LTX's ascending ladder (:mod:`.ladder`; the second computed in float32 by
        the model). Either way a pair with ``D = 0`` is padding: ``ω = 0``, so
        cos 1 and sin 0 whatever the position (LTX's front channels).

    """

    axes: tuple[str, ...]
    axis: tuple[int, ...]
    index: tuple[int, ...]
    denominator: tuple[int, ...]
    theta: tuple[float, ...]
    layout: str = "interleaved"
    schedule: str = "inverse"

    @property
    def pairs(self) -> int:
        """``h``, the number of rotary pairs."""
        return len(self.axis)

    @property
    def rotary_dim(self) -> int:
        """``2h``, the rotated width."""
        return 2 * len(self.axis)

    def strip(self) -> str:
        """The channel → axis map as one letter per pair, e.g. ``TTHHWW`` (first letter, upper).

        Examples
        --------
        >>> per_axis([2, 4], theta=100.0, axes=("x", "y")).strip()
        'XYY'

        Padding pairs (``D = 0``) are ``-``.

        """
        return "".join(
            self.axes[a][0].upper() if d else "-"
            for a, d in zip(self.axis, self.denominator, strict=True)
        )


def check_layout(layout: str) -> str:
    """``layout`` if it is one of :data:`LAYOUTS`, else a :class:`ParameterError`."""
    if layout not in LAYOUTS:
        raise ParameterError("layout", f"must be one of {', '.join(LAYOUTS)}", layout)
    return layout


def per_axis(
    widths: Sequence[int],
    *,
    theta: float | Sequence[float],
    axes: Sequence[str] = ("t", "h", "w"),
    layout: str = "interleaved",
) -> AxisPlan:
    """A schedule per axis over its own width, axis blocks contiguous (FLUX, Wan, HunyuanVideo).

    Parameters
    ----------
    widths : sequence of int
        Rotated channels per axis, each even and >= 2 (FLUX.1: ``[16, 56, 56]``).
    theta : float or sequence of float, keyword-only
        One ``θ`` for all axes or one per axis (> 1).
    axes : sequence of str, keyword-only
        Names, one per width.
    layout : str, keyword-only
        One of :data:`LAYOUTS`.

    Returns
    -------
    AxisPlan
        Pair ``j`` of axis ``a``'s block: ``ω = θ_a^(-2k/width_a)``, ``k = 0 … width_a/2 − 1``.

    Raises
    ------
    ParameterError
        An odd or non-positive width, a θ <= 1, as many names as widths not given.

    References
    ----------
    diffusers ``transformer_flux.py`` ``FluxPosEmbed``; black-forest-labs/flux
    ``src/flux/modules/layers.py`` ``EmbedND`` and ``src/flux/math.py`` ``rope``.

    Examples
    --------
    >>> plan = per_axis([16, 56, 56], theta=10000.0)
    >>> plan.pairs, plan.index[8:10], plan.denominator[8]
    (64, (0, 1), 56)

    """
    widths = [_check_width(w) for w in widths]
    thetas = np.atleast_1d(theta).tolist()
    thetas = thetas * len(widths) if np.ndim(theta) == 0 else thetas
    if not widths or len(thetas) != len(widths) or len(axes) != len(widths):
        rule = "needs one width per axis (and one θ per axis when θ is a list)"
        raise ParameterError("widths", rule, list(widths))
    thetas = [check_theta(t) for t in thetas]
    axis, index, den, th = [], [], [], []
    for a, (w, t) in enumerate(zip(widths, thetas, strict=True)):
        axis += [a] * (w // 2)
        index += list(range(w // 2))
        den += [w] * (w // 2)
        th += [t] * (w // 2)
    return AxisPlan(
        tuple(axes), tuple(axis), tuple(index), tuple(den), tuple(th), check_layout(layout)
    )


def shared(
    assign: Sequence[int],
    *,
    theta: float,
    axes: Sequence[str],
    order: Sequence[int] | None = None,
    layout: str = "half-split",
) -> AxisPlan:
    """One schedule ``θ^(-2k/D)`` shared by all axes; ``assign[j]``: the axis of pair ``j``.

    ``order[j]`` is the schedule index ``k`` of pair ``j`` (default ``j``: Qwen-VL M-RoPE;
    Pixtral puts the even ``k`` first, then the odd); ``D = 2·len(assign)``.

    Examples
    --------
    >>> plan = shared([0, 1, 0, 1], theta=100.0, axes=("h", "w"), order=[0, 2, 1, 3])
    >>> plan.strip(), plan.index
    ('HWHW', (0, 2, 1, 3))

    """
    h = len(assign)
    order = list(range(h)) if order is None else [int(k) for k in order]
    if h == 0 or len(set(order)) != h or not all(0 <= k < h for k in order):
        raise ParameterError("order", "must list distinct schedule indices k < D/2", order)
    if any(not 0 <= a < len(axes) for a in assign):
        raise ParameterError("assign", f"must name axes 0 … {len(axes) - 1}", list(assign))
    t = check_theta(theta)
    return AxisPlan(
        tuple(axes),
        tuple(int(a) for a in assign),
        tuple(order),
        (2 * h,) * h,
        (t,) * h,
        check_layout(layout),
    )


def _check_width(width: object) -> int:
    if not isinstance(width, int | np.integer) or width < 2 or width % 2:
        raise ParameterError("widths", "must be even integers >= 2", width)
    return int(width)


@functools.lru_cache(maxsize=64)
def plan_frequencies(plan: AxisPlan) -> tuple[np.ndarray, np.ndarray]:
    """``(ω, residual)`` per pair: the float64 nearest ``θ^(-2k/D)`` and exact minus it.

    Returns
    -------
    tuple of numpy.ndarray
        Two ``(h,)`` float64 arrays (read-only).

    Examples
    --------
    >>> omega, _ = plan_frequencies(per_axis([16], theta=256.0, axes=("t",)))
    >>> omega.tolist() == [2.0**-i for i in range(8)]  # 256^(-2i/16) = 2^-i exactly
    True

    """
    exact = {}
    for t, k, d in set(zip(plan.theta, plan.index, plan.denominator, strict=True)):
        exact[t, k, d] = _exact_frequency(t, k, d, plan.schedule)
    pairs = [
        ex.to_float_pair(exact[key])
        for key in zip(plan.theta, plan.index, plan.denominator, strict=True)
    ]
    omega = np.array([p[0] for p in pairs], dtype=np.float64)
    residual = np.array([p[1] for p in pairs], dtype=np.float64)
    omega.flags.writeable = residual.flags.writeable = False
    return omega, residual


def plan_turn_rates(plan: AxisPlan) -> dict[int, Fraction]:
    """Pairs turning by a rational number ``r`` of half turns a position: ``{j: r}``.

    A ladder's ``(π/2)·θ^(k/D)`` does when ``θ^(k/D)`` is rational (``k = 0``: ``r = 1/2``),
    and is then exactly 0 or ±1 at whole quarter turns (:mod:`pecli.core.turns`); the other
    schedules turn by ``θ^(-2k/D)`` radians, never a rational multiple of π but at 0.

    >>> from .ladder import ladder_plan
    >>> plan_turn_rates(ladder_plan(24, ("t",)))[0]
    Fraction(1, 2)

    """
    return dict(_turn_rates(plan.theta, plan.index, plan.denominator, plan.schedule))


@functools.lru_cache(maxsize=16)
def _turn_rates(
    theta: tuple[float, ...], index: tuple[int, ...], denominator: tuple[int, ...], schedule: str
) -> tuple[tuple[int, Fraction], ...]:
    if not schedule.startswith("ladder"):
        return ()
    found = []
    for j, (t, k, d) in enumerate(zip(theta, index, denominator, strict=True)):
        power = rational_power(t, Fraction(k, d)) if d else None
        if power is not None:
            found.append((j, power / 2))
    return tuple(found)


def _exact_frequency(theta: float, k: int, d: int, schedule: str) -> Decimal:
    """``θ^(-2k/D)`` or ``(π/2) · θ^(k/D)`` to 50 digits; 0 for a padding pair (``D = 0``)."""
    if d == 0:
        return Decimal(0)
    if schedule.startswith("ladder"):
        power = ex.inv_base(ex.dec(theta), ex.CTX.divide(Decimal(-k), Decimal(d)))
        return ex.CTX.multiply(power, ex.CTX.divide(ex.PI, Decimal(2)))
    return ex.inv_base(ex.dec(theta), ex.CTX.divide(Decimal(2 * k), Decimal(d)))


def channel_pairs(plan: AxisPlan) -> tuple[np.ndarray, np.ndarray]:
    """The two channels ``(a_j, b_j)`` of each pair in the rotated width, per the layout.

    Examples
    --------
    >>> import dataclasses
    >>> plan = per_axis([2, 4], theta=100.0, axes=("x", "y"))
    >>> [c.tolist() for c in channel_pairs(plan)]
    [[0, 2, 4], [1, 3, 5]]
    >>> [c.tolist() for c in channel_pairs(dataclasses.replace(plan, layout="half-split"))]
    [[0, 1, 2], [3, 4, 5]]
    >>> [c.tolist() for c in channel_pairs(dataclasses.replace(plan, layout="half-split-per-axis"))]
    [[0, 2, 3], [1, 4, 5]]

    """
    h = plan.pairs
    j = np.arange(h)
    if plan.layout == "interleaved":
        return 2 * j, 2 * j + 1
    if plan.layout == "half-split":
        return j, j + h
    first, second = np.empty(h, dtype=np.int64), np.empty(h, dtype=np.int64)
    start = 0
    for a, size in _blocks(plan.axis):
        k = np.arange(size)
        first[start : start + size] = 2 * start + k
        second[start : start + size] = 2 * start + size + k
        start += size
        del a
    return first, second


def _blocks(axis: tuple[int, ...]) -> list[tuple[int, int]]:
    """Runs of equal axis: ``[(axis, length), …]``."""
    runs: list[tuple[int, int]] = []
    for a in axis:
        if runs and runs[-1][0] == a:
            runs[-1] = (a, runs[-1][1] + 1)
        else:
            runs.append((a, 1))
    return runs
