"""LTX-Video and LTX-2 presets against diffusers 0.42.1's own tables and mpmath.

tests/fixtures/libraries/ltx holds each module's cos / sin, its ladder and its coordinates
``u = 2x − 1`` (tools/library_fixtures/generate_ltx.py). The reference angles here are
``u · θ^(k/(n−1)) · π/2`` from the formula in the issue, frequency-major and axis-minor after
the front padding — written out below, not taken from pecli.
"""

from __future__ import annotations

import io
import math

import mpmath
import numpy as np
import pytest
from library_fixtures import load

from pecli.core.dtypes import ulps32
from pecli.core.multiaxis import AxesSpec, axes_cache, axis_preset
from pecli.core.multiaxis.plan import plan_frequencies

mpmath.mp.dps = 40
FIXTURES = {f.name: f for f in load("ltx")}
EPS = 2.0**-24
CASES = {  # preset, fixture prefix, grid, inner dim, fixture of u
    "ltxv2048": ("ltx-video", "ltxv_d2048", (2, 3, 4), 2048, "ltxv_d2048_u"),
    "ltxv4096": ("ltx-video", "ltxv_d4096", (2, 3, 4), 4096, "ltxv_d2048_u"),
    "ltx2video": ("ltx-2", "ltx2_video_interleaved", (2, 2, 3), 4096, "ltx2_video_u"),
    "ltx2audio": ("ltx-2-audio", "ltx2_audio_interleaved", (9,), 2048, "ltx2_audio_u"),
}


def phi(k, n):
    """φ_k = θ^(k/(n−1)) · π/2, 40 digits."""
    return mpmath.power(10000, mpmath.mpf(k) / (n - 1)) * mpmath.pi / 2


