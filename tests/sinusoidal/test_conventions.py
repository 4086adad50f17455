"""Presets, layouts and schedules against docs/conventions.md and each library's own definition."""

from __future__ import annotations

import libraries as lib
import numpy as np
import pytest

from pecli import (
    ALIASES,
    PRESETS,
    ParameterError,
    angular_frequencies,
    component_names,
    convention,
    encoding_table,
    layout_views,
    table_blocks,
)

# docs/conventions.md: d = 8, C = 10000, position 1 (six decimals)
REFERENCE_ROWS = {
    ("paper", "interleaved"): "0.841471 0.540302 0.099833 0.995004 0.010000 0.999950 0.001000 1",
    ("paper", "sin-cos"): "0.841471 0.099833 0.010000 0.001000 0.540302 0.995004 0.999950 1",
    ("tensor2tensor", "sin-cos"): "0.841471 0.046399 0.002154 0.000100 0.540302 0.998923 "
    "0.999998 1",
    ("paper", "cos-sin"): "0.540302 0.995004 0.999950 1.000000 0.841471 0.099833 0.010000 0.001000",
}


@pytest.mark.parametrize(("schedule", "layout"), list(REFERENCE_ROWS))
def test_reference_rows_of_spec(schedule, layout):
    row = encoding_table(d=8, n=1, start=1, schedule=schedule, layout=layout, dtype="float64")
    expected = [float(v) for v in REFERENCE_ROWS[schedule, layout].split()]
    np.testing.assert_allclose(row[0], expected, rtol=0, atol=5e-7)


@pytest.mark.parametrize(
    ("name", "schedule", "layout"),
    [
        ("vaswani", "paper", "interleaved"),
        ("pytorch", "paper", "interleaved"),
        ("tensor2tensor", "tensor2tensor", "sin-cos"),
        ("fairseq", "tensor2tensor", "sin-cos"),
        ("hf-marian", "paper", "sin-cos"),
        ("whisper", "tensor2tensor", "sin-cos"),
    ],
)
def test_preset_position_1_is_the_reference_row(name, schedule, layout):
    kwargs = convention(name).table_kwargs() | {"start": 1, "padding_idx": None}
    row = encoding_table(d=8, n=1, dtype="float64", **kwargs)[0]
    expected = [float(v) for v in REFERENCE_ROWS[schedule, layout].split()]
    np.testing.assert_allclose(row, expected, atol=5e-7)


def preset_table(name: str, d: int, n: int, **knobs) -> np.ndarray:
    return encoding_table(d=d, n=n, dtype="float64", **convention(name, **knobs).table_kwargs())


@pytest.mark.parametrize("d", [4, 8, 10, 64, 512])
def test_presets_match_each_library(d):
    n = 60
    np.testing.assert_allclose(
        preset_table("pytorch", d, n), lib.pytorch_tutorial(n, d), atol=1e-12
    )
    np.testing.assert_allclose(
        preset_table("tensor2tensor", d, n), lib.tensor2tensor(n, d), atol=1e-12
    )
    np.testing.assert_allclose(preset_table("fairseq", d, n), lib.fairseq(n, d, 1), atol=1e-12)
    np.testing.assert_allclose(preset_table("hf-marian", d, n), lib.hf_marian(n, d), atol=1e-12)
    np.testing.assert_allclose(preset_table("whisper", d, n), lib.whisper(n, d), atol=1e-12)
    steps = np.arange(n)
    np.testing.assert_allclose(preset_table("diffusers", d, n), lib.diffusers(steps, d), atol=1e-12)


@pytest.mark.parametrize(("flip", "shift"), [(False, 1), (True, 1), (True, 0), (False, 0.5)])
def test_diffusers_knobs(flip, shift):
    got = preset_table("diffusers", 32, 50, flip_sin_to_cos=flip, downscale_freq_shift=shift)
    expected = lib.diffusers(np.arange(50), 32, flip_sin_to_cos=flip, downscale_freq_shift=shift)
    np.testing.assert_allclose(got, expected, atol=1e-12)


@pytest.mark.parametrize("d", [5, 9, 65])
def test_odd_d_gets_a_zero_column_where_the_library_adds_one(d):
    n = 40
    np.testing.assert_allclose(
        preset_table("tensor2tensor", d, n), lib.tensor2tensor(n, d), atol=1e-12
    )
    np.testing.assert_allclose(preset_table("fairseq", d, n), lib.fairseq(n, d, 1), atol=1e-12)
    np.testing.assert_allclose(
        preset_table("diffusers", d, n), lib.diffusers(np.arange(n), d), atol=1e-12
    )
    for name in ("vaswani", "pytorch", "whisper", "lucidrains", "mlx"):
        with pytest.raises(ParameterError) as info:
            preset_table(name, d, n)
        assert info.value.parameter == "d"


