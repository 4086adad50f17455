"""Following a pair's phase from row to row (phases.refine): ω pinned from wrapped phases.

The phases are written from known ω (float64 angles p·ω, wrapped to (−π, π]); one candidate
per row takes refine's short path, which must give what the general path gives when each
row offers the same phase twice (both possible, 0 apart: nothing is added to the error).
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.rope.phases import ladder, refine

OMEGA = 500000.0 ** -(np.arange(0, 128, 2) / 128)  # Llama 3's θ, head 128


def wrapped(positions: np.ndarray) -> np.ndarray:
    return np.angle(np.exp(1j * positions[:, None] * OMEGA))[:, None, :]


def test_one_phase_per_row_pins_every_omega_within_its_error():
    positions = ladder(131_072)[1:].astype(np.float64)
    phases = wrapped(positions)
    # each angle p·ω rounded in float64 (relative 2^-52), its cos and sin within 2^-50
    omega, err = refine(positions, phases, np.full(phases.shape, 2.0**-50), eta=2.0**-52)
    assert np.all(np.abs(omega - OMEGA) <= err)
    assert np.all(err <= 1e-14 * OMEGA)  # a 131,072-row ladder pins even the slowest pair


def test_the_short_path_equals_the_general_one_bit_for_bit():
    positions = ladder(131_072)[1:].astype(np.float64)
    phases = wrapped(positions)
    errors = np.full(phases.shape, 2.0**-23)
    one = refine(positions, phases, errors, offset=3.0)
    twice = refine(
        positions, np.repeat(phases, 2, axis=1), np.repeat(errors, 2, axis=1), offset=3.0
    )
    assert np.array_equal(one[0], twice[0]) and np.array_equal(one[1], twice[1])


def test_two_possible_phases_widen_the_error_by_their_gap():
    """A cos-only row at φ = 3 allows 3 and 2π − 3: both inside the window, so ω is 3 ± the gap.

    At p = 1 with the estimate ω = 3.1 ± 0.5, cos alone allows the phases 3 and 2π − 3
    (0.1 and 0.18 from the estimate): the closer one, 3, is taken, and its error is their
    gap 2π − 6 plus the float32 angle's rounding 2^-23 · 3 (hand-derived).
    """
    candidates = np.array([3.0, -3.0])[None, :, None]
    omega, err = refine(
        np.array([1.0]), candidates, np.zeros((1, 2, 1)), np.array([3.1]), np.array([0.5])
    )
    assert omega[0] == 3.0
    assert err[0] == pytest.approx(2 * np.pi - 6 + 2.0**-23 * 3, rel=1e-12)


def test_a_relative_phase_allows_the_two_float32_angles_drift():
    """Offset ``s`` <= 3, a row at k = 2 with phase 1 (exact, no stored error): the allowed error
    is ``eta·|kω|·(1 + 2·offset/k)`` = 2^-23 · 1 · 4, so ω = 1/2 to 2^-23·4/2 = 2^-22."""
    omega, err = refine(np.array([2.0]), np.ones((1, 1, 1)), np.zeros((1, 1, 1)), offset=3.0)
    assert omega[0] == 0.5 and err[0] == 2.0**-22


def test_a_phase_outside_the_estimates_window_is_not_taken():
    """Estimate ω = 0 ± 0.1; a row at p = 1 with phase 1: 1 is 1 from the prediction 0, far
    outside 0.1 plus its error, so the estimate stays (one candidate or two alike)."""
    for k in (1, 2):
        omega, err = refine(
            np.array([1.0]), np.ones((1, k, 1)), np.zeros((1, k, 1)), np.zeros(1), np.full(1, 0.1)
        )
        assert omega[0] == 0.0 and err[0] == 0.1


def test_without_an_estimate_omega_is_looked_for_in_0_to_1():
    """Every ω_i is at most 1: the start is ω = 0.5 ± 0.5, so at p = 1 a phase 1.2 is outside
    it and not taken (the estimate stays), while 0.9 is taken."""
    for phase, expected in ((1.2, (0.5, 0.5)), (0.9, (0.9, 2.0**-23 * 0.9))):
        omega, err = refine(np.array([1.0]), np.full((1, 1, 1), phase), np.zeros((1, 1, 1)))
        assert (omega[0], err[0]) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("estimate", "phase"),
    [((0.5, 0.25), 0.75), ((0.125, 0.25), 0.0)],
    ids=["window-edge", "omega-0"],
)
def test_a_phase_on_the_edge_of_what_is_possible_is_taken(estimate, phase):
    """No rounding (eta 0, errors 0): a phase exactly at the window's edge (0.75 = 0.5 + 0.25)
    or exactly 0 (ω >= 0 allows it) is possible and pins ω exactly; a second candidate 3 is
    outside the window. One candidate or both give the same."""
    for cands in ([phase], [phase, 3.0]):
        candidates = np.array(cands)[None, :, None]
        omega, err = refine(
            np.array([1.0]),
            candidates,
            np.zeros(candidates.shape),
            np.array([estimate[0]]),
            np.array([estimate[1]]),
            eta=0.0,
        )
        assert omega[0] == phase and err[0] == 0.0


def test_a_row_refines_while_its_window_is_below_half_pi():
    """Each row "refines ω_i while p_k times the current error stays below π/2": at p = 2 an
    estimate 0.5 ± 0.6 spans 1.2 < π/2, so the phase 1.5 (eta 0, exact) pins ω = 0.75; at
    p = 3 it spans 1.8 > π/2 and the estimate stays."""
    for p, expected in ((2.0, (0.75, 0.0)), (3.0, (0.5, 0.6))):
        for k in (1, 2):
            candidates = np.full((1, k, 1), 1.5 if p == 2 else 2.25)
            omega, err = refine(
                np.array([p]),
                candidates,
                np.zeros((1, k, 1)),
                np.full(1, 0.5),
                np.full(1, 0.6),
                eta=0.0,
            )
            assert (omega[0], err[0]) == expected
