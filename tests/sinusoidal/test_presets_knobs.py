"""The presets and knobs of issue 11: odd d as each library does it, d = 2 with tensor2tensor,
the angle factor, full turns and the amplitude; each against the library's own formula
(tests/libraries.py) and exactly against mpmath."""

from __future__ import annotations

import math

import libraries as lib
import mpmath
import numpy as np
import pytest

from pecli import (
    ALIASES,
    PRESETS,
    ParameterError,
    component_names,
    convention,
    encoding_table,
    positional_encoding,
    table_blocks,
)
from pecli.core.sinusoidal.knobs import check_amplitude, check_amplitude_range, check_angle_scale

mpmath.mp.dps = 40


def preset_table(name: str, d: int, n: int, dtype: str = "float64", **knobs) -> np.ndarray:
    return encoding_table(d=d, n=n, dtype=dtype, **convention(name, **knobs).table_kwargs())


@pytest.mark.parametrize("d", [3, 5, 9, 65])
def test_odd_d_as_each_library_does_it(d):
    n = 50
    np.testing.assert_allclose(preset_table("distilbert", d, n), lib.distilbert(n, d), atol=1e-12)
    np.testing.assert_allclose(preset_table("hf-marian", d, n), lib.hf_marian(n, d), atol=1e-12)
    np.testing.assert_allclose(
        preset_table("positional-encodings", d, n), lib.tatp22(n, d), atol=1e-12
    )
    if d > 3:  # MusicGen's own code divides by h - 1 = 0 at d = 3
        np.testing.assert_allclose(preset_table("musicgen", d, n), lib.musicgen(n, d), atol=1e-12)
    np.testing.assert_allclose(preset_table("ldm", d, n), lib.ldm(np.arange(n), d), atol=1e-12)
    with pytest.raises(ParameterError, match="odd d: `odd_d`"):
        preset_table("pytorch", d, n)


@pytest.mark.parametrize("d", [4, 8, 64])
def test_even_d_presets_match_their_libraries(d):
    n = 60
    np.testing.assert_allclose(
        preset_table("distilbert", d, n), lib.pytorch_tutorial(n, d), atol=1e-12
    )
    np.testing.assert_allclose(preset_table("lucidrains", d, n), lib.whisper(n, d), atol=1e-12)
    for knobs, kwargs in (
        ({}, {}),
        ({"layout": "cos-sin"}, {"cos_first": True}),
        ({"full_turns": True, "amplitude": 1}, {"full_turns": True, "scale": 1}),
    ):
        expected = lib.mlx(np.arange(n), d, **kwargs)
        np.testing.assert_allclose(preset_table("mlx", d, n, **knobs), expected, atol=1e-12)


def test_tensor2tensor_at_d_2_divides_by_max_of_h_minus_1_and_1():
    p = np.arange(5.0)
    expected = np.column_stack([np.sin(p), np.cos(p)])
    np.testing.assert_allclose(preset_table("tensor2tensor", 2, 5), expected, atol=1e-15)
    np.testing.assert_allclose(preset_table("tensor2tensor", 3, 5)[:, :2], expected, atol=1e-15)
    np.testing.assert_allclose(preset_table("mlx", 2, 5), lib.mlx(p, 2), atol=1e-15)


@pytest.mark.parametrize("schedule", ["tensor2tensor", "shift:1"])
def test_tensor2tensor_guards_only_h_1_so_an_odd_sine_d_3_divides_by_one_half(schedule):
    """docs/encoding.md: ``shift:1`` is tensor2tensor, ω_j = C^(-j/(h-1)), its guard for h = 1;
    docs/conventions.md, ``--odd-d sine``: h = d/2, ceil(d/2) sines. At d = 3, h - 1 = 1/2 > 0
    is unguarded: ω = [1, C^-2], by hand [sin p, cos p, sin(p/C²)] interleaved (C = 10)."""
    p = np.arange(-2.0, 4.0)
    expected = np.column_stack([np.sin(p), np.cos(p), np.sin(p / 100)])
    knobs = {"schedule": schedule, "odd_d": "sine", "layout": "interleaved", "base": 10.0}
    got = encoding_table(d=3, n=6, start=-2, dtype="float64", **knobs)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-16)


def test_diffusers_scale_is_the_angle_scale():
    t = np.arange(7.0)
    got = preset_table("diffusers", 8, 7, angle_scale=1000)
    np.testing.assert_allclose(got, lib.diffusers(1000 * t, 8), atol=1e-9)


