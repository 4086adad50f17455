"""Rotary tables of diffusers transformers that no pecli preset expresses (area dit_others).

No pecli code is under test: these checks keep the fixtures honest for later presets
(tools/library_fixtures/generate_dit_others.py), each recomputed in float64 from the rule read
in the model's source, within its own arithmetic (tests/dit_formulas.py).
"""

from __future__ import annotations

import numpy as np
from dit_formulas import F32, F64, Tables, bound, grid_ids, per_axis

TABLES = Tables("dit_others")
FIXTURES = TABLES.fixtures


def test_index_complete_with_provenance():
    assert {f.params["model"] for f in FIXTURES.values()} == {
        "ernie-image",
        "qwen-image-2.1",
        "krea2",
        "flux3",
        "cogview4",
        "glm-image",
        "hunyuandit",
        "minimax-h3",
        "helios",
        "ideogram4",
    }
    assert len(FIXTURES) == 17
    for fixture in FIXTURES.values():
        assert (fixture.library, fixture.version) == ("diffusers", "0.42.1") and fixture.call


def test_ernie_image_angles_repeated_for_rotate_half():
    """The module returns angles [a0, a0, a1, a1, …]; its attention pairs channel j with j + 64
    (rotate_half), so channel j and j + 64 turn by different angles: not one rotation."""
    ids = np.array(FIXTURES["ernie_image_angles"].params["ids"])
    image = np.concatenate([np.full((12, 1), 4.0), grid_ids(3, 4)], axis=1)
    np.testing.assert_array_equal(ids[:12], image)  # image first, t = text length
    np.testing.assert_array_equal(ids[12:, 0], np.arange(4))
    angles = np.repeat(per_axis(ids, [32, 48, 48], [256.0] * 3), 2, axis=1)
    TABLES.check("ernie_image_angles", angles, bound(angles, 256.0, F32))
    got = FIXTURES["ernie_image_angles"].table
    assert not np.array_equal(got[:, :64], got[:, 64:])


def test_qwen_image21_text_image_text():
    """Text 0, 1, 2; the image at t 3 with h, w centred; the text after it from 3 + max(3, 4)."""
    t = np.array([0, 1, 2] + [3] * 12 + [7, 8], dtype=np.float64)
    h, w = t.copy(), t.copy()
    h[3:15] = np.repeat(np.arange(-2, 1), 4)
    w[3:15] = np.tile(np.arange(-2, 2), 3)
    angles = per_axis(np.stack([t, h, w], axis=1), [16, 56, 56], [1e4] * 3)
    TABLES.complex("qwen_image21_text3_3x4_text2", angles, 1e4, F32)


def test_krea2_and_flux3():
    ids = np.concatenate([np.zeros((4, 3)), np.concatenate([np.zeros((12, 1)), grid_ids(3, 4)], 1)])
    TABLES.interleaved("krea2_text4_3x4", per_axis(ids, [32, 48, 48], [1000.0] * 3), 1e3, F64)
    ids = np.array(FIXTURES["flux3_text3_3x4_cos"].params["ids"])
    np.testing.assert_array_equal(ids[:3, 3], [0, 1, 2])  # text advances on the l axis
    np.testing.assert_array_equal(ids[3:, 1:3], grid_ids(3, 4) * 0.5)  # image_rope_scale 0.5
    TABLES.interleaved("flux3_text3_3x4", per_axis(ids, [32] * 4, [1e4] * 4), 1e4, F64)


def test_cogview4_and_glm_image_half_split():
    """[h (32 pairs over width 64) | w (32)] twice; CogView4 indexes rows by i·256 // H."""
    ids = grid_ids(4, 5)
    TABLES.half_split("glm_image_4x5", per_axis(ids, [64, 64], [1e4] * 2), 1e4, F32)
    ids[:, 0] = ids[:, 0] * 256 // 4
    ids[:, 1] = ids[:, 1] * 256 // 5
    TABLES.half_split("cogview4_4x5", per_axis(ids, [64, 64], [1e4] * 2), 1e4, F32)


def test_hunyuandit_columns_first():
    """Crop (3, 0)–(29, 32) of the 32 × 32 grid; the first half of the channels is driven by
    the column (meshgrid(grid_w, grid_h, indexing='xy')), the second by the row."""
    rows = np.linspace(3, 29 * 3 / 4, 4)
    cols = np.linspace(0, 32 * 4 / 5, 5)
    r, c = np.meshgrid(rows, cols, indexing="ij")
    ids = np.stack([c.ravel(), r.ravel()], axis=1)
    TABLES.interleaved("hunyuandit_4x5", per_axis(ids, [44, 44], [1e4] * 2), 1e4, F32)


def test_minimax_h3_one_schedule_for_three_axes():
    ids = grid_ids(2, 3, 4)
    omega = 1e4 ** (-np.arange(16) / 16)
    angles = np.concatenate([ids[:, [a]] * omega for a in range(3)], axis=1)
    TABLES.half_split("minimax_h3_2x3x4", angles, 1e4, F32)


def test_helios_explicit_frames_cos_then_sin():
    ids = grid_ids(3, 3, 4)
    ids[:, 0] = np.array([0, 1, 5])[ids[:, 0].astype(int)]
    angles = np.repeat(per_axis(ids, [44, 42, 42], [1e4] * 3), 2, axis=1)
    expected = np.concatenate([np.cos(angles), np.sin(angles)], axis=1)
    TABLES.check("helios_f015_3x4", expected, np.tile(bound(angles, 1e4, F32), 2))


def test_ideogram4_interleaved_mrope_offset_image():
    ids = np.array(FIXTURES["ideogram4_text4_3x4_cos"].params["ids"], dtype=np.float64)
    np.testing.assert_array_equal(ids[:4], np.tile(np.arange(4.0)[:, None], (1, 3)))
    image = np.concatenate([np.zeros((12, 1)), grid_ids(3, 4)], axis=1) + 65536
    np.testing.assert_array_equal(ids[4:], image)
    j = np.arange(128)
    axis = np.where((j % 3 == 1) & (j < 60), 1, np.where((j % 3 == 2) & (j < 60), 2, 0))
    angles = ids[:, axis] * 5e6 ** (-2 * j / 256)
    TABLES.half_split("ideogram4_text4_3x4", angles, 5e6, F32)
