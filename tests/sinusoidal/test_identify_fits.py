"""identify's angle fits (identify/fits.py) against numbers worked by hand.

The expected values come from the rules the docstrings and docs/conventions.md state
(``h − s`` of each odd-d rule and schedule, a weighted least-squares ``k``, the readings'
order), evaluated here with ``math`` on small inputs, never from pecli itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.sinusoidal.identify.fits import (
    NotGrowing,
    denominator,
    other_base,
    readings,
    refine_k,
    schedules,
    slopes_k,
    start_position,
    wrap,
)


@pytest.mark.parametrize(
    ("schedule", "d", "rule", "want"),
    [
        ("paper", 5, "sine", 2.5),  # DistilBERT: h = d / 2
        ("tensor2tensor", 5, "sine", 1.5),
        ("paper", 5, "sine-d+1", 3.0),  # tatp22: h = (d + 1) / 2
        ("paper", 8, "sine-d+1", 4.0),  # tatp22 at an even d: h = ceil(d / 2) = d / 2
        ("paper", 5, "zero", 2.0),  # h = d // 2
        ("tensor2tensor", 4, "zero", 1.0),
        ("tensor2tensor", 2, "zero", 1.0),  # h − 1 = 0: tensor2tensor's guard max(h − 1, 1)
        ("tensor2tensor", 3, "sine", 0.5),  # d / 2 − 1 = 0.5, positive: kept
    ],
)
def test_h_minus_s_of_each_odd_d_rule_and_schedule(schedule, d, rule, want):
    """docs/conventions.md: ω_j = C^(−j/(h − s)), h as the odd-d rule says, s = 0 or 1."""
    assert denominator(schedule, d, rule) == want


def test_the_readings_of_a_width_are_each_rule_then_each_schedule():
    """d = 5 with the rules zero then sine: (zero, paper, 2), (zero, t2t, 1), (sine, paper,
    2.5), (sine, t2t, 1.5)."""
    assert list(schedules(5, ("zero", "sine"))) == [
        ("zero", "paper", 2.0),
        ("zero", "tensor2tensor", 1.0),
        ("sine", "paper", 2.5),
        ("sine", "tensor2tensor", 1.5),
    ]


def _bases(options):
    return [(schedule, round(base, 6), rule) for schedule, base, rule in options]


def test_two_round_readings_put_the_named_one_first_then_the_one_nearer_10000():
    """d = 8, k = ln(10^4) / 4: the paper reads C = 10^4 (h − s = 4), tensor2tensor
    C = 10^3 (h − s = 3), both round. Nothing named: the base nearer 10^4 first; a preset
    named for tensor2tensor only puts it first."""
    k = math.log(1e4) / 4
    assert _bases(readings(k, 8, ("zero",), lambda s, r: [])) == [
        ("paper", 10000.0, "zero"),
        ("tensor2tensor", 1000.0, "zero"),
    ]
    named = readings(k, 8, ("zero",), lambda s, r: ["x"] if s == "tensor2tensor" else [])
    assert _bases(named) == [("tensor2tensor", 1000.0, "zero"), ("paper", 10000.0, "zero")]


def test_a_round_base_comes_before_a_named_one_nearer_10000():
    """d = 8, k = ln(12000) / 3: tensor2tensor reads C = 12000 (round), the paper
    12000^(4/3) ≈ 274,640 (ln(274640 / 270000) ≈ 0.017 from two digits: not round). The
    round one is first even when only the paper reading names a preset."""
    k = math.log(12000.0) / 3
    paper = 12000.0 ** (4 / 3)
    assert abs(math.log(paper / 270000)) > 0.01
    got = readings(k, 8, ("zero",), lambda s, r: ["x"] if s == "paper" else [])
    assert [o[0] for o in got] == ["tensor2tensor", "paper"]
    assert got[0][1] == pytest.approx(12000.0) and got[1][1] == pytest.approx(paper)


def test_bases_within_1e_4_of_round_tie_on_roundness():
    """d = 8, k = ln(10000.5) / 4: the paper reads 10000.5 (5e-5 from 10^4), tensor2tensor
    10000.5^(3/4) ≈ 1000.0375 (3.75e-5 from 10^3): both under ROUND = 1e-4, so they tie and
    the named one comes first, whichever it is."""
    k = math.log(10000.5) / 4
    for first in ("paper", "tensor2tensor"):
        got = readings(k, 8, ("zero",), lambda s, r, first=first: ["x"] if s == first else [])
        assert got[0][0] == first


@pytest.mark.parametrize("bound", [1e-300, 1e300])
def test_a_base_at_either_end_of_the_range_is_a_reading(bound):
    """d = 2 (h − s = 1): k = ln C at C = 1e-300 and 1e300, BASE_RANGE's ends, is a reading."""
    got = readings(math.log(bound), 2, ("zero",), lambda s, r: [])
    assert len(got) == 1 and got[0][1] == pytest.approx(bound, rel=1e-12)


