"""``pecli grid`` and ``pecli identify`` on grid tables (docs/grids.md, docs/cli.md)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from library_fixtures import ROOT, ids, load

from pecli.analysis.grids.identify import identify_grid
from pecli.cli.text import command_line
from pecli.core.grids import grid_table

FIXTURES = load("grids")


def test_grid_csv_golden_row(run_cli):
    result = run_cli("grid", "3", "3", "--d", "8", "--format", "csv")
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].split(",")[:2] == ["sin_col_1", "sin_col_2"]
    row = np.array(lines[1 + 5].split(","), dtype=np.float64)  # token 5: row 1, column 2
    np.testing.assert_allclose(
        row, [0.9093, 0.02, -0.4161, 0.9998, 0.8415, 0.01, 0.5403, 1.0], atol=5e-5
    )


@pytest.mark.parametrize(
    ("args", "knobs"),
    [
        (["--preset", "timm", "--cls-token"], {"preset": "timm", "extra_tokens": 1}),
        (["--extra-tokens", "2", "--base-size", "16"], {"extra_tokens": 2, "base_size": 16}),
        (
            ["--preset", "mocov3", "--axis-order", "col-first"],
            {"preset": "mocov3", "axis_order": "col-first"},
        ),
        (
            ["--interpolation-scale", "0.5", "--dtype", "float64"],
            {"interpolation_scale": 0.5, "dtype": "float64"},
        ),
    ],
)
def test_grid_npy_equals_the_library_function(run_cli, tmp_path, args, knobs):
    out = tmp_path / "g.npy"
    result = run_cli("grid", "3", "5", "--d", "16", *args, "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(out), grid_table((3, 5), d=16, **knobs))


def test_grid_three_axes_csv_header(run_cli):
    result = run_cli("grid", "2", "3", "4", "--d", "26", "--preset", "t2t-nd", "--format", "csv")
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split(",")
    assert header[:2] == ["sin_axis1_1", "sin_axis1_2"] and header[-2:] == ["zero", "zero"]
    assert len(result.stdout.strip().splitlines()) == 1 + 24


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["3", "3", "--d", "6"], "'--d': must be a multiple of 4"),
        (["3", "3", "3", "--d", "8"], "'SHAPE...': must have 2 axes for --preset mae"),
        (["3", "0", "--d", "8"], "'SHAPE...': must be 1 to 4 integers"),
        (
            ["3", "3", "--d", "8", "--preset", "timm", "--base-size", "4"],
            "'--base-size': applies only to --preset mae",
        ),
        (["3", "3", "--d", "8", "--axis-order", "up"], "'--axis-order': must be row-first"),
        (
            ["3", "3", "--d", "8", "--cls-token", "--extra-tokens", "2"],
            "'--extra-tokens': must be 1 with --cls-token",
        ),
        (
            ["3", "3", "--d", "8", "--extra-tokens", "-1"],
            "'--extra-tokens': must be an integer from 0 to 2^20 (got -1)",
        ),
        (
            ["3", "3", "--d", "8", "--extra-tokens", str(2**20 + 1)],
            "'--extra-tokens': must be an integer from 0 to 2^20 (got 1048577)",
        ),
    ],
)
def test_grid_usage_errors_are_one_line_status_2(pecli_cmd, tmp_path, args, message):
    out = tmp_path / "g.npy"
    run = subprocess.run(
        [*pecli_cmd, "grid", *args, "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert run.returncode == 2
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert "Traceback" not in run.stderr and not out.exists()


EXPECTED = {  # fixture: (preset, shape, words, extra tokens)
    "diffusers_4x4_d32_scale2_cls": ("mae", (4, 4), "column first", 1),
    "diffusers_3x5_d16_default": ("mae", (3, 5), "column first", 0),
    "mae_4x4_d16_cls": ("mae", (4, 4), "column first", 1),
    "mocov3_3x5_d16_cls": ("mocov3", (5, 3), "row first", 1),
    "mocov3_4x4_d16_cls": ("mocov3", (4, 4), "row first", 1),
    "timm_3x5_d16": ("timm", (3, 5), "row first", 0),
    "timm_3x5_d16_interleaved": ("mocov3", (3, 5), "row first", 0),
    "big_vision_3x5_d16": ("big-vision", (3, 5), "column first", 0),
    "vit_pytorch_3x5_d16": ("big-vision", (3, 5), "column first", 0),
    "t2t_nd_3x5_c16": ("t2t-nd", (3, 5), "row first", 0),
    "t2t_nd_2x3x4_c26": ("t2t-nd", (2, 3, 4), "axes in the order 1, 2, 3", 0),
    "tatp22_2d_3x5_c10": ("tatp22", (3, 5), "row first", 0),
    "tatp22_3d_2x3x4_c12": ("tatp22", (2, 3, 4), "axes in the order 1, 2, 3", 0),
}
CHOSEN = [f for f in FIXTURES if f.name in EXPECTED]


@pytest.mark.parametrize("fixture", CHOSEN, ids=ids(CHOSEN))
def test_identify_reads_the_libraries_tables(fixture):
    found = identify_grid(fixture.table)
    preset, shape, words, extra = EXPECTED[fixture.name]
    assert found.matched
    assert (found.best.preset, found.best.shape, found.best.first) == (preset, shape, words)
    assert found.extra_tokens == extra


def test_identify_reads_diffusers_base_size():
    found = identify_grid(next(f for f in FIXTURES if f.name == "diffusers_6x6_d16_sd3").table)
    assert found.best.scale == 2.0  # base_size 2, interpolation_scale 1: positions k/3
    assert "--base-size 2 " in command_line(found.best.command)


def test_identify_command_round_trip(run_cli, tmp_path):
    table = grid_table((4, 6), d=32, preset="mocov3", extra_tokens=1)
    np.save(tmp_path / "t.npy", table)
    result = run_cli("identify", str(tmp_path / "t.npy"))
    assert result.exit_code == 0, result.output
    assert "row first" in result.stdout and "4 × 6" in result.stdout
    assert "pecli grid 4 6 --d 32 --preset mocov3 --extra-tokens 1" in result.stdout
    found = json.loads(run_cli("identify", str(tmp_path / "t.npy"), "--json").stdout)
    assert found["grid"]["best"]["shape"] == [4, 6] and found["grid"]["extra_tokens"] == 1


def test_identify_refuses_a_table_from_another_base():
    found = identify_grid(grid_table((4, 6), d=32, base=100.0))
    assert not found.matched


def test_a_1d_table_is_still_read_as_1d(run_cli, tmp_path):
    np.save(tmp_path / "c.npy", np.asarray(__import__("pecli").encoding_table(d=16, n=24)))
    result = run_cli("identify", str(tmp_path / "c.npy"))
    assert result.exit_code == 0 and "grid" not in result.stdout


def test_the_help_gives_the_range_extra_tokens_are_held_to(run_cli):
    """It said [x>=0] (click's range) while 2^20 + 1 was refused as "from 0 to 2^20"."""
    help_text = " ".join(run_cli("grid", "--help").stdout.split())
    assert "0 to 2^20" in help_text and "x>=0" not in help_text


REPORTS = {  # the fixture's call (its .json) gives the grid, the storage and the rebuild
    "t2t_nd_2x3x4_c26": [
        "preset t2t-nd",
        "grid 2 × 3 × 4 (axes 1 … n, row-major tokens)",
        "axis order axes in the order 1, 2, 3: tokens in row-major order of a 2 × 3 × 4 grid",
        "extra tokens 0 all-zero rows first",
        "storage float32",
        "same table -",
        "rebuild with: pecli grid 2 3 4 --d 26 --preset t2t-nd",
    ],
    "mocov3_4x4_d16_cls": [
        "preset mocov3",
        "grid 4 × 4 (rows × columns, row-major tokens)",
        "extra tokens 1 all-zero rows first",
        "storage float32",
        "rebuild with: pecli grid 4 4 --d 16 --preset mocov3 --extra-tokens 1",
        # MoCo v3's [sin h, cos h, sin w, cos w] with ω_j = 10000^(-j/4) is MAE's row-first
        # table: MAE's with its two blocks swapped
        "same table mae --axis-order 0,1 (row first); …",
    ],
}


@pytest.mark.parametrize("name", REPORTS)
def test_identify_reports_a_libraries_grid_line_by_line(run_cli, name):
    """Each line of the report of a library's 2-D and 3-D grid (the grid's sides named)."""
    result = run_cli("identify", str(ROOT / "grids" / f"{name}.npy"))
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]
    assert result.exit_code == 0, result.output
    assert lines[0] == "pecli identify: match (a grid of tokens)"
    for line in REPORTS[name]:
        assert line in lines or (
            line.endswith(" …") and any(shown.startswith(line[:-1]) for shown in lines)
        ), (line, lines)
    error = next(line for line in lines if line.startswith("max |error|"))
    assert float(error.split()[-1]) < 1e-6  # float32 rounding of values at most 1
