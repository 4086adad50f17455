"""identify's limits: how large an error can match, and tables past the positions searched.

Tables are built by slow_formulas.py (the libraries' formulas, one entry at a time).
"""

from __future__ import annotations

import io
import json
import math
import shlex

import ml_dtypes
import numpy as np
import pytest
import slow_formulas as slow
from test_identify import identify_table

from pecli import ParameterError


def test_a_residual_comparable_to_the_values_is_never_a_match():
    # at position 2^23 the float32 allowance alone (2^-22 per unit of position) would be 2:
    # a pair turned by 0.2 rad (entries off by ~0.2, of values in -1 … 1) must not match,
    # however far the position
    table = np.array(slow.pytorch_tutorial(300, 64, start=2**23))
    angle = np.arctan2(table[150, 4], table[150, 5]) + 0.2  # one pair turned, on the circle
    table[150, 4:6] = np.sin(angle), np.cos(angle)
    found = identify_table(table)
    assert not found.matched  # before: a match, residual 0.17, relative 0.085
    assert found.residual > 0.1 and found.relative_residual > 1
    assert found.candidates[0].description.endswith("start 8.38861e+06")  # the reading is found


def test_past_2_to_the_24_the_first_position_is_not_determined(run_cli):
    # pecli compute --d 512 --n 4 --start 16777217: an exact float32 table just past the range
    # searched; before, a start 28 positions off matched with a residual of 2
    table = np.array(slow.pytorch_tutorial(4, 512, start=2**24 + 1), dtype=np.float32)
    found = identify_table(table)
    assert not found.matched and found.command == ""
    assert found.note == "first position not determined (beyond 2^24)"
    buffer = io.BytesIO()
    np.save(buffer, table)
    result = run_cli("identify", "-", input=buffer.getvalue())
    assert result.exit_code == 1
    assert "first position not determined (beyond 2^24)" in result.stderr


def test_just_inside_2_to_the_24_the_start_is_found():
    table = np.array(slow.pytorch_tutorial(4, 512, start=2**24 - 8), dtype=np.float32)
    found = identify_table(table)
    assert found.matched and found.start == 2**24 - 8 and found.residual < 1e-6


@pytest.mark.parametrize(
    ("args", "start", "base"),
    [
        (["--d", "8", "--n", "3", "--start", "1000"], 1000, 10000),  # before: C = 980, 5228717
        (["--d", "4", "--n", "2"], 1, 10000),  # before: start 5529380 and --base 100000000
    ],
    ids=["d8-n3-start1000", "d4-n2"],
)
def test_narrow_bfloat16_tables_get_the_reading_that_rebuilds_them(
    run_cli, tmp_path, args, start, base
):
    out = tmp_path / "pe.safetensors"
    assert run_cli("compute", *args, "--dtype", "bfloat16", "-o", str(out), "-q").exit_code == 0
    stored = safetensors_table(out)
    d, n = stored.shape[1], stored.shape[0]
    want = np.array(slow.vaswani(n, d, start=start))  # the exact table, rounded once
    assert np.abs(stored.astype(np.float64) - want).max() <= 2.0**-8
    result = run_cli("identify", str(out), "--key", "positional_encoding", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)[0]["identification"]
    assert (found["start"], found["base"], found["residual"]) == (start, base, 0)
    # a few bfloat16 rows may not determine the start or the base: the note may say so, but
    # the base it gives is the one of the reading and of the command
    assert "C = " not in found["note"] or f"C = {base} is given" in found["note"]
    assert f"--base {base} " in found["command"]
    again = tmp_path / "again.safetensors"
    command = shlex.split(found["command"])
    command[command.index("-o") + 1] = str(again)
    assert run_cli(*command[1:], "-q").exit_code == 0  # the printed command, run
    assert safetensors_table(again).tobytes() == stored.tobytes()


def safetensors_table(path) -> np.ndarray:
    from safetensors import safe_open

    with safe_open(path, framework="numpy") as f:
        return f.get_tensor("positional_encoding")


