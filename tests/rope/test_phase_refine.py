"""Following a pair's phase from row to row (phases.refine): ω pinned from wrapped phases.

The phases are written from known ω (float64 angles p·ω, wrapped to (−π, π]); one candidate
per row takes refine's short path, which must give what the general path gives when each
row offers the same phase twice (both possible, 0 apart: nothing is added to the error).
"""

from __future__ import annotations

import numpy as np

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