def test_the_presets_that_pad_an_odd_d_with_a_zero_column():
    """Those whose library appends a zero column to an odd width (tensor2tensor's
    get_timing_signal_1d, fairseq's and diffusers' pad, LDM's and MusicGen's zero pad) say so
    (``pad_odd_d``: heatmap and precision take an odd d for them); the others do not."""
    padding = [name for name, preset in PRESETS.items() if preset.pad_odd_d]
    assert padding == ["tensor2tensor", "fairseq", "diffusers", "ldm", "musicgen"]


@pytest.mark.parametrize(
    ("name", "knobs", "parameter", "named"),
    [
        ("mlx", {}, "convention", "`amplitude`"),  # a preset: the convention is named
        ("vaswani", {"angle_scale": 2.0}, "angle_scale", "`angle_scale`"),  # custom: the knob
        (
            "vaswani",
            {"full_turns": True, "amplitude": 0.5},
            "full_turns",
            "`full_turns`, `amplitude`",
        ),
    ],
)
def test_a_command_of_sin_alone_refuses_a_factor_naming_it(name, knobs, parameter, named):
    """check_plain (precision, plot-waves): the parameter named is the first factor given to
    a custom convention, else the convention; the rule names every factor set."""
    with pytest.raises(ParameterError) as caught:
        convention(name, **knobs).check_plain("precision")
    assert caught.value.parameter == parameter
    assert f"sets {named}, which precision does not model" in str(caught.value)


@pytest.mark.parametrize(
    ("layout", "sines", "cosines"),
    [("interleaved", [0, 2], [1, 3]), ("sin-cos", [0, 1], [2, 3]), ("cos-sin", [2, 3], [0, 1])],
)
def test_an_odd_last_column_belongs_to_neither_view_by_default(layout, sines, cosines):
    """d = 5 and no ``odd_sine``: column 4 is the zero column (tensor2tensor, fairseq, …),
    neither a sine nor a cosine; two pairs in the layout's columns (docs/conventions.md)."""
    views = layout_views(np.arange(5), layout)
    assert [view.tolist() for view in views] == [sines, cosines]


def test_fairseq_padding_row_and_first_real_position():
    table = preset_table("fairseq", 8, 5)
    assert not table[1].any()  # padding_idx = 1
    np.testing.assert_allclose(table[2], lib.tensor2tensor(3, 8)[2], atol=1e-15)  # pe(2)
    moved = preset_table("fairseq", 8, 5, padding_idx=3)
    assert not moved[3].any() and moved[1].any()


def test_default_is_bit_identical_to_the_article_formula():
    # the formula of the code before conventions existed, written out here
    for d in (2, 8, 128, 512, 1024):
        omega = np.power(10000.0, -(2.0 * np.arange(d // 2, dtype=np.float64) / d))
        np.testing.assert_array_equal(angular_frequencies(d), omega)
        angles = np.arange(1, 301, dtype=np.float64)[:, None] * omega[None, :]
        expected = np.empty((300, d), dtype=np.float32)
        expected[:, 0::2], expected[:, 1::2] = np.sin(angles), np.cos(angles)
        np.testing.assert_array_equal(encoding_table(d=d, n=300), expected)


@pytest.mark.parametrize("layout", ["interleaved", "sin-cos", "cos-sin"])
def test_streamed_blocks_equal_the_table_for_every_layout(layout):
    kwargs = {"d": 9, "n": 103, "start": 0, "layout": layout, "padding_idx": 57, "pad_odd_d": True}
    whole = encoding_table(**kwargs, schedule="shift:0.25")
    blocks = list(table_blocks(**kwargs, schedule="shift:0.25", rows=10))
    np.testing.assert_array_equal(np.concatenate(blocks), whole)
    assert not whole[57].any() and not whole[:, 8].any()


def test_component_names_follow_the_layout():
    assert component_names(4, "sin-cos") == ["sin_1", "sin_2", "cos_1", "cos_2"]
    assert component_names(4, "cos-sin") == ["cos_1", "cos_2", "sin_1", "sin_2"]
    assert component_names(5, "interleaved", pad_odd_d=True)[-1] == "zero"
    # the names describe the values: sin_i column == sin(pos ω_i)
    table = encoding_table(d=6, n=3, layout="cos-sin", schedule="tensor2tensor", dtype="float64")
    omega = 10000.0 ** (-np.arange(3) / 2)  # tensor2tensor: exp(-i·ln(10^4)/(d/2 - 1))
    for column, name in enumerate(component_names(6, "cos-sin")):
        kind, i = name.split("_")
        f = np.sin if kind == "sin" else np.cos
        np.testing.assert_allclose(table[:, column], f(np.arange(1, 4) * omega[int(i) - 1]))


def test_presets_are_those_of_the_issue():
    assert set(PRESETS) == {
        "vaswani",
        "pytorch",
        "distilbert",
        "positional-encodings",
        "hf-marian",
        "tensor2tensor",
        "fairseq",
        "diffusers",
        "ldm",
        "musicgen",
        "whisper",
        "lucidrains",
        "mlx",
    }
    assert set(ALIASES.values()) <= set(PRESETS) and not set(ALIASES) & set(PRESETS)
    assert convention().name == "vaswani" and convention().start == 1
    assert convention("pytorch", start=0).name == "pytorch"
    assert convention("pytorch", start=5).name == "custom"


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: convention("bert"), "convention"),
        (lambda: convention("vaswani", flip_sin_to_cos=True), "flip_sin_to_cos"),
        (lambda: convention("fairseq", downscale_freq_shift=0), "downscale_freq_shift"),
        (
            lambda: convention("diffusers", downscale_freq_shift=float("nan")),
            "downscale_freq_shift",
        ),
        (lambda: convention(layout="blocked"), "layout"),
        (lambda: convention(schedule="shift:x"), "schedule"),
        (lambda: encoding_table(d=8, n=2, schedule="t2t"), "schedule"),
        (lambda: encoding_table(d=8, n=2, schedule="shift:nan"), "schedule"),
        (lambda: encoding_table(d=2, n=2, schedule="shift:1.5"), "d"),
        (lambda: encoding_table(d=7, n=2, odd_d="last-sine"), "odd_d"),
        (lambda: encoding_table(d=8, n=2, angle_scale=0), "angle_scale"),
        (lambda: encoding_table(d=9, n=2, pad_odd_d=True, odd_d="sine"), "pad_odd_d"),
        (lambda: encoding_table(d=8, n=2, amplitude="sqrt(d)"), "amplitude"),
        (lambda: convention("pytorch", odd_d="one"), "odd_d"),
        (
            lambda: convention("diffusers", flip_sin_to_cos=True, layout="sin-cos"),
            "flip_sin_to_cos",
        ),
        (
            lambda: convention("diffusers", downscale_freq_shift=0, schedule="paper"),
            "downscale_freq_shift",
        ),
        (lambda: encoding_table(d=8, n=2, schedule="shift:4"), "d"),
        (lambda: encoding_table(d=8, n=2, layout="sincos"), "layout"),
        (lambda: encoding_table(d=8, n=2, padding_idx=2), "padding_idx"),
        (lambda: encoding_table(d=8, n=2, padding_idx=-1), "padding_idx"),
        (lambda: encoding_table(d=7, n=2), "d"),
        (lambda: encoding_table(d=1, n=2, pad_odd_d=True), "d"),
    ],
)
def test_invalid_knobs_name_the_argument(call, parameter):
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.parameter == parameter


