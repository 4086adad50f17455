"""2-D / N-D grid tables: golden rows, mpmath, the real libraries' fixtures, streaming, errors."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from library_fixtures import ids, load

from pecli import ParameterError
from pecli.cli.text import command_line
from pecli.core.grids import (
    grid_blocks,
    grid_column_names,
    grid_plan,
    grid_table,
    grid_token_rows,
)
from pecli.core.grids.rules import check_plot_plane

mpmath.mp.dps = 40

# The golden rows: D = 8, token at row 1, column 2 of a 3 × 3 grid (token 5), C = 10000.
GOLDEN = {
    "mae": [0.9093, 0.0200, -0.4161, 0.9998, 0.8415, 0.0100, 0.5403, 1.0000],
    "mocov3": [0.8415, 0.0100, 0.5403, 1.0000, 0.9093, 0.0200, -0.4161, 0.9998],
    "timm": [0.8415, 0.0100, 0.9093, 0.0200, 0.5403, 1.0000, -0.4161, 0.9998],
}


@pytest.mark.parametrize("preset", GOLDEN)
def test_golden_rows(preset):
    row = grid_table((3, 3), d=8, preset=preset, dtype="float64")[5]
    np.testing.assert_allclose(row, GOLDEN[preset], rtol=0, atol=5e-5)


def _mp_block(pos, h, shift, base=10000):
    """sin and cos of pos·C^(-j/(h - shift)) for j < h, as two lists of mpmath numbers."""
    angles = [pos * mpmath.power(base, -mpmath.mpf(j) / (h - shift)) for j in range(h)]
    return [mpmath.sin(a) for a in angles], [mpmath.cos(a) for a in angles]


def mp_row(preset, r, c, d, *, scale=None, shape=None):
    """One 2-D row from the libraries' formulas, written out per preset (not pecli's plan)."""
    if scale:  # diffusers: k · base_size / (n · interpolation_scale), exactly
        size, interp = scale
        r = mpmath.mpf(r) * size / (shape[0] * mpmath.mpf(interp))
        c = mpmath.mpf(c) * size / (shape[1] * mpmath.mpf(interp))
    h = d // 4
    shift = 1 if preset == "big-vision" else 0
    (sr, cr), (sc, cc) = _mp_block(mpmath.mpf(r), h, shift), _mp_block(mpmath.mpf(c), h, shift)
    if preset in ("mae", "big-vision"):
        return sc + cc + sr + cr
    if preset in ("mocov3", "timm-interleaved"):
        return sr + cr + sc + cc
    if preset == "timm":
        return sr + sc + cr + cc
    raise AssertionError(preset)


CASES_MP = [
    ("mae", (3, 5), 16, None),
    ("mocov3", (3, 5), 16, None),
    ("timm", (3, 5), 16, None),
    ("timm-interleaved", (5, 3), 8, None),
    ("big-vision", (4, 3), 16, None),
    ("mae", (3, 5), 16, (16.0, 1.0)),  # diffusers' default base_size: positions k·16/3, k·16/5
    ("mae", (7, 6), 24, (5.0, 0.75)),  # fractional base_size / scale
]


@pytest.mark.parametrize(("preset", "shape", "d", "scale"), CASES_MP)
def test_correctly_rounded_against_mpmath(preset, shape, d, scale):
    knobs = {"base_size": scale[0], "interpolation_scale": scale[1]} if scale else {}
    f64 = grid_table(shape, d=d, preset=preset, dtype="float64", **knobs)
    f32 = grid_table(shape, d=d, preset=preset, **knobs)
    rows = [(r, c) for r in range(shape[0]) for c in range(shape[1])]
    exact = [mp_row(preset, r, c, d, scale=scale, shape=shape) for r, c in rows]
    want64 = np.array([[float(v) for v in row] for row in exact])
    # float32: the exact value rounded once (float(v) is 40 digits rounded to float64 first;
    # no value lies that close to a float32 tie here)
    np.testing.assert_array_equal(f32, want64.astype(np.float32))
    # float64: within one ulp of the exact value (measured: at most 1 ulp, mostly 0)
    err = np.array(
        [
            [abs(mpmath.mpf(float(a)) - v) for a, v in zip(ours, row, strict=True)]
            for ours, row in zip(f64, exact, strict=True)
        ],
        dtype=float,
    )
    assert np.all(err <= np.spacing(np.abs(want64)) + 1e-300)


def test_large_positions_stay_exact():
    # t2t-nd on one axis of 10^7 positions, and a fractional position near 3·10^4
    tokens = np.array([9_999_999, 1_234_567])
    got = grid_token_rows(tokens, (10_000_000,), d=8, preset="t2t-nd")
    for row, k in zip(got, tokens, strict=True):
        s, c = _mp_block(mpmath.mpf(int(k)), 4, 1)
        np.testing.assert_allclose(row, [float(v) for v in s + c], rtol=0, atol=3e-16)
    got = grid_token_rows(
        np.array([29_999]), (1, 30_000), d=8, base_size=7.0, interpolation_scale=0.1 + 0.2
    )
    want = mp_row("mae", 0, 29_999, 8, scale=(7.0, 0.1 + 0.2), shape=(1, 30_000))
    np.testing.assert_allclose(got[0], [float(v) for v in want], rtol=0, atol=3e-16)


# The real libraries' tables (tools/library_fixtures/generate_grids.py) and pecli's call for
# each. MoCo v3's code and timm's reverse_coord on an H × W grid enumerate the tokens of a
# W × H grid: they equal pecli's table of the transposed shape.
CASES = {
    "big_vision_3x5_d16": ((3, 5), {"d": 16, "preset": "big-vision"}),
    "diffusers_3x5_d16_default": ((3, 5), {"d": 16, "base_size": 16}),
    "diffusers_cogvideox_t3_4x6_d32_scales": (
        (3, 4, 6),
        {
            "d": 32,
            "preset": "cogvideox",
            "interpolation_scale": 1.875,
            "temporal_interpolation_scale": 0.75,
        },
    ),
    "diffusers_cogvideox_t3_4x6_d64": ((3, 4, 6), {"d": 64, "preset": "cogvideox"}),
    "diffusers_3x5_d16_patchembed": ((3, 5), {"d": 16, "base_size": 3}),
    "diffusers_4x4_d32_scale2_cls": (
        (4, 4),
        {"d": 32, "base_size": 4, "interpolation_scale": 2.0, "extra_tokens": 1},
    ),
    "diffusers_6x6_d16_sd3": ((6, 6), {"d": 16, "base_size": 2}),
    "mae_4x4_d16_cls": ((4, 4), {"d": 16, "extra_tokens": 1}),
    "mocov3_3x5_d16_cls": ((5, 3), {"d": 16, "preset": "mocov3", "extra_tokens": 1}),
    "mocov3_4x4_d16_cls": ((4, 4), {"d": 16, "preset": "mocov3", "extra_tokens": 1}),
    "t2t_nd_2x3x4_c26": ((2, 3, 4), {"d": 26, "preset": "t2t-nd"}),
    "t2t_nd_3x5_c16": ((3, 5), {"d": 16, "preset": "t2t-nd"}),
    "tatp22_2d_3x5_c10": ((3, 5), {"d": 10, "preset": "tatp22"}),
    "tatp22_2d_3x5_c8": ((3, 5), {"d": 8, "preset": "tatp22"}),
    "tatp22_3d_2x3x4_c10": ((2, 3, 4), {"d": 10, "preset": "tatp22"}),
    "tatp22_3d_2x3x4_c12": ((2, 3, 4), {"d": 12, "preset": "tatp22"}),
    "timm_3x5_d16": ((3, 5), {"d": 16, "preset": "timm"}),
    "timm_3x5_d16_interleaved": ((3, 5), {"d": 16, "preset": "timm-interleaved"}),
    "timm_3x5_d16_reverse": ((5, 3), {"d": 16, "preset": "timm"}),
    "vit_pytorch_3x5_d16": ((3, 5), {"d": 16, "preset": "big-vision"}),
}
FIXTURES = load("grids")


def _tolerance(fixture):
    if fixture.name in ("diffusers_3x5_d16_default", "diffusers_cogvideox_t3_4x6_d32_scales"):
        return 4e-7  # diffusers rounds the positions k·16/3, k/1.875, t/0.75 to float32
    if fixture.table.dtype == np.float64 and fixture.name.startswith(("mae", "diffusers")):
        return 1e-7 if "patchembed" in fixture.name or "sd3" in fixture.name else 1e-15
    return 6e-8  # float32 tables: about one float32 rounding at magnitude 1


def test_every_fixture_has_a_case():
    assert sorted(CASES) == [f.name for f in FIXTURES]


@pytest.mark.parametrize("fixture", FIXTURES, ids=ids(FIXTURES))
def test_matches_the_library(fixture):
    shape, knobs = CASES[fixture.name]
    ours = grid_table(shape, dtype="float64", **knobs)
    table = fixture.table.reshape(-1, fixture.table.shape[-1])  # CogVideoX: (T, H·W, D)
    assert ours.shape == table.shape
    np.testing.assert_allclose(ours, table, rtol=0, atol=_tolerance(fixture))


@pytest.mark.parametrize("name", [n for n, (s, _) in CASES.items() if len(set(s)) == len(s)])
def test_a_swapped_axis_order_would_fail(name):
    """On grids with unequal sides the reversed axis order is far from the library's table."""
    fixture = next(f for f in FIXTURES if f.name == name)
    shape, knobs = CASES[name]
    own = grid_plan(knobs.get("preset", "mae"), knobs["d"], len(shape)).order
    other = grid_table(shape, dtype="float64", **knobs, axis_order=own[::-1])
    assert np.abs(other - fixture.table.reshape(other.shape)).max() > 0.1


