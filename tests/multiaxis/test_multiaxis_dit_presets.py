"""The 2025–26 DiT presets against diffusers 0.42.1's own tables and mpmath.

tests/fixtures/libraries/dit_presets holds each model's rotary table as its module made it
(tools/library_fixtures/generate_dit_presets.py). pecli's exact cache must sit within what the
library's own arithmetic costs (the bound of tests/dit_formulas.py, from the library's
float64 formula, plus half a float32 ulp for pecli's one rounding), its ids must be the ids
the model built, and its frequencies and a few cos / sin must be mpmath's to the last bit.
"""

from __future__ import annotations

import io
import json

import mpmath
import numpy as np
import pytest
from dit_formulas import EPS, F32, F64, F64_ANGLE, bound, grid_ids, per_axis

from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.multiaxis import AxesSpec, axes_cache, axis_preset
from pecli.core.multiaxis.plan import plan_frequencies
from pecli.core.multiaxis.resolve import latent_grid, resolve_plan

mpmath.mp.dps = 40
from library_fixtures import load  # noqa: E402

FIXTURES = {f.name: f for f in load("dit_presets")}


def _ours(name, grid, text=0, form="full", head=None, **plan):
    preset = axis_preset(name)
    spec = AxesSpec(preset.plan(head, **plan), preset.id_source(grid, text), form=form)
    return axes_cache(spec)


def _within(got, table, angles, theta, arithmetic, repeat=1):
    tol = np.repeat(bound(angles, theta, arithmetic), repeat, axis=1) + EPS / 2
    assert got.shape == table.shape
    excess = np.abs(got.astype(np.complex128) - table) - tol.reshape(
        tol.shape + (1,) * (got.ndim - 2)
    )
    assert excess.max() <= 0, excess.max()


def test_z_image_ids_and_freqs_cis():
    fixture = FIXTURES["z_image_freqs"]
    ids = axis_preset("z-image").ids([3, 4], 5)
    np.testing.assert_array_equal(ids, np.array(fixture.params["ids"], dtype=np.float64))
    angles = per_axis(ids, [32, 48, 48], [256.0] * 3)
    got = _ours("z-image", [3, 4], 5, form="complex")
    _within(got, fixture.table, angles, 256.0, 2 * np.array(F64_ANGLE))


@pytest.mark.parametrize(
    ("name", "fixture", "grid", "axes", "theta"),
    [
        ("hunyuanimage-2.1", "hunyuanimage21_4x5", (4, 5), [64, 64], 256.0),
        ("hunyuanvideo-1.5", "hunyuanvideo15_3x4x5", (3, 4, 5), [16, 56, 56], 256.0),
        ("cogvideox-1.5", "cogvideox15_3x4x5", (3, 4, 5), [16, 24, 24], 1e4),
    ],
)
def test_interleaved_float32_tables(name, fixture, grid, axes, theta):
    angles = per_axis(grid_ids(*grid), axes, [theta] * len(axes))
    for part in ("cos", "sin"):
        table = FIXTURES[f"{fixture}_{part}"].table
        got = axes_cache(
            AxesSpec(axis_preset(name).plan(), axis_preset(name).id_source(grid), part=part)
        )
        _within(got, table, angles, theta, F32, repeat=2)
        model = AxesSpec(
            axis_preset(name).plan(),
            axis_preset(name).id_source(grid),
            part=part,
            arithmetic=axis_preset(name).dtype,
        )
        assert ulps32(axes_cache(model), table).max() <= 2  # torch's float32 cos / sin


def test_skyreels_v2_is_wan_bit_for_bit():
    for part in ("cos", "sin"):
        table = FIXTURES[f"skyreels_v2_d128_3x4x5_{part}"].table
        spec = AxesSpec(axis_preset("skyreels-v2").plan(), grid_ids(3, 4, 5), part=part)
        assert np.array_equal(axes_cache(spec), table)  # float64 model, rounded once: equal
    assert axis_preset("skyreels-v2").plan() == axis_preset("wan").plan()


