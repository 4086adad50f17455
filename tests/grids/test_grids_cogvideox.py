"""CogVideoX's additive 3-D sincos table (``--preset cogvideox``): mpmath, diffusers, CLI, errors.

The formula is written out here from diffusers ``get_3d_sincos_pos_embed`` (not from pecli's
column plan): a row of frame ``t``, row ``r``, column ``c`` is
``[sin τω | cos τω | sin xν | cos xν | sin yν | cos yν]`` with ``τ = t / temporal_scale``,
``x = c / spatial_scale``, ``y = r / spatial_scale``, ``ω_j = 10000^(-j/(d/8))`` for
``j < d/8`` and ``ν_j = 10000^(-j/(3d/16))`` for ``j < 3d/16``.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from library_fixtures import load

from pecli import ParameterError
from pecli.core.grids import grid_blocks, grid_column_names, grid_table

mpmath.mp.dps = 40


def _sincos(pos, h):
    angles = [pos * mpmath.power(10000, -mpmath.mpf(j) / h) for j in range(h)]
    return [mpmath.sin(a) for a in angles] + [mpmath.cos(a) for a in angles]


def mp_row(t, r, c, d, spatial=1, temporal=1):
    """One row of diffusers' table, exactly (positions as exact fractions)."""
    tau = mpmath.mpf(t) / mpmath.mpf(temporal)
    x, y = mpmath.mpf(c) / mpmath.mpf(spatial), mpmath.mpf(r) / mpmath.mpf(spatial)
    return _sincos(tau, d // 8) + _sincos(x, 3 * d // 16) + _sincos(y, 3 * d // 16)


@pytest.mark.parametrize(
    ("shape", "d", "spatial", "temporal"),
    [((3, 4, 6), 64, 1, 1), ((3, 4, 6), 32, 1.875, 0.75), ((2, 3, 5), 48, 0.3, 7.0)],
)
def test_correctly_rounded_against_mpmath(shape, d, spatial, temporal):
    knobs = {"interpolation_scale": spatial, "temporal_interpolation_scale": temporal}
    f32 = grid_table(shape, d=d, preset="cogvideox", **knobs)
    f64 = grid_table(shape, d=d, preset="cogvideox", dtype="float64", **knobs)
    exact = [mp_row(*np.unravel_index(k, shape), d, spatial, temporal) for k in range(f32.shape[0])]
    want = np.array([[float(v) for v in row] for row in exact])
    np.testing.assert_array_equal(f32, want.astype(np.float32))  # rounded once
    err = np.array(
        [
            [abs(mpmath.mpf(float(a)) - v) for a, v in zip(ours, row, strict=True)]
            for ours, row in zip(f64, exact, strict=True)
        ],
        dtype=float,
    )
    assert np.all(err <= np.spacing(np.abs(want)) + 1e-300)


def test_a_few_entries_by_hand():
    # frame 2, row 1, column 3 of 3 × 4 × 6 (token 2·24 + 1·6 + 3 = 57), d = 64
    row = grid_table((3, 4, 6), d=64, preset="cogvideox", dtype="float64")[57]
    assert row[0] == pytest.approx(np.sin(2.0), abs=1e-16)  # time block first, ω_0 = 1
    assert row[8] == pytest.approx(np.cos(2.0), abs=1e-16)  # d/8 = 8 pairs for time
    assert row[16] == pytest.approx(np.sin(3.0), abs=1e-16)  # then the column (width)
    assert row[16 + 12] == pytest.approx(np.cos(3.0), abs=1e-16)  # 3d/16 = 12 pairs
    assert row[16 + 24] == pytest.approx(np.sin(1.0), abs=1e-16)  # then the row (height)
    assert row[17] == pytest.approx(np.sin(3.0 * 10000 ** (-1 / 12)), abs=1e-16)


def test_matches_diffusers_through_the_cli(run_cli, tmp_path):
    fixture = next(f for f in load("grids") if f.name == "diffusers_cogvideox_t3_4x6_d64")
    out = tmp_path / "cog.npy"
    result = run_cli(
        "grid",
        "3",
        "4",
        "6",
        "--preset",
        "cogvideox",
        "--d",
        "64",
        "--dtype",
        "float64",
        "-o",
        str(out),
        "-q",
    )
    assert result.exit_code == 0, result.output
    np.testing.assert_allclose(np.load(out).reshape(3, 24, 64), fixture.table, rtol=0, atol=1e-15)


def test_cli_scales_and_column_names(run_cli, tmp_path):
    out = tmp_path / "cog.npy"
    result = run_cli(
        "grid",
        "2",
        "3",
        "5",
        "--preset",
        "cogvideox",
        "--d",
        "32",
        "--interpolation-scale",
        "1.5",
        "--temporal-interpolation-scale",
        "4",
        "-o",
        str(out),
        "-q",
    )
    assert result.exit_code == 0, result.output
    want = grid_table(
        (2, 3, 5), d=32, preset="cogvideox", interpolation_scale=1.5, temporal_interpolation_scale=4
    )
    np.testing.assert_array_equal(np.load(out), want)
    exact = [mp_row(*np.unravel_index(k, (2, 3, 5)), 32, 1.5, 4) for k in range(30)]
    independent = np.array([[float(v) for v in row] for row in exact]).astype(np.float32)
    np.testing.assert_array_equal(np.load(out), independent)  # mpmath, not pecli
    names = grid_column_names(32, preset="cogvideox", axes=3)
    assert names[:5] == ["sin_frame_1", "sin_frame_2", "sin_frame_3", "sin_frame_4", "cos_frame_1"]
    assert names[8] == "sin_col_1" and names[20] == "sin_row_1" and names[-1] == "cos_row_6"


def test_blocks_concatenate_to_the_table_bit_for_bit():
    knobs = {
        "d": 48,
        "preset": "cogvideox",
        "interpolation_scale": 0.7,
        "temporal_interpolation_scale": 2.5,
        "extra_tokens": 1,
    }
    parts = list(grid_blocks((3, 4, 5), rows=7, **knobs))
    np.testing.assert_array_equal(np.concatenate(parts), grid_table((3, 4, 5), **knobs))


TEMPORAL = "temporal_interpolation_scale"


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        ({"shape": (3, 4, 6), "d": 40}, "d"),  # 3d/8 must split into two sin/cos halves
        ({"shape": (4, 6), "d": 32}, "shape"),  # T H W only
        ({"shape": (3, 4, 6), "d": 32, "base_size": 16}, "base_size"),  # mae's knob
        ({"shape": (3, 4, 6), "d": 32, "temporal_interpolation_scale": 0}, TEMPORAL),
        ({"shape": (3, 4), "d": 32, "preset": "mae", "temporal_interpolation_scale": 2}, TEMPORAL),
        (
            {"shape": (3, 4), "d": 32, "preset": "timm", "interpolation_scale": 2},
            "interpolation_scale",
        ),
    ],
)
def test_bad_arguments_name_the_parameter(call, parameter):
    call = {"preset": "cogvideox", **call}
    with pytest.raises(ParameterError) as caught:
        grid_table(**call)
    assert caught.value.parameter == parameter