def test_an_amplitude_of_sqrt_2_over_d_is_named_and_other_columns_say_how_far_off():
    """A table scaled by sqrt(2/d) (a normalised encoding) is read with that exact amplitude."""
    from pecli.analysis.sinusoidal.identify.amplitude import circle_radius

    table = np.array(slow.preset_table("pytorch", 50, 64, 10000.0)) * np.sqrt(2 / 64)
    found = identify_table(table.astype(np.float32))
    assert found.matched and found.command.endswith("--amplitude 'sqrt(2/d)'")
    # rows (3, 3) and (1, 0): sin² + cos² is 18 and 1, so |sin² + cos² − 1| is up to 17
    with pytest.raises(ValueError, match=r"\(\|sin² \+ cos² - 1\| up to 17\)"):
        circle_radius(np.array([[3.0], [1.0]]), np.array([[3.0], [0.0]]))


def test_a_radius_is_read_as_1_within_4_units_of_half_precision_rounding_only():
    """bfloat16 (u = 2^-8): within max(1e-4, 4u) = 0.015625 of 1 it is 1, past that a number:
    the shortest decimal within u/2 of it (1 + 4.1/256 = 1.016015625: 1.016, 1.6e-5 off)."""
    from pecli.analysis.sinusoidal.identify.amplitude import amplitude_name

    u = 2.0**-8
    assert amplitude_name(1 + 3.9 * u, 64, u) == 1.0
    assert amplitude_name(1 + 4.1 * u, 64, u) == 1.016  # 1.02 is 0.0039 off: more than u/2
    assert amplitude_name(1 + 3 * 2.0**-24, 64) == 1.0 and amplitude_name(1.0002, 64) == 1.0002


def test_a_table_equal_to_its_transpose_is_read_as_given():
    """d = n = 2, start s = (π/2 − 1)/2: cos s = sin(s + 1), so the table is symmetric and
    both orientations fit exactly; it is read untransposed, start s."""
    s = (np.pi / 2 - 1) / 2
    table = np.array([[np.sin(s), np.cos(s)], [np.sin(s + 1), np.cos(s + 1)]])
    assert np.array_equal(table, table.T)
    found = identify_table(table)
    assert found.matched and not found.transposed and found.start == pytest.approx(s, abs=1e-12)


def test_a_padding_row_past_the_compared_rows_names_no_preset():
    """A zero row 100 (past the 64 rows compared): no preset zeroes row 100 (fairseq's padding
    row is 1), so none builds the table; the command says --padding-idx 100."""
    table = np.array(slow.preset_table("pytorch", 120, 16, 10000.0))
    table[100] = 0.0
    found = identify_table(table)
    assert found.matched and found.padding_rows == [100] and found.presets == []
    assert found.command == (
        "pecli compute --d 16 --n 120 --base 10000 --dtype float64 --start 0 --layout "
        "interleaved --schedule paper --padding-idx 100"
    )  # an even d: no --odd-d


def test_of_two_round_readings_the_one_of_the_layout_s_presets_is_taken():
    """d = 4, interleaved, C = 10^6 with a zero row 100 (no preset builds it): the paper's
    C = 10^6 and tensor2tensor's C = 10^3 (ω_1 = 10^-3 either way) are both round, and
    10^3 is nearer 10^4, but interleaved tables are pytorch's (paper): that reading wins."""
    table = np.array(slow.preset_table("pytorch", 120, 4, 1e6))
    table[100] = 0.0
    found = identify_table(table)
    assert found.matched and (found.schedule, found.base) == ("paper", 1e6)
    assert "--base 1000000 " in found.command and "--schedule paper" in found.command


def test_a_bfloat16_window_is_rebuilt_from_its_own_start_only():
    """bfloat16, d = 8, positions 700 … 711: several far starts have the same phases within
    bfloat16's rounding; rebuilt and rounded to bfloat16, only 700 gives the rows back."""
    table = np.array(slow.preset_table("pytorch", 12, 8, 10000.0, 700))
    found = identify_table(table.astype(ml_dtypes.bfloat16).astype(np.float64))
    assert found.matched and found.start == 700 and found.starts == [700.0]


def test_a_base_that_is_not_round_is_read_as_fitted():
    """pytorch, d = 64, C = 12345.678: the two-digit 12000 does not rebuild the rows, the fitted
    base does; read as the paper's C or tensor2tensor's C^(31/32) = 9197.19 (the same ω)."""
    found = identify_table(np.array(slow.preset_table("pytorch", 100, 64, 12345.678)))
    exponent = {"paper": 1.0, "tensor2tensor": 31 / 32}[found.schedule]
    assert found.matched and found.base == pytest.approx(12345.678**exponent, rel=1e-9)


