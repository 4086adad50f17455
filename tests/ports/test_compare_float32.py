"""diff's entry-by-entry comparison of two float32 tables, against float32 ulps by hand.

An entry's error in ulps is ``|a − b|`` over the float32 spacing at ``min(|a|, |b|)``
(``np.spacing`` of that float32, 2^-149 at and below the smallest normal's exponent), never
below the spacing at 2^-10 of the largest magnitude; NaN on one side only differs. The
float32 path reads the spacing from the float32 bits: every kind of value is here (zeros,
subnormals, powers of 2 and their neighbours, infinities, NaN) in a table of several blocks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.ports.compare import compare

F32 = np.float32


def tables() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(36)
    n, d = 9_000, 256  # 2.3 million entries: three blocks
    a = (rng.standard_normal((n, d)) * 10.0 ** rng.integers(-40, 30, (n, d))).astype(F32)
    steps = rng.integers(-3, 4, (n, d))
    b = a.copy()
    for k in (-3, -2, -1, 1, 2, 3):
        where = steps == k
        b[where] = a[where].view(np.int32).astype(np.int64).__add__(k).astype(np.int32).view(F32)
    special = F32([0.0, -0.0, 2.0**-149, -(2.0**-149), 2.0**-126, 1.0, 2.0, np.inf, -np.inf])
    a[:9, :9] = special[:, None]
    b[:9, :9] = special[None, :]
    a[100, 5], b[200, 7] = np.nan, np.nan
    a[300, 1] = b[300, 1] = np.nan
    return a, b


def by_hand(
    a: np.ndarray, b: np.ndarray, ulps: float, atol: float = 0.0
) -> tuple[int, float, tuple[int, int]]:
    x, y = a.astype(np.float64), b.astype(np.float64)
    finite = np.isfinite(x) & np.isfinite(y)
    largest = max(np.abs(x[np.isfinite(x)]).max(), np.abs(y[np.isfinite(y)]).max())
    floor_spacing = float(np.spacing(F32(2.0**-10 * largest)))  # 2^-10·largest: a power of 2 off
    nearer = np.minimum(np.abs(a), np.abs(b))
    spacing = np.maximum(
        np.spacing(np.where(np.isfinite(nearer), nearer, 1)).astype(float), 2.0**-149
    )
    spacing = np.maximum(spacing, floor_spacing)
    with np.errstate(invalid="ignore"):
        error = np.abs(x - y)
        in_ulps = np.where(finite, error / spacing, np.where(np.isnan(error), np.nan, np.inf))
        bad = (in_ulps > ulps) & (error > atol) | (np.isnan(x) != np.isnan(y))
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return int(bad.sum()), float(np.nanmax(np.where(finite, in_ulps, 0))), first


def test_float32_tables_are_counted_in_float32_ulps():
    a, b = tables()
    for ulps in (0.0, 1.0, 2.0):
        with np.errstate(invalid="ignore"):  # inf − inf: NaN (files never hold them)
            found = compare(a, b, ulps=ulps)
        differing, largest_finite, first = by_hand(a, b, ulps)
        assert (found.differing, found.first) == (differing, first)
        assert max(d.max_ulps for d in found.decades) >= largest_finite  # inf and NaN: more


def test_a_tiny_or_negative_ulps_and_an_atol_count_as_by_hand():
    """ulps of 1e-320 (not exact once scaled by 2^-23), below 0, and an atol with either."""
    a, b = tables()
    for ulps, atol in ((1e-320, 0.0), (-1.0, 0.0), (1.0, 1e-30), (0.0, 1e-3)):
        with np.errstate(invalid="ignore"):
            found = compare(a, b, ulps=ulps, atol=atol)
        differing, _, first = by_hand(a, b, ulps, atol)
        assert (found.differing, found.first) == (differing, first), (ulps, atol)


def test_a_cache_and_its_neighbours_in_ulps_per_decade():
    """Every entry of a 1000-row table moved 0 to 5 float32 steps: max ulps per decade by hand."""
    rng = np.random.default_rng(7)
    a = np.cos(np.arange(1000.0)[:, None] * 0.5 ** np.arange(64)).astype(F32)
    steps = rng.integers(0, 6, a.shape)
    b = np.nextafter(a, F32(np.inf))
    for _ in range(4):
        b = np.where(steps > 1, np.nextafter(b, F32(np.inf)), b)
        steps = steps - 1
    found = compare(a, b, ulps=0, start=5)
    x, y = a.astype(np.float64), b.astype(np.float64)
    floor = np.spacing(F32(2.0**-10 * np.abs(x).max())).astype(float)
    spacing = np.maximum(np.spacing(np.minimum(np.abs(a), np.abs(b))).astype(float), floor)
    in_ulps = np.abs(x - y) / spacing
    edges = [(0, 5), (5, 95), (95, 995), (995, 1000)]  # positions 5…9, 10…99, …
    assert [d.max_ulps for d in found.decades] == [in_ulps[i:j].max() for i, j in edges]
    assert [d.differing for d in found.decades] == [int((in_ulps[i:j] > 0).sum()) for i, j in edges]


def test_position_10_is_the_first_of_the_second_decade():
    """Eleven rows of 0.5, row 10 (position 10) with one 0.75: decades 0…9 (nothing) and
    10…10 (one entry, |A − B| = 1/4). In ulps at 0.5: 2^-2 / 2^-24 = 2^22 in float32,
    2^-2 / 2^-53 = 2^51 in float64."""
    for dtype, ulps in ((np.float32, 2.0**22), (np.float64, 2.0**51)):
        a = np.full((11, 4), 0.5, dtype)
        b = a.copy()
        b[10, 1] = 0.75
        found = compare(a, b)
        rows = [(d.first, d.last, d.max_ulps, d.max_abs, d.differing) for d in found.decades]
        assert rows == [(0, 9, 0.0, 0.0, 0), (10, 10, ulps, 0.25, 1)], dtype
        assert (found.differing, found.first) == (1, (10, 1))


def test_a_finite_float_tables_largest_magnitude_is_read_without_a_temporary():
    """A finite float32 or float64 table's largest magnitude is ``max(max, −min)``: two
    reductions, no ``|x|`` copy of the table (4 or 8 MB here), and the value by hand."""
    from traced import traced_peak

    from pecli.analysis.ports.compare import _largest

    rng = np.random.default_rng(11)
    for dtype in (np.float32, np.float64):
        table = rng.uniform(-2.0, 1.0, (1024, 1024)).astype(dtype)
        table[700, 3] = -3.5  # the largest magnitude, a negative entry
        largest, peak = traced_peak(lambda t=table: _largest(t))
        assert largest == 3.5
        assert peak < table.nbytes // 8, (dtype, peak)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("atol", "differing"), [(0.25, 1), (0.5, 0), (1.0, 0)])
def test_entries_atol_apart_agree_however_many_ulps(dtype, atol, differing):
    """1.0 against 1.5 is 2^22 float32 ulps (2^51 float64 ones) apart, 0.5 absolute: the
    entries agree when ``atol`` is at least 0.5 ("within ulps or atol apart")."""
    a, b = np.array([[1.0, 2.0]], dtype), np.array([[1.5, 2.0]], dtype)
    found = compare(a, b, ulps=1.0, atol=atol)
    assert (found.differing, found.max_abs) == (differing, 0.5)
    assert found.max_ulps == 2.0 ** (22 if dtype == np.float32 else 51)


@pytest.mark.parametrize(
    ("dtype", "rows", "largest"), [(np.float64, 3, 0), (F32, 3, 0), (F32, (1 << 20) + 1, -1)]
)
def test_the_floor_follows_the_largest_magnitude_when_a_nan_is_present(dtype, rows, largest):
    """A NaN sends the largest magnitude to the row blocks: 1024 in the first row, or in the
    last (past the first block of 2^20 entries) of the long table, makes the floor ``2^-10 ·
    1024 = 1``, so 0 against ``2^-20`` in row 1 is ``2^-20 / ulp(1)`` apart: 8 float32 ulps,
    ``2^32`` float64 ones (the maxima count the NaN's error as infinite: the ulps are read
    from the tolerance that flags the entry)."""
    a = np.zeros((rows, 1), dtype)
    a[largest, 0], a[-1 - largest, 0] = 1024.0, np.nan
    b = a.copy()
    b[1, 0] = 2.0**-20
    apart = 8.0 if dtype == F32 else 2.0**32
    assert compare(a, b, ulps=apart).differing == 0  # NaN on both sides agrees
    found = compare(a, b, ulps=apart / 2)
    assert (found.differing, found.first) == (1, (1, 0))


def test_largest_magnitudes_of_tables_with_no_entries_or_positive_largest_or_int8():
    """``_largest`` by hand: 3.5 when the largest magnitude is positive; 0 for tables of no
    entries (no rows, or rows of no columns); 128 for an int8 ``-128`` (its ``|x|`` taken in
    float64: int8's own ``abs(-128)`` wraps to -128)."""
    from pecli.analysis.ports.compare import _largest

    for dtype in (np.float32, np.float64):
        assert _largest(np.array([[-1.0, 3.5], [0.5, np.nan]], dtype)) == 3.5
        assert _largest(np.array([[-1.0, 3.5], [0.5, -2.0]], dtype)) == 3.5
        assert _largest(np.zeros((0, 4), dtype)) == 0.0
        assert _largest(np.zeros((3, 0), dtype)) == 0.0
    assert _largest(np.array([[-128, 1]], np.int8)) == 128.0


def test_a_row_wider_than_a_block_is_read_whole():
    """One row of 2^20 + 1 entries (more than a block's 2^20) with a NaN: read as one block,
    its largest magnitude 1024 in the last column."""
    from pecli.analysis.ports.compare import _largest

    row = np.zeros((1, (1 << 20) + 1), F32)
    row[0, 0], row[0, -1] = np.nan, -1024.0
    assert _largest(row) == 1024.0


def test_tables_of_two_shapes_are_not_compared_and_report_no_error():
    """(2, 4) against (3, 4): no entry has a partner, so nothing is measured: no differing
    entry, 0 ulps and 0 absolute error, no first difference, no decade; not equal."""
    c = compare(np.zeros((2, 4), F32), np.ones((3, 4), F32))
    assert (c.comparable, c.equal, c.shape_a, c.shape_b) == (False, False, (2, 4), (3, 4))
    assert (c.differing, c.max_ulps, c.max_abs, c.first, c.decades) == (0, 0.0, 0.0, None, [])


def test_a_vector_wider_than_a_block_and_a_table_of_no_columns_are_compared():
    """2^16 + 1 float32 entries in one row (more than a block's 2^16 cells): the last one
    1 ulp apart (1 + 2^-23 against 1) is the only difference, at (0, 65536). Three rows of no
    columns hold no entry: nothing differs, and the tables are equal."""
    a = np.ones(65537, F32)
    b = a.copy()
    b[-1] = np.float32(1 + 2**-23)
    found = compare(a, b, ulps=0)
    assert (found.differing, found.max_ulps, found.first) == (1, 1.0, (0, 65536))
    for dtype in (F32, np.float64, np.int16):  # the float32 path and the general one
        empty = compare(np.zeros((3, 0), dtype), np.zeros((3, 0), dtype))
        assert (empty.equal, empty.differing, empty.first) == (True, 0, None), dtype


@pytest.mark.parametrize("dtype", [F32, np.float64])
def test_entries_one_ulp_apart_agree_by_default_two_do_not(dtype):
    """The default tolerance is 1 ulp, no atol: 1 against its neighbour above (2^-23 or
    2^-52 away: 1 ulp at 1) agrees; 1 against the number 2 steps up differs (2 ulps)."""
    step = 2.0 ** (-23 if dtype == F32 else -52)
    a = np.array([[1.0, 1.0]], dtype)
    one, two = np.array([[1.0 + step, 1.0]], dtype), np.array([[1.0, 1.0 + 2 * step]], dtype)
    assert (compare(a, one).differing, compare(a, one).max_ulps) == (0, 1.0)
    assert (compare(a, two).differing, compare(a, two).first) == (1, (0, 1))


@pytest.mark.parametrize("dtype", [F32, np.float64])
@pytest.mark.parametrize("swap", [False, True])
def test_the_floor_is_read_from_the_larger_of_the_two_tables(dtype, swap):
    """A holds 1024 where B holds NaN: B's largest finite magnitude is 2^-20, A's 1024, and
    the floor is 2^-10 of the larger, 1. So 0 against 2^-20 is 2^-20 / ulp(1) apart (8 float32
    ulps, 2^32 float64 ones), within 16 or 2^33: only the NaN entry differs, whichever table
    is given first."""
    a = np.array([[1024.0, 0.0]], dtype)
    b = np.array([[np.nan, 2.0**-20]], dtype)
    x, y = (b, a) if swap else (a, b)
    within = 16.0 if dtype == F32 else 2.0**33
    found = compare(x, y, ulps=within)
    assert (found.differing, found.first) == (1, (0, 0))
    assert compare(x, y, ulps=within / 4).differing == 2  # 8 or 2^32 ulps: past a quarter


@pytest.mark.parametrize("swap", [False, True])
def test_a_float64_table_against_a_float32_one_is_counted_in_float32_ulps(swap):
    """0.1 in float64 against float32's 0.1 (13421773 · 2^-27, by hand): |A − B| is
    (13421773 · 2^28 − 3602879701896397) · 2^-55, float64's 0.1 being 3602879701896397 ·
    2^-55; the float32 ulp at 0.1 is 2^-27, so 0.2 ulps apart: 1.0 and 0.5 agree, exact."""
    from fractions import Fraction

    x, y = np.array([[1.0, 0.1]]), np.array([[1.0, 0.1]], F32)
    assert Fraction(float(y[0, 1])) == Fraction(13421773, 2**27)
    apart = Fraction(13421773 * 2**28 - 3602879701896397, 2**55) / Fraction(1, 2**27)
    found = compare(y, x) if swap else compare(x, y)
    assert found.dtype == "float32"
    assert (found.differing, found.max_ulps, found.max_abs) == (
        0,
        float(apart),
        float(apart / 2**27),
    )
    assert compare(x, y, ulps=float(apart) / 2).first == (0, 1)


def test_a_float64_vector_wider_than_a_block_is_compared():
    """2^20 + 1 float64 entries in one row (more than the general path's 2^20 cells a block):
    one block of one row; its last entry 2 ulps off 1 (1 + 2^-51) is the only difference."""
    a = np.ones((1 << 20) + 1)
    b = a.copy()
    b[-1] = 1 + 2.0**-51
    found = compare(a, b)
    assert (found.differing, found.max_ulps, found.first) == (1, 2.0, (0, 1 << 20))


@pytest.mark.parametrize("dtype", [np.float64, F32])
def test_entries_that_agree_as_nan_or_infinity_add_no_error_to_their_decade(dtype):
    """A table against itself with NaN, ∞ and −∞ in rows 3, 15 and 150: every decade's
    largest error is 0 (NaN − NaN and ∞ − ∞ are NaN, which the maxima count as infinite);
    a NaN against 1.0 in row 15 makes decade 10…99 infinitely far and flags one entry."""
    a = np.ones((200, 4), dtype)
    a[3, 1], a[15, 2], a[150, 0] = np.nan, np.inf, -np.inf
    same = compare(a, a.copy())
    assert same.equal
    assert [(d.first, d.max_ulps, d.max_abs) for d in same.decades] == [
        (0, 0.0, 0.0),
        (10, 0.0, 0.0),
        (100, 0.0, 0.0),
    ]
    b = a.copy()
    b[15, 2] = np.nan
    found = compare(a, b)
    assert (found.differing, found.first) == (1, (15, 2))
    assert [d.max_ulps for d in found.decades] == [0.0, math.inf, 0.0]


@pytest.mark.parametrize("dtype", [np.float64, F32])
@pytest.mark.parametrize(("a_value", "b_value"), [(1.0, np.inf), (np.inf, -np.inf), (-2.0, np.inf)])
def test_a_number_or_the_other_infinity_against_an_infinity_is_infinitely_far(
    dtype, a_value, b_value
):
    """1 against ∞, or ∞ against −∞, in row 3: decade 0…9's largest error, in ulps and
    absolute, is ∞ (|1 − ∞| is ∞ exactly), as for NaN against a number; it was reported as
    the largest float64, 1.8e+308, and the text and JSON reports disagreed with ``closest``."""
    a = np.ones((20, 4), dtype)
    b = a.copy()
    a[3, 1], b[3, 1] = a_value, b_value
    found = compare(a, b)
    assert (found.differing, found.first) == (1, (3, 1))
    assert [(d.max_ulps, d.max_abs) for d in found.decades] == [(math.inf, math.inf), (0.0, 0.0)]
    assert found.max_ulps == found.max_abs == math.inf


def test_the_closest_move_skips_agreeing_nans_and_counts_a_lone_one_as_infinite():
    """``closest``'s gap in ulps of the largest finite magnitude (1.0: float64 spacing
    2^-52): a NaN in one place of both tables, B's 1.0 moved up 3 spacings, is 3 ulps apart
    (it said nan); a NaN against 1.0 is infinitely far."""
    from pecli.analysis.ports.causes import closest_move

    a = np.full((6, 4), 0.5)
    a[0, 0], a[2, 3] = np.nan, 1.0
    b = a.copy()
    b[2, 3] = 1.0 + 3 * 2.0**-52
    assert closest_move(a, b, "float64") == "closest: B as it is, 3 ulps apart at the largest entry"
    b[2, 3] = np.nan
    assert (
        closest_move(a, b, "float64") == "closest: B as it is, inf ulps apart at the largest entry"
    )
