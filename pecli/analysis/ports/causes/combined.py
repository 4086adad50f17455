"""Two mistakes at once: B's pair layout (or its cos and sin halves) moved, then one more cause.

The search undoes one move on B — its columns put in the other pair order, or its halves
exchanged — and tests the single causes that keep the shape (first position, attention
factor, storage dtype) on A against the moved B. Pure NumPy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import numpy as np

from ..compare import as_rows, largest_error, ulp
from .shapes import layout_moves, offset
from .tables import Pair, close, parts
from .values import factor, storage

__all__ = ["closest", "two_at_once"]

#: The second causes tried once B is moved.
SECOND: tuple[Callable[[Pair], str | None], ...] = (offset, factor, storage)


def _moves(b: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    for name, moved in layout_moves(b):
        yield f"pair layout swapped (B's columns put in the {name} order)", moved
    halves = parts(b, 2)
    if halves is not None:
        yield "sin/cos swapped (B's halves exchanged)", np.concatenate(halves[::-1], axis=1)


#: Rows each combination is screened on before it is checked on all.
SCREEN_ROWS = 256


def _screened(pair: Pair, moved: np.ndarray, check: Callable[[Pair], str | None]) -> bool:
    """Whether the combination fits a few hundred rows: the first rows of each table.

    An offset is looked for by content: each table's row 0 among all the other's rows (as
    many as are tested, :data:`~.tables.HEAD_ROWS`), the three nearest checked on
    :data:`SCREEN_ROWS` rows, so it may be far past them.
    """
    short_a, short_b = pair.a[:SCREEN_ROWS], moved[:SCREEN_ROWS]
    if check is not offset:
        return check(dataclasses.replace(pair, a=short_a, b=short_b, whole_b=moved)) is not None
    a, b = as_rows(pair.a), as_rows(moved)
    for long, short in ((a, as_rows(short_b)), (b, as_rows(short_a))):
        gaps = np.abs(long - short[0]).max(axis=1)  # in the tables' own dtype: one pass
        for k in np.argpartition(gaps, min(2, len(gaps) - 1))[:3]:
            n = min(len(long) - k, len(short))
            if n >= 2 and close(long[k : k + n], short[:n], pair.dtype):
                return True
    return False


def two_at_once(pair: Pair) -> str | None:
    """The first move and second cause that together turn B into A.

    Each combination is screened on a few hundred rows (:func:`_screened`), and only one that
    fits there is checked on every row: ten combinations cost about one single check.
    """
    if pair.a.ndim != 2 or pair.b.ndim != 2 or pair.a.shape[1] != pair.b.shape[1]:
        return None  # rows may differ in number: an offset is one of the second causes
    for words, moved in _moves(pair.b):
        for check in SECOND:
            if not _screened(pair, moved, check):
                continue
            found = check(dataclasses.replace(pair, b=moved, whole_b=moved))
            if found:
                return f"two mistakes at once: {words}, and {found}"
    return None


def closest(pair: Pair) -> str | None:
    """When no cause fits: the move of B (none, a layout, sin/cos) that leaves A nearest.

    The gap is the largest ``|A − B|`` in units of the ulp of the table's largest finite
    magnitude, on the first :data:`SCREEN_ROWS` rows; NaN against NaN is no gap, NaN against a
    number an infinite one.
    """
    if pair.a.shape != pair.b.shape or pair.a.ndim != 2:
        return None
    a = pair.a[:SCREEN_ROWS].astype(np.float64)
    unit = float(ulp(np.array(np.max(np.abs(a[np.isfinite(a)]), initial=0.0)), pair.dtype))
    tried = [("B as it is", pair.b), *_moves(pair.b)]
    gaps = [
        (largest_error(a, moved[:SCREEN_ROWS].astype(np.float64)) / unit, words)
        for words, moved in tried
    ]
    gap, words = min(gaps, key=lambda g: g[0])
    return f"closest: {words}, {gap:.3g} ulps apart at the largest entry"
