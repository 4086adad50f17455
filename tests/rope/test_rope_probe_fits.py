"""The probe's fits at the values that tell their rules: readings merged, the leading run of
θ, the temperature's bounds on L, the findings on pairs no ω explains, the width's doubt.

Every expected value is worked out by hand in the test's docstring.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from probe_rotations import interleaved

from pecli.analysis.rope.probe import probe_rope
from pecli.analysis.rope.probe.frequencies import _leading_run, read_frequencies
from pecli.analysis.rope.probe.omega import OmegaFit, _merged
from pecli.analysis.rope.probe.reading import _fit_findings, _listed
from pecli.analysis.rope.probe.temperature import Temperature, _lengths, fit_temperature


def test_readings_of_one_pair_merge_only_within_their_own_uncertainties():
    """Pair 0 read once at 0.5 ± 1; pair 1 read twice, at 0.1 and 0.2, each ± 10^-3: those
    two are 0.1 apart, 50 times their summed uncertainty, so both stay (pair 0's large
    uncertainty is no part of it); pair 1 read at 0.1 and 0.1005 (within 2·(2·10^-3)) merge.
    At the bound, ± 0.25 each (binary fractions, exact): 1 apart (= 2·0.5) merge, 1.25 not."""
    pid, omega, _ = _merged(
        np.array([0, 1, 1]), np.array([0.5, 0.1, 0.2]), np.array([1.0, 1e-3, 1e-3])
    )
    assert pid.tolist() == [0, 1, 1] and omega.tolist() == [0.5, 0.1, 0.2]
    pid, omega, _ = _merged(
        np.array([0, 1, 1]), np.array([0.5, 0.1, 0.1005]), np.array([1.0, 1e-3, 1e-3])
    )
    assert pid.tolist() == [0, 1] and omega.tolist() == [0.5, 0.1]
    quarter = np.full(2, 0.25)
    assert _merged(np.zeros(2, int), np.array([0.0, 1.0]), quarter)[1].tolist() == [0.0]
    assert _merged(np.zeros(2, int), np.array([0.0, 1.25]), quarter)[1].tolist() == [0.0, 1.25]


def test_the_leading_run_ends_at_a_pair_more_than_3_tolerances_off_the_line():
    """ln ω_j = −1/4 − j/2 for 8 pairs, tolerance 10^-6 each, with pair 5 moved by 3.5 tolerances:
    the line through pairs 0–4 misses it by 3.5·10^-6 > 3·10^-6, so the run is 5; moved by
    2.5 tolerances it is on the line and all 8 pairs lead. A line needs 3 pairs to be
    checked against: pair 3 moved by 3.5 tolerances ends the run at 3."""
    logs = -0.25 - np.arange(8) / 2
    tol = np.full(8, 1e-6)
    for pair, moved, run in ((5, 3.5e-6, 5), (5, 2.5e-6, 8), (3, 3.5e-6, 3)):
        shifted = logs.copy()
        shifted[pair] += moved
        assert _leading_run(np.exp(shifted), tol) == run


def test_the_leading_run_weighs_each_pair_by_its_own_tolerance():
    """ln ω_j = −j/2 for 8 pairs, tolerance 10^-6 each but pair 2's 0.1, and pair 2 off the
    line by 0.1 (one of its tolerances): every pair lies on the line within its tolerance, so
    all 8 lead (a fit weighting pair 2 as much as the others would miss pair 3)."""
    logs = -np.arange(8) / 2
    logs[2] += 0.1
    tol = np.full(8, 1e-6)
    tol[2] = 0.1
    assert _leading_run(np.exp(logs), tol) == 8


def test_all_omegas_known_is_no_finding():
    """8 pairs, every ω = 10^4^(−j/8) known: θ 10^4 from all 8, and no pair undetermined."""
    w = 1e4 ** (-np.arange(8) / 8)
    fit = OmegaFit(w, 1e-12 * w, np.ones(8, dtype=int), np.zeros(8))
    frequencies = read_frequencies([fit])
    assert frequencies.theta.theta == 10000.0 and frequencies.theta.run == 8
    assert frequencies.findings == []


def test_a_gain_exactly_tol_from_the_median_is_a_constant():
    """Gains 1.5, 1.5, 1.75 within 0.25 (all binary fractions: exact): the median 1.5 is
    within 0.25 of every gain (|1.75 − 1.5| = 0.25), so a constant 1.5; 1.8 is not."""
    tol = np.full(3, 0.25)
    p = np.array([0.0, 1, 2])
    assert fit_temperature(p, np.array([1.5, 1.5, 1.75]), tol) == Temperature("constant", 1.5)
    assert fit_temperature(p, np.array([1.5, 1.5, 1.8]), tol).kind == "stepped"


def test_l_is_bounded_by_the_first_position_whose_gain_is_not_1():
    """Mistral's ``1 + β·ln(1 + floor(p/L))`` with β 0.1, L 8000 at p = 0, 1, 100, 8000,
    300000: the gains step at 8000 (floor 1) and 300000 (floor 37), so L lies in (100, 8000];
    only L in (300000/38, 8000] = (7894.7, 8000] gives both floors, and 8000 is a multiple of
    1000 tried there. Llama 4's form (p + 1) fits the same L."""
    p = np.array([0.0, 1, 100, 8000, 300000])
    gain = 1 + 0.1 * np.log(1 + np.floor(p / 8000))
    forms = fit_temperature(p, gain, np.full(5, 1e-9)).forms
    assert forms == [("llama4", 0.1, 8000), ("mistral", 0.1, 8000)]


