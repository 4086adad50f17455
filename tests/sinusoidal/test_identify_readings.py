"""identify's readings, held to the parameters each table was built from.

The tables are built by the libraries' recipes (slow_formulas.py), or by ``encoding_table``
where a knob has no library (the odd-d rules' sweep), from chosen parameters; each
test asserts those parameters (or a number derived by hand from them), never only ``matched``.
The cases are few and small: the identify area's mutation runs pay for this file per mutant.
"""

from __future__ import annotations

import io
import math

import ml_dtypes
import numpy as np
import pytest
import slow_formulas as slow
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pecli import encoding_table
from pecli.analysis.sinusoidal.identify import identify_table, passes
from pecli.analysis.sinusoidal.identify.fits import (
    readings,
    refine_k,
    round_base,
    roundness,
    slopes_k,
    wrap,
)
from pecli.analysis.sinusoidal.identify.fitting import Fit, Zeros
from pecli.analysis.sinusoidal.identify.naming import _rebuilds, short_base
from pecli.analysis.sinusoidal.identify.passes import _rank, fit_rows
from pecli.analysis.sinusoidal.identify.phases import Phases, _narrow_one, candidate_starts
from pecli.analysis.sinusoidal.identify.residuals import exact_error, residual
from pecli.cli.text import command_line


def angles(positions: np.ndarray, k: float, h: int) -> np.ndarray:
    """``θ_j = p · exp(-k j)`` of ``h`` pairs at ``positions``, wrapped (the fits' input)."""
    return wrap(positions[:, None] * np.exp(-k * np.arange(h))[None, :])


def test_gauss_newton_takes_k_back_from_a_start_off_by_a_hundredth():
    """d = 8 paper, C = 10^4: k = ln(10^4) / 4. From k + 0.01 the steps come back to it."""
    k = math.log(1e4) / 4
    positions = np.arange(100.0, 164.0)
    assert refine_k(angles(positions, k, 4), positions, k + 0.01) == pytest.approx(k, abs=1e-12)


def test_gauss_newton_leaves_a_k_whose_frequencies_underflow():
    """k = 400: ω_1 = e^-400 ≈ 2e-174, so every ∂θ/∂k squared underflows to 0: no step can be
    measured and k is returned as it is (not a division by zero)."""
    positions = np.arange(2.0, 10.0)
    assert refine_k(angles(positions, 400.0, 2), positions, 400.0) == 400.0


def test_a_fractional_start_is_placed_from_its_slowest_pair_first():
    """d = 8 paper, C = 44 (ω_j = 44^(-j/4)), start 16.5: the first pair's phase
    16.5 − 6π ≈ −2.35 and the slowest's 16.5 · 44^(-3/4) ≈ 0.97 differ by more than π, so a
    reading that began from the first pair's phase would be a period of the slowest pair off."""
    table = np.array(slow.vaswani(20, 8, 44.0, 16.5))  # the article's formula, float64
    found = identify_table(table)
    assert found.matched and found.start == pytest.approx(16.5, abs=1e-9)
    assert (found.schedule, found.base, found.layout) == ("paper", 44.0, "interleaved")
    assert command_line(found.command) == ""  # compute takes integer starts only


@pytest.mark.parametrize(
    ("live", "view"),
    [
        ([3, 4, 5, 6], True),  # a run after padding rows: a view of rows 3 … 6
        ([0, 1, 2], True),
        ([0, 2, 3], False),  # one padding row inside
        ([1, 2, 5, 6], False),  # two padding rows inside
    ],
)
def test_fit_rows_are_a_view_of_a_run_and_the_live_rows_otherwise(live, view):
    """The fit rows of a table whose live rows run without a gap are a view (no copy of up to
    2048 × d values); otherwise the live rows, gathered. Either way: those rows, in order."""
    table = np.arange(32.0).reshape(8, 4)
    rows, indices = fit_rows(table, np.array(live), 2048)
    np.testing.assert_array_equal(rows, table[live])
    np.testing.assert_array_equal(indices, np.array(live, dtype=np.float64))
    assert np.shares_memory(rows, table) is view


