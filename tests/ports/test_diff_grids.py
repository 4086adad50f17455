"""pecli diff on two grid tables (ViT position tables): each read as its preset, how they differ.

The tables are written here from each library's definition (docs/grids.md), not by
``pecli grid``: token ``k`` of an ``H × W`` grid is at row ``r = k // W`` and column
``c = k % W``; each axis's block holds the 1-D sines and cosines of its coordinate over ``h``
pairs, ``ω_j = C^(−j/h)`` (paper) or ``C^(−j/(h − 1))`` (tensor2tensor), C = 10000. MAE's
``get_2d_sincos_pos_embed`` puts the column's block first (``emb_h`` from the column index),
each as ``[all sines | all cosines]``; timm's ``build_sincos2d_pos_embed`` stacks
``[sin r | sin c | cos r | cos c]``; big_vision's ``posemb_sincos_2d`` is MAE's order with
tensor2tensor's frequencies; tensor2tensor's ``add_timing_signal_nd`` gives each axis
``d // 4`` pairs, row first, zeros after; positional-encodings' ``PositionalEncoding2D``
gives each ``ceil(d/4)`` pairs interleaved ``(sin, cos)``, row first, cut to ``d``. Class
tokens are all-zero rows first. float64 NumPy, rounded once to float32. Before diff read grid
tables, every reading was "none".
"""

from __future__ import annotations

import math

import numpy as np
from diff_reports import both_reports

MAE_ALSO = "(or mocov3 --axis-order 1,0, timm-interleaved --axis-order 1,0)"