def reference_angles(u: np.ndarray, dim: int) -> np.ndarray:
    """(tokens, dim/2): padding angles 0 first, then φ_k · u_a for k, then a (float64)."""
    axes = u.shape[1]
    n = dim // (2 * axes)
    ladder = 10000.0 ** (np.arange(n) / (n - 1)) * (math.pi / 2)
    angles = (ladder[None, :, None] * u[:, None, :]).reshape(len(u), -1)
    return np.concatenate([np.zeros((len(u), dim // 2 - n * axes)), angles], axis=1)


def test_issue_values_of_the_ladder():
    plan = axis_preset("ltx-video").plan()
    omega = plan_frequencies(plan)[0]
    assert plan.pairs == 1024 and plan.strip().startswith("-THWTHW")  # 2 padding channels
    assert omega[0] == 0.0  # padding: cos 1, sin 0
    for j, k in ((1, 0), (4, 1), (7, 2), (1021, 340)):
        assert omega[j] == float(phi(k, 341)) == omega[j + 1] == omega[j + 2]
    assert omega[1:8:3] == pytest.approx([1.57079633, 1.61392959, 1.65824726], abs=5e-9)
    assert omega[1021] == pytest.approx(15707.9633, abs=5e-5)
    ltx2 = axis_preset("ltx-2").plan()
    assert ltx2.pairs == 2048 and ltx2.strip().startswith("--THW")  # dim 4096: 4 padding
    assert plan_frequencies(ltx2)[0][2] == float(phi(0, 682))


@pytest.mark.parametrize("case", list(CASES))
def test_ids_are_the_models_coordinates(case):
    name, _, grid, _, u_name = CASES[case]
    ids = axis_preset(name).ids(grid)
    assert np.array_equal(ids.astype(np.float32), FIXTURES[u_name].table)
    assert np.array_equal(ids, ids.astype(np.float32))  # float32 values, as the model has them


def test_issue_values_of_the_coordinates():
    u = axis_preset("ltx-video").ids((2, 3, 4))
    assert u[17].tolist() == np.float32([-0.968, -0.96875, -0.96875]).tolist()  # (1, 1, 1)
    video = axis_preset("ltx-2").ids((2, 2, 3))
    np.testing.assert_allclose(video[0], [-0.997916667, -0.984375, -0.984375], atol=EPS)
    assert video[6, 0] == pytest.approx(-0.979166667, abs=EPS)  # latent frame 1


@pytest.mark.parametrize("case", list(CASES))
def test_exact_cache_within_the_library_rounding(case):
    name, prefix, grid, dim, _ = CASES[case]
    preset = axis_preset(name)
    source = preset.id_source(grid)
    angles = np.abs(reference_angles(source.rows(0, source.n), dim))
    # the library: a float32 ladder (≤ 6.2 ulps measured), u·φ rounded, float32 cos; pecli ½ ulp
    tol = np.repeat(8 * EPS * angles + 3 * EPS, 2, axis=1)
    for part in ("cos", "sin"):
        ours = axes_cache(AxesSpec(preset.plan(dim), source, part=part))
        table = FIXTURES[f"{prefix}_{part}"].table
        assert ours.shape == table.shape and np.all(np.abs(ours - table) <= tol)


@pytest.mark.parametrize("case", ["ltx2video", "ltx2audio"])
def test_ltx2_model_arithmetic_is_the_library_within_an_ulp(case):
    name, prefix, grid, dim, _ = CASES[case]
    preset = axis_preset(name)
    for part in ("cos", "sin"):
        spec = AxesSpec(preset.plan(dim), preset.id_source(grid), part=part, arithmetic="float32")
        assert ulps32(axes_cache(spec), FIXTURES[f"{prefix}_{part}"].table).max() <= 1


def test_ltx_video_float32_ladder_and_the_origin():
    """The model's float32 ladder; at the origin u = −1 and cos(−fl32(π/2)) = −4.371139e-8."""
    preset = axis_preset("ltx-video")
    spec = AxesSpec(preset.plan(), preset.id_source((2, 3, 4)), part="cos", arithmetic="float32")
    model = axes_cache(spec)
    table = FIXTURES["ltxv_d2048_cos"].table
    assert model[0, 2] == table[0, 2] == np.float32(-4.371139e-8)
    # 3 of torch's 341 float32 powf values are 1 ulp off the correctly rounded power: the
    # angles of those pairs differ by an ulp of the angle (up to 1e-3 at φ ≈ 15708)
    assert np.mean(ulps32(model, table) <= 2) > 0.97
    exact = axes_cache(AxesSpec(preset.plan(), preset.id_source((2, 3, 4)), part="cos"))
    assert abs(exact[0, 2]) < 1e-30 and exact[0, :2].tolist() == [1.0, 1.0]
    k0 = [-1.52053084, -1.52170894, -1.52170894]  # token (1, 1, 1), k = 0
    np.testing.assert_allclose(exact[17, 2:8:2], np.cos(k0), atol=1e-8)


@pytest.mark.parametrize("module", ["video", "audio"])
def test_ltx2_split_is_the_half_form_a_slice_per_head(module):
    name, _, grid, dim, _ = CASES[f"ltx2{module}"]
    preset = axis_preset(name)
    source = preset.id_source(grid)
    tol = 8 * EPS * np.abs(reference_angles(source.rows(0, source.n), dim)) + 3 * EPS
    for part in ("cos", "sin"):
        half = axes_cache(AxesSpec(preset.plan(dim), source, form="half", part=part))
        heads = half.reshape(source.n, 32, -1).transpose(1, 0, 2)  # head h: its columns
        table = FIXTURES[f"ltx2_{module}_split_{part}"].table
        limit = tol.reshape(source.n, 32, -1).transpose(1, 0, 2)
        assert heads.shape == table.shape and np.all(np.abs(heads - table) <= limit)


def test_axis_map_lists_the_ladder_and_identify_names_ltx2(run_cli, tmp_path):
    result = run_cli("rope", "axis-map", "--preset", "ltx-video", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = np.genfromtxt(io.StringIO(result.stdout), delimiter=",", names=True, dtype=None)
    assert rows["axis"][0] == "-" and rows["inv_freq"][0] == 0.0
    assert rows["inv_freq"][1021] == pytest.approx(15707.9633, abs=5e-5)
    cos, sin = (FIXTURES[f"ltx2_video_interleaved_{p}"].table for p in ("cos", "sin"))
    path = tmp_path / "ltx2.npy"
    np.save(path, np.concatenate([cos, sin], axis=1))
    result = run_cli("rope", "identify-axes", str(path), "--grid", "2x2x3", "--preset", "ltx-2")
    assert result.exit_code == 0 and "ltx-2: matches" in result.stdout


def test_ltx_fps_moves_the_time_coordinate(run_cli):
    faster = axis_preset("ltx-video").ids((2, 1, 1), fps=50)
    assert faster[1, 0] == np.float32(np.float32(np.float32(8 / 50) / np.float32(20)) * 2 - 1)
    refused = run_cli("rope", "axes", "--preset", "ltx-video", "--grid", "2x1x1", "--fps", "0")
    assert refused.exit_code == 2 and "--fps" in refused.output


@pytest.mark.parametrize("dim", [2048, 4096])
def test_identify_names_ltx_video_on_diffusers_table(run_cli, tmp_path, dim):
    """diffusers' own LTX-Video cache is named: its float32 ladder (torch's powf, 3 of 341
    values 1 ulp off the correctly rounded power) is a faithful float32 port of the preset's."""
    cos, sin = (FIXTURES[f"ltxv_d{dim}_{p}"].table for p in ("cos", "sin"))
    path = tmp_path / "ltxv.npy"
    np.save(path, np.concatenate([cos, sin], axis=1))
    result = run_cli("rope", "identify-axes", str(path), "--grid", "2x3x4")
    assert result.exit_code == 0, result.output
    assert "ltx-video: matches (float32 arithmetic)" in result.stdout
    # the model's float32 ladder is several ulps off the exact φ_k (mpmath): only a port's
    # allowance per pair's ω can name it
    ladder = FIXTURES[f"ltxv_d{dim}_ladder"].table
    n = dim // 6
    exact = np.float32([float(phi(k, n)) for k in range(n)])
    assert 2 < ulps32(ladder, exact).max() <= 8


def test_identify_does_not_name_ltx_video_on_a_shifted_table(run_cli, tmp_path):
    """The float32-port allowance is per pair's ω, not per value: ids one frame late fail."""
    cos, sin = (FIXTURES[f"ltxv_d2048_{p}"].table for p in ("cos", "sin"))
    path = tmp_path / "ltxv.npy"
    np.save(path, np.concatenate([cos, sin], axis=1))
    result = run_cli("rope", "identify-axes", str(path), "--grid", "3x2x4", "--preset", "ltx-video")
    assert result.exit_code == 1 and "ltx-video: differs" in result.stdout


def test_plot_axes_counts_the_padding_apart(run_cli, tmp_path):
    """LTX-Video at 2048: 341 rungs on each of t, h, w and one padding pair (2048 % 6 = 2)."""
    summary = run_cli("rope", "axis-map", "--preset", "ltx-video").stdout
    assert "1024 pairs (t 341, h 341, w 341, padding 1)" in summary
    out, data = tmp_path / "ltx.png", tmp_path / "ltx.csv"
    args = ("rope", "plot-axes", "--preset", "ltx-video", "-o", str(out), "--data", str(data))
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    axis = np.loadtxt(data, delimiter=",", skiprows=1)[:, 1]
    assert axis[0] == -1 and [int((axis == a).sum()) for a in (0, 1, 2)] == [341] * 3
    ltx2 = run_cli("rope", "axis-map", "--preset", "ltx-2").stdout  # 4096 % 6 = 4: 2 pairs
    assert "2048 pairs (t 682, h 682, w 682, padding 2)" in ltx2