def test_axis_order_names_and_overrides():
    mae_rows = grid_table((3, 5), d=16, axis_order="row-first")
    np.testing.assert_array_equal(mae_rows, grid_table((3, 5), d=16, preset="mocov3"))
    np.testing.assert_array_equal(
        grid_table((3, 5), d=16, preset="timm-interleaved"),
        grid_table((3, 5), d=16, preset="mocov3"),
    )
    np.testing.assert_array_equal(
        grid_table((3, 5), d=16, preset="mocov3", axis_order=[1, 0]), grid_table((3, 5), d=16)
    )


def test_extra_tokens_are_zero_rows_first():
    table = grid_table((2, 3), d=8, extra_tokens=3)
    assert table.shape == (9, 8)
    assert not table[:3].any()
    np.testing.assert_array_equal(table[3:], grid_table((2, 3), d=8))


def test_blocks_concatenate_to_the_table_bit_for_bit():
    whole = grid_table((7, 5), d=24, base_size=3, interpolation_scale=1.5, extra_tokens=2)
    parts = list(
        grid_blocks((7, 5), d=24, base_size=3, interpolation_scale=1.5, extra_tokens=2, rows=4)
    )
    assert [len(p) for p in parts] == [4] * 9 + [1]
    np.testing.assert_array_equal(np.concatenate(parts), whole)


