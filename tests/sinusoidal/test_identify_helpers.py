"""identify's helpers against their documented rules, on small hand-made angles and tables.

The expected numbers come from the rule each helper's docstring states (a least-squares slope
by ``np.polyfit`` on angles unwrapped by hand, the log-distance of a base to a two-digit
number) or from slow_formulas.py's tables (the libraries' formulas, one entry at a time).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import slow_formulas as slow

from pecli.analysis.sinusoidal.identify import identify_table, phases
from pecli.analysis.sinusoidal.identify.fits import refine_k, slopes_k, wrap
from pecli.analysis.sinusoidal.identify.samples import layout_sample


def test_a_turn_across_a_gap_is_the_one_nearest_the_per_row_turn_times_the_gap():
    """Rows 0 … 3 and 10; pair 1 turns 0.6 a row, and 0.2 more than 7 · 0.6 from row 3 to 10:
    4.4, past π, so the wrapped difference (4.4 − 2π) is not the turn. The turn nearest
    7 · 0.6 is 4.4, so the unwrapped angles are 0, 0.6, 1.2, 1.8, 6.2 and k = −ln(their
    least-squares slope)."""
    rows = np.array([0.0, 1.0, 2.0, 3.0, 10.0])
    unwrapped = np.outer(rows, [1.0, 0.6])
    unwrapped[4, 1] += 0.2
    slope = np.polyfit(rows, unwrapped[:, 1], 1)[0]
    assert math.isclose(slopes_k(wrap(unwrapped), rows), -math.log(slope), rel_tol=1e-12)


def test_rows_all_two_apart_are_unwrapped_by_their_wrapped_turns():
    """Rows 0, 2, 4, 6 and ω = 1, 1/2: no rows one apart to measure a per-row turn, and none
    is needed (turns of 2 and 1, below π): the slope of pair 1 is 1/2, k = ln 2."""
    rows = np.array([0.0, 2.0, 4.0, 6.0])
    assert math.isclose(slopes_k(wrap(np.outer(rows, [1.0, 0.5])), rows), math.log(2))


@pytest.mark.parametrize(("moved", "told"), [(50.5, True), (49.5, False)])
def test_a_pair_tells_k_once_it_turns_more_than_50_times_the_noise(moved, told):
    """slopes_k's rule: pair 1 counts when its angle moves by more than 50 · noise over the
    rows (below the 0.05 rad cap). Noise 1e-4 over rows 0 … 9 and ω_1 = 1e-4 · moved / 9:
    a turn of 50.5 noise tells k = −ln ω_1, one of 49.5 noise tells nothing (None)."""
    rows = np.arange(10.0)
    omega = 1e-4 * moved / 9
    k = slopes_k(wrap(np.outer(rows, [1.0, omega])), rows, noise=1e-4)
    if told:
        assert k == pytest.approx(-math.log(omega), rel=1e-9)
    else:
        assert k is None


def test_an_even_width_is_read_as_d_over_2_pairs_with_no_extra_sine_by_default():
    """layout_sample's odd_sine is off unless asked: the PyTorch tutorial's d = 4 table
    (interleaved, ω = 1 and 10000^(-2/4) = 0.01) has 2 pairs and no last sine, and the pairs'
    angles are position · ω_j wrapped."""
    table = np.array(slow.pytorch_tutorial(6, 4))
    sample, amplitude = layout_sample((table, np.arange(6)), "interleaved", "float64")
    assert sample.extra is None and amplitude == 1.0
    want = wrap(np.outer(np.arange(6.0), [1.0, 0.01]))
    np.testing.assert_allclose(sample.theta, want, atol=1e-15)


def test_a_base_far_from_two_digits_is_not_tried_rounded():
    """The article's table (positions 51 …, d = 12, C = 12345) read as tensor2tensor's schedule
    measures C = 12345^(5/6) ≈ 2567.9, ln(2600 / 2567.9) ≈ 0.0124 from the nearest two-digit
    number (12345 itself 0.028 from 12000): no reading with a rounded base (2600 or 12000) is
    tried, so every candidate that fits at all is the right table, to float64's rounding."""
    assert math.log(2600 / 12345 ** (5 / 6)) > 0.01 and math.log(12345 / 12000) > 0.01
    found = identify_table(np.array(slow.vaswani(64, 12, base=12345.0, start=51)))
    assert found.matched
    fitted = [c.residual for c in found.candidates if math.isfinite(c.residual)]
    assert fitted and max(fitted) < 1e-12