def test_a_power_of_two_l_is_tried_before_the_smaller_lengths_that_fit():
    """β 0.1, gains 1, 1, 1 + 0.1·ln 2 at p = 0, 5, 12. Llama 4's ``floor((p + 1)/L)`` is
    0, 0, 1 for every L in (6, 13], Mistral's ``floor(p/L)`` for every L in (5, 12]: all fit,
    and the roundest, the power of two 8, is the one named (not 7 or 6, the first integers)."""
    p = np.array([0.0, 5, 12])
    gain = np.array([1, 1, 1 + 0.1 * math.log(2)])
    forms = fit_temperature(p, gain, np.full(3, 1e-9)).forms
    assert forms == [("llama4", 0.1, 8), ("mistral", 0.1, 8)]


def test_the_lengths_tried_are_the_integers_in_the_range_roundest_first():
    """L in (low, high]: powers of two (from 2^0), then multiples of 1024 and of 1000, then
    the integers from the first one on, 257 of them at most, each once. (0, 1000]: 1 … 512,
    1000, then 3 … 257 less the powers; (8, 16] and (7, 16]: both ends are in or out as the
    half-open range says; (3000.5, 3100.5]: 3072 = 3·1024, then 3001 … 3100."""
    twos = [2**k for k in range(10)]
    assert _lengths(0.0, 1000.0) == [*twos, 1000, *(n for n in range(3, 258) if n not in twos)]
    assert _lengths(8.0, 16.0) == [16, *range(9, 16)]
    assert _lengths(7.0, 16.0) == [8, 16, *range(9, 16)]
    assert _lengths(3000.5, 3100.5) == [3072, *range(3001, 3072), *range(3073, 3101)]


def test_pairs_no_omega_explains_are_listed_by_range_with_their_largest_residual():
    """Pairs 0, 1 fit (ω known); pairs 2 and 3 fit no ω, their best readings 2.5 and 6 σ off:
    the finding names pairs 2–3 and a residual up to 6 σ (the larger)."""
    omega = np.array([1.0, 0.1, np.nan, np.nan])
    fit = OmegaFit(omega, 1e-9 * omega, np.array([1, 1, 0, 0]), np.array([0.5, 0.5, 2.5, 6.0]))
    findings = _fit_findings([fit], read_frequencies([fit]))
    assert findings == [
        "2 pair(s) turn by angles no ω·p explains (pairs 2–3; residual up to 6 σ): are the "
        "positions right (first position, one id column per axis)?"
    ]