def test_lumina2_ids_and_complex128():
    fixture = FIXTURES["lumina2_freqs"]
    ids = axis_preset("lumina2").ids([4, 5], 5)
    np.testing.assert_array_equal(ids, np.array(fixture.params["ids"], dtype=np.float64))
    got = axes_cache(AxesSpec(axis_preset("lumina2").plan(), ids, form="complex", dtype=np.float64))
    assert got.dtype == fixture.table.dtype == np.complex128
    assert np.abs(got - fixture.table).max() < 1e-12  # float64 throughout


def test_kandinsky5_rotation_matrices():
    table = FIXTURES["kandinsky5_2x3x4_s1_1_1"].table
    got = _ours("kandinsky5", [2, 3, 4], form="matrix")
    angles = per_axis(grid_ids(2, 3, 4), [16, 24, 24], [1e4] * 3)
    tol = bound(angles, 1e4, F32) + EPS / 2
    assert got.shape == table.shape and np.all(np.abs(got - table) <= tol[..., None, None])
    # the pipeline's scale_factor divides the positions: --ids with pos / scale
    ids = grid_ids(2, 3, 4) / [1.0, 2.0, 2.0]
    scaled = axes_cache(AxesSpec(axis_preset("kandinsky5").plan(), ids, form="matrix"))
    table = FIXTURES["kandinsky5_2x3x4_s1_2_2"].table
    assert np.all(np.abs(scaled - table) <= tol[..., None, None])


def test_hidream_image_then_text_at_zero():
    fixture = FIXTURES["hidream_3x4_text4"]
    ids = axis_preset("hidream").ids([3, 4], 4)
    np.testing.assert_array_equal(ids, np.array(fixture.params["ids"], dtype=np.float64))
    got = _ours("hidream", [3, 4], 4, form="matrix")
    angles = per_axis(ids, [64, 32, 32], [1e4] * 3)
    tol = bound(angles, 1e4, F64) + EPS / 2
    assert np.all(np.abs(got - fixture.table) <= tol[..., None, None])


@pytest.mark.parametrize(("scale", "fps"), [((1, 3, 3), 24), ((1, 4, 4), None), ((2, 2, 2), 30)])
def test_cosmos_rope_scale(scale, fps):
    name = "cosmos_s" + "_".join(map(str, scale)) + f"_fps{fps}"
    params = FIXTURES[f"{name}_cos"].params
    plan = axis_preset("cosmos").plan(rope_scale=scale)
    by_axis = [plan.theta[plan.axis.index(a)] for a in range(3)]
    np.testing.assert_allclose(by_axis, params["theta"], rtol=4 * 2.0**-53)
    for a, (s, d) in enumerate(zip(scale, (44, 42, 42), strict=True)):  # mpmath: 1e4·s^(d/(d−2))
        exact = mpmath.mpf(10000) * mpmath.power(s, mpmath.mpf(d) / (d - 2))
        assert abs(by_axis[a] - exact) <= abs(exact) * 2.0**-52
    ids = axis_preset("cosmos").ids([3, 4, 5], fps=fps)
    for part in ("cos", "sin"):
        table = FIXTURES[f"{name}_{part}"].table
        ours = axes_cache(AxesSpec(plan, ids, part=part, arithmetic="float32"))
        assert ulps32(ours, table).max() <= 2


@pytest.mark.parametrize(
    "name",
    ["z-image", "hunyuanimage-2.1", "hunyuanvideo-1.5", "lumina2", "kandinsky5", "hidream"],
)
def test_new_presets_frequencies_and_values_are_mpmath(name):
    preset = axis_preset(name)
    plan = preset.plan()
    w, _ = plan_frequencies(plan)
    for j in range(plan.pairs):
        t, k, d = plan.theta[j], plan.index[j], plan.denominator[j]
        assert w[j] == float(mpmath.power(mpmath.mpf(t), -mpmath.mpf(2 * k) / d))
    grid = (2, 3) if len(preset.grid.split()) == 2 else (2, 2, 3)
    ids = preset.ids(grid)[-2:]
    got = axes_cache(AxesSpec(plan, ids, form="half", part="cos"))  # float32, rounded once
    for r, row in enumerate(ids):
        for j in range(plan.pairs):
            t, k, d = plan.theta[j], plan.index[j], plan.denominator[j]
            omega = mpmath.power(mpmath.mpf(t), -mpmath.mpf(2 * k) / d)
            exact = mpmath.cos(mpmath.mpf(float(row[plan.axis[j]])) * omega)
            assert got[r, j] == np.float32(float(exact))


