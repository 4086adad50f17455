"""Accuracy of the fast table kernel (pecli.core.kernels), against mpmath and the direct formula.

Not timed: speed is measured in benchmarks/bench_table.py.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import mp_omega, mp_table

from pecli.core.angles import frequency_residuals
from pecli.core.errors import ParameterError
from pecli.core.kernels import fill_sin_cos_consecutive

HALF_ULP32_OF_1 = 2.0**-25  # 2.98e-8: half a float32 ulp in [0.5, 1), the correctly rounded bound


def frequencies(d, base):
    """ω_j = C^(-2j/d) in float64 (as a caller would compute it) and its residual."""
    omega = np.power(float(base), -2.0 * np.arange(d // 2) / d)
    return omega, frequency_residuals(omega, base=base, denominator=d // 2)


def direct(positions, omega):
    """The plain float64 formula: angles p·ω, then sin and cos, interleaved."""
    angles = np.asarray(positions, dtype=np.float64)[:, None] * omega[None, :]
    table = np.empty((angles.shape[0], 2 * angles.shape[1]))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


def kernel_table(m, d, first, *, base=10000.0, dtype=np.float32, residual=True, **kwargs):
    omega, res = frequencies(d, base)
    out = np.full((m, d), np.nan, dtype=dtype)
    fill_sin_cos_consecutive(
        out[:, 0::2], out[:, 1::2], first, omega, omega_residual=res if residual else None, **kwargs
    )
    return out


# --- against mpmath (40 digits, exact ω = C^(-2(i-1)/d)) at positions up to 1e7 ---------------


@pytest.mark.parametrize("d", [2, 64, 512, 4096])
@pytest.mark.parametrize("base", [100.0, 10000.0, 1e6])
@pytest.mark.parametrize("first", [0.0, 123_457.0, 9_999_997.0])
def test_float64_within_5e_16_and_float32_correctly_rounded(d, base, first):
    m = 3 if d == 4096 else 5
    exact = mp_table(first + np.arange(m), d, base)
    t64 = kernel_table(m, d, first, base=base, dtype=np.float64)
    t32 = kernel_table(m, d, first, base=base, dtype=np.float32)
    assert np.abs(t64 - exact).max() <= 5e-16
    assert np.abs(t32 - exact).max() <= 3e-8
    np.testing.assert_array_equal(t32, exact.astype(np.float32))  # correctly rounded


def test_rows_far_into_a_long_table_stay_exact():
    # rows 8191 … 8195 of a table from 1e7 - 8192 cross super-blocks: no drift along the table
    m, d, first = 8196, 128, 1e7 - 8192
    table = kernel_table(m, d, first, dtype=np.float64)
    exact = mp_table(first + np.arange(m - 5, m), d)
    assert np.abs(table[-5:] - exact).max() <= 5e-16


def test_non_integer_start_is_taken_exactly():
    first = 0.1  # the float64 nearest 0.1; row r is at 0.1000000000000000055… + r exactly
    table = kernel_table(3, 8, first, offset=10_000_000, dtype=np.float64)
    omega = [mp_omega(i, 8, 10000.0) for i in range(1, 5)]
    for r in range(3):
        pos = mpmath.mpf(first) + 10_000_000 + r
        exact = [f(pos * w) for w in omega for f in (mpmath.sin, mpmath.cos)]
        assert np.abs(table[r] - np.array(exact, dtype=float)).max() <= 5e-16


def test_without_residual_the_given_omega_is_taken_as_exact():
    omega = np.array([1.0, 0.1])  # fl(0.1), not 1/10
    out = np.empty((1, 4))
    fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], 9_999_999.0, omega)
    pos = mpmath.mpf(9_999_999)
    exact = [f(pos * mpmath.mpf(w)) for w in omega for f in (mpmath.sin, mpmath.cos)]
    assert np.abs(out[0] - np.array(exact, dtype=float)).max() <= 5e-16


def test_frequency_residuals_make_omega_exact():
    omega, res = frequencies(512, 10000.0)
    for i in (2, 3, 100, 256):
        exact = mp_omega(i, 512, 10000.0)
        gap = mpmath.mpf(omega[i - 1]) + mpmath.mpf(res[i - 1]) - exact
        assert abs(gap) <= 1e-32 * exact


# --- against the direct float64 formula, for every kind of view -------------------------------

VIEWS = {
    "interleaved": lambda t, h: (t[:, 0::2], t[:, 1::2]),
    "sin-cos blocks": lambda t, h: (t[:, :h], t[:, h:]),
    "cos-sin blocks": lambda t, h: (t[:, h:], t[:, :h]),
    "transposed": lambda t, h: (t[:, 0::2], t[:, 1::2]),
}


@pytest.mark.parametrize("layout", list(VIEWS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize(("m", "d"), [(1, 2), (1, 512), (257, 6), (300, 512), (2000, 130)])
def test_any_view_matches_the_direct_formula(layout, dtype, m, d):
    first, h = 17.0, d // 2
    omega, res = frequencies(d, 10000.0)
    table = np.full((m, d), np.nan, dtype=dtype)
    if layout == "transposed":  # an F-ordered table: both views strided along rows
        table = np.full((d, m), np.nan, dtype=dtype).T
    sin_view, cos_view = VIEWS[layout](table, h)
    fill_sin_cos_consecutive(sin_view, cos_view, first, omega, omega_residual=res)
    ref = direct(first + np.arange(m), omega)  # positions <= 2017: float64 error < 1e-12
    got = np.empty((m, d))
    got[:, 0::2], got[:, 1::2] = sin_view, cos_view
    tolerance = 1e-12 + float(np.finfo(dtype).eps) / 2
    assert np.abs(got - ref).max() <= tolerance
    if dtype != np.float64:  # rounded like the float64 value, but for rare near-ties
        assert np.count_nonzero(got != ref.astype(dtype)) <= 1


def test_separate_arrays_and_fortran_order():
    m, d = 1000, 64
    omega, res = frequencies(d, 1e6)
    s = np.empty((m, d // 2), dtype=np.float32, order="F")
    c = np.empty((m, d // 2), dtype=np.float64)
    fill_sin_cos_consecutive(s, c, 5.0, omega, omega_residual=res, workers=2)
    ref = direct(5.0 + np.arange(m), omega)
    assert np.abs(s - ref[:, 0::2]).max() <= 2.0**-25
    assert np.abs(c - ref[:, 1::2]).max() <= 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interleaved_views_are_written_as_one_complex_array(dtype):
    """sin in the even columns, cos in the odd ones of one buffer: one complex array over the
    same memory (sin + i·cos per pair), complex64 for float32, so a product is stored in one
    write; separate arrays have none."""
    from pecli.core.kernels import _complex_view

    table = np.arange(8, dtype=dtype).reshape(2, 4)
    pairs = _complex_view(table[:, 0::2], table[:, 1::2])
    assert pairs.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    assert pairs.tolist() == [[1j, 2 + 3j], [4 + 5j, 6 + 7j]]
    pairs[1, 0] = 9 + 10j
    assert table[1].tolist() == [9, 10, 6, 7]
    assert _complex_view(table[:, 0::2].copy(), table[:, 1::2].copy()) is None


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    h=st.integers(1, 300),
    m=st.integers(1, 40_000),
    first=st.integers(-(10**6), 10**7),
    cuts=st.lists(st.integers(1, 40_000), max_size=4),
    workers=st.integers(1, 3),
)
def test_filling_in_pieces_is_bit_identical(h, m, first, cuts, workers):
    whole = kernel_table(m, 2 * h, float(first), workers=workers)
    pieces = np.full_like(whole, np.nan)
    omega, res = frequencies(2 * h, 10000.0)
    bounds = sorted({0, m, *(c for c in cuts if c < m)})
    for r0, r1 in itertools.pairwise(bounds):
        fill_sin_cos_consecutive(
            pieces[r0:r1, 0::2],
            pieces[r0:r1, 1::2],
            float(first),
            omega,
            omega_residual=res,
            offset=r0,
            workers=1,
        )
    np.testing.assert_array_equal(pieces, whole)


@settings(max_examples=60, deadline=None)
@given(
    h=st.integers(1, 64),
    base=st.floats(100.0, 1e6),
    first=st.floats(-1e3, 1e3, allow_nan=False),
    m=st.integers(1, 600),
)
def test_matches_the_formula_for_any_start_and_base(h, base, first, m):
    omega = np.power(base, -np.arange(h) / h)
    out = np.empty((m, 2 * h))
    fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], first, omega)
    # the kernel takes first + r exactly, the formula rounds it: <= ulp(1600)/2 = 1.1e-13 apart
    ref = direct(first + np.arange(m), omega)
    assert np.abs(out - ref).max() <= 1e-12


# --- bad calls --------------------------------------------------------------------------------


def test_bad_calls_are_rejected():
    omega = np.ones(3)
    out = np.empty((4, 6))
    with pytest.raises(ValueError, match="shape"):
        fill_sin_cos_consecutive(out[:, :2], out[:, 2:], 0.0, omega)
    with pytest.raises(ValueError, match="omega_residual"):
        fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], 0.0, omega, omega_residual=np.ones(2))
    with pytest.raises(ParameterError, match="workers"):
        fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], 0.0, omega, workers=0)
    with pytest.raises(ParameterError, match="first_position"):
        fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], float("inf"), omega)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_direct_fill_is_the_same_bits_however_split(workers):
    from pecli.core.direct import fill_sin_cos_direct

    omega, res = frequencies(256, 10000.0)
    positions = np.arange(5000, dtype=np.float64) * 7.25 - 3.5
    whole = np.empty((5000, 256))
    fill_sin_cos_direct(whole[:, 0::2], whole[:, 1::2], positions, omega, res, workers=1)
    split = np.empty((5000, 256))
    fill_sin_cos_direct(split[:, 0::2], split[:, 1::2], positions, omega, res, workers=workers)
    np.testing.assert_array_equal(whole, split)
    np.testing.assert_allclose(whole[:40], mp_table(positions[:40], 256), rtol=0, atol=3e-16)


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs a CPU affinity of 2 CPUs or more to narrow",
)
def test_workers_count_the_cpus_this_process_may_use_not_the_machine_s():
    """Pinned to one CPU (``taskset -c``, a batch slot), one worker, however many cells."""
    code = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from pecli.core.threads import worker_count, CELLS_PER_WORKER; "
        "print(worker_count(None, 64 * CELLS_PER_WORKER))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["1"], done.stderr


@pytest.mark.parametrize(("delta", "steps"), [(1e-19, 1), (-1e-19, 0)], ids=["above", "below"])
def test_a_value_within_1e_19_of_a_float32_tie_is_rounded_by_mpmath(delta, steps):
    """The angle θ = asin(3/4 + 2^-25) ± 10^-19 (mpmath, 300 bits; given as ω + residual at
    position 1): its sine is the float32 tie 3/4 + 2^-25, one half-step above 3/4, moved by
    cos θ·δ ≈ ±6.6·10^-20. Neither float64 tier can tell the side (the kernel's 32u, then the
    direct evaluation's few ulps); mpmath can (the inputs' error is 2^-100·θ). Correctly
    rounded, by hand: sin θ > the tie rounds up to 3/4 + 2^-24, below it down to 3/4 (which
    is also where the tie itself goes: 3/4's float32 significand is even)."""
    with mpmath.workprec(300):
        tie = mpmath.mpf(0.75) + mpmath.mpf(2) ** -25
        theta = mpmath.asin(tie) + mpmath.mpf(delta)
        omega = float(theta)
        residual = float(theta - omega)
        cos = float(np.float32(float(mpmath.cos(theta))))  # 0.66143…: nowhere near a tie
    out = np.empty((1, 2), np.float32)
    fill_sin_cos_consecutive(
        out[:, 0::2], out[:, 1::2], 1.0, np.array([omega]), omega_residual=np.array([residual])
    )
    assert out[0].tolist() == [0.75 + steps * 2.0**-24, cos]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="reads the CPU affinity")