def test_fairseq_with_a_second_padding_row_past_the_compared_rows_is_no_preset():
    """fairseq's table (zero row 1) with row 100 zeroed too: fairseq's own table has row 100,
    so the rows compared must reach the last padding row, and no preset builds it. The
    command cannot say two padding rows: it names no --padding-idx."""
    table = np.array(slow.fairseq(120, 16))
    table[100] = 0.0
    found = identify_table(table)
    assert found.matched and found.padding_rows == [1, 100]
    assert (found.schedule, found.base, found.start) == ("tensor2tensor", 10000.0, 0.0)
    assert found.presets == [] and found.convention == "custom"
    assert "--padding-idx" not in command_line(found.command)


def reading(name: str, score: float, ulps: float, real: bool = False, order: int = 0) -> Fit:
    """A reading of a float16 table, its residual in units of float16's rounding 2^-11."""
    fit = Fit(name, "paper", 1e4, 1e4, 0.5 if real else 3.0, real=real, order=order)
    fit.score, fit.residual = score, ulps * 2.0**-11
    return fit


def test_readings_rank_matches_then_exact_ones_then_integer_starts():
    """The order of _rank's notes on a float16 table (exact: within 4 units of its rounding):
    exact integer starts by ulps then as tried, exact real starts, inexact matches (integer
    first, then by score), then every reading that does not match, by score alone. A score of
    1 still matches, 4 units still are exact."""
    expected = [
        reading("exact, 0 ulp, tried second", 0.0, 0, order=1),
        reading("exact at the limits: 4 ulps, a score of 1, tried first", 1.0, 4),
        reading("exact real start", 0.0, 0, real=True, order=2),
        reading("inexact integer start", 0.9, 20),
        reading("inexact real start", 0.3, 10, real=True),
        reading("no match, real start", 1.5, 50, real=True),
        reading("no match, integer start", 3.0, 90),
    ]
    ranked = sorted(reversed(expected), key=_rank("float16", 10))
    assert [fit.layout for fit in ranked] == [fit.layout for fit in expected]


def test_frequencies_that_fall_faster_than_any_base_are_no_reading(run_cli):
    """ω_j = e^(-10 j) over 72 pairs (interleaved): the paper's base would be e^720 and
    tensor2tensor's e^710, both past 1e300 (e^690.8). Before, exp overflowed and identify
    stopped with a traceback; now the layout says why it has no reading, and no match."""
    positions = np.arange(40.0)[:, None]
    theta = positions * np.exp(-10.0 * np.arange(72))[None, :]
    table = np.stack([np.sin(theta), np.cos(theta)], axis=2).reshape(40, 144)
    found = identify_table(table)
    assert not found.matched
    reason = "interleaved: the frequencies fall as exp(-10 j): no base from 1e-300 to 1e+300"
    assert any(c.description.startswith(reason) for c in found.candidates)
    buffer = io.BytesIO()
    np.save(buffer, table)
    result = run_cli("identify", "-", input=buffer.getvalue())
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_d_2_has_one_reading_whatever_the_schedule():
    """d = 2: h - s is 1 for the paper (h = 1) and for tensor2tensor (its guard): one reading."""
    assert readings(math.log(50.0), 2, ("zero",), lambda schedule, rule: []) == [
        ("paper", pytest.approx(50.0), "zero")
    ]


def test_phases_wider_than_half_a_turn_leave_the_start_open():
    """Two pairs, ω = 0.99 then 1, each phase known to ±3 rad only: the slow pair leaves
    2^24 · 0.99 / 2π ≈ 2.6 million intervals 6.06 positions wide, each of which the fast
    pair (period 2π, ±3) cuts in two: more than 2^22 candidates, the start is not told."""
    found = Phases(np.zeros(2), np.full(2, 3.0))
    assert candidate_starts(found, np.array([1.0, 0.99]), 0.0) is None