def test_a_base_of_14_significant_digits_is_given_back_as_made():
    """The PyTorch tutorial's float64 table (d = 16, 64 rows) at C = 10000.000000001 (14
    significant digits, 1e-13 relative off 10000): the command rebuilds it with the base it
    was made with, not the rounder 10000 that is only within its rounding."""
    found = identify_table(np.array(slow.pytorch_tutorial(64, 16, base=10000.000000001)))
    assert found.matched and found.base == 10000.000000001


def test_the_best_phase_fits_are_the_nearest_starts_in_float64_tolerances():
    """Pairs ω = 1 and 0.01 whose phases are those of s0 = 10^6, 100 starts s0 − 50 … s0 + 49.
    Each pair's error is weighed by its tolerance 2^-48 (1 + s) ω_j (the measured one, 1e-15,
    is negligible), so start s0 + δ scores about (wrap(δ)² + δ²) / (2^-48 · 10^6)², which
    grows with |δ| (the slow pair's δ² outweighs the fast pair's wrap(δ)² ≤ π² from |δ| = 5
    on): the 32 best are δ = −15 … 16 (+16 beats −16 by its larger tolerance), kept with the
    32 smallest starts, δ = −50 … −19."""
    s0 = 10**6
    omega = np.array([1.0, 0.01])
    found = phases.Phases(np.angle(np.exp(1j * s0 * omega)), np.full(2, 1e-15))
    got = phases.best_phase_fits(s0 + np.arange(-50, 50), found, omega)
    assert (got - s0).tolist() == [*range(-50, -18), *range(-15, 17)]


@pytest.mark.parametrize(("most", "kept"), [(8, True), (7, False)])
def test_a_pair_cuts_an_interval_into_one_per_period(monkeypatch, most, kept):
    """A pair ω = 1/2 (period 4π) of phase 0.3 (centre 0.6), tolerance 1e-3, drift 1e-4, over
    positions 0 … 0.6 + 28π + 1/2: the positions that agree are within
    w = 1e-3 / ω + (1e-4 + 2^-48) (1 + high) of 0.6 + 4πk, k = 0 … 7, 8 intervals; more than
    MAX_CANDIDATES of them (7) is None."""
    monkeypatch.setattr(phases, "MAX_CANDIDATES", most)
    high = 0.6 + 28 * math.pi + 0.5
    w = 1e-3 / 0.5 + (1e-4 + 2.0**-48) * (1 + high)
    got = phases._narrow(np.zeros(1), np.full(1, high), 0.3, 1e-3, 0.5, 1e-4)
    if not kept:
        assert got is None
        return
    centres = 0.6 + 4 * math.pi * np.arange(8)
    np.testing.assert_allclose(got[0], centres - w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[1], centres + w, rtol=0, atol=1e-12)


def test_a_pair_whose_tolerance_spans_its_period_leaves_the_intervals():
    """ω = 1 (period 2π) with a tolerance of 4 radians: 2 · 4 > 2π, the pair says nothing."""
    low, high = np.array([0.0, 100.0]), np.array([50.0, 200.0])
    got = phases._narrow(low, high, 0.3, 4.0, 1.0, 0.0)
    np.testing.assert_array_equal(got[0], low)
    np.testing.assert_array_equal(got[1], high)


def test_starts_tie_by_the_count_of_every_entry_compared(monkeypatch):
    """DistilBERT's d = 5 table (2 pairs and a last sine), 8 rows: a start's fit is compared on
    8 · 5 = 40 entries when the last sine is read (3 mean squares: 2 pairs, the sine), on
    8 · 4 = 32 when it is not (2 pairs); that count sets the tie margin."""
    seen = []
    ties = phases.ties

    def spy(starts, squares, floor, entries):
        seen.append((squares.shape[1], entries))
        return ties(starts, squares, floor, entries)

    monkeypatch.setattr(phases, "ties", spy)
    assert identify_table(np.array(slow.distilbert(8, 5, start=100))).start == 100
    assert (3, 40) in seen and set(seen) <= {(2, 32), (3, 40)}