BROADCAST_CASES = [  # (preset, shape, d): every layout, uneven blocks, cut and zero columns
    ("mae", (6, 5), 16),
    ("mocov3", (5, 6), 16),
    ("timm", (4, 7), 24),
    ("timm-interleaved", (3, 5), 16),
    ("big-vision", (5, 4), 16),
    ("t2t-nd", (2, 3, 4), 26),
    ("t2t-nd", (3, 1, 2, 2), 20),
    ("t2t-nd", (9,), 6),
    ("tatp22", (2, 3, 5), 14),
    ("cogvideox", (2, 3, 4), 32),
]


@pytest.mark.parametrize(("preset", "shape", "d"), BROADCAST_CASES)
@pytest.mark.parametrize("rows", [1, 4, 7, 13, 64])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_broadcast_blocks_are_the_per_token_rows(preset, shape, d, rows, dtype):
    """Blocks filled by broadcasting per-axis tables (partial runs, whole runs, whole periods)
    against the per-token path (grid_token_rows: one row per token, rounded once)."""
    tokens = np.arange(int(np.prod(shape)))
    want = grid_token_rows(tokens, shape, d=d, preset=preset).astype(dtype)
    blocks = [
        b.copy()
        for b in grid_blocks(
            shape, d=d, preset=preset, extra_tokens=3, dtype=dtype, rows=rows, reuse=2
        )
    ]
    table = np.concatenate(blocks)
    assert not table[:3].any()
    assert table[3:].dtype == want.dtype and table[3:].tobytes() == want.tobytes()


