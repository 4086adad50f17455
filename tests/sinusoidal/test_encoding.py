"""The core against docs/encoding.md golden values, mpmath and a plain loop over the formula."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from reference import loop_table, mp_pe, mp_pe_shift, mp_table

import pecli
from pecli import (
    ParameterError,
    angular_frequencies,
    component_names,
    encoding_table,
    positional_encoding,
    table_blocks,
    wavelengths,
)

F32_HALF_ULP_AT_1 = 2.0**-25  # 2.98e-8: the largest rounding error of a float32 in [0.5, 1]


@pytest.mark.parametrize(
    ("pos", "expected"),
    [
        (1, [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004]),
        (0, [0.0, 1.0, 0.0, 1.0]),
        (2, [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067]),
    ],
)
def test_golden_rows_d4(pos, expected):
    row = positional_encoding(pos, d=4, dtype="float64")[0]
    np.testing.assert_allclose(row, expected, rtol=0, atol=1e-10)


def test_golden_pe100_d128():
    row = positional_encoding(100, d=128, dtype="float64")[0]
    got = row[[0, 1, 126, 127]]  # components 1, 2, 127, 128
    np.testing.assert_allclose(
        got, [-0.5063656411, 0.8623188723, 0.0115475632, 0.9999333247], atol=1e-10
    )


def test_golden_wavelengths_d512():
    lam = wavelengths(512)[[0, 9, 49, 99]]
    np.testing.assert_allclose(lam, [6.2831853, 8.6857009, 36.6272969, 221.3374328], atol=1e-7)


def test_frequencies_and_wavelengths_are_reciprocal():
    omega = angular_frequencies(64, base=500.0)
    assert omega[0] == 1.0
    np.testing.assert_allclose(wavelengths(64, base=500.0) * omega, 2 * np.pi, rtol=1e-15)
    np.testing.assert_allclose(omega[-1], 500.0 ** (-62 / 64), rtol=1e-15)


def test_default_table_starts_at_position_1():
    # the table (fast kernel) and arbitrary positions (direct evaluation) agree to an ulp
    table = encoding_table(d=4, n=2, dtype="float64")
    np.testing.assert_allclose(table, positional_encoding([1, 2], d=4, dtype="float64"), atol=2e-16)
    np.testing.assert_allclose(table, mp_table([1, 2], 4), rtol=0, atol=2.3e-16)


@pytest.mark.parametrize(("d", "base"), [(2, 10000.0), (8, 10000.0), (16, 100.0), (10, 1e6)])
def test_table_float64_matches_mpmath(d, base):
    positions = np.arange(-3, 40, dtype=np.float64)
    got = positional_encoding(positions, d=d, base=base, dtype="float64")
    exact = mp_table(positions, d, base)
    # angles are double-doubles: a couple of float64 ulps at most
    np.testing.assert_allclose(got, exact, rtol=0, atol=5e-16)


@pytest.mark.parametrize("schedule", ["paper", "tensor2tensor"])
def test_float64_stays_within_ulps_at_large_real_positions(schedule):
    positions = [1e7, 9_999_999.5, 1234567.25, -7654321.0, 3.0e6 + 1 / 3]
    got = positional_encoding(positions, d=64, dtype="float64", schedule=schedule)
    shift = 0 if schedule == "paper" else 1
    exact = np.array([[float(v) for v in mp_pe_shift(p, 64, 10000.0, shift)] for p in positions])
    np.testing.assert_allclose(got, exact, rtol=0, atol=5e-16)
    table = encoding_table(d=64, n=5, start=9_999_996, dtype="float64", schedule=schedule)
    exact = np.array(
        [[float(v) for v in mp_pe_shift(p, 64, 1e4, shift)] for p in range(9_999_996, 10**7 + 1)]
    )
    np.testing.assert_allclose(table, exact, rtol=0, atol=5e-16)


@pytest.mark.parametrize("start", [0, 1, 1000, 123_456, 9_999_950])
def test_float32_within_half_ulp_up_to_1e7(start):
    d, base = 16, 10000.0
    positions = start + np.arange(50)
    got = encoding_table(d=d, n=50, start=start, base=base, dtype="float32")
    exact = mp_table(positions, d, base)
    assert got.dtype == np.float32
    assert np.max(np.abs(got.astype(np.float64) - exact)) <= F32_HALF_ULP_AT_1


def test_float32_is_float64_rounded_once():
    f64 = encoding_table(d=32, n=300, start=0, dtype="float64")
    f32 = encoding_table(d=32, n=300, start=0, dtype="float32")
    np.testing.assert_array_equal(f32, f64.astype(np.float32))


@pytest.mark.parametrize(("d", "base"), [(6, 10000.0), (64, 10000.0), (12, 3.5)])
def test_table_matches_plain_loop(d, base):
    positions = [0.0, 1.0, 2.5, 17.0, 99.0, -4.0]
    got = positional_encoding(positions, d=d, base=base, dtype="float64")
    np.testing.assert_allclose(got, loop_table(positions, d, base), rtol=0, atol=1e-13)


def test_mp_reference_itself_matches_hand_values():
    # sin 1 and cos 1 to 10 digits, independent of both implementations
    assert math.isclose(float(mp_pe(1, 2)[0]), 0.8414709848, abs_tol=1e-10)
    assert math.isclose(float(mp_pe(1, 2)[1]), 0.5403023059, abs_tol=1e-10)


def test_blocks_concatenate_to_table():
    whole = encoding_table(d=8, n=103, start=-5)
    blocks = list(table_blocks(d=8, n=103, start=-5, rows=10))
    assert [len(b) for b in blocks] == [10] * 10 + [3]
    np.testing.assert_array_equal(np.concatenate(blocks), whole)


def test_component_names_interleaved():
    assert component_names(6) == ["sin_1", "cos_1", "sin_2", "cos_2", "sin_3", "cos_3"]


def test_output_is_c_ordered_of_requested_dtype():
    table = encoding_table(d=8, n=5, dtype=np.float64)
    assert table.flags.c_contiguous and table.dtype == np.float64 and table.shape == (5, 8)


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"d": 3, "n": 2}, "d"),
        ({"d": 0, "n": 2}, "d"),
        ({"d": -4, "n": 2}, "d"),
        ({"d": 4.0, "n": 2}, "d"),
        ({"d": True, "n": 2}, "d"),
        ({"d": 4, "n": 0}, "n"),
        ({"d": 4, "n": -1}, "n"),
        ({"d": 4, "n": 2, "base": 0}, "base"),
        ({"d": 4, "n": 2, "base": -10.0}, "base"),
        ({"d": 4, "n": 2, "base": float("nan")}, "base"),
        ({"d": 4, "n": 2, "base": float("inf")}, "base"),
        ({"d": 4, "n": 2, "start": float("nan")}, "start"),
        ({"d": 4, "n": 2, "dtype": "int32"}, "dtype"),
        ({"d": 4, "n": 2, "dtype": "bfloat8"}, "dtype"),
    ],
)
def test_invalid_arguments_name_the_argument(kwargs, parameter):
    with pytest.raises(ParameterError) as info:
        encoding_table(**kwargs)
    assert info.value.parameter == parameter
    assert isinstance(info.value, ValueError)
    assert parameter in str(info.value)


def test_invalid_positions():
    with pytest.raises(ParameterError, match="positions"):
        positional_encoding([1.0, np.inf], d=4)
    with pytest.raises(ParameterError, match="positions"):
        positional_encoding([[1.0]], d=4)


def test_float64_table_within_one_ulp_of_each_value_even_near_zero():
    # docs/encoding.md: one unit in the last place of the output dtype. Near a zero of sin or cos an
    # absolute error of a few 1e-16 would be thousands of ulps of the value itself.
    d, start, n = 64, 9_999_000, 1000
    table = encoding_table(d=d, n=n, start=start, dtype="float64")
    rng = np.random.default_rng(7)
    near_zero = np.argwhere(np.abs(table) < 1e-2)
    cells = [*near_zero[rng.choice(len(near_zero), 120, replace=False)]]
    cells += [*zip(rng.integers(0, n, 120), rng.integers(0, d, 120), strict=True)]
    assert len(near_zero) > 120
    rows = {}
    for r, c in cells:
        exact = rows.setdefault(r, mp_pe(start + r, d))[c]
        error = abs(mpmath.mpf(float(table[r, c])) - exact)
        assert error <= np.spacing(abs(float(exact))), (r, c, float(table[r, c]), exact)


@pytest.mark.parametrize("layout", ["interleaved", "sin-cos"])
def test_float64_table_is_positional_encoding_bit_for_bit(layout):
    table = encoding_table(d=48, n=3000, start=-1234, layout=layout, dtype="float64")
    rows = positional_encoding(np.arange(-1234, 3000 - 1234), d=48, layout=layout, dtype="float64")
    np.testing.assert_array_equal(table, rows)


@pytest.mark.parametrize("dtype", ["floa32", None, "int8", "complex64", "float8_e4m3fn"])
def test_an_unknown_dtype_is_refused_not_read_as_float64(dtype):
    rule = "dtype must be one of float64, float32, float16, bfloat16"
    with pytest.raises(pecli.ParameterError, match=rule):
        pecli.encoding_table(d=4, n=2, dtype=dtype)


@pytest.mark.parametrize("positions", [[], ["a"], [1j], [[1, 2], [3]]])
def test_positions_that_are_not_real_numbers_are_a_parameter_error(positions):
    with pytest.raises(pecli.ParameterError, match="positions"):
        pecli.positional_encoding(positions, d=8)


@pytest.mark.parametrize("start", [-5, -1, -1000])
def test_position_zero_is_exact_wherever_the_table_starts(start):
    """pe(0) = [0, 1, 0, 1, …] exactly, so shards join to the whole table (issue 12, 3f)."""
    table = pecli.encoding_table(d=64, n=-start + 3, start=start, dtype="float32")
    expected = np.tile(np.array([0.0, 1.0], np.float32), 32)
    np.testing.assert_array_equal(table[-start], expected)
    whole = pecli.encoding_table(d=64, n=-start + 3, start=start)
    parts = [
        pecli.encoding_table(d=64, n=-start, start=start),
        pecli.encoding_table(d=64, n=3, start=0),
    ]
    np.testing.assert_array_equal(whole, np.concatenate(parts))


def test_hf_marian_odd_d_in_float32_has_its_last_sine_at_each_position():
    """d = 7 in float32 (the kernel path): sines sin(p·ω_j), j = 0…3, then 3 cosines; the
    fourth sine (no cosine) is evaluated apart, at the rows' own positions 0…5."""
    import libraries as lib

    table = encoding_table(
        d=7, n=6, dtype="float32", **pecli.convention("hf-marian").table_kwargs()
    )
    expected = np.array(lib.hf_marian(6, 7), dtype=np.float64)
    assert table.shape == (6, 7) and table.dtype == np.float32
    np.testing.assert_allclose(table, expected, rtol=0, atol=1e-7)


