"""identify-axes when no preset matches an Allegro cache: it is still read in Allegro's pairs.

diffusers' Allegro cache (``get_3d_rotary_pos_embed_allegro``, tests/fixtures/libraries/
multiaxis/, grid 2 × 3 × 4) pairs its channels half-split inside each axis's block: neither
the interleaved nor the half-split layout of the whole head pairs them. Given the grid
2 × 4 × 3 instead (the same 24 tokens, other ids), no preset matches; the presets whose pairs
are the standard layouts cannot read the cache at all, so the reading is Allegro's.
"""

from __future__ import annotations

import json

import numpy as np
from library_fixtures import load

MULTI = {f.name: f for f in load("multiaxis")}


def test_an_allegro_cache_given_other_ids_is_read_in_its_own_pairs(run_cli, tmp_path):
    cos, sin = MULTI["allegro_2x3x4_cos"], MULTI["allegro_2x3x4_sin"]
    path = tmp_path / "allegro.npy"
    np.save(path, np.concatenate([cos.table, sin.table], axis=1))
    result = run_cli("rope", "identify-axes", str(path), "--grid", "2x4x3", "--format", "json")
    found = json.loads(result.stdout)
    assert not any(p["matches"] for p in found["presets"].values())
    assert result.exit_code == 1  # a verdict that nothing matched, not a refusal
    assert (found["layout"], found["pairs"]) == ("half-split-per-axis", 48)  # 96 channels
    wan = found["presets"]["wan"]["differences"]
    assert wan == ["(c) the channels do not pair in the preset's layout (interleaved)"]
    assert found["presets"]["allegro"]["differences"][0].startswith("(e) layout, map and θ agree")
