"""A multi-axis rotary cache against a named preset: which of the seven ways a port can differ.

(a) one shared schedule vs one per axis; (b) the split sizes and (d) the order of the axes'
pairs (the channel → axis map); (c) the layout of a pair's channels; θ per axis; (e) the
position ids (everything else agrees, the values do not); (f) the arithmetic (within a few
ulps of the exact cache, of the model's float64 or of float32 steps); (g) the values, by one of
``pecli diff``'s known mistakes (an attention factor, a query temperature, cos and sin
exchanged). Pure NumPy; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.dtypes import (
    HALF_DTYPES,
    MIN_EXPONENT,
    SIGNIFICAND_BITS,
    float32_order,
    float32_steps,
    float_dtype,
    round_once,
    storage_precision,
    ulps32,
    ulps32_between,
)
from ...core.median import unique
from ...core.multiaxis.cache import AxesSpec, axes_cache, model_frequencies
from ...core.multiaxis.plan import AxisPlan
from .reading import AxesReading

__all__ = ["Comparison", "compare_to_plan", "plan_schedule"]


@dataclass
class Comparison:
    """The verdict: ``matches`` and, if not, what differs (one line each)."""

    matches: bool
    arithmetic: str
    differences: list[str] = field(default_factory=list)


def plan_schedule(plan: AxisPlan) -> str:
    """``shared`` when every pair's ``D`` is the rotated width, else ``per-axis``."""
    return "shared" if set(plan.denominator) == {plan.rotary_dim} else "per-axis"


#: Rows of the cache each arithmetic is screened on, fewest first (spread over the whole cache).
SCREENS = (64, 1024)


def _arithmetic(
    plan: AxisPlan, ids: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], storage: str
) -> str:
    """Which arithmetic gives these values (within 1, 1 and 2 float32 ulps), or ``none``.

    Each is first tried on :data:`SCREENS` rows spread over the cache, the fewest first: a
    bound missed there is missed by the whole (the largest distance of some rows is at most
    the whole's), so a preset that differs is told apart on 64 rows, and only an arithmetic
    that fits every screen is rebuilt in full. A cache stored in float16 or bfloat16 (every
    value exact there) is compared in that dtype's ulps: each arithmetic's values rounded to
    it are within 1 of the stored ones.
    """
    screens = [_screen(pairs, ids, rows) for rows in SCREENS if rows < ids.shape[0]]
    whole = (ids, pairs)
    for mode, bound in (("exact", 1), ("float64", 1), ("float32", 2)):
        bound = 1 if storage in HALF_DTYPES else bound
        if all(_within(plan, i, p, mode, bound, storage) for i, p in (*screens, whole)):
            return mode
    port = all(_float32_port(plan, i, p) <= 2 for i, p in (*screens, whole))
    return "float32" if port else "none"


