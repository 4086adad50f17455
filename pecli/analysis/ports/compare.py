"""Two tables compared entry by entry: errors in ulps per position decade, first difference.

Rows are positions (``start``, ``start + 1``, …; a vector is one row), columns channels. An
entry's error is ``|a − b|`` in units in the last place of the coarser of the two dtypes at
``min(|a|, |b|)`` (one step between neighbours is 1 ulp, also across a power of 2), but
never below ``2^-10`` of the tables' largest magnitude; entries agree when within ``ulps``
of each other or ``atol`` apart. Pure NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.dtypes import MIN_EXPONENT, SIGNIFICAND_BITS

__all__ = ["Comparison", "Decade", "coarser", "compare", "ulp"]

#: Entries per block of the comparison (about 8 MB per float64 temporary).
_CELLS = 1 << 20
#: Below this fraction of a table's largest magnitude, ulps are those at the fraction (a sine
#: of 0 against 1e-8 is not 10^30 ulps apart).
_FLOOR = 2.0**-10


def _largest(rows: np.ndarray) -> float:
    """The largest finite magnitude, read in row blocks (no float64 copy of the table)."""
    largest = 0.0
    step = max(1, _CELLS // max(rows.shape[1], 1))
    for row in range(0, rows.shape[0], step):
        block = rows[row : row + step]  # float32 as it is: |x| and its max are exact
        values = np.abs(
            block if block.dtype.name in ("float32", "float64") else block.astype(float)
        )
        largest = max(largest, float(np.max(values, initial=0.0, where=np.isfinite(values))))
    return largest


def dtype_name(table: np.ndarray) -> str:
    """``float32``, ``bfloat16``, …; integers count as float64."""
    name = str(table.dtype)
    return name if name in SIGNIFICAND_BITS else "float64"


def coarser(a: np.ndarray, b: np.ndarray) -> str:
    """The dtype of the two with fewer significand bits."""
    return min(dtype_name(a), dtype_name(b), key=SIGNIFICAND_BITS.__getitem__)


def ulp(x: np.ndarray, dtype: str) -> np.ndarray:
    """The spacing of ``dtype``'s numbers at ``|x|`` (float64 array; subnormal spacing at 0).

    Examples
    --------
    >>> ulp(np.array([1.0, 0.75, 0.0]), "float32").tolist() == [2.0**-23, 2.0**-24, 2.0**-149]
    True

    """
    bits, lowest = SIGNIFICAND_BITS[dtype] - 1, MIN_EXPONENT[dtype]  # bits after the point
    magnitude = np.abs(np.asarray(x, dtype=np.float64))
    exponent = np.frexp(magnitude)[1] - 1  # floor(log2 |x|) for |x| > 0
    exponent = np.where(magnitude > 0, np.maximum(exponent, lowest), lowest)
    spacing: np.ndarray = np.ldexp(1.0, exponent - bits)
    return spacing


def _spacing(magnitude: np.ndarray, dtype: str) -> np.ndarray:
    """:func:`ulp` of float64 magnitudes ``>= 0``, the exponent read from their bits.

    The same spacing for every finite magnitude (a float64 subnormal or 0 is below every
    dtype's smallest exponent, so both give the subnormal spacing); an infinite or NaN one
    only ever divides an infinite or NaN error, whose quotient is the same either way.
    """
    bits, lowest = SIGNIFICAND_BITS[dtype] - 1, MIN_EXPONENT[dtype]
    biased = (magnitude.view(np.uint64) >> np.uint64(52)).astype(np.int64)  # sign bit is 0
    exponent = np.maximum(biased - 1023, lowest)
    spacing: np.ndarray = np.ldexp(1.0, exponent - bits)
    return spacing


def _block32(
    x: np.ndarray, y: np.ndarray, floor: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A block of two float32 tables: error in float32 ulps, ``|x − y|``, NaN on one side only.

    The float64 arithmetic of the general path, with the spacing read from the float32 bits of
    ``min(|x|, |y|)`` (exact in float32): ``ulp(max(m, floor))`` is the larger of ``ulp(m)``
    and ``ulp(floor)``, and ``error / 2^k`` is ``error · 2^-k``, exactly, the power of 2 built
    from its bits. An infinite or NaN ``m`` gets another power of 2 than the float64 bits
    give, but its error is infinite or NaN, and so is the quotient either way.

    >>> x, y = np.float32([1.0, 0.0, np.nan]), np.float32([1.0 + 2**-22, 2**-149, np.nan])
    >>> [a.tolist() for a in _block32(x, y, 0.0)]
    [[2.0, 1.0, nan], [2.384185791015625e-07, 1.401298464324817e-45, nan], [False, False, False]]
    """
    error = x.astype(np.float64)
    np.subtract(error, y, out=error)
    np.abs(error, out=error)
    nearer = np.abs(x)
    np.minimum(nearer, np.abs(y), out=nearer)
    bits, lowest = SIGNIFICAND_BITS["float32"] - 1, MIN_EXPONENT["float32"]
    least = max(int(np.frexp(floor)[1]) - 1, lowest) if floor > 0 else lowest
    exponent = (nearer.view(np.uint32) >> np.uint32(23)).astype(np.int64)  # sign bit is 0
    exponent -= 127
    np.maximum(exponent, least, out=exponent)
    exponent = (1023 + bits) - exponent  # the float64 bits of 2^-(exponent - bits)
    exponent <<= 52
    in_ulps = np.multiply(error, exponent.view(np.float64))
    return in_ulps, error, np.isnan(x) != np.isnan(y)


@dataclass(frozen=True)
class Decade:
    """Positions ``first``…``last``: the largest error in ulps and absolute, differing count."""

    first: int
    last: int
    max_ulps: float
    max_abs: float
    differing: int


@dataclass(frozen=True)
class Comparison:
    """The entry-by-entry comparison of two tables of one shape (or why there is none)."""

    shape_a: tuple[int, ...]
    shape_b: tuple[int, ...]
    dtype: str
    differing: int = 0
    max_ulps: float = 0.0
    max_abs: float = 0.0
    first: tuple[int, int] | None = None
    decades: list[Decade] = field(default_factory=list)

    @property
    def comparable(self) -> bool:
        """Whether the shapes match (else nothing was compared)."""
        return self.shape_a == self.shape_b

    @property
    def equal(self) -> bool:
        """Same shape and every entry within the tolerance."""
        return self.comparable and self.differing == 0


def as_rows(table: np.ndarray) -> np.ndarray:
    """A 2-D view: a vector is one row."""
    return table.reshape(1, -1) if table.ndim == 1 else table.reshape(table.shape[0], -1)


def compare(
    a: np.ndarray, b: np.ndarray, *, start: int = 0, ulps: float = 1.0, atol: float = 0.0
) -> Comparison:
    """Compare ``a`` and ``b`` entry by entry, row blocks at a time (float64 arithmetic).

    Examples
    --------
    >>> a = np.linspace(0, 1, 24, dtype=np.float32).reshape(12, 2)
    >>> b = a.copy(); b[11, 1] = np.nextafter(b[11, 1], np.float32(0), dtype=np.float32)
    >>> c = compare(a, b, ulps=0)
    >>> c.differing, c.first, [(d.first, d.last, d.max_ulps) for d in c.decades]
    (1, (11, 1), [(0, 9, 0.0), (10, 11, 1.0)])

    """
    dtype = coarser(a, b)
    if a.shape != b.shape:
        return Comparison(a.shape, b.shape, dtype)
    x, y = as_rows(a), as_rows(b)
    floor = _FLOOR * max(_largest(x), _largest(y))
    decades: dict[int, list[float]] = {}
    first: tuple[int, int] | None = None
    rows = max(1, _CELLS // max(x.shape[1], 1))
    both32 = x.dtype == y.dtype == np.float32 and dtype == "float32"
    for row in range(0, x.shape[0], rows):
        if both32:
            in_ulps, error, nan_apart = _block32(x[row : row + rows], y[row : row + rows], floor)
        else:
            p, q = x[row : row + rows].astype(np.float64), y[row : row + rows].astype(np.float64)
            error = np.abs(p - q)
            nearer = np.minimum(np.abs(p), np.abs(q))
            in_ulps = np.divide(error, _spacing(np.maximum(nearer, floor, out=nearer), dtype))
            nan_apart = np.isnan(p) != np.isnan(q)
        bad = (in_ulps > ulps) & (error > atol) | nan_apart
        if first is None and bad.any():
            r, c = np.argwhere(bad)[0]
            first = (row + int(r), int(c))
        _tally(decades, start + row, in_ulps, error, bad)
    return _finish(a.shape, b.shape, dtype, decades, first, start)


def _decade(position: int) -> int:
    return 0 if position < 10 else len(str(position)) - 1


def _tally(
    decades: dict[int, list[float]],
    first_row: int,
    in_ulps: np.ndarray,
    error: np.ndarray,
    bad: np.ndarray,
) -> None:
    last = first_row + in_ulps.shape[0] - 1
    for k in range(_decade(first_row), _decade(last) + 1):
        lo = max(0, (0 if k == 0 else 10**k) - first_row)  # this decade's rows: a slice
        hi = min(in_ulps.shape[0], 10 ** (k + 1) - first_row)
        if lo >= hi:
            continue
        old = decades.setdefault(k, [0.0, 0.0, 0.0])
        old[0] = max(old[0], _top(in_ulps[lo:hi]))
        old[1] = max(old[1], _top(error[lo:hi]))
        old[2] += int(bad[lo:hi].sum())


def _top(values: np.ndarray) -> float:
    """``np.nan_to_num(values, nan=inf).max(initial=0)`` of values >= 0 or NaN, in one pass.

    NaN counts as infinite, and infinity as the largest float64 (``nan_to_num``'s rule).
    """
    top = float(values.max(initial=0))
    return math.inf if math.isnan(top) else (_HUGE if top == math.inf else top)


_HUGE = float(np.finfo(np.float64).max)


def _finish(
    shape_a: tuple[int, ...],
    shape_b: tuple[int, ...],
    dtype: str,
    decades: dict[int, list[float]],
    first: tuple[int, int] | None,
    start: int,
) -> Comparison:
    last = start + (as_rows(np.empty(shape_a)).shape[0] if shape_a else 1) - 1
    rows = [
        Decade(
            max(start, 0 if k == 0 else 10**k), min(last, 10 ** (k + 1) - 1), v[0], v[1], int(v[2])
        )
        for k, v in sorted(decades.items())
    ]
    return Comparison(
        shape_a,
        shape_b,
        dtype,
        differing=sum(d.differing for d in rows),
        max_ulps=max((d.max_ulps for d in rows), default=0.0),
        max_abs=max((d.max_abs for d in rows), default=0.0),
        first=first,
        decades=rows,
    )
