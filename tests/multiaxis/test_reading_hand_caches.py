"""``read_axes`` on caches built by hand from their definition, ``cos(ω·id)`` and ``sin(ω·id)``.

Each expected axis, ω and θ is the one the cache was built from: a per-axis schedule
``ω_k = θ^(-2k/D_a)`` (θ = 100, 4 pairs an axis), w ids 8 apart (a unit step past 2π, so the
fast pairs alias), channels in either axis order; one-pair float32 caches; a turn of exactly
:data:`~pecli.analysis.multiaxis.reading.MOVED` (a pair counts as turned when it *exceeds* it).
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.multiaxis.reading import MOVED, _packed, _ratio, _steps, _unalias, read_axes

OMEGA = 100.0 ** (-np.arange(4) / 4)  # 1, 0.316, 0.1, 0.0316: θ = 100 over D_a = 8


def per_axis_cache(order: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = np.array([(t, 8.0 * w) for t in range(3) for w in range(3)])  # (t, w)
    angles = np.concatenate([np.outer(ids[:, "tw".index(a)], OMEGA) for a in order], axis=1)
    return np.cos(angles), np.sin(angles), ids


@pytest.mark.parametrize("order", ["tw", "wt"], ids=["t-pairs-first", "w-pairs-first"])
def test_per_axis_cache_with_a_unit_step_past_two_pi(order):
    """The w step 8 turns the fastest w pair by 8 − 2π: read back as ω = 1 (the alias next to
    the slower pairs' ratio), not 0.21; the t pairs never take a w alias; θ is 100 per axis
    whichever axis's pairs come first."""
    cos, sin, ids = per_axis_cache(order)
    reading = read_axes(cos, sin, ids, layout="half-split")
    assert reading.axis == ["tw".index(a) for a in order for _ in range(4)]
    np.testing.assert_allclose(reading.omega, np.tile(OMEGA, 2), rtol=1e-9)
    assert reading.schedule == "per-axis"
    assert reading.theta == pytest.approx({"0": 100.0, "1": 100.0}, rel=1e-9)


def test_float32_one_pair_cache_is_read():
    ids = np.arange(4.0)[:, None]
    cos, sin = np.cos(0.5 * ids).astype(np.float32), np.sin(0.5 * ids).astype(np.float32)
    reading = read_axes(cos, sin, ids, layout="half-split")
    assert reading.axis == [0]
    np.testing.assert_allclose(reading.omega, [0.5], rtol=1e-6)


def test_float32_constant_broadcast_cache_turns_nothing():
    """A zero-stride (broadcast) float32 table: every token alike, no pair turned."""
    cos = np.broadcast_to(np.float32(1.0), (4, 1))
    sin = np.broadcast_to(np.float32(0.0), (4, 1))
    reading = read_axes(cos, sin, np.arange(4.0)[:, None], layout="half-split")
    assert reading.axis == [-1] and np.isnan(reading.omega).all()


@pytest.mark.parametrize(("turn", "axis"), [(MOVED, -1), (2 * MOVED, 0)])
def test_a_turn_of_exactly_moved_is_not_a_turn(turn, axis):
    cos = np.array([[1.0], [np.cos(turn)]])
    sin = np.array([[0.0], [np.sin(turn)]])
    assert np.arctan2(sin[1, 0], cos[1, 0]) == turn  # the angle read is the turn, to the bit
    reading = read_axes(cos, sin, np.array([[0.0], [1.0]]), layout="half-split")
    assert reading.axis == [axis]


@pytest.mark.parametrize(("top", "packs"), [(2.0**53 - 1, True), (2.0**53, False)])
def test_packed_takes_integers_below_two_to_the_53(top, packs):
    """One column spanning up to 2^53 − 1 packs; 2^53 itself is past the rule."""
    assert (_packed([np.array([0.0, top])]) is not None) == packs


@pytest.mark.parametrize(("top", "packs"), [(2.0**31 - 2, True), (2.0**31 - 1, False)])
def test_packed_radices_multiply_to_below_two_to_the_62(top, packs):
    """Two columns of span 2^31 − 1 (product below 2^62) pack; of span 2^31 (2^62) do not."""
    column = np.array([0.0, top])
    assert (_packed([column, column]) is not None) == packs


def test_steps_read_the_first_two_to_the_18_tokens_only():
    ids = np.zeros(((1 << 18) + 1, 1))
    ids[-1] = 1.0  # the only token apart from the others is past the head read
    assert _steps(ids, np.ones(1)) == []
    assert _steps(ids[-3:], np.ones(1)) == [(0, 2, 1.0), (0, 2, 1.0)]


def test_a_pair_whose_guess_stays_below_pi_over_k_is_read_as_measured():
    """Pair 0 (ω 0.05 from a turn of 0.4 over k = 8): the slower pairs guess 0.2² / 0.15 =
    0.27, and 0.27 · 8 < π, so the measured 0.05 stands (its alias 0.735 is nearer 0.27)."""
    omega = np.array([0.05, 0.2, 0.15])
    assert _unalias(omega, np.array([0.4, 1.6, 1.2]), 8.0).tolist() == omega.tolist()


def test_a_guess_of_exactly_pi_over_k_is_read_as_measured():
    """np.angle gives turns in (−π, π]: a guessed turn guess·k of exactly π needs no alias.
    With k = 2π and the slower pairs 0.5, 0.5 (guess 0.5, guess·k = π) pair 0 keeps its
    measured 0.4/2π, not the alias (2π − 0.4)/2π that is nearer 0.5."""
    omega = np.array([0.4 / (2 * np.pi), 0.5, 0.5])
    out = _unalias(omega, np.array([0.4, np.pi, np.pi]), 2 * np.pi)
    assert out.tolist() == omega.tolist()


def test_a_pair_the_unit_step_left_unturned_keeps_the_longer_steps_omega():
    """ω comes from the unit step, else the longest: a pair the unit step (k = 4) turned by 0
    has no alias (2π·m/4 is 0 or past 1) and keeps its 0.05 though the guess is 1."""
    omega = np.array([0.05, 0.5, 0.25])
    out = _unalias(omega, np.array([0.0, 2.0, 1.0]), 4.0)
    assert out.tolist() == omega.tolist()


def test_a_pair_at_the_fit_floor_does_not_fit_theta():
    """Only ω above FIT_FLOOR = 1e-3 fit: 1 and 1e-3 leave one value, no ratio."""
    assert _ratio(np.array([1.0, 1e-3])) is None
    assert _ratio(np.array([1.0, 0.1])) == pytest.approx(0.1)


@pytest.mark.parametrize(("scale", "theta"), [(0.5, 1000.0), (2.0, 8.0)])
def test_a_schedule_whose_fastest_pair_is_not_1_is_unknown(scale, theta):
    """ω = scale·θ^(-2k/6) over 3 pairs (0.5, 0.05, 0.005 or 2, 1, 0.5): geometric, but
    neither schedule pecli reads starts at ω = 1 (the second has a pair at 1, not the
    fastest), so no θ is claimed."""
    ids = np.arange(4.0)[:, None]
    angles = ids * (scale * theta ** (-np.arange(3) / 3))
    reading = read_axes(np.cos(angles), np.sin(angles), ids, layout="half-split")
    assert reading.axis == [0, 0, 0]
    np.testing.assert_allclose(reading.omega, scale * theta ** (-np.arange(3) / 3), rtol=1e-9)
    assert (reading.schedule, reading.theta) == ("unknown", {})


def test_packed_keys_of_ids_far_from_0_sort_as_the_rows_do():
    """Rows (2^32 − 1 + {0, 1}, 2^29 + {0, 2^30 − 1, 5}): each column is taken less its least,
    so the keys stay below 2^31 and sort as the tuples: rows 0, 2, 1, 3."""
    c1 = 2.0**32 - 1 + np.array([0.0, 1, 0, 1])
    c2 = 2.0**29 + np.array([0.0, 0, 2**30 - 1, 5])
    rows = list(zip(c1.tolist(), c2.tolist(), strict=True))
    assert sorted(range(4), key=lambda i: rows[i]) == [0, 2, 1, 3]
    assert np.argsort(_packed([c1, c2]), kind="stable").tolist() == [0, 2, 1, 3]


def test_steps_keep_one_token_a_position_in_every_group():
    """(h, w) rows, steps along w: group h = 0 holds w 0, 1, 1; h = 1 holds w 0, 0, 2. A
    position's first token only: the unit step 0 → 1 (w 0 to 1), the widest group h = 1's
    3 → 5 (w 0 to 2); the repeats (tokens 2 and 4) are no step of 0."""
    ids = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [1, 0], [1, 2]], dtype=float)
    assert _steps(ids, np.array([0.0, 1.0])) == [(0, 1, 1.0), (3, 5, 2.0)]


def test_a_missing_axis_takes_the_diagonal_pairs_above_the_floor_only():
    """Axis t: frames (t, 0), t = 0 … 3 (longest step 3); axis h: no step of its own, read
    from text tokens (p, p), p = 10 … 12. The floor is 10·MOVED/3 = 3.3e-4: h's slowest pair
    (ω 5e-4) is above it and goes to h; t's slowest (2e-5, unseen by t's steps: 3·2e-5 <
    MOVED) is below it and stays unread."""
    ids = np.array([(t, 0) for t in range(4)] + [(p, p) for p in (10, 11, 12)], dtype=float)
    w_t, w_h = np.array([1, 0.1, 0.01, 2e-5]), np.array([1, 0.1, 0.01, 5e-4])
    angles = np.concatenate([np.outer(ids[:, 0], w_t), np.outer(ids[:, 1], w_h)], axis=1)
    reading = read_axes(np.cos(angles), np.sin(angles), ids, layout="half-split")
    assert reading.axis == [0, 0, 0, -1, 1, 1, 1, 1]
    assert reading.notes == ["axis 1: no two tokens apart on it alone"]