def test_a_shift_on_the_command_line_is_taken_in_full(run_cli):
    # shift:0.1234567 used to become shift:0.123457 (six digits), 4e-6 off at position 1000
    result = run_cli(
        "compute",
        "--d",
        "8",
        "--n",
        "1",
        "--start",
        "1000",
        "--schedule",
        "shift:0.1234567",
        "--dtype",
        "float64",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.stderr
    got = np.array(result.stdout.splitlines()[1].split(","), dtype=np.float64)
    omega = 10000.0 ** (-np.arange(4) / (4 - 0.1234567))
    expected = np.empty(8)
    expected[0::2], expected[1::2] = np.sin(1000 * omega), np.cos(1000 * omega)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert run_cli("compute", "--d", "6", "--n", "2", "--schedule", "shift:2.999999").exit_code == 0


def test_frequencies_beyond_float64_are_a_usage_error(run_cli):
    # C < 1 with d/2 - S near 0: C^(-j/(d/2 - S)) overflows (was NaN columns, status 0)
    for shift in ("1.9999", "1.9999999"):
        result = run_cli(
            "compute",
            "--d",
            "4",
            "--n",
            "2",
            "--base",
            "0.5",
            "--schedule",
            f"shift:{shift}",
            "--format",
            "csv",
        )
        assert result.exit_code == 2 and "'--base'" in result.stderr, result.stderr
        assert result.stdout == ""


def test_the_command_line_offers_every_preset():
    """--convention offers exactly the presets of the library, no more, no fewer."""
    from pecli.cli.sinusoidal.options import ConventionName

    assert {name.value for name in ConventionName} == set(PRESETS) | set(ALIASES)


@pytest.mark.parametrize(
    ("given", "kept"),
    [("0.5", 0.5), (2, 2.0), (np.float32(0.25), 0.25), ("sqrt(2/d)", "sqrt(2/d)")],
)
def test_the_amplitude_knob_is_kept_as_a_float_or_mlx_word(given, kept):
    """Convention's ``amplitude`` is "a number or ``"sqrt(2/d)"``" (MLX's default ``scale``):
    a number given in any form (text, int, NumPy scalar) is kept as a Python float."""
    amplitude = convention("vaswani", amplitude=given).amplitude
    assert amplitude == kept
    assert type(amplitude) is type(kept)


def test_the_angle_scale_knob_is_kept_as_the_number_given():
    """``angle_scale`` is diffusers' ``scale`` (e.g. 1000): kept as that float, not in turns
    even with ``full_turns`` (the 2π is applied when the table is built)."""
    assert convention("vaswani", angle_scale="1000").angle_scale == 1000.0
    assert convention("mlx", angle_scale=0.5, full_turns=True).angle_scale == 0.5
