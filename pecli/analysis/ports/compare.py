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

__all__ = ["Comparison", "Decade", "coarser", "compare", "largest_error", "ulp"]

#: Entries per block of the comparison (about 8 MB per float64 temporary).
_CELLS = 1 << 20
#: Below this fraction of a table's largest magnitude, ulps are those at the fraction (a sine
#: of 0 against 1e-8 is not 10^30 ulps apart).
_FLOOR = 2.0**-10


def _largest(rows: np.ndarray) -> float:
    """The largest finite magnitude, read in row blocks (no float64 copy of the table).

    A float32 or float64 table is first read as it is: ``max(max, −min)`` is its largest
    magnitude when finite (two reads, no temporary); a NaN or an infinity sends it to the
    blocks, which mask them.
    """
    if rows.dtype.name in ("float32", "float64") and rows.size:
        largest = max(float(rows.max()), -float(rows.min()))
        if math.isfinite(largest):
            return largest
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


class _Blocks32:
    """Two float32 tables compared block by block in reused buffers (:func:`compare`'s fast path).

    The float64 values of the general path, with fewer passes: ``|x − y|`` is the float64
    difference of the float32 entries (one ufunc casting as it goes); the spacing's exponent is
    the smaller of the two float32 exponent fields (the exponent of ``min(|x|, |y|)``, read
    from the bits without ``|x|``), raised to that of the floor (and to the smallest normal
    one: a subnormal's spacing) and, when an infinity is present, lowered to ``2^127``. The
    error over that power of 2, ``q``, is exact (no float64 underflow: ``|x − y|`` is 0 or at
    least ``2^-149``), and so is ``q · 2^23``, the error in ulps: the maxima and the test
    ``q > ulps · 2^-23`` are taken on ``q``, the maxima scaled once. (``ulps · 2^-23`` rounds
    only below ``2^-999``, where both tests hold for every ``q > 0``: ``q >= 2^-276``.) NaN on
    one side only is looked for only when an error is NaN; NaN on both, or one infinity on
    both, is an error of 0.

    >>> x, y = np.float32([[1.0, 0.0, np.nan]]), np.float32([[1.0 + 2**-22, 2**-149, np.nan]])
    >>> blocks = _Blocks32(x, y, 0.0, 1.0, 0.0)
    >>> in_ulps, error, bad = blocks.block(0, 1)
    >>> (in_ulps * blocks.scale).tolist(), bad.tolist()
    ([[2.0, 1.0, 0.0]], [[True, False, False]])
    """

    #: Entries per block: the buffers (two float64, two uint32, one bool) stay in the caches.
    CELLS = 1 << 16
    _EXPONENT = np.uint32(0x7F800000)
    _HIGHEST = np.uint32(254 << 23)  # 2^127, for an infinity's exponent field

    def __init__(self, x: np.ndarray, y: np.ndarray, floor: float, ulps: float, atol: float):
        bits, lowest = SIGNIFICAND_BITS["float32"] - 1, MIN_EXPONENT["float32"]
        least = max(int(np.frexp(floor)[1]) - 1, lowest) if floor > 0 else lowest
        self.x, self.y, self.ulps, self.atol = x, y, ulps, atol
        self.lowest = np.uint32((least + 127) << 23)  # 2^least, a normal float32
        self.scale = 2.0**bits
        self.threshold = ulps / self.scale
        self.columns = x.shape[1]
        self.rows = max(1, self.CELLS // max(self.columns, 1))
        cells = min(self.rows, x.shape[0]) * self.columns
        self._error, self._q = np.empty(cells), np.empty(cells)
        self._ex, self._ey = np.empty(cells, np.uint32), np.empty(cells, np.uint32)
        self._bad = np.empty(cells, bool)

    def block(self, row: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows ``row:stop``: the error in ulps over :attr:`scale`, ``|x − y|``, the differing.

        The arrays are the reused buffers: read them before the next block.
        """
        x, y = self.x[row:stop], self.y[row:stop]
        shape, cells = x.shape, x.size
        error = self._error[:cells].reshape(shape)
        np.subtract(x, y, out=error, dtype=np.float64)
        np.abs(error, out=error)
        _agreeing(x, y, error)
        ex, ey = self._ex[:cells].reshape(shape), self._ey[:cells].reshape(shape)
        np.bitwise_and(x.view(np.uint32), self._EXPONENT, out=ex)
        np.bitwise_and(y.view(np.uint32), self._EXPONENT, out=ey)
        np.minimum(ex, ey, out=ex)
        np.maximum(ex, self.lowest, out=ex)
        finite = math.isfinite(float(error.max(initial=0.0)))
        if not finite:  # an infinity's exponent field reads as 2^128: the quotient would be NaN
            np.minimum(ex, self._HIGHEST, out=ex)
        q = self._q[:cells].reshape(shape)
        np.divide(error, ex.view(np.float32), out=q)
        bad = self._bad[:cells].reshape(shape)
        np.greater(q, self.threshold, out=bad)
        if not (self.atol == 0.0 and self.ulps >= 0.0):  # else q > ulps implies error > atol
            bad &= error > self.atol
        if not finite:
            bad |= np.isnan(x) != np.isnan(y)
        return q, error, bad


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


@np.errstate(invalid="ignore")  # ∞ − ∞ is NaN: an infinity in the same place of both
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
    if x.dtype == y.dtype == np.float32 and dtype == "float32":
        blocks = _Blocks32(x, y, floor, ulps, atol)
        for row in range(0, x.shape[0], blocks.rows):
            in_ulps, error, bad = blocks.block(row, row + blocks.rows)
            found = _tally(decades, start + row, in_ulps, error, bad, blocks.scale)
            if first is None and found:
                r, c = divmod(int(np.argmax(bad)), bad.shape[1])  # the first True, row-major
                first = (row + r, c)
        return _finish(a.shape, b.shape, dtype, decades, first, start)
    rows = max(1, _CELLS // max(x.shape[1], 1))
    for row in range(0, x.shape[0], rows):
        p, q = x[row : row + rows].astype(np.float64), y[row : row + rows].astype(np.float64)
        error = _agreeing(p, q, np.abs(p - q))
        nearer = np.minimum(np.abs(p), np.abs(q))
        in_ulps = np.divide(error, _spacing(np.maximum(nearer, floor, out=nearer), dtype))
        bad = (in_ulps > ulps) & (error > atol) | (np.isnan(p) != np.isnan(q))
        if first is None and bad.any():
            r, c = np.argwhere(bad)[0]
            first = (row + int(r), int(c))
        _tally(decades, start + row, in_ulps, error, bad)
    return _finish(a.shape, b.shape, dtype, decades, first, start)


def _agreeing(x: np.ndarray, y: np.ndarray, error: np.ndarray) -> np.ndarray:
    """``error`` (``|x − y|``, in place) with 0 where ``x`` and ``y`` agree: NaN and NaN, ∞ and ∞.

    Their difference is NaN, which the decade maxima count as infinite; looked for only when
    an error is NaN.
    """
    if math.isnan(float(error.max(initial=0.0))):
        np.copyto(error, 0.0, where=(x == y) | np.isnan(x) & np.isnan(y))
    return error


@np.errstate(invalid="ignore")
def largest_error(x: np.ndarray, y: np.ndarray) -> float:
    """The largest ``|x − y|``: entries that agree count 0, NaN against a number ∞ (float64).

    >>> largest_error(np.array([1.0, np.nan, np.inf]), np.array([1.5, np.nan, np.inf]))
    0.5
    >>> largest_error(np.array([np.nan]), np.array([0.0]))
    inf
    """
    top = float(_agreeing(x, y, np.abs(x - y)).max(initial=0.0))
    return math.inf if math.isnan(top) else top


def _decade(position: int) -> int:
    return 0 if position < 10 else len(str(position)) - 1


def _tally(
    decades: dict[int, list[float]],
    first_row: int,
    in_ulps: np.ndarray,
    error: np.ndarray,
    bad: np.ndarray,
    scale: float = 1.0,
) -> int:
    """Each decade's maxima and count updated with a block's; the block's differing count.

    ``in_ulps · scale`` is the error in ulps (``scale`` a power of 2: exact).
    """
    last = first_row + in_ulps.shape[0] - 1
    counted = 0
    for k in range(_decade(first_row), _decade(last) + 1):
        lo = max(0, (0 if k == 0 else 10**k) - first_row)  # this decade's rows: a slice
        hi = min(in_ulps.shape[0], 10 ** (k + 1) - first_row)
        if lo >= hi:
            continue
        old = decades.setdefault(k, [0.0, 0.0, 0.0])
        old[0] = max(old[0], _top(in_ulps[lo:hi], scale))
        old[1] = max(old[1], _top(error[lo:hi]))
        count = int(np.count_nonzero(bad[lo:hi]))
        old[2] += count
        counted += count
    return counted


def _top(values: np.ndarray, scale: float = 1.0) -> float:
    """The largest of ``values · scale`` (values >= 0 or NaN, one pass), NaN counted as infinite.

    A number against an infinity is infinitely far, as a number against NaN is (it had been
    reported as the largest float64, 1.8e+308); ``scale``, a power of 2, is applied to the
    maximum (the same as to each value).
    """
    top = float(values.max(initial=0)) * scale
    return math.inf if math.isnan(top) else top


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