def test_rope_scale_goes_with_cosmos_only():
    with pytest.raises(ParameterError) as caught:
        axis_preset("wan").plan(rope_scale=(1, 2, 2))
    assert caught.value.parameter == "rope_scale"
    with pytest.raises(ParameterError):
        axis_preset("cosmos").plan(rope_scale=(1, 0, 2))


def test_latent_sizes_become_patches():
    assert latent_grid((21, 60, 104), axis_preset("wan"), None) == (21, 30, 52)
    assert latent_grid((22, 60, 90), axis_preset("cogvideox-1.5"), None) == (11, 30, 45)
    # HiDream-I1's transformer config: patch_size 2 (a 1024-pixel image's 128 × 128 latent)
    assert latent_grid((128, 128), axis_preset("hidream"), None) == (64, 64)
    assert latent_grid((4, 6), None, (2, 3)) == (2, 2)
    # diffusers' CosmosTransformer3DModel: patch_size (1, 2, 2) by default (its __init__)
    assert latent_grid((1, 4, 6), axis_preset("cosmos"), None) == (1, 2, 3)
    with pytest.raises(ParameterError) as caught:
        latent_grid((21, 61, 104), axis_preset("wan"), None)
    assert caught.value.parameter == "patch"
    _, preset = resolve_plan("hunyuanvideo-1.5")
    assert latent_grid((3, 4, 5), preset, None) == (3, 4, 5)


#: Each DiT's patch as diffusers 0.42.1 builds it (the calls the fixtures of
#: tests/fixtures/libraries/dit_presets record, else the transformer's default).
DIT_PATCHES = {
    "z-image": (2, 2),  # ZImageTransformer2DModel all_patch_size (2,)
    "hunyuanimage-2.1": (1, 1),  # HunyuanImageRotaryPosEmbed((1, 1), ...)
    "hunyuanvideo-1.5": (1, 1, 1),  # HunyuanVideo15RotaryPosEmbed(1, 1, ...)
    "lumina2": (2, 2),  # Lumina2RotaryPosEmbed(..., patch_size 2)
    "kandinsky5": (1, 2, 2),  # Kandinsky5Transformer3DModel patch_size (1, 2, 2)
    "hidream": (2, 2),  # HiDreamImageTransformer2DModel patch_size 2
    "cogvideox-1.5": (2, 2, 2),  # CogVideoX 1.5: patch_size 2, patch_size_t 2
    "skyreels-v2": (1, 2, 2),  # SkyReelsV2RotaryPosEmbed(128, (1, 2, 2), 1024)
    "chronoedit": (1, 2, 2),  # ChronoEditRotaryPosEmbed(128, (1, 2, 2), ...)
    "ltx-video": (1, 1, 1),  # LTXVideoTransformer3DModel patch_size 1, patch_size_t 1
    "ltx-2": (1, 1, 1),  # LTX2VideoTransformer3DModel patch_size 1, patch_size_t 1
}


