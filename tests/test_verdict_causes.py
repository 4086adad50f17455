"""identify-axes and rope identify name the cause when a cache is near a preset but not it.

Issue 32's "same engine": a cache whose layout, map and θ agree with a preset but whose values
do not used to get "(e) the position ids differ" whatever the mistake. The caches here are
diffusers' own (tests/fixtures/libraries/multiaxis/, diffusers 0.42.1,
``get_3d_rotary_pos_embed`` for CogVideoX), changed by NumPy in the test the way a port goes
wrong: cos and sin scaled by a constant, the halves exchanged, Llama 4's query temperature
``1 + β·ln(1 + ⌊(p + 1)/s⌋)`` (s = 4, β = 0.1, chosen here) on each row.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import load

MULTI = {f.name: f for f in load("multiaxis")}
CASE = "cogvideox_2x5x4"


def _cache() -> np.ndarray:
    return np.concatenate([MULTI[f"{CASE}_cos"].table, MULTI[f"{CASE}_sin"].table], axis=1)


def _factor(t: np.ndarray) -> np.ndarray:
    return (t.astype(np.float64) * 0.8).astype(np.float32)


def _swapped(t: np.ndarray) -> np.ndarray:
    h = t.shape[1] // 2
    return np.concatenate([t[:, h:], t[:, :h]], axis=1)


def _temperature(t: np.ndarray) -> np.ndarray:
    p = np.arange(len(t), dtype=np.float64)
    scale = 1 + 0.1 * np.log1p(np.floor((p + 1) / 4))
    return (t.astype(np.float64) * scale[:, None]).astype(np.float32)


@pytest.mark.parametrize(
    ("move", "words"),
    [
        (_factor, "attention factor missing: A = 1.25 × B"),
        (_swapped, "sin/cos swapped"),
        (_temperature, "s = 4, β = 0.1"),
    ],
    ids=["factor", "sin-cos", "temperature"],
)
def test_identify_axes_names_the_cause_not_the_ids(run_cli, tmp_path, move, words):
    path = tmp_path / "port.npy"
    np.save(path, move(_cache()))
    grid = "x".join(map(str, MULTI[f"{CASE}_cos"].params["grid"]))
    args = ["--grid", grid, "--preset", "cogvideox", "--format", "json"]
    result = run_cli("rope", "identify-axes", str(path), *args)
    assert result.exit_code == 1, result.output
    (line,) = json.loads(result.stdout)["presets"]["cogvideox"]["differences"]
    assert line.startswith("(g) the values"), line
    assert words in line, line
