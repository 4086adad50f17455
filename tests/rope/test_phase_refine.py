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
