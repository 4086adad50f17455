"""A multi-axis rotary cache read back: layout, which axis turns each pair, ω, θ per axis.

Given a cache's cos and sin (one row per token) and the tokens' position ids, the layout is the
one whose paired channels hold equal values; for each axis, two tokens whose ids differ by one
on that axis only give every pair's turn ``Δ_j`` (``ω_j`` for the pairs of that axis, 0 for
the others). The measured ``ω`` then tell the schedule: one geometric sequence over all pairs
(a shared schedule, Qwen-VL, Pixtral: θ from its ratio over ``D = rotary_dim``) or one per
axis restarting at ``ω = 1`` (FLUX, Wan: θ per axis over the axis's width). Pure NumPy on
arrays; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import ParameterError
from ...core.rope.forms import pair_columns, pair_layouts

__all__ = ["AxesReading", "chosen_pairs", "pair_values", "paired_layouts", "read_axes"]

#: A pair counts as turned by an axis when its measured turn exceeds this (radians).
MOVED = 1e-4
#: Two tokens ``(u, v)`` and how many steps ``k`` apart they are.
Step = tuple[int, int, float]
#: Only pairs whose ω exceeds this fit θ (float32 phases pin the slower ones poorly).
FIT_FLOOR = 1e-3


@dataclass
class AxesReading:
    """What a cache says about its multi-axis rotary embedding.

    Attributes
    ----------
    layout : str
        ``interleaved``, ``half-split``, or ``complex`` (a complex cache has no layout).
    axis : list of int
        Per pair, the axis whose unit step turns it, -1 when no axis of these ids does.
    omega : numpy.ndarray
        Per pair, the measured ω (NaN where ``axis`` is -1).
    schedule : str
        ``shared`` (one geometric sequence over all pairs), ``per-axis`` (each axis restarts at
        ω = 1) or ``unknown``.
    theta : dict of str to float
        The fitted θ, per axis name (``shared``: the same for all).
    notes : list of str
        What could not be read.

    """

    layout: str
    axis: list[int]
    omega: np.ndarray
    schedule: str = "unknown"
    theta: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def strip(self, axes: tuple[str, ...]) -> str:
        """One letter per pair (``?`` for an unmoved pair)."""
        return "".join(axes[a][0].upper() if a >= 0 else "?" for a in self.axis)


def pair_values(
    cos: np.ndarray, sin: np.ndarray, prefer: str | None = None
) -> tuple[str, np.ndarray, np.ndarray]:
    """The layout whose paired channels agree, and the per-pair cos and sin ``(n, h)``.

    When both layouts fit (the pairs' values repeat with period ``h/2``), ``prefer`` (a
    preset's layout) is read, else half-split (:func:`~pecli.core.rope.forms.pair_layouts`).

    Raises
    ------
    ParameterError
        (as ``file``) when neither layout pairs the channels, or the widths are odd.

    """
    cos, sin = np.asarray(cos, np.float64), np.asarray(sin, np.float64)
    return chosen_pairs(cos, sin, paired_layouts(cos, sin), prefer)


def paired_layouts(cos: np.ndarray, sin: np.ndarray) -> tuple[str, ...]:
    """The layouts whose paired channels agree in both ``(n, w)`` tables (each compared whole).

    Raises
    ------
    ParameterError
        (as ``file``) as :func:`pair_values`.

    >>> paired_layouts(np.ones((2, 4)), np.zeros((2, 4)))
    ('half-split', 'interleaved')

    """
    if cos.shape != sin.shape or cos.ndim != 2 or cos.shape[1] % 2:
        raise ParameterError("file", "must hold cos and sin of one even width", cos.shape)
    return pair_layouts((cos, sin), "must hold the cos and sin of a rotary cache")


def chosen_pairs(
    cos: np.ndarray, sin: np.ndarray, fits: tuple[str, ...], prefer: str | None
) -> tuple[str, np.ndarray, np.ndarray]:
    """:func:`pair_values` once the layouts that fit are known: ``prefer`` if it fits."""
    layout = prefer if prefer in fits else fits[0]
    return layout, pair_columns(cos, layout), pair_columns(sin, layout)


def _steps(ids: np.ndarray, direction: np.ndarray, limit: int = 1 << 18) -> list[Step]:
    """Token pairs ``(u, v, k)`` with ``ids[v] − ids[u] = k·direction``: the shortest, the longest.

    Tokens are grouped by their ids less their step along ``direction`` (groups in the order
    of their first token); in a group each position is its first token's. The longest step is
    the first group's widest; the shortest (1, or a fraction for linspace ids: CogVideoX,
    Allegro) the first of the smallest gaps between neighbouring positions of a group.
    """
    head = ids[:limit]
    if not head.shape[0]:
        return []
    along = head[:, int(np.flatnonzero(direction)[0])]
    g = _groups(head - along[:, None] * direction + 0.0)
    packed = _packed([g, along])  # by group, then position, then token: one integer key
    order = (
        np.lexsort((np.arange(g.size), along, g))
        if packed is None
        else np.argsort(packed, kind="stable")
    )
    g, a, i = g[order], along[order] + 0.0, order
    keep = np.r_[True, (g[1:] != g[:-1]) | (a[1:] != a[:-1])]  # a position's first token
    g, a, i = g[keep], a[keep], i[keep]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], g.size] - 1
    wide = int(np.argmax(a[ends] - a[starts]))
    longest = (int(i[starts[wide]]), int(i[ends[wide]]), float(a[ends[wide]] - a[starts[wide]]))
    inside = np.flatnonzero(g[1:] == g[:-1])  # neighbouring positions of one group
    unit = None
    if inside.size:
        k = int(inside[np.argmin((a[1:] - a[:-1])[inside])])
        unit = (int(i[k]), int(i[k + 1]), float(a[k + 1] - a[k]))
    return [step for step in (unit, longest) if step is not None and step[2] > 0]


def _groups(keys: np.ndarray) -> np.ndarray:
    """Per row, its group of equal rows, groups numbered in the order of their first row."""
    n = keys.shape[0]
    packed = _packed(list(keys.T))
    if packed is None:
        order = np.lexsort((np.arange(n), *keys.T[::-1]))  # by the rows, then the row number
        ranked = keys[order]
        new = np.r_[True, np.any(ranked[1:] != ranked[:-1], axis=1)]
    else:  # the same order: the rows' integer key, ties by row number (a stable sort)
        order = np.argsort(packed, kind="stable")
        ranked = packed[order]
        new = np.r_[True, ranked[1:] != ranked[:-1]]
    first = order[new]  # each group's first row, groups in sorted order
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    g = np.empty(n, dtype=np.int64)
    g[order] = rank[np.cumsum(new) - 1]
    return g


def _packed(columns: list[np.ndarray]) -> np.ndarray | None:
    """One int64 key per row ordering the rows as ``columns`` do (the first most significant).

    Each column's value less its least, in mixed radix: equal rows share a key and the keys
    sort as the rows would, so one stable integer sort replaces a lexsort over the columns.
    ``None`` unless every value is an integer below 2^53 in size and the radices' product
    stays below 2^62 (fractional ids: the lexsort).
    """
    key = np.zeros(columns[0].shape[0], dtype=np.int64)
    total = 1
    for column in columns:
        if not column.size:
            return None
        low, high = column.min(), column.max()
        if max(abs(low), abs(high)) >= 2**53 or not np.array_equal(column, np.floor(column)):
            return None
        span = int(high - low) + 1
        total *= span
        if total >= 2**62:
            return None
        key = key * span + (column - low).astype(np.int64)
    return key


class _Angles:
    """Each token's per-pair angle ``arctan2(sin, cos)``, computed for the tokens asked only.

    The steps compare a few tokens: the angles of every token (an ``arctan2`` of the whole
    cache) are never needed. Each row is the same view of the same arrays as a whole-cache
    ``arctan2`` would walk, so the same bits. A float32 cache's rows are widened to float64
    first, each in the same strides (in elements) as a float64 copy of the cache's.
    """

    def __init__(self, cos: np.ndarray, sin: np.ndarray) -> None:
        self.cos, self.sin = cos, sin
        self.rows: dict[int, np.ndarray] = {}

    def __getitem__(self, token: int) -> np.ndarray:
        if token not in self.rows:
            self.rows[token] = np.arctan2(_widened(self.sin[token]), _widened(self.cos[token]))
        return self.rows[token]


def _widened(row: np.ndarray) -> np.ndarray:
    """A 1-D row as float64, every ``k``-th element of a buffer where the row's step is ``k``.

    NumPy's ufuncs may take another loop for a contiguous row than for a strided one: the
    float64 row walks the same steps as that of a float64 copy of the whole table.
    """
    if row.dtype == np.float64:
        return row
    step = abs(row.strides[0]) // row.itemsize if row.size > 1 else 1
    out = np.empty(row.size * step)[::step]
    out[:] = row
    return out


def _turns(angle: _Angles, steps: list[Step]) -> np.ndarray:
    """Per pair, ω measured from the steps (the unit one, else the longest), 0 if unmoved.

    A shortest step ``k`` above π (CogVideoX's ids 7.5 apart) turns the fast pairs by more
    than π: their ω is one of ``(2πm ± turn)/k``, chosen by :func:`_unalias`.
    """
    omega = np.zeros(angle.cos.shape[1])
    for u, v, k in reversed(steps):  # the longest first; the unit step overrides where it sees
        turn = np.abs(np.angle(np.exp(1j * (angle[v] - angle[u]))))
        seen = turn > MOVED
        omega[seen] = turn[seen] / k
    if steps and steps[0][2] > math.pi:
        u, v, k = steps[0]
        turn = np.abs(np.angle(np.exp(1j * (angle[v] - angle[u]))))
        omega = _unalias(omega, turn, k)
    return omega


def _unalias(omega: np.ndarray, turn: np.ndarray, k: float) -> np.ndarray:
    """The fast pairs' ω from a step ``k > π``, slowest pairs first along a geometric sequence.

    Pairs below ``π/k`` are read as measured; each faster one (in pair order, ω falling) takes
    the alias ``(2πm ± turn)/k`` (at most 1) nearest the ratio of the two slower pairs.
    """
    moved = np.flatnonzero(omega > 0)
    out = omega.copy()
    m = np.arange(math.ceil(k / (2 * math.pi)) + 1)
    for back, j in enumerate(moved[::-1][2:]):
        slower = moved[::-1][back : back + 2][::-1]  # the next two pairs, faster first
        a, b = out[slower[0]], out[slower[1]]  # both > 0: measured, or an alias kept > 0
        guess = a * a / b
        options = np.concatenate([2 * math.pi * m + turn[j], 2 * math.pi * m - turn[j]]) / k
        options = options[(options > 0) & (options <= 1 + 1e-3)]
        if guess * k > math.pi and options.size:
            out[j] = options[np.argmin(np.abs(np.log(options / guess)))]
    return out


def read_axes(cos: np.ndarray, sin: np.ndarray, ids: np.ndarray, *, layout: str) -> AxesReading:
    """Per pair, the axis that turns it and its ω; then the schedule and θ per axis.

    ``cos`` and ``sin``: per-pair ``(n, h)`` (:func:`pair_values`); ``ids``: ``(n, axes)``.
    An axis with no two tokens apart on it alone is read from the tokens that step every
    axis at once (text tokens), if it is the only one.
    """
    angle = _Angles(cos, sin)
    h, axes = cos.shape[1], ids.shape[1]
    axis, omega, missing, floor = [-1] * h, np.full(h, np.nan), [], 0.0
    for a in range(axes):
        steps = _steps(ids, np.eye(axes)[a])
        measured = _turns(angle, steps) if steps else np.zeros(h)
        missing += [] if steps else [a]
        floor = max(floor, 10 * MOVED / max([k for *_, k in steps], default=np.inf))
        for j in np.flatnonzero(measured > 0):
            axis[j], omega[j] = a, measured[j]
    diagonal = _steps(ids, np.ones(axes)) if len(missing) == 1 and axes > 1 else []
    through = _turns(angle, diagonal) if diagonal else np.zeros(h)
    for j in np.flatnonzero(through > floor):  # the other axes' steps would have seen it
        if axis[j] < 0:
            axis[j], omega[j] = missing[0], through[j]
    notes = [f"axis {a}: no two tokens apart on it alone" for a in missing]
    reading = AxesReading(layout, axis, omega, notes=notes)
    _fit_schedule(reading, axes)
    return reading


def _ratio(values: np.ndarray) -> float | None:
    """The common ratio of a geometric sequence (least squares on the logs), if it is one."""
    good = values[values > FIT_FLOOR]
    if good.size < 2:
        return None
    k = np.arange(good.size)
    slope, intercept = np.polyfit(k, np.log(good), 1)
    fit = np.exp(intercept + slope * k)
    return float(np.exp(slope)) if np.allclose(fit, good, rtol=1e-3) else None


def _fit_schedule(reading: AxesReading, axes: int) -> None:
    """Shared (one sequence through every pair, by size) or per axis (each restarts at 1)."""
    known = np.flatnonzero(np.isfinite(reading.omega))
    ordered = np.sort(reading.omega[known])[::-1]
    shared = _ratio(ordered) if ordered.size and abs(ordered[0] - 1) < 1e-3 else None
    if shared is not None and np.count_nonzero(np.abs(ordered - 1) < 1e-3) == 1:
        reading.schedule = "shared"
        theta = shared ** (-len(reading.axis))  # ω_k = θ^(-2k/D), D = 2h
        reading.theta = {str(a): theta for a in sorted({x for x in reading.axis if x >= 0})}
        return
    thetas = {}
    for a in range(axes):
        mine = np.sort(reading.omega[[j for j, x in enumerate(reading.axis) if x == a]])[::-1]
        r = _ratio(mine) if mine.size and abs(mine[0] - 1) < 1e-3 else None
        if r is not None:
            thetas[str(a)] = r ** (-_axis_pairs(reading.axis, a))  # ω_k = θ^(-2k/D_a)
    if thetas and len(thetas) == len({x for x in reading.axis if x >= 0}):
        reading.schedule, reading.theta = "per-axis", thetas


def _axis_pairs(axis: list[int], a: int) -> int:
    """The pairs of axis ``a``: its own, and the unturned ones right after its last.

    The slowest pairs of an axis that few ids span turn by less than :data:`MOVED` (Allegro's
    two frames 0.45 apart): they still count in ``D_a``.
    """
    mine = [j for j, x in enumerate(axis) if x == a]
    last = mine[-1] + 1
    while last < len(axis) and axis[last] < 0:
        last += 1
    return len(mine) + last - mine[-1] - 1