def test_d_3_with_a_zero_column_is_the_presets_that_pad_an_odd_width():
    """[sin p | cos p | 0]: tensor2tensor's get_timing_signal_1d and diffusers'
    get_timestep_embedding with shift 0 at d = 3 (one pair, ω_0 = 1, then a zero column for
    the odd d). diffusers' default shift 1 divides by d // 2 - 1 = 0 (NaN in diffusers),
    which ``pecli compute`` refuses: it was named, and its rebuild command failed."""
    p = np.arange(20.0)
    table = np.stack([np.sin(p), np.cos(p), np.zeros(20)], axis=1)
    found = identify_table(table)
    assert found.matched and found.presets == [
        "tensor2tensor",
        "diffusers --downscale-freq-shift 0",
    ]


def test_d_4_names_tensor2tensor_presets_at_their_own_base():
    """[sin p·ω | cos p·ω], ω = 1, 0.01: the paper's C = 10^4 (ω_1 = C^(-1/2)), which
    tensor2tensor's schedule (ω_1 = C'^(-1/1)) gives with C' = 100."""
    p, omega = np.arange(30.0)[:, None], np.array([1.0, 0.01])
    found = identify_table(np.hstack([np.sin(p * omega), np.cos(p * omega)]))
    assert (found.schedule, found.base) == ("paper", 10000.0)
    assert "tensor2tensor (as tensor2tensor, C = 100)" in found.presets
    assert "diffusers --downscale-freq-shift 0" in found.presets


def test_a_base_that_is_not_round_still_names_the_presets_of_its_schedule():
    """pytorch, d = 8, C = 12100 (not two digits; tensor2tensor's C^(3/4) = 1152.6 is less
    round): the paper's reading, and pytorch builds it at that very base."""
    found = identify_table(np.array(slow.preset_table("pytorch", 40, 8, 12100.0)))
    assert found.schedule == "paper" and found.base == pytest.approx(12100.0, rel=1e-12)
    assert found.presets[0] == "pytorch"


def test_one_pair_is_every_preset_s_at_its_own_schedule():
    """d = 2: ω_0 = 1 under every schedule and base, so no preset is named '(as …)'."""
    found = identify_table(np.array(slow.preset_table("pytorch", 30, 2, 10000.0)))
    assert found.matched and "tensor2tensor" in found.presets and "mlx" in found.presets
    from pecli.analysis.sinusoidal.identify import identify_table as identify

    fit = identify(np.array(slow.preset_table("pytorch", 30, 2, 10000.0)))
    assert math.isnan(fit.base_fit)  # and no base is fitted: ω_0 = 1 tells none
    assert not [name for name in found.presets if "(as" in name]


def test_the_base_fit_follows_the_reading_that_names_the_presets():
    """fairseq, d = 8, C = 1000 (tensor2tensor: ω_j = 1000^(-j/3)) is the paper's
    C = 1000^(4/3) = 10000, but only fairseq builds it: the reading, and the fitted base
    beside it, are tensor2tensor's C = 1000."""
    found = identify_table(np.array(slow.preset_table("fairseq", 30, 8, 1000.0)))
    assert found.presets == ["fairseq"] and (found.schedule, found.base) == ("tensor2tensor", 1000)
    assert found.base_fit == pytest.approx(1000.0, rel=1e-9)


@pytest.mark.parametrize(
    ("name", "base", "presets"),
    [
        ("hf-marian", 1000.0, ["hf-marian"]),
        # d = 3, positional-encodings: ω_1 = C^(-2/4) = 0.01 (the frequencies of d + 1 = 4
        # channels); DistilBERT's rule gives ω_1 = C'^(-2/3), the same for C' = 0.01^(-3/2)
        (
            "positional-encodings",
            10000.0,
            ["positional-encodings", "distilbert (as paper, C = 1000)"],
        ),
    ],
)
def test_d_3_presets_are_read_under_their_own_odd_d_rule(name, base, presets):
    found = identify_table(np.array(slow.preset_table(name, 30, 3, base)))
    assert found.matched and found.presets == presets


def test_pairs_too_slow_over_the_rows_after_padding_rows_leave_the_default_base():
    """float16, d = 8, rows 0 … 9 zero and 10 … 12 live: over those 2 rows pair 1 (ω = 0.1)
    turns 0.2 rad and tells C; pairs 2 and 3 (ω = 0.01, 0.001) turn 0.02 and 0.002 rad, under
    50 float16 roundings (50·2^-11 = 0.024 rad), and are left out. Measuring the span from
    row 0 (22 rows) would let pair 2's rounding noise in: C = 10002.5 instead of 10000."""
    table = np.array(slow.preset_table("pytorch", 13, 8, 10000.0))
    table[:10] = 0.0
    found = identify_table(table.astype(np.float16))
    assert found.matched and (found.schedule, found.base, found.start) == ("paper", 10000.0, 0)
    assert found.padding_rows == list(range(10))