@pytest.mark.parametrize(
    ("preset", "shape", "knobs"),
    [
        ("mae", (6, 5), {"base_size": 16, "interpolation_scale": 1.5}),
        ("mae", (5, 6), {"axis_order": "row-first"}),
        ("cogvideox", (3, 4, 5), {"interpolation_scale": 2.0, "temporal_interpolation_scale": 3.0}),
    ],
)
def test_broadcast_blocks_with_fractional_positions(preset, shape, knobs):
    tokens = np.arange(int(np.prod(shape)))
    want = grid_token_rows(tokens, shape, d=32, preset=preset, **dict(knobs)).astype(np.float32)
    blocks = [b.copy() for b in grid_blocks(shape, d=32, preset=preset, rows=7, reuse=2, **knobs)]
    assert np.concatenate(blocks).tobytes() == want.tobytes()


@pytest.mark.parametrize("extra", [0, 3])  # 3 zero rows first: blocks 0 and part of 1
def test_a_long_axis_is_filled_token_by_token(monkeypatch, extra):
    """Above AXIS_CELLS an axis's table is not kept: the blocks come from GridSpec.fill."""
    import pecli.core.grids.broadcast as broadcast

    want = np.concatenate(list(grid_blocks((9, 5), d=16, rows=4, extra_tokens=extra)))
    assert not want[:extra].any()
    monkeypatch.setattr(broadcast, "AXIS_CELLS", 8 * 8)  # the row axis (9 × 8 values) is too long
    assert broadcast.axis_tables(_spec((9, 5), 16)) is None
    assert broadcast.axis_tables(_spec((8, 5), 16)) is not None
    got = np.concatenate(list(grid_blocks((9, 5), d=16, rows=4, extra_tokens=extra)))
    np.testing.assert_array_equal(got, want)


def _spec(shape, d):
    from pecli.core.grids import GridEncoding
    from pecli.core.grids.spec import GridSpec

    return GridSpec.checked(shape, GridEncoding(d=d, preset="mae", dtype="float32"))


def test_column_names():
    assert grid_column_names(4, preset="mocov3") == [
        "sin_row_1",
        "cos_row_1",
        "sin_col_1",
        "cos_col_1",
    ]
    assert grid_column_names(10, preset="tatp22")[-2:] == ["sin_col_2", "cos_col_2"]
    names = grid_column_names(13, preset="t2t-nd", axes=3)  # 13 // 6 = 2 pairs per axis
    assert names[:4] == ["sin_axis1_1", "sin_axis1_2", "cos_axis1_1", "cos_axis1_2"]
    assert names[-1] == "zero"


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        ({"shape": (3, 3), "d": 6}, "d"),  # mae needs a multiple of 4
        ({"shape": (3, 3), "d": 4, "preset": "big-vision"}, "d"),  # C^(-j/(h-1)) needs h >= 2
        ({"shape": (3, 3), "d": 8, "preset": "t2t-nd"}, "d"),  # 8 // 4 = 2 pairs: fine …
        ({"shape": (3, 3, 3), "d": 8}, "shape"),  # mae is 2-D
        ({"shape": (3, 0), "d": 8}, "shape"),
        ({"shape": (3, 3), "d": 8, "preset": "timm", "base_size": 4}, "base_size"),
        ({"shape": (3, 3), "d": 8, "axis_order": "diagonal"}, "axis_order"),
        ({"shape": (3, 3), "d": 8, "axis_order": (0, 0)}, "axis_order"),
        ({"shape": (3, 3), "d": 8, "extra_tokens": -1}, "extra_tokens"),
        ({"shape": (3, 3), "d": 8, "preset": "vit"}, "preset"),
        ({"shape": (3, 3), "d": 8, "interpolation_scale": 0}, "interpolation_scale"),
    ],
)
def test_bad_arguments_name_the_parameter(call, parameter):
    if parameter == "d" and call.get("preset") == "t2t-nd":
        grid_table(**call)  # … and 4 // 4 = 1 pair is not
        call = {**call, "d": 7}
    with pytest.raises(ParameterError) as caught:
        grid_table(**call)
    assert caught.value.parameter == parameter