def test_an_exact_phase_at_the_last_starts_keeps_the_float64_allowance():
    """One pair, ω = 2^-30, start s = 2^24 - 2: its phase s·ω = 2^-6 - 2^-29 is exact in
    float64 (under π: no wrap), given with tolerance 0 and no drift. Only the allowance for
    float64's own s·ω, 2^-48·(1 + 2^24) ≈ 6e-8 positions, keeps the interval about s open
    (one period, 2π·2^30, covers every start): the start is s, by construction."""
    found = Phases(np.array([2.0**-6 - 2.0**-29]), np.zeros(1))
    assert candidate_starts(found, np.array([2.0**-30]), 0.0).tolist() == [2**24 - 2]


def test_one_pair_cuts_one_interval_in_python_floats():
    """ω = 1/2 (period 4π ≈ 12.57), phase 1 (centre 2), tolerance 0.05 rad (0.1 positions),
    no drift: the half width is 0.1 + 2^-48·(1 + high). [0, 5] holds one period's interval,
    2 ± that width (by hand); [0, 20] holds two (2 and 2 + 4π ≈ 14.57: None, the array path);
    [3, 5] none (its first centre past 2.1 is 14.57: nothing left)."""
    width = 0.1 + 2.0**-48 * 6
    assert _narrow_one(0.0, 5.0, 1.0, 0.05, 0.5, 0.0) == pytest.approx(
        (2 - width, 2 + width), rel=0, abs=1e-15
    )
    assert _narrow_one(0.0, 20.0, 1.0, 0.05, 0.5, 0.0) is None
    assert _narrow_one(3.0, 5.0, 1.0, 0.05, 0.5, 0.0) == ()


def test_float16_rows_too_few_for_the_slow_pair_read_a_base_they_cannot_tell():
    """d = 4, paper, C = 10^9 in float16, 10 rows: the slow pair (ω_1 = 10^-4.5) turns by
    3·10^-4 rad, under the 50 units of rounding the slopes ask for, so k is not read and
    C = 10000 is tried: tensor2tensor's ω_1 = 10^-4 is within float16's allowance, given as
    the paper's C = 10^8 with the note that larger bases (10^9 is one) give the same numbers."""
    table = np.array(slow.vaswani(10, 4, 1e9, 0)).astype(np.float16)
    found = identify_table(table.astype(np.float64))
    assert found.matched and found.start == 0 and (found.schedule, found.base) == ("paper", 1e8)
    assert found.note.startswith("the base is not determined") and found.base < 1e9
    reason = "interleaved: no pair but the first moves beyond the rounding in these rows"
    assert reason in [c.description for c in found.candidates]


def test_fairseq_at_base_1_names_fairseq_under_its_own_schedule():
    """fairseq at C = 1: every pair turns at ω = 1, so the paper and tensor2tensor readings
    are both C = 1; only fairseq (tensor2tensor, zero row 1) builds the table, so the reading
    becomes fairseq's, C = 1 (no exponent log C' / log C to carry the fitted base over)."""
    found = identify_table(np.array(slow.fairseq(20, 6, base=1.0)))
    assert found.matched and found.presets == ["fairseq"] and found.padding_rows == [1]
    assert (found.schedule, found.base, found.start) == ("tensor2tensor", 1.0, 0.0)
    assert found.base_fit == pytest.approx(1.0)


def test_one_live_row_says_it_is_one_and_matches_nothing():
    """pytorch's row at position 5 (d = 8) and two zero rows: one row cannot tell k or the
    start; the interleaved pairs are on the circle, so that layout says why."""
    table = np.zeros((3, 8))
    table[0] = slow.preset_table("pytorch", 1, 8, 10000.0, 5)[0]
    found = identify_table(table)
    assert not found.matched and found.presets == []
    assert "interleaved: fewer than 2 non-zero rows" in [c.description for c in found.candidates]