def _mp_values(pos, omegas, kinds, amplitude=1):
    out = []
    for omega, kind in zip(omegas, kinds, strict=True):
        angle = mpmath.mpf(pos) * omega
        out.append(amplitude * (mpmath.sin(angle) if kind == "sin" else mpmath.cos(angle)))
    return np.array([float(v) for v in out])


CASES = {  # name: (d, knobs, ω of each column from its name, amplitude)
    "scale1000": (
        8,
        {"angle_scale": 1000},
        lambda j, d: 1000 * mpmath.mpf(10000) ** (-mpmath.mpf(j) / 3),
        1,
    ),
    "turns": (
        6,
        {"full_turns": True},
        lambda j, d: 2 * mpmath.pi * mpmath.mpf(10000) ** (-mpmath.mpf(j) / 2),
        1,
    ),
    "sqrt": (
        8,
        {"amplitude": "sqrt(2/d)"},
        lambda j, d: mpmath.mpf(10000) ** (-mpmath.mpf(j) / 3),
        mpmath.sqrt(mpmath.mpf(2) / 8),
    ),
    "odd_sine": (
        9,
        {"odd_d": "sine", "schedule": "paper", "layout": "interleaved"},
        lambda j, d: mpmath.mpf(10000) ** (-mpmath.mpf(2 * j) / 9),
        1,
    ),
    "odd_d+1": (
        9,
        {"odd_d": "sine-d+1", "schedule": "paper", "layout": "interleaved"},
        lambda j, d: mpmath.mpf(10000) ** (-mpmath.mpf(2 * j) / 10),
        1,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("start", [0, 99_990, 9_999_990])
def test_knobs_keep_the_table_correctly_rounded(case, start):
    d, knobs, omega, amplitude = CASES[case]
    conv = convention("tensor2tensor", **knobs)
    n = 10
    f32 = encoding_table(d=d, n=n, dtype="float32", **(conv.table_kwargs() | {"start": start}))
    f64 = encoding_table(d=d, n=n, dtype="float64", **(conv.table_kwargs() | {"start": start}))
    names = component_names(d, conv.layout, odd_d=conv.odd_d)
    kinds = [name.split("_")[0] for name in names]
    omegas = [omega(int(name.split("_")[1]) - 1, d) for name in names]
    for row in (0, 3, n - 1):
        exact = _mp_values(start + row, omegas, kinds, amplitude)
        large = np.abs(exact) >= 1e-6
        np.testing.assert_array_equal(f32[row][large], exact[large].astype(np.float32))
        assert np.all(np.abs(f32[row][~large] - exact[~large]) <= 1e-15)
        # float64: within 2 ulps of the amplitude (docs/conventions.md)
        assert np.all(np.abs(f64[row] - exact) <= 2 * np.spacing(float(amplitude)))


def test_streamed_blocks_and_single_positions_agree_with_every_knob():
    kw = {
        "d": 9,
        "n": 103,
        "start": 5,
        "odd_d": "sine",
        "layout": "sin-cos",
        "angle_scale": 3.5,
        "full_turns": True,
        "amplitude": "sqrt(2/d)",
    }
    for dtype in ("float32", "float64"):
        whole = encoding_table(dtype=dtype, **kw)
        blocks = np.concatenate(list(table_blocks(dtype=dtype, rows=10, **kw)))
        np.testing.assert_array_equal(blocks, whole)
    knobs = {k: v for k, v in kw.items() if k not in ("n", "start")}
    rows = positional_encoding(np.arange(5, 108), dtype="float64", **knobs)
    np.testing.assert_allclose(rows, encoding_table(dtype="float64", **kw), rtol=0, atol=1e-15)


def test_aliases_and_explicit_options():
    assert convention("keras-hub") == PRESETS["distilbert"]
    assert convention("stable-diffusion") == convention(
        "diffusers", flip_sin_to_cos=True, downscale_freq_shift=0
    ).__class__(**{**convention("ldm").__dict__})
    sd = convention("diffusers", flip_sin_to_cos=True, downscale_freq_shift=0)
    assert (sd.schedule, sd.layout) == (PRESETS["ldm"].schedule, PRESETS["ldm"].layout)
    assert convention("pytorch", odd_d="sine").name == "custom"
    assert convention("mlx", amplitude="sqrt(2/d)").name == "mlx"
    assert all(target in PRESETS for target in ALIASES.values())


def test_conventions_lists_every_preset_and_alias(run_cli):
    result = run_cli("conventions")
    assert result.exit_code == 0
    for name in [*PRESETS, *ALIASES]:
        assert name in result.stdout, name


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (
            ["--convention", "diffusers", "--flip-sin-to-cos", "--layout", "sin-cos"],
            "'--flip-sin-to-cos'",
        ),
        (
            ["--convention", "diffusers", "--downscale-freq-shift", "0", "--schedule", "paper"],
            "'--downscale-freq-shift'",
        ),
        (["--convention", "pytorch", "--d", "9"], "'--d'"),
        (["--amplitude", "0"], "'--amplitude'"),
    ],
)
def test_conflicting_or_bad_options_are_one_line_usage_errors(run_cli, args, option):
    result = run_cli("compute", "--d", "8", "--n", "2", *args)
    assert result.exit_code == 2 and option in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""