@pytest.mark.parametrize("name", sorted(DIT_PATCHES))
def test_each_dit_latent_becomes_patches_by_its_models_patch(name):
    """A latent of 12 frames, 60 × 90 cells: ``latent // patch`` per dimension."""
    patch = DIT_PATCHES[name]
    latent = (12, 60, 90)[-len(patch) :]
    want = tuple(size // p for size, p in zip(latent, patch, strict=True))
    assert latent_grid(latent, axis_preset(name), None) == want


def test_cli_patch_model_reads_the_latent_and_rope_scale_sets_cosmos_theta(run_cli):
    args = ["rope", "axes", "--preset", "wan", "--form", "half", "--format", "csv"]
    latent = run_cli(*args, "--grid", "2x4x6", "--patch", "model")
    patches = run_cli(*args, "--grid", "2x2x3")
    assert latent.exit_code == 0 and latent.stdout == patches.stdout
    assert len(latent.stdout.splitlines()) == 1 + 12  # not 48: the latent is not the grid
    bad = run_cli(*args, "--grid", "2x5x6", "--patch", "model")
    assert bad.exit_code == 2 and "--patch" in bad.output and "Traceback" not in bad.output
    args = ["rope", "axes", "--preset", "cosmos", "--grid", "3x4x5", "--part", "cos"]
    scaled = run_cli(*args, "--rope-scale", "1,3,3", "--fps", "24", "--format", "csv")
    table = np.loadtxt(io.StringIO(scaled.stdout), delimiter=",", skiprows=1, dtype=np.float32)
    library = FIXTURES["cosmos_s1_3_3_fps24_cos"].table  # float32 arithmetic: a few ulps of angles
    assert np.abs(table - library).max() <= 2.0**-22 * (1 + 4)
    wrong = run_cli("rope", "axes", "--preset", "wan", "--grid", "1x1x2", "--rope-scale", "1,3,3")
    assert wrong.exit_code == 2 and "--rope-scale" in wrong.output


@pytest.mark.parametrize(
    ("fixture", "grid", "preset"),
    [
        ("hunyuanimage21_4x5", "4x5", "hunyuanimage-2.1"),
        ("cogvideox15_3x4x5", "3x4x5", "cogvideox-1.5"),
        ("skyreels_v2_d128_3x4x5", "3x4x5", "wan"),  # SkyReels-V2's cache is Wan's
    ],
)
def test_identify_axes_names_the_library_cache(run_cli, tmp_path, fixture, grid, preset):
    path = tmp_path / "cache.npy"
    cos, sin = FIXTURES[f"{fixture}_cos"].table, FIXTURES[f"{fixture}_sin"].table
    np.save(path, np.concatenate([cos, sin], axis=1))
    result = run_cli("rope", "identify-axes", str(path), "--grid", grid, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [name for name, v in report["presets"].items() if v["matches"]] == [preset]


@pytest.mark.parametrize(("kind", "grid"), [("video", (3, 2, 3)), ("image", (1, 2, 3))])
def test_cosmos3_ids_and_interleaved_mrope(kind, grid):
    """Text (k, k, k); vision at 15005 + frame·0.8 (fps 30 against base 24), rows from 0."""
    preset = axis_preset("cosmos3")
    ids = preset.ids(grid, 5, 30.0)
    fixture = FIXTURES[f"cosmos3_text5_{kind}_cos"]
    assert np.array_equal(ids, np.array(fixture.params["ids"], dtype=np.float64).T)
    j = np.arange(64)  # pair j → h when j % 3 == 1 and j < 60, → w when j % 3 == 2, else t
    expected = np.where((j % 3 == 1) & (j < 60), "H", np.where((j % 3 == 2) & (j < 60), "W", "T"))
    assert preset.plan().strip() == "".join(expected) and preset.plan().layout == "half-split"
    for part in ("cos", "sin"):
        spec = AxesSpec(preset.plan(), ids, part=part, arithmetic="float32")
        assert ulps32(axes_cache(spec), FIXTURES[f"cosmos3_text5_{kind}_{part}"].table).max() <= 2


def test_identify_axes_takes_a_latent_size_with_patch(run_cli, tmp_path):
    """HunyuanVideo's 3 × 4 × 5 patches are a 3 × 8 × 10 latent (patch 1 × 2 × 2)."""
    cache = FIXTURES["hunyuanvideo15_3x4x5_cos"].table, FIXTURES["hunyuanvideo15_3x4x5_sin"].table
    path = tmp_path / "cache.npy"
    np.save(path, np.concatenate(cache, axis=1))
    args = ["rope", "identify-axes", str(path), "--format", "json", "--preset", "hunyuanvideo"]
    result = run_cli(*args, "--grid", "3x8x10", "--patch", "model")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["presets"]["hunyuanvideo"]["matches"]
    wrong = run_cli(*args, "--grid", "3x8x10")  # the latent taken as patches: 4× the tokens
    assert wrong.exit_code == 2 and "60 rows" in wrong.output
