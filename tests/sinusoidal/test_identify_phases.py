"""identify's phase search (identify/phases.py) against hand-derived numbers.

Every expected value comes from the rule the helper's docstring states, worked by hand here
(a circular mean of symmetric offsets, ``(s + r) ω`` over one period, the identity
``(sin a − sin b)² + (cos a − cos b)² = 2 − 2 cos(a − b)``), never from pecli itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.sinusoidal.identify import phases

EPS = 2.0**-48  # phases.FLOAT64_DRIFT, as documented: float64's relative error per position


def test_a_pair_s_phase_is_the_circular_mean_and_its_tolerance_four_spreads_plus_the_floor():
    """Rows 0, 1, 2 of pair ω = 1/2 at start 3 whose intercepts are 0.3 + 0.01, 0.3 − 0.01
    and 0.3: the circular mean is 0.3 (the offsets cancel), the spread √((0.01² · 2) / 3), the
    tolerance 4 spreads plus the floor 1e-3. Pair ω = 1 is exact: phase 3 (mod 2π), spread 0."""
    rows = np.array([0.0, 1.0, 2.0])
    omega = np.array([1.0, 0.5])
    offsets = np.array([0.01, -0.01, 0.0])
    theta = np.column_stack([3.0 + rows, 0.3 + 0.5 * rows + offsets])
    got = phases.measure(theta, rows, omega, 1e-3)
    assert got.phase[1] == pytest.approx(0.3, abs=1e-15)
    assert got.phase[0] == pytest.approx(3.0, abs=1e-15)
    spread = 0.01 * math.sqrt(2 / 3)
    assert got.tight[1] == pytest.approx(4 * spread + 1e-3, rel=1e-12)
    assert got.tight[0] == pytest.approx(1e-3, abs=1e-15)


def _width(tight, omega, drift, high):
    return tight / omega + (drift + EPS) * (1 + high)


def test_one_period_cuts_an_interval_to_the_phase_s_neighbourhood():
    """ω = 1/2 (period 4π ≈ 12.57), phase 0.3 (centre 0.6), tolerance 1e-3, positions 0 … 10:
    only 0.6 + 4πk for k = 0 is inside, so the interval becomes 0.6 ± w,
    w = 1e-3 / ω + 2^-48 (1 + 10)."""
    w = _width(1e-3, 0.5, 0.0, 10.0)
    got = phases._narrow_one(0.0, 10.0, 0.3, 1e-3, 0.5, 0.0)
    assert got == pytest.approx((0.6 - w, 0.6 + w), abs=1e-15)
    assert phases._narrow(np.zeros(1), np.full(1, 10.0), 0.3, 1e-3, 0.5, 0.0)[0] == (
        pytest.approx([0.6 - w], abs=1e-15)
    )


def test_one_pair_over_three_periods_needs_the_array_path():
    """Positions 0 … 30 hold 0.6, 0.6 + 4π and 0.6 + 8π: three cuts, None (the array path)."""
    assert phases._narrow_one(0.0, 30.0, 0.3, 1e-3, 0.5, 0.0) is None


def test_an_interval_that_misses_the_phase_is_left_empty():
    """Positions 1 … 10: 0.6 is below, 0.6 + 4π ≈ 13.17 above: nothing is left, ()."""
    assert phases._narrow_one(1.0, 10.0, 0.3, 1e-3, 0.5, 0.0) == ()


def test_a_single_position_on_the_phase_is_kept():
    """An interval of one point, 0.6, where the phase puts its centre: [0.6, 0.6] is kept (a
    closed interval of one position still holds that position)."""
    assert phases._narrow_one(0.6, 0.6, 0.3, 1e-3, 0.5, 0.0) == (0.6, 0.6)
    low, high = phases._narrow(np.full(1, 0.6), np.full(1, 0.6), 0.3, 1e-3, 0.5, 0.0)
    assert low.tolist() == [0.6] and high.tolist() == [0.6]


def test_a_tolerance_wider_than_half_a_period_says_nothing_in_the_one_interval_path():
    """ω = 1, tolerance 4: 2 · 4 > 2π, the interval is given back as it was."""
    assert phases._narrow_one(0.0, 50.0, 0.3, 4.0, 1.0, 0.0) == (0.0, 50.0)


def test_the_drift_widens_the_cut_with_the_interval_s_end():
    """Drift 1e-4 over positions 0 … 10: w = 1e-3 / ω + (1e-4 + 2^-48)(1 + 10) = 0.0031."""
    w = 1e-3 / 0.5 + (1e-4 + EPS) * 11
    assert phases._narrow_one(0.0, 10.0, 0.3, 1e-3, 0.5, 1e-4) == pytest.approx(
        (0.6 - w, 0.6 + w), abs=1e-15
    )


@pytest.mark.parametrize(("most", "want"), [(4, [1, 2, 3, 7]), (3, None)])
def test_the_integers_of_the_intervals_are_listed_in_order(monkeypatch, most, want):
    """[0.5, 3] and [6.5, 7.2] hold 1, 2, 3 and 7; [4.2, 4.8] none: four integers, listed
    when MAX_CANDIDATES is 4, too many (None) when it is 3."""
    monkeypatch.setattr(phases, "MAX_CANDIDATES", most)
    got = phases._integers(np.array([0.5, 4.2, 6.5]), np.array([3.0, 4.8, 7.2]))
    assert (got if got is None else got.tolist()) == want


@pytest.mark.parametrize("start", [0, 1, 2**24 - 1, 2**24])
def test_a_start_is_found_from_position_0_to_2_to_the_24(start):
    """Exact phases s ω_j of ω = 1, 0.1, 10^-3 … 10^-8 (tolerance 1e-9) leave the one integer s,
    from 0 to MAX_START = 2^24 (the last integer float32 holds exactly) included."""
    omega = np.array([1.0, 0.1, 1e-3, 1e-5, 1e-7, 1e-8])
    found = phases.Phases(np.angle(np.exp(1j * (start * omega))), np.full(omega.size, 1e-9))
    assert phases.candidate_starts(found, omega, 0.0).tolist() == [start]


def test_a_start_past_2_to_the_24_is_not_searched():
    """The phases of s = 2^24 + 2 (beyond MAX_START) leave no candidate."""
    omega = np.array([1.0, 0.1, 1e-3, 1e-5, 1e-7, 1e-8])
    start = 2**24 + 2
    found = phases.Phases(np.angle(np.exp(1j * (start * omega))), np.full(omega.size, 1e-9))
    assert phases.candidate_starts(found, omega, 0.0).tolist() == []


def test_phases_no_integer_agrees_with_give_an_empty_array():
    """ω = 1/2 at phase 0.3 and ω = 1 at phase 0.3: s ≡ 0.6 (mod 4π) and s ≡ 0.3 (mod 2π)
    together ask s = 0.6 + 4πk = 0.3 + 2πm, never within 1e-9: no start."""
    omega = np.array([1.0, 0.5])
    found = phases.Phases(np.array([0.3, 0.3]), np.full(2, 1e-9))
    got = phases.candidate_starts(found, omega, 0.0)
    assert got is not None and got.size == 0 and got.dtype == np.int64


def test_a_start_s_fit_is_one_minus_the_cosine_of_its_offset():
    """A float64 window of rows 0 … 299 at start s = 40, ω = 1 and 0.25 (math.sin/cos). The
    rebuild from start t differs by a constant angle δ = (t − s) ω in each row, so its mean
    square per pair is ((sin a − sin b)² + (cos a − cos b)²) / 2 = 1 − cos δ; the right start
    gives 0. Rows 256 on are garbage: only the first VERIFY_ROWS = 256 rows are compared."""
    omega = np.array([1.0, 0.25])
    rows = np.arange(300.0)
    sines = np.array([[math.sin((40 + r) * w) for w in omega] for r in rows])
    cosines = np.array([[math.cos((40 + r) * w) for w in omega] for r in rows])
    sines[256:] = 5.0
    got = phases.verify(np.array([40, 43, 30]), (sines, cosines), rows, omega, "float64")
    assert got.shape == (3, 2)
    np.testing.assert_allclose(got[0], 0.0, atol=1e-28)
    for k, t in enumerate([40, 43, 30]):
        want = [1 - math.cos((t - 40) * w) for w in omega]
        np.testing.assert_allclose(got[k], want, rtol=1e-9, atol=1e-28)


def test_a_float32_window_is_rebuilt_in_float32():
    """A float32 window (math.sin/cos of (7 + r) · 0.3 rounded to float32): the rebuild from
    start 7 rounded to float32 is the same numbers, mean square exactly 0."""
    omega = np.array([0.3])
    rows = np.arange(20.0)
    sines = np.array([[np.float32(math.sin((7 + r) * 0.3))] for r in rows], dtype=np.float64)
    cosines = np.array([[np.float32(math.cos((7 + r) * 0.3))] for r in rows], dtype=np.float64)
    got = phases.verify(np.array([7]), (sines, cosines), rows, omega, "float32")
    assert got.tolist() == [[0.0]]


def test_starts_tie_within_four_standard_errors_of_the_best_mean_ratio():
    """Starts 7, 3, 5, 9, 11, two pairs, floor 0.5 (floor² = 0.25), 32 entries: the margin is
    1 + 4 √(2/32) = 2. Pair minima 0 and 1, so the squares are divided by 0.25 and 1.25:
    7: [0, 1] → 0.4, the best; 3: [0.1, 1] → 0.6; 9: [0, 2] → 0.8, at the margin 0.8,
    ties; 5: [0.225, 1] → 0.85 and 11: [1, 1] → 2.4 do not. Ascending: 3, 7, 9."""
    starts = np.array([7, 3, 5, 9, 11])
    squares = np.array([[0, 1], [0.1, 1], [0.225, 1], [0, 2], [1, 1]], dtype=np.float64)
    assert phases.ties(starts, squares, 0.5, 32).tolist() == [3, 7, 9]


def test_intervals_no_pair_narrows_are_given_back_by_the_array_path():
    """ω = 1 with a tolerance of 4 rad (2 · 4 > 2π): the intervals come back unchanged."""
    low, high = np.array([0.0, 100.0]), np.array([50.0, 200.0])
    got = phases._narrow(low, high, 0.3, 4.0, 1.0, 0.0)
    assert got is not None and got[0].tolist() == [0.0, 100.0] and got[1].tolist() == [50.0, 200.0]


def test_64_starts_are_all_verified():
    """Up to 2 · VERIFY = 64 starts are verified as they are: 64 starts s0 − 32 … s0 + 31
    about s0 = 10^6 (pairs ω = 1, 0.01) come back whole, though only δ = −15 … 16 fit best;
    65 starts are cut to the 32 best and the 32 smallest (δ = −32 … 16, 49 starts)."""
    s0 = 10**6
    omega = np.array([1.0, 0.01])
    found = phases.Phases(np.angle(np.exp(1j * s0 * omega)), np.full(2, 1e-15))
    starts = s0 + np.arange(-32, 32)
    assert phases.best_phase_fits(starts, found, omega).tolist() == starts.tolist()
    got = phases.best_phase_fits(s0 + np.arange(-32, 33), found, omega)
    assert (got - s0).tolist() == list(range(-32, 17))


def test_a_slow_pair_of_many_periods_is_cut_by_the_array_path():
    """ω = 0.1 (period 20π ≈ 62.8) over positions 0 … 2^24 leaves one interval a period,
    about 267,000 of them: the array path. The fast pair ω = 1 (tolerance 1e-9) then keeps
    only s = 5000 (5000 · ω_j are the phases), as the docstring's four-pair example does."""
    omega = np.array([1.0, 0.1])
    found = phases.Phases(np.angle(np.exp(1j * 5000 * omega)), np.full(2, 1e-9))
    assert phases.candidate_starts(found, omega, 0.0).tolist() == [5000]