def test_a_pair_no_axis_explains_is_as_far_off_as_its_best_axis():
    """Two id axes; pairs 2 and 3 fit no ω on either: pair 2 is 2.5 σ off on t and 6 on h,
    pair 3 9 on t and 8 on h. Each pair is as far off as its best axis (2.5 and 8), and the
    largest of those is 8 (not 6, the best over the pairs per axis, nor 9, the worst axis)."""
    omega = np.array([1.0, 0.1, np.nan, np.nan])
    readings = np.array([1, 1, 0, 0])
    t = OmegaFit(omega, 1e-9 * omega, readings, np.array([0.5, 0.5, 2.5, 9.0]))
    h = OmegaFit(omega, 1e-9 * omega, readings, np.array([0.5, 0.5, 6.0, 8.0]))
    findings = _fit_findings([t, h], read_frequencies([t, h]))
    assert len(findings) == 1 and "(pairs 2–3; residual up to 8 σ)" in findings[0]


def test_pair_indices_are_written_as_runs():
    assert _listed(np.array([0, 1, 2, 3, 7])) == "0–3, 7"
    assert _listed(np.array([4, 6, 7])) == "4, 6–7"


def test_an_interleaved_slice_of_unknown_omegas_has_no_sure_width():
    """Interleaved RoPE (θ 100) over channels 0–7 of 16, read at positions one too high: no
    ω is known, so no next pair can be extrapolated: the slice may be wider."""
    q = np.random.default_rng(8).standard_normal((5, 2, 16))
    p = np.arange(5.0)
    w = 100.0 ** (-np.arange(4) / 4)
    post = interleaved(q, p[:, None] * w, 8)
    reading = probe_rope(q, post, (p + 1)[:, None])
    assert (reading.pairing.layout, reading.pairing.stop) == ("interleaved", 8)
    assert np.isnan(reading.frequencies.omega).all() and reading.width_sure is False


def test_a_baseline_counts_while_its_noise_is_below_a_quarter_turn_of_pi():
    """Weighted least squares of ψ = ω·b: ω = Σ(b·ψ/σ²) / Σ(b²/σ²), its error 1/√Σ(b²/σ²).
    Baselines 1, 2, 3 with ψ 0.5, 1.2, 1.5 and noise 0.02, 0.7 and 0.8 rad: 0.7 is below
    π/4 = 0.785 and counts, 0.8 is above and does not (by hand, float64). Baseline 1's noise
    is its σ 0.01 plus the float32 angle rounding 2^-23·|ω|·span = 0.01 (ω 0.5, span
    2^23·0.02)."""
    from pecli.analysis.rope.probe.omega import Measurements, _refine

    sigma = np.array([[0.01], [0.7], [0.8]])
    m = Measurements(
        b=np.array([1.0, 2.0, 3.0]),
        psi=np.array([[0.5], [1.2], [1.5]]),
        sigma=sigma,
        span=np.array([2.0**23 * 0.02, 0.0, 0.0]),
        zero=np.zeros((0, 1)),
        zero_sigma=np.zeros((0, 1)),
    )
    omega, error, _ = _refine(m, np.array([0]), np.array([0.5]))
    sbb = 1 / 0.02**2 + 4 / 0.7**2
    assert omega[0] == pytest.approx((0.5 / 0.02**2 + 2 * 1.2 / 0.7**2) / sbb, rel=1e-12)
    assert error[0] == pytest.approx(1 / math.sqrt(sbb), rel=1e-12)


def test_a_gain_within_its_tolerance_of_1_is_no_temperature():
    """Gains of 1.25 (exact in binary) allowed ± 0.25: 1 is within reach (|1.25 − 1| = 0.25,
    inclusive: "within tol"), so no temperature; allowed ± 0.125 they are a constant 1.25."""
    p, gain = np.arange(4.0), np.full(4, 1.25)
    assert fit_temperature(p, gain, np.full(4, 0.25)) == Temperature("none")
    assert fit_temperature(p, gain, np.full(4, 0.125)) == Temperature("constant", 1.25)
