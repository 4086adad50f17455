"""Causes that change the values: a factor on both or one side, storage dtype, temperature.

Each check takes a :class:`~.tables.Pair` and returns the sentence naming the mistake, or None.
Pure NumPy.
"""

from __future__ import annotations

import math

import numpy as np

from ....core.dtypes import exact_in, float_dtype, unit_roundoff
from ....core.median import median
from ..compare import as_rows
from .tables import Pair, close, parts

__all__ = ["factor", "one_side_factor", "storage", "temperature"]


def _ratio(p: np.ndarray, q: np.ndarray) -> float | None:
    """The median ``p/q`` over the large entries of ``q`` (None when there are none)."""
    big = np.abs(q) > 0.25 * np.max(np.abs(q), initial=0.0)
    return float(median(p[big] / q[big])) if big.any() else None


def factor(pair: Pair) -> str | None:
    """One table is the other times a constant (yarn's / longrope's attention factor).

    Only a positive one: an attention factor scales, it never flips a sign (a table against
    its negation had been named as "A = -1 × B", the factor missing).
    """
    if pair.a.shape != pair.b.shape:
        return None
    p, q = as_rows(pair.a).astype(np.float64), as_rows(pair.b).astype(np.float64)
    ratio = _ratio(p, q)
    if ratio is None or not ratio > 0 or abs(ratio - 1) < 1e-3:
        return None
    if not close(p, q * ratio, pair.dtype):
        return None
    return (
        f"attention factor missing: A = {ratio:.7g} × B (the factor transformers puts on "
        "cos and sin for yarn / longrope is in one table only)"
    )


def one_side_factor(pair: Pair) -> str | None:
    """The attention factor on cos only, or on sin only, in one table."""
    pa, pb = parts(pair.a, 2), parts(pair.b, 2)
    if pa is None or pb is None or pair.a.shape != pair.b.shape:
        return None
    for k, (name, other) in enumerate((("cos", "sin"), ("sin", "cos"))):
        p, q = pa[k].astype(np.float64), pb[k].astype(np.float64)
        ratio = _ratio(p, q)
        if ratio is None or not ratio > 0 or abs(ratio - 1) < 1e-3:
            continue
        if not close(pa[1 - k], pb[1 - k], pair.dtype):
            continue
        if close(p, q * ratio, pair.dtype):
            return (
                f"attention factor on one side only: A's {name} = {ratio:.7g} × B's, their "
                f"{other} equal (the factor belongs on both cos and sin, or on neither)"
            )
    return None


def storage(pair: Pair) -> str | None:
    """One table is the other rounded once to bfloat16 or float16 (or computed in it)."""
    a, b = pair.a, pair.b
    if a.shape != b.shape:
        return None
    for half in ("bfloat16", "float16"):
        for first, second, names in ((a, b, ("B", "A")), (b, a, ("A", "B"))):
            if not exact_in(second[:256], half) or not exact_in(second, half):
                continue  # on the bits, first rows first: ml_dtypes (0.5 s) only if so
            if exact_in(first, half):
                continue
            short = "bf16" if half == "bfloat16" else "fp16"
            rounded = first.astype(np.float64).astype(float_dtype(half))
            if np.array_equal(rounded.astype(np.float64), second.astype(np.float64)):
                return f"stored in {short}: {names[0]} is {names[1]} rounded once to {half}"
            if not _computed_looking(second):
                continue
            return (
                f"computed in {short}: {names[0]}'s values are all {half} numbers but not "
                f"{names[1]}'s rounded (the error grows with the position: {short} arithmetic)"
            )
    return None


#: Distinct values a table needs before its being all half-precision numbers says anything.
MIN_DISTINCT = 16


def _computed_looking(table: np.ndarray) -> bool:
    """Whether ``table`` could be a computed table: finite, with :data:`MIN_DISTINCT` values.

    Zeros, a constant, infinities or a row of 0 and 1 are bfloat16 numbers by themselves:
    a zeroed buffer had been named "computed in bf16".
    """
    head = table.ravel()[:4096]
    finite = np.all(np.isfinite(head))
    return bool(finite) and np.unique(head).size >= MIN_DISTINCT


