"""pecli identify on the flattened 2-D tables users save (issue 32, "internal error").

tests/fixtures/libraries/flat_grids/ (tools/library_fixtures/generate_flat_grids.py, each
fixture's ``call``): positional-encodings 6.0.3's ``PositionalEncoding2D(64)`` on a 32 × 32
grid, saved as (1024, 64) float32, stopped identify with ``internal error: KeyError: ''`` (the
quick pass looked up the interleaved layout's mirror, which it has none of); timm 1.0.31's
``build_sincos2d_pos_embed([32, 32], dim=64)``. Each is read as the grid it is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

FOLDER = Path(__file__).parent.parent / "fixtures" / "libraries" / "flat_grids"


@pytest.mark.parametrize(
    ("name", "preset"), [("tatp22_2d_32x32_c64", "tatp22"), ("timm_32x32_d64", "timm")]
)
def test_a_flattened_grid_is_read_as_a_grid(run_cli, name, preset):
    result = run_cli("identify", str(FOLDER / f"{name}.npy"))
    assert result.exit_code == 0, result.output
    assert "match (a grid of tokens)" in result.output
    assert f"rebuild with: pecli grid 32 32 --d 64 --preset {preset}" in result.output