@pytest.mark.parametrize("name", ["distilbert", "positional-encodings"])  # two odd-d rules
def test_d_3_tables_read_their_base_from_the_extra_sine(name):
    """d = 3: one pair (ω_0 = 1) and a lone sine of ω_1 = C^(-2/3); only it tells C = 500."""
    table = np.array(slow.preset_table(name, 40, 3, 500.0))
    found = identify_table(table)
    assert found.matched and (found.schedule, found.base) == ("paper", 500.0)
    assert found.command.startswith(f"pecli compute --convention {name} --d 3 --n 40 --base 500")


def test_three_rows_of_d_3_tell_the_base_from_their_one_inner_row():
    """y(0) + y(2) = 2 cos ω · y(1) for the lone sine y(p) = sin(p·ω): three rows give ω
    (ω = 500^(-2/3) for DistilBERT's rule), so C = 500, not the default 10000."""
    found = identify_table(np.array(slow.preset_table("distilbert", 3, 3, 500.0)))
    assert found.matched and found.base == 500.0 and found.presets == ["distilbert"]


def test_d_3_reads_its_base_from_the_rows_on_both_sides_of_a_padding_row():
    """A zero row 5: only rows whose two neighbours are live give y(p−1) + y(p+1) =
    2 cos ω · y(p); rows 4 and 6 (one neighbour across the gap) are left out, so C = 500."""
    table = np.array(slow.preset_table("distilbert", 12, 3, 500.0))
    table[5] = 0.0
    found = identify_table(table)
    assert found.matched and found.base == 500.0 and found.padding_rows == [5]


def test_one_live_row_is_refused_only_when_it_has_one_live_column_too():
    """identify also reads the transposed table: one live row of 8 live columns is tried
    (8 live rows once transposed; no match), one live entry is refused."""
    from pecli.analysis.sinusoidal.identify import identify_table as identify

    table = np.zeros((6, 8))
    table[2] = 0.5 + np.arange(8)
    assert not identify(table).matched
    table[2, 1:] = 0.0
    with pytest.raises(ParameterError, match="at least 2 rows or 2 columns that are not all zero"):
        identify(table)


def test_one_pair_at_a_fractional_start_is_read_with_c_10000_and_no_command():
    """d = 2 (ω_0 = 1 for every base): start 2.5 is read exactly; compute takes integers only."""
    found = identify_table(np.array(slow.preset_table("pytorch", 20, 2, 10000.0, 2.5)))
    assert found.matched and (found.start, found.base) == (2.5, 10000.0)
    assert found.command == "" and "not an integer" in found.note
    assert "pytorch --start 2.5" in found.presets


def test_one_pair_at_an_integer_start_gets_c_10000_in_its_command():
    """d = 2: any base gives ω_0 = 1; the reading and its command say C = 10000 (the default)."""
    found = identify_table(np.array(slow.preset_table("pytorch", 20, 2, 10000.0, 3)))
    assert found.matched and (found.start, found.base) == (3, 10000.0)
    assert found.command == (
        "pecli compute --convention pytorch --start 3 --d 2 --n 20 --base 10000 --dtype float64"
    )


def test_a_fractional_start_reproduced_exactly_wins_over_a_far_integer_start():
    """float32, d = 8, start 2.5: start 2865135 also fits within the float32 framework
    allowance (error 7e-5), but only 2.5 reproduces the rows to the storage's rounding."""
    table = np.array(slow.preset_table("pytorch", 20, 8, 10000.0, 2.5)).astype(np.float32)
    found = identify_table(table)
    assert found.matched and found.start == pytest.approx(2.5, abs=1e-6)
    assert found.residual <= 2.0**-24 and found.command == ""


