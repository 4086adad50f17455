"""identify-axes reads Allegro (per-axis half-split) and linspace (fractional) ids (issue 32).

The caches are diffusers' own (tests/fixtures/libraries/multiaxis/, written by
tools/library_fixtures/generate_multiaxis.py with diffusers 0.42.1; each fixture's ``call``
names the function: ``get_3d_rotary_pos_embed_allegro`` for Allegro, ``get_3d_rotary_pos_embed``
for CogVideoX). Before: Allegro was refused ("none equal to its partner (neither layout)")
and CogVideoX's ids, 7.5 apart on h, left "unknown schedule, θ not fitted" though the preset
matched. Expected θ: 10000 on every axis (diffusers' ``theta`` default in both functions).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import load

MULTI = {f.name: f for f in load("multiaxis")}


def write_cache(tmp_path, case: str):
    cos, sin = MULTI[f"{case}_cos"], MULTI[f"{case}_sin"]
    path = tmp_path / f"{case}.npy"
    np.save(path, np.concatenate([cos.table, sin.table], axis=1))
    grid = "x".join(map(str, cos.params["grid"]))
    return path, grid, cos.params["preset"]


@pytest.mark.parametrize("case", ["allegro_2x3x4", "cogvideox_2x5x4", "cogvideox_3x6x10"])
@pytest.mark.parametrize("named", [True, False], ids=["preset-named", "every-preset"])
def test_diffusers_caches_are_read_with_theta_per_axis(run_cli, tmp_path, case, named):
    path, grid, preset = write_cache(tmp_path, case)
    extra = ["--preset", preset] if named else []
    result = run_cli("rope", "identify-axes", str(path), "--grid", grid, *extra, "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["presets"][preset]["matches"], found["presets"][preset]
    assert found["schedule"] == "per-axis"
    assert found["theta"] == pytest.approx({"t": 1e4, "h": 1e4, "w": 1e4}, rel=1e-5)


def test_the_record_gives_theta_to_six_decimals():
    """A fitted θ of 10000.0000123456 is recorded as 10000.000012."""
    import types

    from pecli.analysis.multiaxis.identify import AxesIdentification
    from pecli.analysis.multiaxis.reading import AxesReading

    reading = AxesReading("half-split", [0, 1], np.ones(2), "per-axis", {"0": 10000.0000123456})
    plan = types.SimpleNamespace(axes=("t", "h"))
    record = AxesIdentification(reading, plan, {}).record()
    assert record["theta"] == {"t": 10000.000012} and record["channel_axis"] == "TH"
