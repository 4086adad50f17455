"""Mochi's learned rotary frequencies read from a checkpoint, against diffusers' MochiRoPE.

tests/fixtures/libraries/dit_presets holds a seeded ``pos_frequencies`` checkpoint and the
module's cos / sin and positions on a 2 × 3 × 4 grid (tools/library_fixtures/
generate_dit_presets.py). The positions below are written from the rule (cell centres of
``±n·s/2``, ``s = sqrt(192²/(H·W))``), not from pecli.
"""

from __future__ import annotations

import io
import math

import numpy as np
from library_fixtures import ROOT, load

from pecli.core.multiaxis.learned import mochi_positions

FIXTURES = {f.name: f for f in load("dit_presets")}
CHECKPOINT = str(ROOT / "dit_presets" / "mochi_pos_frequencies.safetensors")
EPS = 2.0**-24


def test_positions_are_the_cell_centres():
    scale = math.sqrt(192 * 192 / 12)
    rows = [(-1.5 + i + 0.5) * scale for i in range(3)]
    cols = [(-2 + i + 0.5) * scale for i in range(4)]
    ours = mochi_positions((2, 3, 4))
    assert ours[5].tolist() == [0.0, rows[1], cols[1]]
    assert ours[23].tolist() == [1.0, rows[2], cols[3]]
    np.testing.assert_allclose(ours, FIXTURES["mochi_positions_2x3x4"].table, atol=4e-5)


def test_cli_table_is_mochirope_within_its_float32_sums(run_cli, tmp_path):
    out = tmp_path / "mochi.npy"
    result = run_cli("rope", "learned-axes", CHECKPOINT, "--grid", "2x3x4", "-o", str(out))
    assert result.exit_code == 0, result.output
    table = np.load(out)
    from safetensors.numpy import load_file

    freqs = load_file(CHECKPOINT)["pos_frequencies"].astype(np.float64)
    positions = FIXTURES["mochi_positions_2x3x4"].table.astype(np.float64)
    terms = np.einsum("nd,dhf->nhf", np.abs(positions), np.abs(freqs)).reshape(24, -1)
    tol = EPS * (4 * terms + 4) + 4e-5 * np.abs(freqs).sum(axis=0).max()  # + positions' error
    for k, part in enumerate(("cos", "sin")):
        got = table[:, k * 1536 : (k + 1) * 1536]
        library = FIXTURES[f"mochi_2x3x4_{part}"].table.reshape(24, -1)
        assert np.all(np.abs(got - library) <= tol)


def test_a_missing_key_is_named(run_cli):
    result = run_cli("rope", "learned-axes", CHECKPOINT, "--grid", "2x3x4", "--key", "freqs")
    assert result.exit_code == 2 and "--key" in result.output and "pos_frequencies" in result.output


def test_csv_has_cos_then_sin_columns(run_cli):
    result = run_cli("rope", "learned-axes", CHECKPOINT, "--grid", "1x1x2", "--format", "csv")
    header = io.StringIO(result.stdout).readline().strip().split(",")
    assert header[0] == "cos_0" and header[1536] == "sin_0" and len(header) == 3072


def test_a_grid_with_an_empty_side_is_refused_and_writes_nothing(run_cli, tmp_path):
    """0x3x4 holds no token: refused as rope axes refuses it (it wrote a (0, 3072) table)."""
    out = tmp_path / "z.npy"
    for grid in ("0x3x4", "2x3", "2x0x4"):
        result = run_cli("rope", "learned-axes", CHECKPOINT, "--grid", grid, "-o", str(out))
        assert result.exit_code == 2 and "--grid" in result.stderr, (grid, result.output)
        assert result.stderr.count("\n") == 1 and not out.exists()


def test_no_room_names_the_whole_tables_bytes(run_cli, tmp_path, monkeypatch):
    """The room asked for an .npy is tokens x 2 x heads x pairs x itemsize, counted by hand.

    The checkpoint's frequencies are (3 axes, 24 heads, 64 pairs): on a 2x3x4 grid that is
    24 tokens x 2 (cos, sin) x 1536 angles x 4 bytes (float32) = 294,912 bytes.
    """
    import shutil

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=100_000))
    out = tmp_path / "mochi.npy"
    result = run_cli("rope", "learned-axes", CHECKPOINT, "--grid", "2x3x4", "-o", str(out))
    assert result.exit_code == 1 and "(294912 bytes)" in result.stderr, result.output
    assert list(tmp_path.iterdir()) == []


def test_a_csv_is_not_held_to_the_npy_room(run_cli, tmp_path, monkeypatch):
    """Only an .npy's size is known before writing: a CSV target asks no room of the disk."""
    import shutil

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=10))
    out = tmp_path / "mochi.csv"
    result = run_cli("rope", "learned-axes", CHECKPOINT, "--grid", "1x1x2", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text().splitlines()[0].split(",")[1536] == "sin_0"


def test_a_frequency_tensor_with_no_head_or_pair_is_refused_by_key(run_cli, tmp_path):
    """(3, 0, 4) and (3, 2, 0) hold no frequency: refused under --key (it was an internal
    ZeroDivisionError)."""
    from safetensors.numpy import save_file

    for shape in ((3, 0, 4), (3, 2, 0)):
        path = str(tmp_path / "e.safetensors")
        save_file({"pos_frequencies": np.ones(shape, np.float32)}, path)
        result = run_cli("rope", "learned-axes", path, "--grid", "1x1x2")
        assert result.exit_code == 2 and "'--key'" in result.stderr, result.output
        assert f"(got {shape})" in result.stderr