def test_workers_are_one_per_cells_per_worker_cells_up_to_the_cpus_of_this_process():
    """The rule of ``worker_count``'s docstring, worked by hand against the OS's affinity set:
    fewer than CELLS_PER_WORKER (2^19) cells, one worker; ``c`` whole multiples of it,
    ``min(c, cpus)`` workers (a part multiple rounds down); never more than the CPUs."""
    from pecli.core.threads import worker_count

    cpus = len(os.sched_getaffinity(0))
    cases = {0: 1, 1: 1, 2**19 - 1: 1, 2**19: 1, 3 * 2**18: 1, 2**20: min(2, cpus)}
    cases[2**40] = cpus
    for cells, workers in cases.items():
        assert worker_count(None, cells) == workers, cells
        assert type(worker_count(None, cells)) is int
    assert worker_count(3, 2**40) == 3 and worker_count(1, 2**40) == 1  # asked for: as given
    for refused in (0, -1, True, 2.0):
        with pytest.raises(ParameterError):
            worker_count(refused, 2**40)


@pytest.mark.parametrize(
    ("n0", "n1", "unit", "parts", "want"),
    [
        (0, 100, 10, 4, [(0, 20), (20, 50), (50, 70), (70, 100)]),  # 10 units: 2, 3, 2, 3
        (5, 103, 10, 4, [(5, 20), (20, 50), (50, 80), (80, 103)]),  # units 0 … 10: 11 of them
        (0, 30, 10, 8, [(0, 10), (10, 20), (20, 30)]),  # 3 units: 3 parts, not 8
        (20, 60, 10, 2, [(20, 40), (40, 60)]),  # units 2 … 5: 4 of them, 2 each
    ],
)
def test_rows_are_split_into_near_equal_shares_at_whole_units(n0, n1, unit, parts, want):
    """The threads' shares, cut by hand: [n0, n1) in `parts` runs of about equal whole units
    (cuts at units·k // parts, k = 1 … parts − 1), each inner bound a multiple of `unit`."""
    from pecli.core.threads import split_rows

    assert split_rows(n0, n1, unit, parts) == want