def _gauss_newton(theta, positions, k, steps):
    """The textbook iterates for θ_j(r) ≈ p_r e^(−k j): k += Σ J·r / Σ J², J = −j p_r e^(−k j),
    residuals r wrapped to (−π, π] (np.angle)."""
    j = np.arange(theta.shape[1], dtype=np.float64)
    iterates = [k]
    for _ in range(steps):
        model = positions[:, None] * np.exp(-k * j)[None, :]
        jac = -j[None, :] * model
        k += float(np.sum(jac * np.angle(np.exp(1j * (theta - model)))) / np.sum(jac * jac))
        iterates.append(k)
    return iterates


def test_k_is_refined_by_at_most_6_gauss_newton_steps():
    """Noisy angles (16 rows, 4 pairs, k = 0.05, noise 0.8 rad, seed 3) from k = 0.5: the
    Gauss-Newton iterates still move (the 6th ≈ 0.7285, the 7th ≈ 0.761); refine_k stops at
    the 6th, as documented."""
    positions = np.arange(16.0)
    exact = np.outer(positions, np.exp(-0.05 * np.arange(4.0)))
    theta = wrap(exact + 0.8 * np.random.default_rng(3).standard_normal(exact.shape))
    iterates = _gauss_newton(theta, positions, 0.5, 7)
    assert abs(iterates[7] - iterates[6]) > 1e-2
    assert math.isclose(refine_k(theta, positions, 0.5), iterates[6], rel_tol=1e-9)


@pytest.mark.parametrize(
    ("factor", "named"), [(1.0, "vaswani"), (1.01, "custom (no named preset)")]
)
def test_the_report_s_convention_row_names_the_preset_or_says_custom(
    run_cli, tmp_path, factor, named
):
    """docs/cli.md: the convention is the first preset that builds the table, custom when none
    does. The article's table (slow_formulas, d = 16) is vaswani's; times 1.01 (an amplitude
    no preset has) it is custom, and the text report says so in words."""
    path = tmp_path / "t.npy"
    np.save(path, np.array(slow.vaswani(40, 16)) * factor)
    result = run_cli("identify", str(path))
    assert result.exit_code == 0, result.output
    rows = [line.split(None, 1) for line in result.stdout.splitlines()]
    assert ["convention", named] in rows


@pytest.mark.parametrize("measured", [0.0, -7321.0, math.inf, math.nan])
def test_a_measured_base_that_is_no_base_offers_no_digits(measured):
    """A base is a finite number above 0: a ``base_fit`` of 0, below 0, infinite or NaN offers
    no digits to try, and the short base 7321 still comes from the fitted 7321.000000000008
    (the article's table at C = 7321, d = 16, from slow_formulas)."""
    from pecli.analysis.sinusoidal.identify.fitting import Fit, Zeros
    from pecli.analysis.sinusoidal.identify.naming import short_base

    table = np.array(slow.vaswani(40, 16, base=7321.0, start=0))
    fit = Fit("interleaved", "paper", 7321.000000000008, measured, 0.0, residual=1e-15, score=0.5)
    short_base(fit, table, Zeros([], False), "float64")
    assert (fit.base, fit.schedule, fit.odd_d) == (7321.0, "paper", "zero")


def test_a_shorter_base_may_be_the_least_base_a_table_takes():
    """BASE_RANGE is inclusive (``compute`` takes 1e-300): a measured base 1.0000001e-300 read
    with the paper's ``h - s = 4`` (d = 8) rounds at one digit to 1e-300 itself, a candidate."""
    from pecli.analysis.sinusoidal.identify.fitting import Fit
    from pecli.analysis.sinusoidal.identify.naming import _shorter

    fit = Fit(layout="interleaved", schedule="paper", base=1.0000001e-300, base_fit=0.0, start=0.0)
    found = {
        (den, base): digits
        for digits, _, den, _, _, base in _shorter(fit, 8, 4.0, 1.0000001e-300, 16)
    }
    assert found[(4.0, 1e-300)] == 1
