"""The ω fit's documented rules at their edges: an angle's noise in roundoff units, a pair
zero on one side only, the baselines' growth factor, the cap on readings per pair.

Every expected value is worked out by hand in the test's docstring.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.rope.probe.omega import (
    Measurements,
    _capped,
    _refine,
    _thinned,
    _unwrap,
    fit_omega,
    measurements,
    pair_angles,
)

CHANNELS = np.array([[0], [1]])


def test_an_angle_is_read_within_4_units_of_the_storage_rounding():
    """The docs' rule: an angle's noise is 4 unit roundoffs (cos and sin rounded, two
    products, a sum, the stored result, each within 1 unit of the pair's norm). float32's
    u = 2^-24 gives 2^-22 exactly; bf16's 2^-8 gives 2^-6. (1, 0) turned to (0, 1): π/2."""
    x, y = np.array([[[1.0, 0.0]]]), np.array([[[0.0, 1.0]]])
    angles, sigma = pair_angles(x, y, CHANNELS, CHANNELS, 2.0**-24)
    assert float(angles[0, 0]) == math.pi / 2 and sigma.tolist() == [[2.0**-22]]
    assert pair_angles(x, y, CHANNELS, CHANNELS, 2.0**-8)[1].tolist() == [[2.0**-6]]


def test_a_pair_zero_before_or_after_in_every_head_has_no_angle():
    """A pair that is 0 in every head before (or after) turned by no angle one can read:
    atan2(0, 0) is 0, so its noise is ∞ (it weighs nothing). Row 0: (0, 0) to (1, 0); row 1:
    (1, 0) to (0, 0); row 2: (0, 0) in one head and (1, 0) in the other, before and after,
    is read (noise 4u)."""
    x = np.array([[[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]])
    y = np.array([[[1.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]])
    _, sigma = pair_angles(x, y, CHANNELS, CHANNELS, 2.0**-24)
    assert sigma[:, 0].tolist() == [math.inf, math.inf, 2.0**-22]


def test_baselines_are_thinned_to_a_growth_of_at_least_five_quarters():
    """Sorted 1, 4, 5, 5.5: 1 first; 4 ≥ 1.25; 5 = 1.25·4 exactly (at least: kept); 5.5 <
    1.25·5 = 6.25 (dropped). The kept indices, shortest first: 1, 0, 2. 4 then 4.99: only 4."""
    assert _thinned(np.array([4.0, 1.0, 5.0, 5.5])).tolist() == [1, 0, 2]
    assert _thinned(np.array([4.0, 4.99])).tolist() == [0]


def test_a_pair_is_dropped_with_more_than_4096_readings_not_at_4096():
    """The docs' cap: a pair with more than 4096 readings is dropped (marked, its readings
    gone); 4096 exactly are kept. Pair 0 has 4096 readings, pair 1 has 4097."""
    pid = np.concatenate([np.zeros(4096, int), np.ones(4097, int)])
    values = np.arange(pid.size, dtype=float)
    dropped = np.zeros(2, dtype=bool)
    kept, sbb, _ = _capped(pid, values, values, dropped)
    assert dropped.tolist() == [False, True]
    assert kept.tolist() == [0] * 4096 and sbb.tolist() == values[:4096].tolist()


def test_a_reading_is_kept_while_every_angle_is_within_2_sigma_inclusive():
    """One pair, one baseline 1 turned by 0.5 (noise 2^-20): ω = 0.5 exactly, residual 0.
    Its angle at position 0 must be 0: read as 0.5 with σ 0.25 it is 2σ off (binary
    fractions, exact), within 2σ, so the one reading stands (ω 0.5, worst 2); read as 0.625
    it is 2.5σ off and no reading is left (ω NaN, worst 2.5). A second token at 0 read as
    exactly 0 changes neither: the worst token at 0 counts."""
    for zero, kept in ((0.5, True), (0.625, False)):
        m = Measurements(
            b=np.array([1.0]),
            psi=np.array([[0.5]]),
            sigma=np.array([[2.0**-20]]),
            span=np.array([0.0]),
            zero=np.array([[0.0], [zero]]),
            zero_sigma=np.array([[0.25], [0.25]]),
        )
        fit = fit_omega(m)
        assert fit.worst.tolist() == [zero / 0.25]
        assert fit.readings.tolist() == [1 if kept else 0]
        if kept:
            assert fit.omega.tolist() == [0.5]
        else:
            assert np.isnan(fit.omega).all()


def _one_baseline(b: float, psi: float, sigma: float) -> Measurements:
    no_zero = np.zeros((0, 1))
    return Measurements(
        b=np.array([b]),
        psi=np.array([[psi]]),
        sigma=np.array([[sigma]]),
        span=np.array([0.0]),
        zero=no_zero,
        zero_sigma=no_zero,
    )


def test_a_baseline_whose_noise_is_a_quarter_turn_of_pi_teaches_nothing():
    """A baseline counts while its noise is below π/4, strictly. Noise exactly π/4 (span 0,
    no float32 rounding): unwrapping leaves the prior ω = 0 ± π/2 as it was, and the refit
    gives it no weight (Σ b²/σ² = 0: ω NaN); noise just below weighs 1/σ² and the refit
    reads ψ/b = 0.25."""
    m = _one_baseline(1.0, 0.25, math.pi / 4)
    pid, omega, error = _unwrap(m, np.array([0]), np.zeros(1, dtype=bool))
    assert (pid.tolist(), omega.tolist(), error.tolist()) == ([0], [0.0], [math.pi / 2])
    assert np.isnan(_refine(m, np.array([0]), np.array([0.25]))[0]).all()
    below = _one_baseline(1.0, 0.25, math.nextafter(math.pi / 4, 0))
    assert _refine(below, np.array([0]), np.array([0.25]))[0].tolist() == [0.25]


def test_every_winding_a_long_first_baseline_allows_is_followed():
    """Positions 0, 2, 5 (no 1: the shortest baseline, 2, allows two windings within the
    prior |ω| < π). Two ω fitting both 2 and 5 differ by a multiple of π and of 2π/5, so of
    2π: one ω in (−π, π] each, and 1, −0.9, 2.5 are read back. Positions 0, 2, 4 share the
    divisor 2: ω and ω ± π both fit, two readings, ω not determined."""
    omega = np.array([1.0, -0.9, 2.5])
    for positions, readings in (([0.0, 2, 5], 1), ([0.0, 2, 4], 2)):
        p = np.array(positions)
        angles = np.angle(np.exp(1j * p[:, None] * omega))
        fit = fit_omega(measurements(p, angles, np.full(angles.shape, 1e-9)))
        assert fit.readings.tolist() == [readings] * 3
        if readings == 1:
            np.testing.assert_allclose(fit.omega, omega, rtol=1e-8)
        else:
            assert np.isnan(fit.omega).all()


def _baselines(b: list[float], psi: list[float], sigma: list[float]) -> Measurements:
    no_zero = np.zeros((0, 1))
    return Measurements(
        b=np.array(b),
        psi=np.array(psi)[:, None],
        sigma=np.array(sigma)[:, None],
        span=np.zeros(len(b)),
        zero=no_zero,
        zero_sigma=no_zero,
    )


def test_angles_no_winding_fits_leave_no_reading_and_no_residual():
    """Baseline 1 turned by 0.5, baseline 2 by 1.5 (σ 10^-9): baseline 1 pins ω = 0.5, which
    turns baseline 2 by 1.0, and no whole turn of 2π bridges 0.5 rad within 2·10^-9. No
    reading survives the unwrapping: 0 readings, and no residual to report (NaN)."""
    fit = fit_omega(_baselines([1.0, 2.0], [0.5, 1.5], [1e-9, 1e-9]))
    assert fit.readings.tolist() == [0] and np.isnan(fit.worst).all()


def test_residuals_are_in_sigmas_and_a_noisy_baseline_has_none():
    """Baselines 1 and 2 turned by 1/4 and 1/2 + 5δ, σ each 2^-30, δ σ/2: the weighted fit is
    ω = (1·1/4 + 2·(1/2 + 5δ)) / (1 + 4) = 1/4 + 2δ; residuals −2δ and +δ, so the worst is
    2δ/σ = 1. A third baseline, 3, whose noise 1 rad is over π/4 counts for nothing, not
    even a residual: turned by 3 (2.25 off ω·3) it leaves ω and the worst as they were; the
    worst of a perfect fit is 0, not a floor of any kind."""
    sigma, delta = 2.0**-30, 2.0**-31
    fit = fit_omega(_baselines([1.0, 2.0], [0.25, 0.5 + 5 * delta], [sigma, sigma]))
    assert fit.worst[0] == pytest.approx(1.0, rel=1e-6)
    assert fit.omega[0] == pytest.approx(0.25 + 2 * delta, rel=1e-12)
    noisy = fit_omega(_baselines([1.0, 3.0], [0.25, 3.0], [sigma, 1.0]))
    assert (noisy.omega.tolist(), noisy.worst.tolist()) == ([0.25], [0.0])


def test_float32_angle_rounding_of_an_unsure_omega_can_make_a_baseline_uninformative():
    """Unwrapping, a baseline's noise is σ plus float32's angle rounding 2^-23·(|ω| + its
    uncertainty)·span. Before any baseline ω is 0 ± π/2; baseline 1 at span 2^23 (σ 0) is
    then π/2 off, past π/4: it teaches nothing, ω stays 0 ± π/2. At span 1 it is read:
    the uncertainty drops below π/2."""
    far = _one_baseline(1.0, 0.25, 0.0)
    far = Measurements(far.b, far.psi, far.sigma, np.array([2.0**23]), far.zero, far.zero_sigma)
    _, omega, error = _unwrap(far, np.array([0]), np.zeros(1, dtype=bool))
    assert (omega.tolist(), error.tolist()) == ([0.0], [math.pi / 2])
    near = Measurements(far.b, far.psi, far.sigma, np.array([1.0]), far.zero, far.zero_sigma)
    assert _unwrap(near, np.array([0]), np.zeros(1, dtype=bool))[2][0] < 1e-3


def test_a_difference_of_two_angles_has_the_noise_of_both():
    """Positions 0, 1, 3 with noises 1, 2, 4 (sorted from 3, 0, 1): the differences 1 − 0
    and 3 − 1 have noises 1 + 2 = 3 and 2 + 4 = 6, their span |p| + |p'| 1 and 4, their
    angles 0.5 − 0.25 and 0.75 − 0.5. Without ``absolute`` those are all the baselines."""
    angles = np.array([[0.75], [0.25], [0.5]])
    m = measurements(
        np.array([3.0, 0.0, 1.0]), angles, np.array([[4.0], [1.0], [2.0]]), absolute=False
    )
    assert (m.b.tolist(), m.span.tolist()) == ([1.0, 2.0], [1.0, 4.0])
    assert (m.sigma[:, 0].tolist(), m.psi[:, 0].tolist()) == ([3.0, 6.0], [0.25, 0.25])
    assert m.zero.shape == (0, 1)