def _screen(
    pairs: tuple[np.ndarray, np.ndarray], ids: np.ndarray, rows: int
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """``rows`` rows spread evenly over the cache, first and last included: ids and pairs."""
    n = ids.shape[0]
    spread = np.linspace(0, n - 1, rows).astype(np.int64)
    sample = unique(spread)
    return ids[sample], (pairs[0][sample], pairs[1][sample])


#: How many float32 steps either side of the model's ``ω32_j`` a port's own ``pow`` may land.
PORT_ULPS = 4


def _float32_port(plan: AxisPlan, ids: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> int:
    """The largest ulp gap left when each pair's ``ω32`` may be any float32 near the model's.

    torch's float32 ``pow`` is the C library's on one machine and SLEEF's vectorised one
    (≤ 1 ulp) on another (transformers' Qwen3-VL ``inv_freq[19]``: 0.010262266 against
    0.010262267), and any engine may round either way: each pair's angles depend on its own
    ``ω`` only, so each pair keeps the float32 within :data:`PORT_ULPS` steps that fits best.
    """
    inv, axis = model_frequencies(plan, np.float32), np.array(plan.axis)
    theirs = [float32_order(p) for p in pairs]  # once, not once per step
    worst = np.full(plan.pairs, np.iinfo(np.int64).max)
    for a in sorted(set(plan.axis)):  # np.unique would import numpy.ma
        cols = np.flatnonzero(axis == a)
        # each distinct position's angles once (a grid repeats a few thousands of times),
        # gathered per token: the same float32 products, the same bits
        where, back = np.unique(ids[:, a].astype(np.float32), return_inverse=True)
        back = back.reshape(-1)
        mine = [(o[0][:, cols], o[1][:, cols]) for o in theirs]
        for k in range(-PORT_ULPS, PORT_ULPS + 1):
            angles = (where[:, None] * float32_steps(inv[cols], k)[None, :]).astype(np.float64)
            gap = np.maximum(
                ulps32_between(_gathered(np.cos(angles), back), mine[0]).max(axis=0, initial=0),
                ulps32_between(_gathered(np.sin(angles), back), mine[1]).max(axis=0, initial=0),
            )
            worst[cols] = np.minimum(worst[cols], gap)
    return int(worst.max(initial=0))


def _gathered(values: np.ndarray, back: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~pecli.core.dtypes.float32_order` of float64 ``values`` (as float32), per token."""
    order, nan = float32_order(values.astype(np.float32))
    return order[back], nan[back]


def _half_ulps(mine: np.ndarray, theirs: np.ndarray, storage: str) -> np.ndarray:
    """How many ``storage`` spacings apart ``mine`` (rounded to it once) and ``theirs`` are."""
    rounded = round_once(np.asarray(mine, np.float64), float_dtype(storage)).astype(np.float64)
    theirs = np.asarray(theirs, np.float64)
    bits, low = SIGNIFICAND_BITS[storage], MIN_EXPONENT[storage]
    size = np.maximum(np.abs(rounded), np.abs(theirs))
    exponent = np.floor(np.log2(np.maximum(size, 2.0**low)))  # the subnormals' spacing below
    spacing = np.exp2(exponent - bits + 1)
    apart = np.abs(rounded - theirs) / spacing
    return np.where(np.isnan(apart), np.inf, apart)


def _within(
    plan: AxisPlan,
    ids: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    mode: str,
    bound: int,
    storage: str,
) -> bool:
    """Whether the plan's cos and sin in this arithmetic are within ``bound`` ulps of ``pairs``.

    float32 ulps, or ``storage``'s for a cache stored in float16 or bfloat16.
    """
    if storage not in HALF_DTYPES and _same32(plan, ids, pairs, mode, storage == "float32"):
        return True  # 0 ulps apart (the usual match): no whole cache, no count of distances
    both = axes_cache(AxesSpec(plan, ids, form="half", part="both", arithmetic=mode))
    halves = ((both[:, : plan.pairs], pairs[0]), (both[:, plan.pairs :], pairs[1]))
    apart = [
        _half_ulps(mine, theirs, storage) if storage in HALF_DTYPES else ulps32(mine, theirs)
        for mine, theirs in halves
    ]
    return bool(max(a.max(initial=0) for a in apart) <= bound)


def _same32(
    plan: AxisPlan,
    ids: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    mode: str,
    float32: bool = False,
) -> bool:
    """Whether the plan's cos and sin (float32) equal ``pairs`` rounded to float32, all of them.

    Pair ``j`` turns by its axis's position alone, so each axis's pairs are built once per
    distinct position (one token each, the other axes at 0) and gathered per token: the
    values the whole cache holds, without building it. ``ulps32`` 0: NaNs are never equal.
    ``float32``: every value of ``pairs`` is a float32 already (rounding it changes
    nothing), so the few built values are widened instead of the whole cache rounded; pairs
    held in float32 are compared as they are (widening both sides is exact, changes nothing).
    """
    axis = np.array(plan.axis)
    for a in sorted(set(plan.axis)):  # np.unique would import numpy.ma
        cols = np.flatnonzero(axis == a)
        where, back = _positions(ids[:, a])
        probe = np.zeros((where.size, ids.shape[1]), dtype=ids.dtype)
        probe[:, a] = where
        both = axes_cache(AxesSpec(plan, probe, form="half", part="both", arithmetic=mode))
        run = slice(cols[0], cols[-1] + 1) if np.all(np.diff(cols) == 1) else cols
        for k, theirs in enumerate(pairs):
            mine = both[:, k * plan.pairs + cols]
            if theirs.dtype == np.float32:  # held as stored: float32 against float32
                same = np.array_equal(mine[back.reshape(-1)], theirs[:, run])
            elif float32:
                same = np.array_equal(mine.astype(np.float64)[back.reshape(-1)], theirs[:, run])
            else:
                same = np.array_equal(mine[back.reshape(-1)], theirs[:, run].astype(np.float32))
            if not same:
                return False
    return True


def _positions(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a ``(n,)`` id column (ascending) and each token's index in them.

    ``np.unique(column, return_inverse=True)``'s values (a whole cache's ids: a sort of
    every token per axis); integer ids spanning at most ``4n`` values are marked in a table
    instead, in one pass. Equal ids are equal positions either way (``-0.0`` is ``0.0``).

    >>> [a.tolist() for a in _positions(np.array([3.0, 1.0, 3.0, 2.0]))]
    [[1.0, 2.0, 3.0], [2, 0, 2, 1]]
    """
    if column.size:
        low, high = float(column.min()), float(column.max())
        if abs(low) < 2**52 and abs(high) < 2**52 and high - low < 4 * column.size:
            offset = column - low
            index = offset.astype(np.int64)
            if np.array_equal(index, offset):  # integer ids
                present = np.zeros(int(high - low) + 1, dtype=bool)
                present[index] = True
                where = low + np.flatnonzero(present).astype(column.dtype)
                return where, (np.cumsum(present) - 1)[index]
    where, back = np.unique(column, return_inverse=True)
    return where, back.reshape(-1)


def _map_differences(reading: AxesReading, plan: AxisPlan) -> list[str]:
    if len(reading.axis) != plan.pairs:
        return [f"(b) {len(reading.axis)} pairs here, {plan.pairs} in the preset"]
    read = [(j, a) for j, a in enumerate(reading.axis) if a >= 0]
    wrong = [j for j, a in read if a != plan.axis[j]]
    if not wrong:
        return []
    first, here = wrong[0], plan.axes[reading.axis[wrong[0]]]
    return [
        f"(b/d) the channel → axis map: {len(wrong)} pairs differ, the first pair {first} "
        f"turned by {here} here, by {plan.axes[plan.axis[first]]} in the preset"
    ]


def _theta_differences(reading: AxesReading, plan: AxisPlan) -> list[str]:
    out = []
    for key, theta in reading.theta.items():
        a = int(key)
        expected = [t for t, x in zip(plan.theta, plan.axis, strict=True) if x == a]
        if expected and abs(theta / expected[0] - 1) > 1e-3:
            out.append(f"θ of axis {plan.axes[a]}: {theta:.6g} here, {expected[0]:g} in the preset")
    return out


def _values_differ(plan: AxisPlan, ids: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> str:
    """Layout, map and θ agree, the values do not: the known mistake (diff's causes), or ids.

    The preset's cache (A, exact) and this one (B) go through ``pecli diff``'s causes
    (:func:`~pecli.analysis.ports.causes.named_causes`) as ``[cos | sin]`` tables of pairs: an
    attention factor, a query temperature, cos and sin exchanged, a storage dtype are named.
    Only the first ``HEAD_ROWS`` tokens are built, the rows the causes test.
    """
    from ..ports.causes import named_causes
    from ..ports.causes.tables import HEAD_ROWS

    # the rows causes test, in float64 (a float32 cache's pairs are held as stored)
    theirs = np.concatenate([p[:HEAD_ROWS] for p in pairs], axis=1).astype(np.float64)
    for mode in ("exact", "float32"):  # the port's arithmetic, before or after its mistake
        spec = AxesSpec(plan, ids[:HEAD_ROWS], form="half", part="both", arithmetic=mode)
        mine = axes_cache(spec)
        named = named_causes(mine, theirs, storage_precision(theirs))
        if named:
            return f"(g) the values (A the preset's, B this cache): {named[0][1]}"
    return (
        "(e) layout, map and θ agree but the values do not: the position ids differ "
        "(offsets, 1-based ids, text before or after the grid)"
    )


def compare_to_plan(
    reading: AxesReading,
    plan: AxisPlan,
    ids: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    storage: str | None = None,
) -> Comparison:
    """What differs between a read cache (per-pair ``pairs``) and the preset's plan.

    ``storage``: the cos values' :func:`~pecli.core.dtypes.storage_precision`, if known (it
    reads the whole cache; every candidate of one cache shares it).
    """
    differences = []
    if reading.layout not in ("complex", plan.layout):  # a complex cache has no channel layout
        differences.append(f"(c) layout {reading.layout} here, {plan.layout} in the preset")
    expected = plan_schedule(plan)
    if reading.schedule not in ("unknown", expected):
        differences.append(f"(a) a {reading.schedule} schedule here, {expected} in the preset")
    differences += _map_differences(reading, plan) + _theta_differences(reading, plan)
    same_shape = pairs[0].shape == (ids.shape[0], plan.pairs)
    arithmetic = "none"
    if same_shape:
        arithmetic = _arithmetic(plan, ids, pairs, storage or storage_precision(pairs[0]))
    if arithmetic == "none" and not differences:
        differences.append(_values_differ(plan, ids, pairs))
    return Comparison(not differences and arithmetic != "none", arithmetic, differences)