@pytest.mark.parametrize(
    ("zeroed", "rows"), [(8, "2, 3, 4, 5, 6, 7, 8, 9"), (9, "2, 3, 4, 5, 6, 7, 8, 9, …")]
)
def test_zero_rows_the_command_cannot_rebuild_are_named_eight_at_most(zeroed, rows):
    """pytorch's table (d = 16) with 8 or 9 zero rows from row 2: compute zeroes one padding
    row, so the note names the rows its command computes as positions: all 8, or 8 then …"""
    table = np.array(slow.preset_table("pytorch", 40, 16, 10000.0, 0))  # the tutorial's formula
    table[2 : 2 + zeroed] = 0.0
    found = identify_table(table)
    assert found.matched and found.padding_rows == list(range(2, 2 + zeroed))
    assert f"the command does not rebuild the zero rows {rows}: it computes" in found.note


def test_roundness_is_the_log_distance_to_two_significant_digits():
    """By hand: 44 is round; 1234 is 1200 · 1.0283; 9.96 rounds to 10.0; 0.0456 to 0.046."""
    assert roundness(44.0) == 0.0 and round_base(44.4) == 44.0
    assert roundness(1234.0) == pytest.approx(math.log(1234 / 1200))
    assert round_base(9.96) == pytest.approx(10.0) and roundness(9.96) == pytest.approx(
        math.log(10 / 9.96)
    )
    assert round_base(0.0456) == pytest.approx(0.046)


def test_an_angle_scale_of_2_is_said_not_to_grow_as_positions():
    """[sin | cos] of 2 p ω_j (diffusers' scale, which identify does not fit): the sin-cos
    pairs are on the circle but their first angle grows by 2 a row, not 1; no match."""
    angles = 2 * np.arange(40.0)[:, None] * 10000.0 ** (-np.arange(8) / 8)
    found = identify_table(np.hstack([np.sin(angles), np.cos(angles)]))
    assert not found.matched
    assert any(c.description.startswith("sin-cos: angles do not grow") for c in found.candidates)


@pytest.mark.parametrize(
    ("n", "zeroed"), [(40, [2, 3, 4]), (200, list(range(10, 110))), (40, list(range(1, 40, 2)))]
)
def test_zero_rows_inside_a_table_are_stepped_over(n, zeroed):
    """pytorch's table (d = 16, C = 10^4, start 0) with rows zeroed inside: across 3 zero rows
    the first pair turns by 4 rad, past π (across 100, by 101 rad: 16 turns more); before,
    such a turn was read wrapped, the angles did not grow, and no layout matched. Every
    other row zeroed: no two rows one apart, and every turn (2 rad at most) is under π."""
    table = np.array(slow.preset_table("pytorch", n, 16, 10000.0, 0))  # the tutorial's formula
    table[zeroed] = 0.0
    found = identify_table(table)
    assert found.matched and found.padding_rows == zeroed and found.layout == "interleaved"
    assert (found.schedule, found.base, found.start) == ("paper", 10000.0, 0.0)


def is_round(base: float) -> bool:
    """Within 10^-4 in log of a number with two significant digits (identify's round)."""
    step = 10.0 ** (math.floor(math.log10(base)) - 1)
    return abs(math.log(base / (round(base / step) * step))) <= 1e-4


