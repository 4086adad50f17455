"""What every cause test needs: two tables close within the dtype's rounding, pairs, layouts.

A cause is found when undoing one mistake (or two) on one table gives the other within a few
ulps of the coarser dtype (:func:`close`). Pure NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compare import as_rows, ulp

__all__ = [
    "HEAD_ROWS",
    "Pair",
    "Reading",
    "close",
    "parts",
    "to_half_split",
    "to_interleaved",
]

Reading = dict[str, Any] | None
#: Rows of each table the mistakes are tested on.
HEAD_ROWS = 8192


@dataclass(frozen=True)
class Pair:
    """The two tables of a diff (their first :data:`HEAD_ROWS` rows), the dtype, the readings.

    ``whole_a`` and ``whole_b`` are the tables as given (a transposition changes which rows are
    the first ones); ``start`` is the first row's position the user gave (``diff --start``),
    used where neither reading finds it; ``reference``, ``"A"`` or ``"B"`` when the user says
    which table is the intended one (a cause with two readings then names one).
    """

    a: np.ndarray
    b: np.ndarray
    dtype: str
    ra: Reading
    rb: Reading
    whole_a: np.ndarray
    whole_b: np.ndarray
    start: int = 0
    reference: str | None = None


def close(x: np.ndarray, y: np.ndarray, dtype: str) -> bool:
    """Equal shapes and every entry within 4 ulps of the pair's magnitude and of the table's."""
    if x.shape != y.shape or x.size == 0:
        return False
    p, q = x.astype(np.float64), y.astype(np.float64)
    scale = float(np.max(np.abs(q), initial=0.0))
    allowed = 4 * ulp(np.maximum(np.abs(p), np.abs(q)), dtype) + 4 * ulp(np.array(scale), dtype)
    return bool(np.all(np.abs(p - q) <= allowed))


def parts(table: np.ndarray, count: int) -> list[np.ndarray] | None:
    """The table's rows cut into ``count`` equal column blocks (``[cos | sin]``: 2), or None."""
    rows = as_rows(table)
    if rows.shape[1] % (2 * count):
        return None
    return np.split(rows, count, axis=1)


def to_half_split(part: np.ndarray) -> np.ndarray:
    """Interleaved columns ``(2i, 2i + 1)`` put in half-split order ``(i, i + w/2)``."""
    return np.concatenate([part[:, 0::2], part[:, 1::2]], axis=1)


def to_interleaved(part: np.ndarray) -> np.ndarray:
    """Half-split columns put in interleaved order."""
    h = part.shape[1] // 2
    out = np.empty_like(part)
    out[:, 0::2], out[:, 1::2] = part[:, :h], part[:, h:]
    return out