@pytest.mark.parametrize(("shape", "least"), [((3, 3), 8), ((2, 2, 2), 12), ((5,), 4)])
def test_t2t_nd_says_the_least_width_on_its_axes(shape, least):
    """tensor2tensor needs 2 pairs per axis (C^(-j/(h-1))): d >= 2·2·m on m axes."""
    with pytest.raises(ParameterError, match=f"must be at least {least} for `preset` t2t-nd on"):
        grid_table(shape, d=least - 1, preset="t2t-nd")
    assert grid_table(shape, d=least, preset="t2t-nd").shape == (int(np.prod(shape)), least)


@pytest.mark.parametrize(
    ("name", "base_size"), [("diffusers_3x5_d16_patchembed", 3), ("diffusers_6x6_d16_sd3", 2)]
)
def test_a_half_precision_base_size_is_read_as_the_library_s_integer(name, base_size):
    """diffusers' own table, stored in float16: its base_size fraction is read back exactly,
    though the rounded table's best-fitting ratio is 3 − 4e-4 (or 2 − 2e-6)."""
    from pecli.analysis.grids.identify import identify_grid

    fixture = next(f for f in FIXTURES if f.name == name)
    assert fixture.params["base_size"] == base_size
    found = identify_grid(fixture.table.astype(np.float16))
    assert found.matched and found.best.scale == base_size
    assert command_line(found.best.command).endswith(f"--preset mae --base-size {base_size}")


def test_a_grid_of_four_tokens_is_read():
    """MAE's 2 × 2 grid, d = 8 (util/pos_embed.py): ω = 1, 0.01; [sin c·ω | cos c·ω | sin r·ω |
    cos r·ω] for token k = (r, c) = divmod(k, 2)."""
    from pecli.analysis.grids.identify import identify_grid

    omega = np.array([1.0, 0.01])
    rows = [
        np.concatenate([np.sin(c * omega), np.cos(c * omega), np.sin(r * omega), np.cos(r * omega)])
        for r, c in (divmod(k, 2) for k in range(4))
    ]
    found = identify_grid(np.array(rows))
    assert (
        found.matched
        and command_line(found.best.command) == "pecli grid 2 2 --d 8 --preset mae --dtype float64"
    )
    column_first = "the first block encodes the column index c of token k = r·2 + c"
    assert found.best.note == column_first + " (MAE, DiT and diffusers call that half emb_h)"
    mocov3 = next(r for r in found.also if r.preset == "mocov3")  # --axis-order 1,0
    assert mocov3.note == column_first  # MAE's name for the half is MAE's only


def test_a_three_axis_grid_of_twelve_tokens_is_read():
    """tensor2tensor's add_timing_signal_nd on a 3 × 2 × 2 grid, d = 12: 2 pairs per axis,
    ω = 1, 10^-4 (C^(-j/(h-1))), [sin | cos] of each axis's index in turn."""
    from pecli.analysis.grids.identify import identify_grid

    omega = np.array([1.0, 1e-4])
    rows = [
        np.concatenate([np.concatenate([np.sin(i * omega), np.cos(i * omega)]) for i in index])
        for index in np.ndindex(3, 2, 2)
    ]
    found = identify_grid(np.array(rows))
    assert found.matched and (found.best.preset, found.best.shape) == ("t2t-nd", (3, 2, 2))


@pytest.mark.parametrize(("preset", "axes"), [("cogvideox", 3), ("tatp22", 2), ("mae", 2)])
def test_a_width_of_0_is_refused_by_every_preset(preset, axes):
    with pytest.raises(ParameterError, match="d must be an integer from 1 to"):
        grid_plan(preset, 0, axes)


def test_quarter_width_refusals_name_the_least_multiple_of_four():
    """d = 1 is an integer in range, refused by the quarter rule; big_vision's t2t needs h >= 2."""
    with pytest.raises(ParameterError, match=r"multiple of 4, at least 4, for `preset` mae"):
        grid_table((2, 2), d=1, preset="mae")
    with pytest.raises(ParameterError, match=r"multiple of 4, at least 8, for `preset` big-vision"):
        grid_table((2, 2), d=4, preset="big-vision")