def test_an_integer_start_of_exactly_2_53_is_taken_and_one_past_it_refused():
    """|start| <= 2^53 includes 2^53 itself: the integer is compared exactly, so the edge is
    taken (as the float 2^53) and 2^53 + 1 is refused."""
    from pecli.core.rules import check_position

    assert check_position("start", 2**53) == 9007199254740992.0
    assert check_position("start", -(2**53)) == -9007199254740992.0
    with pytest.raises(ParameterError, match="within ±2\\^53"):
        check_position("start", 2**53 + 1)


def test_the_rules_of_n_dtype_and_schedule_name_their_bounds():
    """check_n says its bound (2^53 unless given), check_dtype takes float32 and float64 only,
    check_schedule a finite shift only."""
    from pecli.core.rules import check_dtype, check_n, check_schedule

    for call, words in [
        (lambda: check_n(0), "must be an integer from 1 to 2^53"),
        (lambda: check_n(6, most=5), "must be an integer from 1 to 5"),
    ]:
        with pytest.raises(ParameterError) as caught:
            call()
        assert words in str(caught.value)
    assert check_n(2**53) == 2**53 and check_n(5, most=5) == 5
    assert [check_dtype(t) for t in ("float32", "float64")] == [np.float32, np.float64]
    for dtype in ("float16", "int32", np.int64, "bfloat16"):
        with pytest.raises(ParameterError) as caught:
            check_dtype(dtype)
        assert caught.value.parameter == "dtype"
    assert check_schedule("shift:0.5") == 0.5
    for schedule in ("shift:inf", "shift:-inf", "shift:nan", True):
        with pytest.raises(ParameterError) as caught:
            check_schedule(schedule)
        assert caught.value.parameter == "schedule"