def test_the_small_angle_bound_counts_the_frequency_s_residual():
    """The 32u bound holds only while every angle is below 2^24 (docs/exactness.md). Positions
    reach |first| + rows + 2·256·64 = 2^24 here, times ω = 1 + 2^-53 (a double-double:
    1.0 and its residual 2^-53): above 2^24, so the large-angle bound the same page gives,
    64u + 3·2^-100·θ_max = 2^-47 + 3·2^-76 (u = 2^-53, θ_max = 2^24 in float64)."""
    from pecli.core.kernels import CONSECUTIVE_BOUND, consecutive_bound

    first = 2.0**24 - 2 * 256 * 64 - 100
    bound = consecutive_bound(first, 100, np.array([1.0]), np.array([2.0**-53]))
    assert bound is not CONSECUTIVE_BOUND
    assert float(bound.absolute) == 2.0**-47 + 3 * 2.0**-76
    # far positions at a slow frequency: (2^30 + 100 + 32768)·2^-10 < 2^24, still 32u
    slow = consecutive_bound(2.0**30, 100, np.array([2.0**-10]), np.zeros(1))
    assert slow is CONSECUTIVE_BOUND


def test_no_frequency_fills_nothing_at_any_number_of_rows():
    """``h = 0`` (an empty ``omega``) with rows, or rows = 0 with frequencies: an empty fill,
    returned before any block is sized from ``h`` (not a division by zero)."""
    for rows, h in ((3, 0), (0, 2)):
        out = np.empty((rows, 2 * h), dtype=np.float32)
        fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], 0.0, np.ones(h))
        assert out.shape == (rows, 2 * h)