def test_frequencies_no_base_in_the_range_gives_are_refused():
    """k = 1000 at d = 8: C = e^3000 or e^4000, past 1e300: ValueError saying so."""
    with pytest.raises(ValueError, match=r"exp\(-1000 j\): no base from 1e-300 to 1e\+300"):
        readings(1000.0, 8, ("zero",), lambda s, r: [])


def test_k_is_the_slopes_weighted_least_squares_fit():
    """Rows 0 … 9, pairs with slopes 1, 0.5 and 0.3 (exact lines): each pair j ≥ 1 says
    −ln(slope_j) = k j; weighted by slope², k = Σ s² j (−ln s) / Σ s² j²
    = (0.25 ln 2 + 0.09 · 2 ln(1/0.3)) / (0.25 + 0.09 · 4)."""
    rows = np.arange(10.0)
    theta = wrap(np.outer(rows, [1.0, 0.5, 0.3]))
    want = (0.25 * math.log(2) + 0.18 * -math.log(0.3)) / (0.25 + 0.36)
    assert slopes_k(theta, rows) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(("moved", "told"), [(2e-6, True), (0.5e-6, False)])
def test_without_noise_a_pair_counts_once_it_turns_1e_6(moved, told):
    """No noise: a pair counts once it turns by more than 1e-6 over the rows (0 … 9)."""
    rows = np.arange(10.0)
    k = slopes_k(wrap(np.outer(rows, [1.0, moved / 9])), rows)
    assert (k is not None) == told


@pytest.mark.parametrize(("moved", "told"), [(0.06, True), (0.04, False)])
def test_the_noise_threshold_is_capped_at_0_05_rad(moved, told):
    """Noise 0.01 would ask 50 · 0.01 = 0.5 rad; the cap asks 0.05: a turn of 0.06 tells k."""
    rows = np.arange(10.0)
    k = slopes_k(wrap(np.outer(rows, [1.0, moved / 9])), rows, noise=0.01)
    assert (k is not None) == told


def test_a_turn_of_exactly_the_threshold_does_not_count():
    """A pair counts past the threshold, not on it: rows 0, 1 and pair 1 at angles 0, 0.05
    give a slope of exactly 0.05 (halves and products of 0.05, 0.5: no rounding), the 0.05 rad
    cap itself, so no pair but the first tells k (None); 0.05 + 2^-20 tells −ln(0.05 + 2^-20)."""
    rows = np.array([0.0, 1.0])
    assert slopes_k(np.array([[0.0, 0.0], [1.0, 0.05]]), rows, noise=0.01) is None
    moved = 0.05 + 2.0**-20
    k = slopes_k(np.array([[0.0, 0.0], [1.0, moved]]), rows, noise=0.01)
    assert k == pytest.approx(-math.log(moved), rel=1e-12)


@pytest.mark.parametrize(("first", "grows"), [(1.04, True), (1.06, False), (0.94, False)])
def test_the_first_pair_must_turn_by_1_a_row_within_0_05(first, grows):
    """A first pair turning 1.04 a row is read; 1.06 or 0.94 is not (an angle scale)."""
    rows = np.arange(6.0)
    theta = wrap(np.outer(rows, [first, 0.5]))
    if grows:
        assert slopes_k(theta, rows) is not None
    else:
        with pytest.raises(NotGrowing):
            slopes_k(theta, rows)