def denominator_by_hand(schedule: str, d: int, rule: str) -> float:
    """``h - s``: h = d // 2, d/2 (sine) or (d+1)/2 (sine-d+1); tensor2tensor's guard 1."""
    half = {"sine": d / 2, "sine-d+1": (d + 1) // 2}.get(rule, d // 2)
    value = half - (schedule == "tensor2tensor")
    return value if value > 0 else 1.0


#: Chosen cases: (d, rule, schedule, layout, digits, power, start, zeroed, storage, transposed).
ROUND_BASE_CASES = [
    (8, "zero", "paper", "interleaved", 44, 0, 16, {0}, "float64", False),
    (9, "zero", "tensor2tensor", "sin-cos", 12, 3, 0, {2, 3, 4}, "float32", True),
    (5, "sine", "tensor2tensor", "cos-sin", 99, 5, 2**24 - 40, set(), "float32", False),
    (9, "sine-d+1", "paper", "interleaved", 37, 2, 70_000, {39}, "float64", True),
]


def _with_round_base_cases(test):
    names = ("d", "rule", "schedule", "layout", "digits", "power", "start", "zeroed")
    names += ("storage", "transposed")
    for case in reversed(ROUND_BASE_CASES):
        test = example(**dict(zip(names, case, strict=True)))(test)
    return test


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@_with_round_base_cases
@given(
    d=st.sampled_from([4, 5, 6, 8, 9, 16, 33]),
    rule=st.sampled_from(["zero", "sine", "sine-d+1"]),
    schedule=st.sampled_from(["paper", "tensor2tensor"]),
    layout=st.sampled_from(["interleaved", "sin-cos", "cos-sin"]),
    digits=st.integers(10, 99),
    power=st.integers(0, 5),
    start=st.one_of(st.integers(0, 3), st.integers(0, 2**24 - 40)),
    zeroed=st.sets(st.integers(0, 39), max_size=3),
    storage=st.sampled_from(["float64", "float32"]),
    transposed=st.booleans(),
)
def test_a_round_base_whose_equivalents_are_not_round_is_read_as_built(
    d, rule, schedule, layout, digits, power, start, zeroed, storage, transposed
):
    """A float64 or float32 table (or its transpose) at a two-digit base C (an odd d: a zero
    last column, or a last sine under either rule), some rows zeroed: the other schedule's
    (and the other odd-d rule's) readings C^((h' - s')/(h - s)) are the same numbers; when
    none is round, the table is read as it was built, the others given as equivalent."""
    rule = rule if d % 2 else "zero"
    base, own = digits * 10.0**power, denominator_by_hand(schedule, d, rule)
    rules = ("zero",) if rule == "zero" else ("sine", "sine-d+1")
    others = {
        (other, r): base ** (denominator_by_hand(other, d, r) / own)
        for r in rules
        for other in ("paper", "tensor2tensor")
        if (other, r) != (schedule, rule)
    }
    assume(not any(is_round(b) for b in others.values()))
    knobs = {"pad_odd_d": True} if rule == "zero" else {"odd_d": rule}
    table = encoding_table(
        d=d,
        n=40,
        start=start,
        base=base,
        schedule=schedule,
        layout=layout,
        dtype="float64",
        **knobs,
    )
    table[sorted(zeroed)] = 0.0
    table = table.astype(storage)
    found = identify_table(table.T if transposed else table)
    assert (found.storage, found.transposed) == (storage, transposed)
    assert found.matched and (found.layout, found.start) == (layout, start)
    assert (found.schedule, found.base) == (schedule, base)
    assert found.padding_rows == sorted(zeroed)
    assert found.zero_components == ([d] if d % 2 and rule == "zero" else [])
    for (other, r), other_base in others.items():
        label = f"{other} schedule" + (f" (odd d: {r})" if r != rule else "")
        assert f"{label} with C = {other_base:.6g}" in found.equivalent


def test_a_float32_framework_window_is_fitted_again_on_2048_rows(fitted_rows):
    """Positions 2^20 … 2^20 + 599 and ω_j = 10^(-j/8) (d = 64, C = 10^4), multiplied in
    float32 as frameworks do: angles off by up to ~2^20 · 2^-24 rad, within the float32
    allowance (2^-22 per unit of position) but not exact, so the quick pass (256 rows) does
    not stand and both orientations are fitted again on 2048 rows; the window is placed."""
    positions = np.arange(2**20, 2**20 + 600, dtype=np.float32)
    theta = positions[:, None] * (10000.0 ** (-np.arange(32) / 32)).astype(np.float32)
    table = np.stack([np.sin(theta), np.cos(theta)], axis=2).reshape(600, 64)
    found = identify_table(table)
    assert fitted_rows == [256, 256, 2048, 2048]
    assert found.matched and found.residual > 4 * 2.0**-24  # not exact
    assert (found.layout, found.schedule, found.base) == ("interleaved", "paper", 10000.0)
    assert found.start == 2**20 and found.starts == [2**20] and found.storage == "float32"
    assert found.presets[0] == "pytorch `start` 1048576"


def test_two_rows_of_d_3_at_another_base_than_10000_are_no_match():
    """distilbert, d = 3, C = 100, 2 rows: one pair (ω_0 = 1) and a last sine, whose
    ω_1 = 100^(-2/3) the recurrence y(p+1) + y(p-1) = 2 cos ω · y(p) reads only at a row with
    a live row on each side; two rows have none, and C = 10000 (tried first) does not give
    them: no match, rather than a wrong base (three rows are read: test_identify_limits.py)."""
    found = identify_table(np.array(slow.preset_table("distilbert", 2, 3, 100.0)))
    assert not found.matched and found.presets == [] and command_line(found.command) == ""
    fitted = [c.description for c in found.candidates if math.isfinite(c.score)]
    assert fitted and all("C = 10000," in text for text in fitted)


def bfloat16_rows(start: int) -> np.ndarray:
    """PyTorch's tutorial table, d = 4 (ω = 1, 0.01), 3 rows from ``start``, in bfloat16."""
    return np.array(slow.pytorch_tutorial(3, 4, start=start)).astype(ml_dtypes.bfloat16)


@pytest.mark.parametrize(("start", "count"), [(14997, 6), (74985, 7)])
def test_tied_starts_are_all_listed_and_the_note_shows_six(start, count):
    """bfloat16, d = 4, 3 rows: 1146053 positions are 182400 turns of ω_0 = 1 and 1824 of
    ω_1 = 0.01, both to 3·10^-5 rad, so the rows from start + 1146053 i are the same numbers
    until that drift reaches bfloat16's rounding. Those starts (found by rebuilding each) are
    the ties; the note shows the first six, then "…" when there are more."""
    window = bfloat16_rows(start)
    same = [s for s in range(start, 2**24 + 1, 1146053) if np.array_equal(bfloat16_rows(s), window)]
    assert len(same) == count
    found = identify_table(window)
    assert found.matched and found.start == start and found.starts == same
    shown = ", ".join(str(s) for s in same[:6]) + (", …" if count > 6 else "")
    assert f"the rows are the same from positions {shown} (searched up to 2^24)" in found.note


def test_a_base_of_1e300_whose_other_reading_is_past_it_is_read():
    """tensor2tensor, d = 68 (h - 1 = 33), C = 10^300, 1300 rows: ω_1 = 10^(-300/33) ≈ 8.5e-10
    moves the slow pair 1.1e-6 rad over the rows, so k is read; the paper's reading would be
    C = 10^(300 · 34/33) ≈ 10^309, past any float. Before, exp of it overflowed (a traceback
    from the quick pass's check, the naming and the equivalent readings); now it is no
    reading, and the table is read as built."""
    table = np.array(slow.tensor2tensor(1300, 68, 1e300, 0))  # its get_timing_signal_1d
    found = identify_table(table)
    assert found.matched and (found.schedule, found.base, found.start) == (
        "tensor2tensor",
        1e300,
        0,
    )
    assert found.presets[:2] == ["tensor2tensor", "diffusers"] and found.equivalent == ""


def test_a_zero_row_past_the_first_rebuilt_block_is_rebuilt_as_zero():
    """pytorch's table (d = 16, 700 rows) with row 600 zeroed: the rebuild runs 512 rows at a
    time, and the zero row falls in the second block; rebuilt where it is, it matches with
    --padding-idx 600, to the tutorial's own float64 rounding (4.5e-14: ω is exp of a log)."""
    table = np.array(slow.pytorch_tutorial(700, 16))
    table[600] = 0.0
    found = identify_table(table)
    assert found.matched and found.padding_rows == [600] and found.residual < 1e-13
    assert command_line(found.command).endswith("--padding-idx 600")


def test_a_pair_that_moves_a_twentieth_of_a_radian_or_more_tells_k_whatever_the_noise():
    """ω_1 = 1/45 over rows 0..9 turns 9/45 = 0.2 rad. With noise 0.01, 50 noise = 0.5 rad,
    but at most 0.05 rad is ever asked: the pair counts and k = ln 45 (ω_1 = e^-k)."""
    rows = np.arange(10.0)
    k = math.log(45.0)
    assert slopes_k(angles(rows, k, 2), rows, noise=0.01) == pytest.approx(k, abs=1e-9)


@pytest.mark.parametrize("end", [0, 1])
def test_a_reading_at_either_end_of_the_base_range_can_tip_the_order(end):
    """d = 4, k = ln(1e±300) / 2: paper (h − s = 2) reads 1e±300, the range's end, round to
    about 1e-15, so 1e-4 (ROUND) from the tie; the rows leave k open by 7e-6, which moves
    that reading's roundness by up to 10 · 2 · 7e-6 = 1.4e-4: it could cross, not steady.
    (tensor2tensor, h − s = 1, reads 1e±150: 10 · 7e-6 = 7e-5 cannot.)"""
    k = passes.LOG_BASES[end] / 2
    fit = Fit("interleaved", "paper", math.exp(2 * k), math.exp(2 * (k - 7e-6)), 0.0, k=k)
    assert not passes._steady(fit, 4, ("zero",))


@pytest.mark.parametrize(("gap", "steady"), [(4.75e-6, True), (5.25e-6, False)])
def test_a_reading_is_steady_unless_10_times_the_open_k_reaches_round(gap, steady):
    """The factor 10 at its edge: d = 4 and k = ln(1e300) / 2, paper reads 1e300 (round to
    about 1e-15, so 1e-4 from ROUND). Rows that leave k open by 4.75e-6 move its roundness by
    up to 10 · 2 · 4.75e-6 = 0.95e-4 < 1e-4: steady; by 5.25e-6, 1.05e-4: not."""
    k = passes.LOG_BASES[1] / 2
    fit = Fit("interleaved", "paper", math.exp(2 * k), math.exp(2 * (k - gap)), 0.0, k=k)
    assert passes._steady(fit, 4, ("zero",)) is steady


@pytest.mark.parametrize(
    ("log_off", "gap", "steady"), [(5e-4, 2.1e-5, False), (5e-4, 1e-5, True), (1e-4, 0.0, False)]
)
def test_a_reading_near_round_is_steady_by_its_distance_from_round(log_off, gap, steady):
    """d = 4, paper (h − s = 2) reading C = 10^4 · e^log_off, so its roundness is log_off;
    tensor2tensor (h − s = 1) reads √C = 100 · e^(log_off/2). 5e-4 off is 4e-4 from ROUND
    (1e-4): k open by 2.1e-5 moves it up to 10 · 2 · 2.1e-5 = 4.2e-4, it could cross; by
    1e-5, 2e-4 (and tensor2tensor's, 1.5e-4 from ROUND, by 1e-4): steady. A base exactly at
    ROUND with k known exactly could fall either way: not steady."""
    base = 1e4 * math.exp(log_off)
    k = math.log(base) / 2
    fit = Fit("interleaved", "paper", base, math.exp(2 * (k - gap)), 0.0, k=k)
    assert passes._steady(fit, 4, ("zero",)) is steady


def test_a_single_pair_reading_is_steady():
    """One pair (k not finite): the base is not read from k, nothing can cross."""
    assert passes._steady(Fit("interleaved", "paper", 1e4, math.nan, 0.0), 2, ("zero",)) is True


def test_a_shorter_base_that_rebuilds_the_table_to_its_own_residual_rebuilds_it():
    """A float32 table of C = 10^4 (d = 8, 64 rows from 1) read with C = 10000.01 is off by
    1.6e-6, above float32's 4 ulps: a trial whose own residual is that worst still rebuilds
    the table (within, not strictly below, its residual)."""
    table = np.array(slow.vaswani(64, 8)).astype(np.float32).astype(np.float64)
    zeros = Zeros([], False)
    trial = Fit("interleaved", "paper", 10000.01, 10000.01, 1.0)
    trial.residual, score = residual(table, trial, zeros, "float32")
    assert score <= 1 and trial.residual > exact_error("float32", 1.0, 64)
    assert _rebuilds(table, trial, zeros, "float32", exactly=False)


def test_a_fit_whose_measured_base_is_unknown_still_gets_the_short_base():
    """A float64 table built at C = 7321 from 0 (d = 16), read as 7321.000000000008 (9 ulps
    off) with no measured base (``base_fit`` NaN: nothing to take digits from): the short
    base 7321, four digits, still comes from the fitted one."""
    table = encoding_table(d=16, n=40, base=7321, start=0, dtype="float64")
    fit = Fit("interleaved", "paper", 7321.000000000008, math.nan, 0.0, residual=1e-15, score=0.5)
    short_base(fit, table, Zeros([], False), "float64")
    assert (fit.base, fit.schedule, fit.odd_d) == (7321.0, "paper", "zero")


@pytest.mark.parametrize(
    ("recipe", "d", "base"),
    [
        (slow.pytorch_tutorial, 8, 7321.0),  # fitted as tensor2tensor 7321^(3/4) = 791.46
        (slow.pytorch_tutorial, 16, 12345.0),  # as tensor2tensor 12345^(7/8) = 3802.37
        (slow.hf_marian, 5, 12345.0),  # odd d: as h = 3, 12345^(3/2.5) = 81243.6
    ],
    ids=["pytorch-d8", "pytorch-d16", "marian-d5"],
)
def test_the_base_fit_is_re_expressed_with_the_short_base_s_reading(recipe, d, base):
    """Tables made at C by the libraries' recipes: the fitter first reads another schedule
    (or, for Marian's odd d = 5, another ``h``: 3 against the sine rule's 2.5), whose base is
    C^(den/own), not short; the short base C is the paper's, and the measured base beside it
    (``base_fit``, shown as ``base C … (fit …)``) must be re-expressed the same way:
    (C^(own/den))^(den/own) = C, not C^(own/den)·den/own."""
    found = identify_table(np.array(recipe(64, d, base=base)))
    assert found.matched and (found.schedule, found.base) == ("paper", base)
    assert found.base_fit == pytest.approx(base, rel=1e-9)


def test_a_rounded_base_that_misses_the_rows_gives_way_to_the_measured_one():
    """The paper's table at C = 10049 (d = 32, positions 0 … 299, float64, the slow formula):
    its slopes read a base within 1% of the round 10000, which is tried first; the slow
    formula's tables at 10049 and 10000 differ by up to 0.0575 (NumPy, by hand). That reading
    is retried at the base the rows measure, 10049, and stands as such: the only interleaved
    reading tried is C = 10049, start 0."""
    found = identify_table(np.array(slow.vaswani(300, 32, 10049.0, 0)))
    assert found.matched and (found.base, found.start) == (10049.0, 0.0)
    tried = [c.description for c in found.candidates if c.description.startswith("interleaved,")]
    assert tried == ["interleaved, paper schedule, C = 10049, start 0"]