def test_a_float64_fractional_start_wins_over_a_far_integer_start():
    """float64, d = 8, start 2.5 (PyTorch's tutorial formula): 2.5 is read, not 2865135.

    The tutorial's ``exp(2j · (-ln C / d))`` and pecli's ``C^(-2j/d)`` differ by up to 6 units
    of 2^-53 in ``ω_j``, so pecli's rebuild from exactly 2.5 is 2.5 ulps of 1 off (5.6e-16, above
    4 unit roundoffs): that is the producer's float64 arithmetic, allowed per unit of position.
    Start 2865135 is 7.4e-5 off (3e11 ulps): the table tells the two apart by far.
    """
    table = np.array(slow.preset_table("pytorch", 20, 8, 10000.0, 2.5))
    found = identify_table(table)
    assert found.matched and found.start == 2.5 and found.starts == [2.5]
    assert found.residual == pytest.approx(2.5 * 2.0**-52, rel=1e-6) and found.command == ""
    assert "not an integer" in found.note
    far = next(c for c in found.candidates if c.description.endswith("start 2.86514e+06"))
    assert far.residual == pytest.approx(7.37e-5, rel=1e-2)  # still tried, and far off


def test_a_float64_integer_start_is_exact_within_its_producers_arithmetic():
    """The allowance for a float64 producer grows with the position (2^-50 per unit)."""
    from pecli.analysis.sinusoidal.identify.residuals import exact_error

    assert exact_error("float32", 1e6, 10) == 4 * 2.0**-24  # float32: its rounding only
    assert exact_error("float64", 0, 1) == 4 * 2.0**-53 + 2.0**-50
    assert exact_error("float64", -30, 20) == 4 * 2.0**-53 + 31 * 2.0**-50  # the farthest row
    table = np.array(slow.preset_table("pytorch", 40, 64, 10000.0, 100_000))
    found = identify_table(table)
    assert found.matched and found.start == 100_000
    assert found.command.startswith("pecli compute --convention pytorch --start 100000 --d 64")


def test_slopes_tell_k_from_a_pair_that_moves_a_hundredth_of_a_radian():
    """Exact angles (start + row)·ω_j with ω_1 = 0.001 over 10 rows: pair 1 moves 0.009 rad."""
    from pecli.analysis.sinusoidal.identify.fits import slopes_k

    rows = np.arange(10, dtype=np.float64)
    omega = np.array([1.0, 1e-3])
    theta = np.remainder((5 + rows)[:, None] * omega + np.pi, 2 * np.pi) - np.pi
    assert slopes_k(theta, rows) == pytest.approx(math.log(1000), rel=1e-9)


def test_the_live_rows_rule_names_rows_and_columns_as_it_counts_them(run_cli, tmp_path):
    """The rule takes the larger of live rows and live columns; it said "rows" alone."""
    table = np.zeros((6, 8))
    table[2, 5] = 0.5
    np.save(tmp_path / "one.npy", table)
    result = run_cli("identify", str(tmp_path / "one.npy"))
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        "pecli identify: error: Invalid value for 'FILE': must have at least 2 rows or 2 columns "
        "that are not all zero (it is read transposed too): too few to tell a convention "
        "(got 1 non-zero row(s) of 6, 1 non-zero column(s) of 8)"
    ]
    table[4, 5] = 0.25  # two live rows, one live column: read (and matched by nothing)
    assert not identify_table(table).matched


def test_one_live_column_is_not_called_too_few_live_rows():
    """check_identifiable counts live rows and live columns: ten live rows pass its rule."""
    table = np.zeros((10, 4))
    table[:, 0] = np.sin(np.arange(1, 11))
    assert not identify_table(table).matched  # read, and matched by nothing; never refused


@pytest.mark.parametrize("value", [0.0, 1e200])
def test_columns_of_zeros_or_of_squares_past_float64_are_no_circle(value):
    """sin² + cos² is 0 (or 2e400, inf in float64), never 1: both are refused, not divided by."""
    from pecli.analysis.sinusoidal.identify.amplitude import circle_radius

    columns = np.full((4, 2), value)
    with pytest.raises(ValueError, match="not sine/cosine pairs"):
        circle_radius(columns, columns)


def test_an_amplitude_other_than_1_or_sqrt_2_over_d_is_divided_out_before_starts_are_compared():
    """HF Marian's table (odd d = 5: two pairs and a last sine) times 0.5, rows 1000 … 1007 in
    float32: candidate starts are told apart on the rows divided by the measured radius 0.5,
    and 1000 alone fits (divided by sqrt(2/5) instead, far starts win)."""
    table = (0.5 * np.array(slow.hf_marian(8, 5, 1e4, 1000))).astype(np.float32)
    found = identify_table(table)
    assert found.matched and found.starts == [1000] and "--odd-d sine" in found.command
    assert "--amplitude 0.5" in found.command
