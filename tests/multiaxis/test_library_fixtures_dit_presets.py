"""The 2025–26 DiTs' rotary tables made by diffusers 0.42.1 (tests/fixtures/libraries/dit_presets).

No pecli code is under test: these checks keep the fixtures honest for the presets built on
them (tools/library_fixtures/generate_dit_presets.py). Every table is recomputed in NumPy
float64 from the rule read in the model's source, ``angle = id · θ^(−2k/D)`` per axis of width
``D`` (a schedule per axis) unless said otherwise, and must agree within what the model's own
arithmetic costs: ``|Δ| ≤ 2^-24 · (a · |angle| + b)`` with ``(a, b)`` = (0, 1) for the models
that work in float64 and round once, (1, 2) for a float64 angle rounded to float32 before a
float32 cos, and (ln θ + 4, 4) for float32 frequencies, products and cos.
"""

from __future__ import annotations

import math

import library_fixtures
import numpy as np
import pytest
from dit_formulas import EPS, F32, F64, F64_ANGLE, Tables, bound, grid_ids, per_axis
from safetensors.numpy import load_file

TABLES = Tables("dit_presets")
FIXTURES = TABLES.fixtures
check = TABLES.check
check_interleaved, check_matrix, check_complex = TABLES.interleaved, TABLES.matrix, TABLES.complex


def test_index_complete_with_provenance():
    models = {f.params["model"] for f in FIXTURES.values()}
    assert models == {
        "z-image",
        "hunyuanimage-2.1",
        "hunyuanvideo-1.5",
        "lumina2",
        "kandinsky5",
        "kandinsky5-text",
        "hidream",
        "skyreels-v2",
        "chronoedit",
        "wan-animate-2",
        "cogvideox-1.5",
        "cosmos",
        "cosmos3",
        "mochi",
    }
    assert len(FIXTURES) == 40
    for fixture in FIXTURES.values():
        assert (fixture.library, fixture.version) == ("diffusers", "0.42.1") and fixture.call


def test_z_image_ids_and_freqs():
    """Image (cap_len + 1, row, col) then pad (0, 0, 0), caption (1 + k, 0, 0); θ 256."""
    fixture = FIXTURES["z_image_freqs"]
    ids = np.array(fixture.params["ids"], dtype=np.float64)
    image = np.concatenate([np.full((12, 1), 33.0), grid_ids(3, 4)], axis=1)
    np.testing.assert_array_equal(ids[:12], image)  # caption padded to 32: image t = 33
    np.testing.assert_array_equal(ids[12:32], 0)  # the image's padding to 32 tokens
    np.testing.assert_array_equal(ids[32:, 0], np.arange(1, 33))
    angles = per_axis(ids, [32, 48, 48], [256.0] * 3)
    check_complex("z_image_freqs", angles, 256.0, F64_ANGLE)


def test_hunyuan_image_and_video_15():
    angles = per_axis(grid_ids(4, 5), [64, 64], [256.0] * 2)
    check_interleaved("hunyuanimage21_4x5", angles, 256.0, F32)
    angles = per_axis(grid_ids(3, 4, 5), [16, 56, 56], [256.0] * 3)
    check_interleaved("hunyuanvideo15_3x4x5", angles, 256.0, F32)


def test_lumina2_ids_and_complex128():
    """Caption ids (k, 0, 0) for the 5 real tokens; the image at (5, row, col); float64."""
    fixture = FIXTURES["lumina2_freqs"]
    ids = np.array(fixture.params["ids"], dtype=np.float64)
    expected = np.concatenate(
        [
            np.stack([np.arange(5.0), np.zeros(5), np.zeros(5)], 1),
            np.concatenate([np.full((20, 1), 5.0), grid_ids(4, 5)], axis=1),
        ]
    )
    np.testing.assert_array_equal(ids, expected)
    assert fixture.table.dtype == np.complex128
    check_complex("lumina2_freqs", per_axis(ids, [32] * 3, [1e4] * 3), 1e4, (1e-9, 1e-9))


