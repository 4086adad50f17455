"""The table a fit stands for, rebuilt, and how far the identified table is from it.

The allowed error is one unit in the last place of the storage (twice its unit roundoff)
plus the float32 arithmetic of the producing framework, :data:`FLOAT32_ANGLE_ERROR` per unit
of position (a framework's float32 positions and angles), never more than :data:`MAX_ALLOWED`
in all: a difference comparable to the values' range (-1 … 1) is never a match, however far
the position.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ....core.dtypes import float_dtype, unit_roundoff
from ....core.sinusoidal.encoding import table_blocks
from .fitting import Fit, Zeros

__all__ = [
    "FLOAT32_ANGLE_ERROR",
    "FLOAT64_ANGLE_ERROR",
    "MAX_ALLOWED",
    "RESIDUAL_ROWS",
    "exact_error",
    "rebuild",
    "residual",
]

#: Error allowed for float32 arithmetic in the producing framework, per unit of position.
FLOAT32_ANGLE_ERROR = 2.0**-22
#: Error of a float64 producer's arithmetic, per unit of position: its ``ω_j`` computed another
#: way (``exp(-ln C · 2i/d)`` against ``C^(-2i/d)``) is a few ulps off, so is ``p ω_j``.
FLOAT64_ANGLE_ERROR = 2.0**-50
#: Rows rebuilt at a time when a fit is checked against the table.
RESIDUAL_ROWS = 512
#: Largest error allowed on any entry (the framework allowance reaches it near position 400000).
MAX_ALLOWED = 0.1


def rebuild(
    fit: Fit,
    shape: tuple[int, int],
    zeros: Zeros,
    *,
    dtype: str = "float64",
    rows: int = 4096,
    reuse: int = 0,
) -> Iterator[np.ndarray]:
    """The table of ``fit`` (padding rows zeroed) in blocks of at most ``rows`` rows.

    ``reuse``: as :func:`pecli.core.sinusoidal.encoding.table_blocks` (1: each block overwrites
    the last).
    """
    n, d = shape
    blocks = table_blocks(
        d=d,
        n=n,
        start=fit.start,
        base=fit.base,
        dtype=dtype,
        schedule=fit.schedule,
        layout=fit.layout,
        odd_d=fit.odd_d if d % 2 else None,
        amplitude=fit.amplitude,
        rows=rows,
        reuse=reuse,
    )
    row = 0
    padding = np.asarray(zeros.padding, dtype=np.int64)
    for block in blocks:
        block[padding[(padding >= row) & (padding < row + len(block))] - row] = 0
        yield block
        row += len(block)


def residual(table: np.ndarray, fit: Fit, zeros: Zeros, storage: str) -> tuple[float, float]:
    """(max |table - rebuilt|, the same relative to the allowed error: <= 1 is a match).

    In blocks of :data:`RESIDUAL_ROWS` rows through two buffers that every block reuses
    (fresh pages cost more than the sines), one float64 pass per block for the difference.
    """
    worst, score, row = 0.0, 0.0, 0
    dtype = "float64" if storage == "float64" else "float32"  # float32: the fast kernel
    rows = max(1, min(table.shape[0], RESIDUAL_ROWS))
    buffer = np.empty((rows, table.shape[1]))
    blocks = rebuild(fit, (table.shape[0], table.shape[1]), zeros, dtype=dtype, rows=rows, reuse=1)
    for block in blocks:
        if block.dtype != float_dtype(storage):  # float16, bfloat16: rounded as stored
            block = block.astype(float_dtype(storage)).astype(np.float64)
        error = np.subtract(
            table[row : row + len(block)], block, out=buffer[: len(block)], dtype=np.float64
        )
        rows_error = np.abs(error, out=error).max(axis=1)  # per row: e/a is monotone
        positions = np.abs(fit.start + np.arange(row, row + len(block)))
        framework = FLOAT32_ANGLE_ERROR * (1 + positions)
        allowed = np.minimum(2 * unit_roundoff(storage) + framework, MAX_ALLOWED)
        worst = max(worst, float(rows_error.max()))
        score = max(score, float((rows_error / allowed).max()))
        row += len(block)
    return worst, score


def exact_error(storage: str, start: float, n: int) -> float:
    """Largest residual of ``n`` rows from ``start`` that reproduces them to their rounding.

    Four unit roundoffs of the storage; a float64 table adds :data:`FLOAT64_ANGLE_ERROR` per
    unit of its farthest position (PyTorch's tutorial and pecli differ by 5 ulps at position
    21.5 of a float64 table: both exact, neither is "the" rounding of the true values).

    >>> exact_error("float32", 0, 100) == 4 * 2.0**-24
    True
    >>> exact_error("float64", 2.5, 20) > 10 * 2.0**-53
    True
    """
    rounding = 4 * unit_roundoff(storage)
    if storage != "float64":
        return rounding
    return rounding + FLOAT64_ANGLE_ERROR * (1 + max(abs(start), abs(start + n - 1)))