def test_explicit_options_apply_over_a_preset(run_cli):
    result = run_cli(
        "compute",
        "--convention",
        "keras-hub",
        "--d",
        "9",
        "--n",
        "1",
        "--start",
        "5",
        "--format",
        "csv",
        "--dtype",
        "float64",
    )
    assert result.exit_code == 0, result.stderr
    got = np.array(result.stdout.splitlines()[1].split(","), dtype=np.float64)
    np.testing.assert_allclose(got, lib.distilbert(6, 9)[5], atol=1e-15)


def test_identify_names_no_preset_whose_factors_it_does_not_fit():
    from pecli.analysis.sinusoidal.identify import identify_table

    found = identify_table(lib.whisper(50, 64))
    assert "whisper" in found.presets and "lucidrains" in found.presets
    assert "mlx" not in found.presets  # MLX's table has the amplitude sqrt(2/d)


def test_whole_half_turns_are_exact():
    """MLX full_turns with max_freq 1: sin(2π·p) is 0 and cos(2π·p) is 1, not 5e-16 off."""
    for dtype in ("float32", "float64"):
        t = preset_table("mlx", 8, 50, dtype, full_turns=True, amplitude=1)
        assert not t[:, 0].any() and np.all(t[:, 4] == 1)
        half = encoding_table(d=8, n=9, start=3, dtype=dtype, angle_scale=0.5, full_turns=True)
        assert not half[:, 0].any()
        np.testing.assert_array_equal(half[:, 1], [(-1.0) ** p for p in range(3, 12)])


@pytest.mark.parametrize("scale", [1.0, 0.1, 1000.3, 3.7e-7, 1e300 / 7])
def test_full_turns_carry_the_angle_factor_to_1e_30_against_mpmath(scale):
    """MLX's full turns: the factor 2π·scale as a double-double hi + lo (the docstring's
    "2π = hi + lo to 1e-32"), held to mpmath's 2π·scale at 50 digits."""
    hi, lo = check_angle_scale(scale, full_turns=True)
    with mpmath.workdps(50):
        exact = 2 * mpmath.pi * mpmath.mpf(scale)
        assert abs((mpmath.mpf(hi) + mpmath.mpf(lo) - exact) / exact) < 1e-30
    assert check_angle_scale(scale) == (scale, 0.0)


@pytest.mark.parametrize("amplitude", [0, 0.0, math.nan, math.inf, -math.inf, True, False, "x"])
def test_an_amplitude_must_be_finite_and_non_zero(amplitude):
    with pytest.raises(ParameterError) as caught:
        check_amplitude(amplitude, 8)
    assert caught.value.parameter == "amplitude"
    assert check_amplitude(-0.5, 8) == (-0.5, 0.0)
    hi, lo = check_amplitude("sqrt(2/d)", 8)  # sqrt(2/8) = 1/2 exactly
    assert (hi, lo) == (0.5, 0.0)


def test_a_float16_amplitude_is_taken_from_its_least_normal_to_its_largest():
    """IEEE half precision: least normal 2^-14, largest 65504; both ends taken (either sign),
    the next float64 beyond either refused."""
    half = np.dtype(np.float16)
    for amplitude in (2.0**-14, 65504.0, -65504.0):
        check_amplitude_range((amplitude, 0.0), half, amplitude)
    for amplitude in (np.nextafter(2.0**-14, 0.0), np.nextafter(65504.0, np.inf)):
        with pytest.raises(ParameterError) as caught:
            check_amplitude_range((float(amplitude), 0.0), half, amplitude)
        assert caught.value.parameter == "amplitude"