def test_a_single_pair_leaves_k_as_given():
    """One pair (j = 0 only): ∂θ/∂k = −j p e^(−kj) is 0 everywhere, nothing to step on."""
    positions = np.arange(5.0)
    assert refine_k(wrap(positions[:, None]), positions, 0.3) == 0.3


@pytest.mark.parametrize(("start", "want"), [(1234.0, 1234.0), (12.04, 12.0), (12.3, 12.3)])
def test_a_start_near_an_integer_is_that_integer(start, want):
    """ω = 1, 0.1, 0.01, 0.001 at rows 0 … 4 from ``start``: the phases give it back, rounded
    to the integer when within 0.05 of one (12.04 → 12), as measured otherwise (12.3)."""
    omega = np.array([1.0, 0.1, 0.01, 0.001])
    rows = np.arange(5.0)
    theta = wrap((start + rows)[:, None] * omega[None, :])
    assert start_position(theta, rows, omega) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("moved", "told"), [(0.06, True), (0.053, True), (0.04, False)])
def test_the_turn_is_measured_over_the_rows_span_not_their_positions(moved, told):
    """Rows 100 … 109 (span 9, first to last), noise 0.01 (threshold capped at 0.05 rad): a
    pair turning 0.06 or 0.053 over the span tells k (0.053 · 8/9 would not), 0.04 does not,
    wherever the rows start."""
    rows = np.arange(100.0, 110.0)
    k = slopes_k(wrap(np.outer(rows, [1.0, moved / 9])), rows, noise=0.01)
    assert (k is not None) == told


def test_rows_one_apart_take_each_wrapped_difference_as_the_turn():
    """Rows 0 … 4, all one apart: each pair's turn is its wrapped difference, as the rows are
    (no per-row average carried). Pair 1 turns 3, 3, 3 and then 3.28 (wrapped: 3.28 − 2π),
    so its unwrapped angles are 0, 3, 6, 9, 9 + 3.28 − 2π, and k = −ln(their slope)."""
    rows = np.arange(5.0)
    pair = np.array([0.0, 3.0, 6.0, 9.0, 12.28])
    theta = wrap(np.column_stack([rows, pair]))
    unwrapped = np.array([0.0, 3.0, 6.0, 9.0, 12.28 - 2 * math.pi])
    slope = np.polyfit(rows, unwrapped, 1)[0]
    assert slopes_k(theta, rows) == pytest.approx(-math.log(slope), rel=1e-12)


def test_another_base_is_the_base_to_the_ratio_of_the_denominators():
    """other_base(C, den, own) = C^(den/own): 10000^(3/4) = 1000; 10000^(4/3) ≈ 215443.5;
    1e300^(34/33) is past BASE_RANGE: None."""
    assert other_base(10000.0, 3.0, 4.0) == pytest.approx(1000.0, rel=1e-12)
    assert other_base(10000.0, 4.0, 3.0) == pytest.approx(10000.0 ** (4 / 3), rel=1e-12)
    assert other_base(1e300, 34.0, 33.0) is None


@pytest.mark.parametrize("bound", [1e-300, 1e300])
def test_another_base_at_either_end_of_the_range_is_kept(bound):
    """C^(2/2) at BASE_RANGE's ends, 1e-300 and 1e300, is within the range: C itself."""
    assert other_base(bound, 2.0, 2.0) == pytest.approx(bound, rel=1e-12)


def test_a_fractional_start_is_placed_from_the_slowest_pair_first():
    """ω_j = 44^(−j/4), start 16.5, rows 0 … 3: the first pair's phase 16.5 − 6π ≈ −2.35 and
    the slowest's 16.5 · 44^(−3/4) ≈ 0.97 differ by more than π; starting from the slowest
    pair's phase gives 16.5 back (not a period of the slowest pair off)."""
    omega = 44.0 ** (-np.arange(4) / 4)
    rows = np.arange(4.0)
    theta = wrap((16.5 + rows)[:, None] * omega[None, :])
    assert start_position(theta, rows, omega) == pytest.approx(16.5, abs=1e-9)