def test_the_rules_of_positions_widths_and_checkpoint_sizes_at_their_ends():
    """The last position start + n − 1 may be 2^53 itself; an odd-d width runs 2 … MAX_D,
    both ends; a .safetensors table may take 1 GiB = 2^30 bytes (2^25 rows of 8 float32
    columns), no other format is held to that."""
    from pecli.core.rules import MAX_D, check_checkpoint_table, check_positions, check_width

    assert check_positions(2**53 - 9, 10) == 2.0**53 - 9  # last = 2^53
    with pytest.raises(ParameterError, match="9007199254740993"):  # last = 2^53 + 1
        check_positions(2**53 - 9, 11)
    assert [check_width(d, pad_odd_d=True) for d in (2, 3, MAX_D)] == [2, 3, MAX_D]
    for d in (1, MAX_D + 1):
        with pytest.raises(ParameterError):
            check_width(d, pad_odd_d=True)
    f32 = np.dtype(np.float32)
    check_checkpoint_table(2**25, 8, f32, "safetensors")
    with pytest.raises(ParameterError) as caught:
        check_checkpoint_table(2**25 + 1, 8, f32, "safetensors")
    assert caught.value.parameter == "n"
    for fmt in ("npy", "csv"):
        check_checkpoint_table(2**40, 8, f32, fmt)