@pytest.mark.parametrize("scale", [(1, 1, 1), (1, 2, 2), (1, 3.16, 3.16)])
def test_kandinsky5_visual(scale):
    angles = per_axis(grid_ids(2, 3, 4), [16, 24, 24], [1e4] * 3)
    divisor = np.concatenate([np.full(n, s) for n, s in zip((8, 12, 12), scale, strict=True)])
    name = "kandinsky5_2x3x4_s" + "_".join(f"{s:g}".replace(".", "p") for s in scale)
    check_matrix(name, angles / divisor, 1e4, F32)


def test_kandinsky5_text():
    angles = per_axis(np.arange(5.0)[:, None], [128], [1e4])
    check_matrix("kandinsky5_text5", angles, 1e4, F32)


def test_hidream_three_axes():
    fixture = FIXTURES["hidream_3x4_text4"]
    ids = np.array(fixture.params["ids"])
    np.testing.assert_array_equal(ids[:12, 1:], grid_ids(3, 4))
    assert not ids[:, 0].any() and not ids[12:].any()  # axis 0 and the text: all 0
    check_matrix("hidream_3x4_text4", per_axis(ids, [64, 32, 32], [1e4] * 3), 1e4, F64)


def wan_angles(ids: np.ndarray, head: int) -> np.ndarray:
    h = 2 * (head // 6)
    return per_axis(ids, [head - 2 * h, h, h], [1e4] * 3)


def test_skyreels_v2_is_wan():
    check_interleaved("skyreels_v2_d128_3x4x5", wan_angles(grid_ids(3, 4, 5), 128), 1e4, F64)


@pytest.mark.parametrize(("head", "frames"), [(128, 3), (64, 3), (128, 2)])
def test_chronoedit_split(head, frames):
    """The table is Wan's (t, h, w) = (d − 4·(d//6), 2·(d//6), 2·(d//6)) channels, but it
    is cut at channels (d − 2·(d//3), d//3, d//3): the same at d = 128; at d = 64 the cut
    (22, 21, 21) splits pairs, and a pair's two channels get different positions."""
    columns = wan_angles(np.tile(np.arange(1024.0)[:, None], (1, 3)), head)  # (1024, d/2)
    ids = grid_ids(frames, 4, 5).astype(int)
    frame = np.array([0, 7])[ids[:, 0]] if frames == 2 else ids[:, 0]  # temporal_skip_len 8
    cuts = np.cumsum([head - 2 * (head // 3), head // 3])
    for part, f in (("cos", np.cos), ("sin", np.sin)):
        channels = np.repeat(f(columns), 2, axis=1)
        t_ch, h_ch, w_ch = np.split(channels, cuts, axis=1)
        expected = np.concatenate([t_ch[frame], h_ch[ids[:, 1]], w_ch[ids[:, 2]]], axis=1)
        check(f"chronoedit_d{head}_{frames}x4x5_{part}", expected, EPS)
    if head == 64:  # pair 21 (channels 42, 43) is split between the row and the column
        cos = FIXTURES["chronoedit_d64_3x4x5_cos"].table
        assert cos[1, 42] == 1.0 and cos[1, 43] != cos[1, 42]  # token (0, 0, 1)


@pytest.mark.parametrize(
    ("head", "offsets", "stride"), [(128, (0, 0, 0), 1), (128, (1, 0, 5), 2), (64, (0, 0, 0), 1)]
)
def test_wan_animate2_offsets_and_stride(head, offsets, stride):
    ids = grid_ids(3, 4, 5) * [stride, 1, 1] + offsets
    angles = wan_angles(ids, head)
    name = f"wan_animate2_d{head}_off{''.join(map(str, offsets))}_s{stride}"
    tol = bound(angles, 1e4, F64)
    check(f"{name}_cos", np.cos(angles), tol)
    check(f"{name}_sin", np.sin(angles), tol)


def test_cogvideox15_slice_grid():
    angles = per_axis(grid_ids(3, 4, 5), [16, 24, 24], [1e4] * 3)
    check_interleaved("cogvideox15_3x4x5", angles, 1e4, F32)


@pytest.mark.parametrize(("scale", "fps"), [((1, 3, 3), 24), ((1, 4, 4), None), ((2, 2, 2), 30)])
def test_cosmos_rope_scale(scale, fps):
    """θ per axis = 1e4 · s^(d/(d−2)) (d 44, 42, 42); frames at k/fps·24; half-split."""
    name = "cosmos_s" + "_".join(map(str, scale)) + f"_fps{fps}"
    thetas = [1e4 * s ** (d / (d - 2)) for s, d in zip(scale, (44, 42, 42), strict=True)]
    np.testing.assert_allclose(FIXTURES[f"{name}_cos"].params["theta"], thetas, rtol=1e-15)
    ids = grid_ids(3, 4, 5)
    if fps is not None:
        ids[:, 0] = ids[:, 0] / fps * 24
    widths = (44, 42, 42)
    blocks = [per_axis(ids[:, [a]], [widths[a]], [thetas[a]]) for a in range(3)]
    angles = np.concatenate(blocks * 2, axis=1)  # [t h w t h w]
    tol = bound(angles, max(thetas), F32)
    check(f"{name}_cos", np.cos(angles), tol)
    check(f"{name}_sin", np.sin(angles), tol)


@pytest.mark.parametrize("kind", ["video", "image"])
def test_cosmos3_interleaved_mrope(kind):
    """Pair j: h when j % 3 == 1 and j < 60, w when j % 3 == 2 and j < 60, else t; θ 5e6."""
    fixture = FIXTURES[f"cosmos3_text5_{kind}_cos"]
    ids = np.array(fixture.params["ids"], dtype=np.float64).T  # (tokens, 3)
    np.testing.assert_array_equal(ids[:5], np.tile(np.arange(5.0)[:, None], (1, 3)))
    t = ids[5:, 0]
    frames = np.repeat(np.arange(3 if kind == "video" else 1), 6)
    step = 0.8 if kind == "video" else 1.0  # (fps 30 / 4) against (24 / 4): 0.8 per frame
    np.testing.assert_allclose(t, 15005 + step * frames, rtol=2 * EPS)  # margin 15000
    j = np.arange(64)
    axis = np.where((j % 3 == 1) & (j < 60), 1, np.where((j % 3 == 2) & (j < 60), 2, 0))
    angles = ids[:, axis] * 5e6 ** (-2 * j / 128)
    angles = np.concatenate([angles, angles], axis=1)
    tol = bound(angles, 5e6, F32)
    check(f"cosmos3_text5_{kind}_cos", np.cos(angles), tol)
    check(f"cosmos3_text5_{kind}_sin", np.sin(angles), tol)


def test_mochi_from_checkpoint():
    """angle[n, head, f] = Σ_axis pos[n, axis] · pos_frequencies[axis, head, f]."""
    folder = library_fixtures.ROOT / "dit_presets"
    freqs = load_file(str(folder / "mochi_pos_frequencies.safetensors"))["pos_frequencies"]
    assert freqs.shape == (3, 24, 64)
    scale = math.sqrt(192 * 192 / (3 * 4))
    edges = [np.linspace(-n * scale / 2, n * scale / 2, n + 1) for n in (3, 4)]
    centres = [(e[:-1] + e[1:]) / 2 for e in edges]
    mesh = np.meshgrid(np.arange(2.0), *centres, indexing="ij")
    positions = np.stack([m.ravel() for m in mesh], axis=1)
    np.testing.assert_allclose(FIXTURES["mochi_positions_2x3x4"].table, positions, atol=1e-5)
    angles = np.einsum("nd,dhf->nhf", positions, freqs.astype(np.float64))
    terms = np.einsum("nd,dhf->nhf", np.abs(positions), np.abs(freqs).astype(np.float64))
    tol = EPS * (4 * terms + 4)  # float32 positions, products and sums, then cos / sin
    check("mochi_2x3x4_cos", np.cos(angles), tol)
    check("mochi_2x3x4_sin", np.sin(angles), tol)