def test_cli_refusal_is_one_line(pecli_cmd):
    import subprocess

    run = subprocess.run(
        [*pecli_cmd, "grid", "3", "4", "6", "--preset", "cogvideox", "--d", "40"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2 and not run.stdout
    assert run.stderr.strip() == (
        "pecli grid: error: Invalid value for '--d': must be a multiple of 16 for --preset "
        "cogvideox (got 40)"
    )


def test_identify_reads_the_diffusers_table():
    from pecli.analysis.grids.identify import identify_grid

    fixture = next(f for f in load("grids") if f.name == "diffusers_cogvideox_t3_4x6_d64")
    found = identify_grid(fixture.table.reshape(-1, 64))
    assert found.matched and found.best is not None
    assert (found.best.preset, found.best.shape, found.best.axis_order) == (
        "cogvideox",
        (3, 4, 6),
        (0, 2, 1),
    )


def test_the_spec_holds_one_scale_per_axis_time_first():
    """diffusers' get_3d_sincos_pos_embed: time / temporal_interpolation_scale, each spatial
    axis / interpolation_scale (no base_size): one (0, scale) per axis of the grid."""
    from pecli.core.grids import GridEncoding
    from pecli.core.grids.spec import GridSpec

    knobs = {"interpolation_scale": 1.5, "temporal_interpolation_scale": 2.0}
    spec = GridSpec.checked((3, 4, 6), GridEncoding(d=32, preset="cogvideox", **knobs))
    assert spec.scale == ((0.0, 2.0), (0.0, 1.5), (0.0, 1.5))


def test_the_plan_marks_the_shorter_time_block_s_missing_pairs_minus_1():
    """At d = 32 the module docstring's layout is [sin τω | cos τω] of d/8 = 4 pairs, then
    [sin | cos] of 3d/16 = 6 pairs for each spatial axis: columns 0-3 | 4-7, 8-13 | 14-19,
    20-25 | 26-31. GridPlan's rule: pairs 5 and 6 of the 4-pair block have no column, -1."""
    from pecli.core.grids.presets import grid_plan

    plan = grid_plan("cogvideox", 32, 3)
    assert plan.block_pairs == (4, 6, 6)
    none = [-1, -1]
    assert plan.sin_cols.tolist() == [[0, 1, 2, 3, *none], [*range(8, 14)], [*range(20, 26)]]
    assert plan.cos_cols.tolist() == [[4, 5, 6, 7, *none], [*range(14, 20)], [*range(26, 32)]]