def test_a_float32_table_with_mlx_s_amplitude_is_the_rounded_exact_product():
    """amplitude sqrt(2/d) (MLX) on the float32 kernel, d = 6: each value is
    sqrt(1/3)·sin or cos(p·ω_i), ω_i = 10000^(-2(i-1)/6), in mpmath, rounded once to float32
    (positions 0 … 39, two blocks of rows)."""
    blocks = table_blocks(d=6, n=40, start=0, amplitude="sqrt(2/d)", rows=25)
    got = np.concatenate(list(blocks))
    with mpmath.workdps(40):
        factor = mpmath.sqrt(mpmath.mpf(2) / 6)
        want = [[factor * v for v in mp_pe(p, 6)] for p in range(40)]
        want = np.array([[float(v) for v in row] for row in want]).astype(np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_full_turns_at_a_quarter_scale_land_exactly_on_quarter_turns():
    """MLX's full turns with angle_scale 1/4: pair 0 (ω = 1) turns 2π·p/4 = p·π/2, so sin and
    cos are exactly 0, 1, 0, −1, … and 1, 0, −1, 0, …; pair 1 (C = 16, d = 8: ω = 16^(-1/4) =
    1/2) turns p·π/4, exactly 0, 1, 0, −1 at even p, ±√2/2 at odd p (two float64 ulps)."""
    t = encoding_table(
        d=8, n=9, start=0, full_turns=True, angle_scale=0.25, base=16.0, dtype="float64"
    )
    assert t[:, 0].tolist() == [0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0]
    assert t[:, 1].tolist() == [1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0]
    assert t[::2, 2].tolist() == [0.0, 1.0, 0.0, -1.0, 0.0]
    assert t[1::2, 2] == pytest.approx(
        [math.sqrt(0.5), math.sqrt(0.5), -math.sqrt(0.5), -math.sqrt(0.5)], abs=2.3e-16
    )


@pytest.mark.parametrize(
    ("args", "option", "shown"),
    [
        (["--angle-scale", "1e300", "--full-turns"], "--angle-scale", "too large to multiply"),
        (["--angle-scale", "1e15"], "--angle-scale", "up to 1e+17 radians"),  # 100 × 1e15
        # ω_31 = (1e-20)^(-62/64) = 10^19.375 = 2.37e19, at position 2: 4.74e19
        (["--base", "1e-20", "--d", "64", "--n", "2"], "--base", "up to 4.74e+19"),
    ],
)
def test_angles_past_2_to_the_56_are_refused_before_any_row(run_cli, tmp_path, args, option, shown):
    """An angle scale of 1e300 with full turns crashed (NaN); 1e15 × 100 positions failed after
    work with "undecided at 256 bits". 2^56 = 7.2e16 ≥ 2π·2^53, the largest position's."""
    out = tmp_path / "t.npy"
    result = run_cli("compute", *args, "-o", str(out))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"'{option}'" in result.output and shown in result.output and not out.exists()
    assert "at most 2^56 (7.2e16) radians" in result.output


def test_the_largest_position_with_full_turns_is_within_reach(run_cli, tmp_path):
    args = ["compute", "--d", "4", "--n", "2", "--start", str(2**53 - 1), "--full-turns"]
    assert run_cli(*args, "-o", str(tmp_path / "t.npy")).exit_code == 0


def test_positions_angles_do_not_depend_on_how_many_there_are():
    """Five zeros with k = 2^55 have angle 0: rows [sin 0, cos 0] = [0, 1] (by hand), as one
    zero has. They were refused ("angles up to 1.44e+17"): checked as positions 0 … 4."""
    got = pecli.positional_encoding([0.0] * 5, d=2, angle_scale=2.0**55, dtype="float64")
    assert got.tolist() == [[0.0, 1.0]] * 5