def test_a_tolerance_under_half_a_period_still_cuts():
    """ω = 1 (period 2π ≈ 6.28), phase 0, tolerance 2.5: 2 · 2.5 = 5 < 2π, so the pair cuts
    positions 0 … 20 about 0, 2π, 4π and 6π, ±w with w = 2.5 + 2^-48 · 21."""
    w = 2.5 + EPS * 21
    low, high = phases._narrow(np.zeros(1), np.full(1, 20.0), 0.0, 2.5, 1.0, 0.0)
    centres = 2 * math.pi * np.arange(4)
    np.testing.assert_allclose(low, np.maximum(centres - w, 0.0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(high, np.minimum(centres + w, 20.0), rtol=0, atol=1e-12)


def test_an_interval_the_drift_widens_past_half_a_period_is_kept_whole():
    """Drift 1e-5, ω = 1, tolerance 1e-9: over [0, 10] the half width is
    w = 1e-9 + (1e-5 + 2^-48) · 11, so the pair cuts it about 0 and 2π; over
    [10^6, 10^6 + 10] it is about 10 (2w > 2π), so that interval stays whole."""
    w = 1e-9 + (1e-5 + EPS) * 11
    low, high = phases._narrow(
        np.array([0.0, 1e6]), np.array([10.0, 1e6 + 10]), 0.0, 1e-9, 1.0, 1e-5
    )
    np.testing.assert_allclose(low, [0.0, 2 * math.pi - w, 1e6], rtol=0, atol=1e-9)
    np.testing.assert_allclose(high, [w, 2 * math.pi + w, 1e6 + 10], rtol=0, atol=1e-9)