def _sines(position: np.ndarray, h: int, schedule: str) -> tuple[np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` of ``position · ω_j`` for the ``h`` pairs of one axis."""
    j = np.arange(h)
    omega = 10000.0 ** (-j / (h - 1 if schedule == "tensor2tensor" else h))
    angle = position.astype(np.float64)[:, None] * omega
    return np.sin(angle), np.cos(angle)


def grid(
    h_side: int, w_side: int, d: int, preset: str = "mae", cls: int = 0, step: float = 1.0
) -> np.ndarray:
    """The ``H × W`` table of ``mae``, ``timm``, ``big-vision``, ``t2t-nd`` or ``tatp22``.

    ``step``: the positions' spacing (diffusers' ``base_size / (n · interpolation_scale)``).
    """
    k = np.arange(h_side * w_side)
    r, c = k // w_side * step, k % w_side * step
    schedule = "tensor2tensor" if preset in ("big-vision", "t2t-nd") else "paper"
    h = math.ceil(d / 4) if preset == "tatp22" else d // 4
    (sr, cr), (sc, cc) = _sines(r, h, schedule), _sines(c, h, schedule)
    if preset in ("mae", "big-vision"):
        table = np.hstack([sc, cc, sr, cr])
    elif preset == "timm":
        table = np.hstack([sr, sc, cr, cc])
    elif preset == "t2t-nd":
        table = np.hstack([sr, cr, sc, cc, np.zeros((len(k), d - 4 * h))])
    else:  # tatp22: (sin, cos) pairs of the row, then of the column, cut to d
        table = np.hstack(
            [np.stack([sr, cr], 2).reshape(len(k), -1), np.stack([sc, cc], 2).reshape(len(k), -1)]
        )
        table = table[:, :d]
    return np.vstack([np.zeros((cls, d)), table]).astype(np.float32)


def video(t_side: int, h_side: int, w_side: int, d: int, preset: str) -> np.ndarray:
    """A ``T × H × W`` table of ``cogvideox`` or ``t2t-nd``.

    CogVideoX: ``[frame d/8 | column 3d/16 | row 3d/16]`` pairs, each block ``[all sines |
    all cosines]``; tensor2tensor: ``d // 6`` pairs per axis in the axes' order, zeros after.
    """
    k = np.arange(t_side * h_side * w_side)
    t, r, c = k // (h_side * w_side), k // w_side % h_side, k % w_side
    if preset == "cogvideox":
        blocks = [_sines(t, d // 8, "paper"), *(_sines(x, 3 * d // 16, "paper") for x in (c, r))]
        return np.hstack([np.hstack(block) for block in blocks]).astype(np.float32)
    blocks = [_sines(x, d // 6, "tensor2tensor") for x in (t, r, c)]
    zeros = np.zeros((len(k), d - 6 * (d // 6)))
    return np.hstack([*(np.hstack(block) for block in blocks), zeros]).astype(np.float32)


def _diff(run_cli, tmp_path, a: np.ndarray, b: np.ndarray, *options: str) -> tuple[list[str], dict]:
    """The text report's last lines (readings, causes) and the JSON one, each with status 1."""
    text, found = both_reports(run_cli, tmp_path, a, b, *options)
    return [line for line in text.splitlines() if line.startswith(("reading", "likely"))], found


def _mae(shape: str, extra: str = "") -> str:
    return (
        f"grid table, mae {MAE_ALSO}: {shape} grid, {extra}column first, blocks layout, "
        "paper schedule, d = 32 (8 + 8 pairs), float32"
    )


def test_mae_against_timm_names_layout_and_axis_order(run_cli, tmp_path):
    """A ViT's pos_embed ported between MAE and timm: two fields of the presets differ."""
    lines, found = _diff(run_cli, tmp_path, grid(4, 4, 32), grid(4, 4, 32, "timm"))
    cause = (
        "grid tables differ (A mae, B timm): layout blocks in A (each axis's sines then its "
        "cosines, axis after axis), sines-first in B (every axis's sines, then every axis's "
        "cosines); axis order column first in A, row first in B"
    )
    assert lines == [
        f"reading of A: {_mae('4 × 4')}",
        "reading of B: grid table, timm: 4 × 4 grid, row first, sines-first layout, "
        "paper schedule, d = 32 (8 + 8 pairs), float32",
        f"likely cause: {cause}",
    ]
    assert found["causes"] == [cause] and found["transformations"] == ["grid"]
    ra, rb = found["reading_a"], found["reading_b"]
    assert (ra["kind"], ra["preset"], ra["grid"], ra["order"], ra["layout"]) == (
        "grid",
        "mae",
        [4, 4],
        "col-first",
        "blocks",
    )
    assert ra["presets"] == ["mae", "mocov3 --axis-order 1,0", "timm-interleaved --axis-order 1,0"]
    assert (rb["preset"], rb["order"], rb["layout"], rb["schedule"], rb["pairs"]) == (
        "timm",
        "row-first",
        "sines-first",
        "paper",
        [8, 8],
    )
    assert ra["extra_tokens"] == rb["extra_tokens"] == 0 and ra["base_size"] is None


def test_a_class_token_row_is_named_not_as_a_first_position(run_cli, tmp_path):
    """MAE's table with its cls row against one without: the extra row, not an offset of 1."""
    lines, found = _diff(run_cli, tmp_path, grid(4, 4, 32, cls=1), grid(4, 4, 32))
    cause = (
        "grid tables differ (both mae): all-zero rows first (class or extra tokens) 1 in A, 0 in B"
    )
    assert lines == [
        f"reading of A: {_mae('4 × 4', '1 all-zero row first, ')}",
        f"reading of B: {_mae('4 × 4')}",
        f"likely cause: {cause}",
    ]
    assert found["causes"] == [cause] and found["transformations"] == ["grid"]
    assert (found["reading_a"]["extra_tokens"], found["reading_b"]["extra_tokens"]) == (1, 0)


def test_h_and_w_swapped_is_named(run_cli, tmp_path):
    """A 4 × 8 grid's table against an 8 × 4 one's: the sides alone."""
    lines, found = _diff(run_cli, tmp_path, grid(4, 8, 32), grid(8, 4, 32))
    cause = "grid tables differ (both mae): grid 4 × 8 in A, 8 × 4 in B (H and W swapped)"
    assert lines == [
        f"reading of A: {_mae('4 × 8')}",
        f"reading of B: {_mae('8 × 4')}",
        f"likely cause: {cause}",
    ]
    assert found["causes"] == [cause]
    assert (found["reading_a"]["grid"], found["reading_b"]["grid"]) == ([4, 8], [8, 4])


def test_tokens_in_column_major_order_are_named_as_such(run_cli, tmp_path):
    """The (H, W, d) table transposed to (W, H, d) before flattening: sides and order swapped."""
    a = grid(4, 8, 32)
    b = a.reshape(4, 8, 32).transpose(1, 0, 2).reshape(32, 32)
    lines, found = _diff(run_cli, tmp_path, a, b)
    cause = (
        "grid tables differ (A mae, B mocov3): grid 4 × 8 in A, 8 × 4 in B, and axis order "
        "column first in A, row first in B: B's tokens are A's in column-major order "
        "(the grid flattened with H and W swapped)"
    )
    assert lines[1:] == [
        "reading of B: grid table, mocov3 (or mae --axis-order 0,1, timm-interleaved): 8 × 4 "
        "grid, row first, blocks layout, paper schedule, d = 32 (8 + 8 pairs), float32",
        f"likely cause: {cause}",
    ]
    assert found["causes"] == [cause]


def test_two_width_rules_name_the_split_of_d(run_cli, tmp_path):
    """tensor2tensor's d // 4 pairs per axis and zeros against positional-encodings' ceil(d/4)."""
    lines, found = _diff(run_cli, tmp_path, grid(4, 4, 34, "t2t-nd"), grid(4, 4, 34, "tatp22"))
    cause = (
        "grid tables differ (A t2t-nd, B tatp22): schedule tensor2tensor in A "
        "(ω_j = C^(−j/(h − 1)), h − 1 = 7), paper in B (ω_j = C^(−j/h), h = 9); "
        "layout blocks in A (each axis's sines then its cosines, axis after axis), interleaved "
        "in B (sin and cos alternating in each axis's block); width rule floor in A, ceil in B; "
        "pairs per axis 8 + 8 in A, 9 + 9 in B"
    )
    assert lines == [
        "reading of A: grid table, t2t-nd: 4 × 4 grid, row first, blocks layout, "
        "tensor2tensor schedule, d = 34 (8 + 8 pairs), float32",
        "reading of B: grid table, tatp22: 4 × 4 grid, row first, interleaved layout, "
        "paper schedule, d = 34 (9 + 9 pairs), float32",
        f"likely cause: {cause}",
    ]
    assert (found["reading_a"]["width"], found["reading_b"]["width"]) == ("floor", "ceil")


def test_width_rules_that_split_d_alike_are_not_named(run_cli, tmp_path):
    """big_vision against tensor2tensor at d = 32: both 8 pairs per axis, the axis order alone."""
    lines, found = _diff(run_cli, tmp_path, grid(4, 4, 32, "big-vision"), grid(4, 4, 32, "t2t-nd"))
    cause = (
        "grid tables differ (A big-vision, B t2t-nd): axis order column first in A, row first in B"
    )
    assert lines[2:] == [f"likely cause: {cause}"] and found["causes"] == [cause]
    assert (found["reading_a"]["width"], found["reading_b"]["width"]) == ("quarter", "floor")


def test_diffusers_base_size_is_named(run_cli, tmp_path):
    """diffusers' base_size 8 on a 4 × 4 grid (positions 0, 2, 4, 6) against MAE's integers."""
    lines, found = _diff(run_cli, tmp_path, grid(4, 4, 32), grid(4, 4, 32, step=2.0))
    cause = (
        "grid tables differ (both mae): diffusers' base_size / interpolation_scale "
        "none (integer positions) in A, 8 in B"
    )
    assert lines[1:] == [
        "reading of B: grid table, mae: 4 × 4 grid, column first, blocks layout, paper "
        "schedule, d = 32 (8 + 8 pairs), base_size 8, float32",
        f"likely cause: {cause}",
    ]
    assert (found["reading_a"]["base_size"], found["reading_b"]["base_size"]) == (None, 8.0)


def test_a_video_grid_words_each_blocks_own_frequencies(run_cli, tmp_path):
    """CogVideoX's uneven blocks against tensor2tensor's three even ones on a 2 × 4 × 4 grid."""
    lines, found = _diff(
        run_cli, tmp_path, video(2, 4, 4, 32, "cogvideox"), video(2, 4, 4, 32, "t2t-nd")
    )
    cause = (
        "grid tables differ (A cogvideox, B t2t-nd): schedule paper in A "
        "(ω_j = C^(−j/h), h = 4, 6, 6), tensor2tensor in B (ω_j = C^(−j/(h − 1)), h − 1 = 4); "
        "axis order axes in the order 1, 3, 2 in A, axes in the order 1, 2, 3 in B; "
        "width rule cogvideox in A, floor in B; pairs per axis 4 + 6 + 6 in A, 5 + 5 + 5 in B"
    )
    assert lines[-1] == f"likely cause: {cause}" and found["causes"] == [cause]
    assert (found["reading_a"]["grid"], found["reading_a"]["order"]) == ([2, 4, 4], "0,2,1")


def test_one_preset_stored_in_float16_is_the_storage_cause(run_cli, tmp_path):
    """The same grid table in float16 (at --ulps 0): both read as mae; the storage alone."""
    a = grid(4, 4, 32)
    _, found = _diff(run_cli, tmp_path, a, a.astype(np.float16), "--ulps", "0")
    assert found["reading_a"]["preset"] == found["reading_b"]["preset"] == "mae"
    assert found["reading_b"]["storage"] == "float16"
    assert found["transformations"] == ["storage"]


def test_a_rope_cache_is_never_tried_as_a_grid(run_cli, tmp_path, monkeypatch):
    """A rotary cache keeps rope identify's reading; the grid identify runs on B only."""
    import pecli.analysis.grids.identify as identify

    tables = []
    real = identify.grid_match
    monkeypatch.setattr(identify, "grid_match", lambda t: tables.append(t.shape) or real(t))
    p = np.arange(16.0)[:, None] * 10000.0 ** (-np.arange(0, 16, 2) / 16)
    rope = np.hstack([np.cos(p), np.cos(p), np.sin(p), np.sin(p)]).astype(np.float32)
    _, found = _diff(run_cli, tmp_path, rope, grid(4, 4, 32))
    assert found["reading_a"]["kind"] == "cache" and found["reading_b"]["kind"] == "grid"
    assert found["causes"][0] == (
        "not the same kind of table: A is a cos/sin cache, B a grid's position table (ViT)"
    )
    assert tables == [(16, 32), (16, 32)]  # B's, once per run (text, then JSON): never A's


def test_a_table_without_a_grids_first_token_is_not_tried(run_cli, tmp_path, monkeypatch):
    """Noise reads as none, and the grid identify never runs on it: its first row is not 0s, 1s."""
    import pecli.analysis.grids.identify as identify

    tables = []
    real = identify.grid_match
    monkeypatch.setattr(identify, "grid_match", lambda t: tables.append(t.shape) or real(t))
    noise = np.random.default_rng(7).standard_normal((64, 32)).astype(np.float32)
    _, found = _diff(run_cli, tmp_path, noise, grid(4, 4, 32, cls=48))
    assert found["reading_a"] is None and found["reading_b"]["extra_tokens"] == 48
    assert tables == [(64, 32), (64, 32)]  # B's alone
