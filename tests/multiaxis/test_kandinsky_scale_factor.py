"""Kandinsky 5's ``scale_factor`` (``--scale-factor``) against diffusers 0.42.1's own tables.

tests/fixtures/libraries/dit_presets holds ``Kandinsky5RoPE3D((16, 24, 24))`` on a 2 × 3 × 4
grid at scale_factor (1, 1, 1), (1, 2, 2) and (1, 3.16, 3.16) as 2 × 2 rotation matrices
(tools/library_fixtures/generate_dit_presets.py). The reference angles are the model's
``pos · θ^(−2k/D) / scale`` per axis in float64 (tests/dit_formulas.py), not pecli's.
"""

from __future__ import annotations

import numpy as np
import pytest
from dit_formulas import EPS, F32, bound, grid_ids, per_axis
from library_fixtures import load

FIXTURES = {f.name: f for f in load("dit_presets")}
SCALES = {"1,2,2": "kandinsky5_2x3x4_s1_2_2", "1,3.16,3.16": "kandinsky5_2x3x4_s1_3p16_3p16"}


def _matrices(run_cli, tmp_path, *args):
    out = tmp_path / "k.npy"
    base = ("rope", "axes", "--preset", "kandinsky5", "--grid", "2x3x4", "--form", "matrix")
    result = run_cli(*base, *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    return np.load(out)


@pytest.mark.parametrize("scale", list(SCALES))
def test_scale_factor_is_the_pipeline_s(run_cli, tmp_path, scale):
    table = FIXTURES[SCALES[scale]].table
    assert FIXTURES[SCALES[scale]].params["scale_factor"] == [float(s) for s in scale.split(",")]
    got = _matrices(run_cli, tmp_path, "--scale-factor", scale)
    ids = grid_ids(2, 3, 4)
    angles = per_axis(ids, [16, 24, 24], [1e4] * 3)
    divisor = np.repeat([float(s) for s in scale.split(",")], [8, 12, 12])
    # the model: float32 args, then / scale in float32 (one more rounding: + |angle|·EPS)
    tol = bound(angles / divisor, 1e4, F32) + EPS * np.abs(angles / divisor) + EPS / 2
    assert got.shape == table.shape and np.all(np.abs(got - table) <= tol[..., None, None])
    unscaled = _matrices(run_cli, tmp_path)
    assert not np.all(np.abs(unscaled - table) <= tol[..., None, None])  # the knob matters


def test_identify_names_kandinsky5_on_its_scaled_table(run_cli, tmp_path):
    table = FIXTURES[SCALES["1,2,2"]].table  # (tokens, pairs, 2, 2): [[cos, −sin], [sin, cos]]
    path = tmp_path / "k.npz"
    np.savez(
        path, cos=np.repeat(table[..., 0, 0], 2, axis=1), sin=np.repeat(table[..., 1, 0], 2, axis=1)
    )
    args = ("rope", "identify-axes", str(path), "--grid", "2x3x4")
    named = run_cli(*args, "--scale-factor", "1,2,2")
    assert named.exit_code == 0 and "kandinsky5: matches" in named.stdout, named.output
    assert run_cli(*args, "--preset", "kandinsky5").exit_code == 1  # unscaled: differs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--preset", "flux", "--grid", "2x3", "--scale-factor", "1,2"), "kandinsky5 only"),
        (("--preset", "kandinsky5", "--grid", "2x3x4", "--scale-factor", "1,2"), "3 numbers"),
        (("--preset", "kandinsky5", "--grid", "2x3x4", "--scale-factor", "1,0,2"), "> 0"),
        (("--preset", "kandinsky5", "--grid", "2x3x4", "--scale-factor", "a"), "a number"),
    ],
)
def test_bad_scale_factor_is_refused(run_cli, tmp_path, args, message):
    out = tmp_path / "k.npy"
    result = run_cli("rope", "axes", *args, "-o", str(out))
    assert result.exit_code == 2 and "--scale-factor" in result.stderr and message in result.stderr
    assert not out.exists()