def test_grid_identify_on_three_rows_after_extra_tokens_reads_them_and_stops():
    from pecli.analysis.grids.identify import identify_grid

    table = np.zeros((5, 16))
    table[2:] = grid_table((1, 3), d=16)  # two zero rows (extra tokens), three grid tokens
    found = identify_grid(table)
    assert (found.matched, found.extra_tokens, found.best, found.rows) == (False, 2, None, 5)


def test_diffusers_scales_are_taken_from_1e_6_to_1e6_both_ends_included():
    """base_size 1e-6 and interpolation_scale 1e6, the ends of "a number from 1e-6 to 1e6":
    token 3 of a 2 × 2 grid (row 1, column 1) sits at 1·1e-6/(2·1e6) = 5e-13 on both axes, and
    d = 4 has one pair per axis (ω = 1): [sin, cos, sin, cos] = [5e-13, 1, 5e-13, 1] to
    float64's rounding. The next float beyond either end is refused."""
    table = grid_table((2, 2), d=4, base_size=1e-6, interpolation_scale=1e6, dtype="float64")
    assert table[3].tolist() == pytest.approx([5e-13, 1.0, 5e-13, 1.0], rel=1e-15, abs=0)
    for knob, value in [("base_size", 1e-6), ("interpolation_scale", 1e6)]:
        beyond = np.nextafter(value, 0.0 if value < 1 else np.inf)
        with pytest.raises(ParameterError) as caught:
            grid_table((2, 2), d=4, **{knob: float(beyond)})
        assert caught.value.parameter == knob


@pytest.mark.parametrize(
    ("shape", "similarity", "allowed"),
    [
        ([1, 65_537], False, False),  # H·W = 65,537 > 2^16 = 256 × 256, though H·H = 1
        ([300, 200], False, True),  # H·W = 60,000 ≤ 65,536, though H·H = 90,000
        ([1, 4_097], True, False),  # H·W = 4,097 > 2^12 = 64 × 64, though H·H = 1
        ([80, 50], True, True),  # H·W = 4,000 ≤ 4,096, though H·H = 6,400
    ],
)
def test_the_plot_token_cap_counts_h_times_w(shape, similarity, allowed):
    """The cap is on the tokens H·W (one image cell each), not on one side: the products above
    are by hand, against the documented caps 65,536 (a plot) and 4,096 (`similarity`)."""
    if allowed:
        assert check_plot_plane(shape, similarity=similarity) == tuple(shape)
        return
    with pytest.raises(ParameterError) as caught:
        check_plot_plane(shape, similarity=similarity)
    assert caught.value.parameter == "shape"


def test_an_axis_table_is_kept_up_to_4_mb_of_float32():
    """AXIS_CELLS is documented as 4 MB of float32, 2**20 values: on a d = 16 MAE grid each
    axis has d/2 = 8 columns, so a side of 2**17 (exactly 2**20 values) is kept and a side of
    2**17 + 1 is not."""
    import pecli.core.grids.broadcast as broadcast

    assert broadcast.axis_tables(_spec((2**17, 1), 16)) is not None
    assert broadcast.axis_tables(_spec((2**17 + 1, 1), 16)) is None


def test_angles_past_2_to_the_56_are_refused_before_any_row_as_compute_refuses_them():
    """d = 8 on two axes: pairs ω = 1 and base^(-1/2); base 2^-110 gives ω = 2^55, and the last
    row of a side of 3 is at 2, so the largest angle is exactly 2^56 (allowed); a base a hair
    smaller passes it. At base 1e-40 the new user's float64 grid was 1,600 ulps off."""
    table = grid_table((3, 3), d=8, base=2.0**-110, dtype="float64")
    angle = mpmath.mpf(2) ** 56
    assert table[-1, 1] == float(mpmath.sin(angle))  # sin of pair 2 of axis 0 at row 2
    for base in (2.0**-110 * (1 - 2.0**-20), 1e-40, 1e-300):
        with pytest.raises(ParameterError, match=r"at most 2\^56 .* radians") as caught:
            grid_table((3, 3), d=8, base=base)
        assert caught.value.parameter == "base"
