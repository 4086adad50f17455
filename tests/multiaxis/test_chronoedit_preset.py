"""The ``chronoedit`` preset against diffusers 0.42.1's ChronoEditRotaryPosEmbed tables.

tests/fixtures/libraries/dit_presets holds ``ChronoEditRotaryPosEmbed(d, (1, 2, 2), 1024,
temporal_skip_len=8)`` on latents of 2 and 3 frames × 8 × 10 (grids 2 × 4 × 5, 3 × 4 × 5).
The reference angles are Wan's per-axis schedule (tests/dit_formulas.py) on ids written out
here: a 2-frame grid reads the temporal table at rows 0 and 7.
"""

from __future__ import annotations

import numpy as np
import pytest
from dit_formulas import F64, bound, grid_ids, per_axis
from library_fixtures import load

FIXTURES = {f.name: f for f in load("dit_presets")}


def _angles(frames: int) -> np.ndarray:
    ids = grid_ids(frames, 4, 5)
    if frames == 2:
        ids[:, 0] = np.array([0.0, 7.0])[ids[:, 0].astype(int)]  # temporal_skip_len 8
    return per_axis(ids, [44, 42, 42], [1e4] * 3)


@pytest.mark.parametrize("frames", [2, 3])
def test_chronoedit_is_the_library_s(run_cli, tmp_path, frames):
    out = tmp_path / "c.npy"
    grid = f"{frames}x8x10"  # the latent: --patch model divides it by 1 × 2 × 2
    args = ("--preset", "chronoedit", "--grid", grid, "--patch", "model", "--dtype", "float64")
    result = run_cli("rope", "axes", *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    table = np.load(out)
    angles = _angles(frames)
    tol = np.repeat(bound(angles, 1e4, F64), 2, axis=1)
    for k, part in enumerate(("cos", "sin")):
        fixture = FIXTURES[f"chronoedit_d128_{frames}x4x5_{part}"].table
        ours = table[:, k * 128 : (k + 1) * 128]
        assert ours.shape == fixture.shape and np.all(np.abs(ours - fixture) <= tol)
        reference = np.repeat((np.cos if part == "cos" else np.sin)(angles), 2, axis=1)
        assert np.all(np.abs(ours - reference) <= 2.0**-52 * (1 + np.abs(angles).max()))


def test_identify_names_chronoedit_on_its_edit_table(run_cli, tmp_path):
    cos, sin = (FIXTURES[f"chronoedit_d128_2x4x5_{p}"].table for p in ("cos", "sin"))
    path = tmp_path / "c.npy"
    np.save(path, np.concatenate([cos, sin], axis=1))
    result = run_cli("rope", "identify-axes", str(path), "--grid", "2x4x5")
    assert result.exit_code == 0, result.output
    assert "chronoedit: matches" in result.stdout and "wan: differs" in result.stdout


def test_head_64_is_refused_the_cut_splits_a_pair(run_cli):
    """At d = 64 the cut (22, 21, 21) falls inside Wan's pairs (24, 20, 20 channels)."""
    cos = FIXTURES["chronoedit_d64_3x4x5_cos"].table
    assert cos[1, 42] == 1.0 and cos[1, 43] != cos[1, 42]  # one pair, two positions
    args = ("rope", "axes", "--preset", "chronoedit", "--head-dim", "64", "--grid", "3x4x5")
    result = run_cli(*args)
    assert (
        result.exit_code == 2 and "--head-dim" in result.stderr and "splits a pair" in result.stderr
    )