def temperature(pair: Pair) -> str | None:
    """Rows scaled by a factor that grows with the position: a query temperature on one side.

    Llama 4 (``attn_temperature_tuning``) and Ministral 3 multiply the query at position ``p``
    by ``1 + β·ln(1 + ⌊(p + 1)/s⌋)``; the rows' ratios are read as that when they fit.
    """
    if pair.a.shape != pair.b.shape or pair.a.ndim != 2 or len(pair.a) < 3:
        return None
    p, q = pair.a.astype(np.float64), pair.b.astype(np.float64)
    if not _rows_scaled(p, q, pair.dtype, [0, len(p) // 2, len(p) - 1]):
        return None  # three rows first: most differences are no per-row factor
    rows = _row_ratios(p, q)
    eps = 64 * unit_roundoff(pair.dtype)  # a row's ratio wobbles by the dtype's rounding
    if not np.all(np.isfinite(rows)) or np.ptp(rows) < max(1e-4, eps):
        return None  # one factor for every row: factor()'s
    steps = np.diff(rows) * np.sign(rows[-1] - rows[0])
    if np.any(steps < -eps) or not close(p, q * rows[:, None], pair.dtype):
        return None  # a temperature only grows with the position
    names = ("A", "B") if rows[-1] > rows[0] else ("B", "A")
    ratio = rows if names[0] == "A" else 1 / rows
    words = _temperature_words(ratio, pair.start)
    return f"query temperature missing: {names[0]} = {names[1]} × {words}"


def _row_ratios(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each row's :func:`_ratio` (its median ``p/q`` over its large entries; NaN for none)."""
    big = np.abs(q) > 0.25 * np.max(np.abs(q), axis=1, initial=0.0)[:, None]
    quotients = np.divide(p, q, out=np.full(p.shape, np.nan), where=big)
    rows = np.full(len(p), np.nan)
    some = big.any(axis=1)
    rows[some] = np.nanmedian(quotients[some], axis=1)
    return rows


def _rows_scaled(p: np.ndarray, q: np.ndarray, dtype: str, rows: list[int]) -> bool:
    """Whether each of these rows of ``p`` is its row of ``q`` times one factor of its own."""
    for r in rows:
        ratio = _ratio(p[r : r + 1], q[r : r + 1])
        if ratio is None or not close(p[r : r + 1], q[r : r + 1] * ratio, dtype):
            return False
    return True


def _temperature_words(ratio: np.ndarray, start: int = 0) -> str:
    """Llama 4's form ``1 + β·ln(1 + ⌊(p + 1)/s⌋)`` with its s and β if it fits, else the span.

    Row ``r`` is position ``start + r`` (``diff --start``). ``s`` is the gap between two rows
    where the factor steps up, or, with one step, that row's ``p + 1`` (the floor's first 1).
    """
    p = start + np.arange(ratio.size, dtype=np.float64)
    s = _floor_scale(ratio, p)
    if s:
        grown = np.log1p(np.floor((p + 1) / s))
        used = grown > 0
        beta = float(median((ratio[used] - 1) / grown[used])) if used.any() else math.nan
        if used.any() and np.allclose(ratio, 1 + beta * grown, rtol=1e-4, atol=1e-6):
            return (
                f"1 + β·ln(1 + ⌊(p + 1)/s⌋), s = {s}, β = {beta:.6g} (the query "
                "temperature of Llama 4 / Ministral: attn_temperature_tuning, "
                "floor_scale, attn_scale)"
            )
    return (
        f"a factor per position, {ratio[0]:.6g} at row 0 to {ratio[-1]:.6g} at row "
        f"{ratio.size - 1} (a query temperature?)"
    )


def _floor_scale(ratio: np.ndarray, p: np.ndarray) -> int | None:
    """Llama 4's ``floor_scale`` s read off the rows where the factor steps up, or None."""
    steps = np.flatnonzero(np.diff(ratio) > 1e-6) + 1  # the rows whose factor grew
    if steps.size >= 2:
        return int(p[steps[1]] - p[steps[0]])
    return int(p[steps[0]] + 1) if steps.size == 1 else None
