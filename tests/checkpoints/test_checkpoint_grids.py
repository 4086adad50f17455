"""``pecli identify`` on a checkpoint reads grid tables: a ViT ``pos_embed`` of shape (1, n, d).

Issue 22 ("found"): a (1, 197, 768) ``pos_embed`` in ``.safetensors`` or ``.npz`` was reported
"not sinusoidal", while the same numbers as a 2-D ``.npy`` were read as a 14 × 14 grid. The
tables here are the real libraries' (tests/fixtures/libraries/grids/, made by MAE's, MoCo v3's,
timm's, diffusers', tensorflow's … own code), stored with a leading batch axis by the
``safetensors`` library and NumPy's ``savez``; the expected grid is the fixture's own call.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import ids, load
from safetensors.numpy import save_file

FIXTURES = load("grids")
#: identify reads CogVideoX's 3-D table at interpolation scales of 1 only (docs/grids.md)
UNREAD = {"diffusers_cogvideox_t3_4x6_d32_scales"}


def rows(table: np.ndarray) -> np.ndarray:
    """The fixture as (tokens, d): diffusers returns CogVideoX's table as (T, H·W, d)."""
    return table.reshape(-1, table.shape[-1])


def expected_grid(params: dict) -> tuple[int, ...]:
    """The grid's sides as the library was called (its own parameter names)."""
    for name in ("grid_size", "feat_shape"):
        if name in params:
            size = params[name]
            return tuple(size) if isinstance(size, list) else (size, size)
    if "h" in params:
        return params["h"], params["w"]
    if "temporal_size" in params:  # CogVideoX: spatial_size is (width, height)
        width, height = params["spatial_size"]
        return params["temporal_size"], height, width
    shape = params["shape"]
    return tuple(shape[:-1]) if "channels" not in params else tuple(shape)


def checkpoint(tmp_path, kind: str, table: np.ndarray) -> str:
    """``table`` as a (1, n, d) ``pos_embed`` beside a learned weight and a class token."""
    rng = np.random.default_rng(3)
    tensors = {
        "pos_embed": np.ascontiguousarray(table[None]),
        "cls_token": np.zeros((1, 1, table.shape[1]), table.dtype),
        "blocks.0.attn.qkv.weight": (0.02 * rng.standard_normal((48, 16))).astype(np.float32),
    }
    path = tmp_path / f"vit.{kind}"
    if kind == "safetensors":
        save_file(tensors, str(path))
    else:
        np.savez(path, **tensors)
    return str(path)


def findings(run_cli, path: str) -> dict[str, dict]:
    result = run_cli("identify", path, "--json")
    assert result.exit_code == 0, result.output
    return {f["key"]: f for f in json.loads(result.stdout)}


@pytest.mark.parametrize("kind", ["safetensors", "npz"])
@pytest.mark.parametrize("fixture", FIXTURES, ids=ids(FIXTURES))
def test_library_grid_tables_in_a_checkpoint(run_cli, tmp_path, fixture, kind):
    if fixture.name in UNREAD:
        pytest.skip("identify does not read CogVideoX's table at interpolation scales other than 1")
    table = rows(fixture.table)
    found = findings(run_cli, checkpoint(tmp_path, kind, table))
    pos = found["pos_embed"]
    assert pos["verdict"] == "identified", pos
    grid = pos["grid"]
    sides = expected_grid(fixture.params)  # MoCo v3's grid_size is (w, h): sides, any order
    assert sorted(grid["best"]["shape"]) == sorted(sides)
    assert grid["extra_tokens"] == len(table) - int(np.prod(sides))
    assert found["blocks.0.attn.qkv.weight"]["verdict"] == "not sinusoidal"
    as_npy = tmp_path / "pe.npy"
    np.save(as_npy, table)
    alone = run_cli("identify", str(as_npy), "--json")
    assert alone.exit_code == 0, alone.output
    assert json.loads(alone.stdout)["grid"]["best"]["command"] == grid["best"]["command"]


def test_vit_base_pos_embed_written_by_pecli(run_cli, tmp_path):
    """``pecli grid 14 14 --d 768 --cls-token``: MAE's ViT-B/16 table, 197 tokens."""
    out = tmp_path / "pe.npy"
    assert run_cli("grid", "14", "14", "--d", "768", "--cls-token", "-o", str(out)).exit_code == 0
    table = np.load(out)
    for kind in ("safetensors", "npz"):
        path = checkpoint(tmp_path, kind, table)
        grid = findings(run_cli, path)["pos_embed"]["grid"]
        assert (grid["best"]["preset"], grid["best"]["shape"]) == ("mae", [14, 14])
        assert grid["extra_tokens"] == 1
        shown = run_cli("identify", path)
        assert "mae grid 14 × 14, column first, 1 extra token, float32" in shown.stdout
        assert "pecli grid 14 14 --d 768 --preset mae --extra-tokens 1" in shown.stdout
        one = run_cli("identify", path, "--key", "pos_embed")
        assert one.exit_code == 0 and "14 × 14 (rows × columns" in one.stdout, one.output


def test_batch_axis_npy_reads_as_its_table(run_cli, tmp_path):
    """A (1, n, d) ``.npy`` (``pos_embed.detach().numpy()``) is the (n, d) table."""
    mae = next(f for f in FIXTURES if f.name == "mae_4x4_d16_cls")
    np.save(tmp_path / "pe.npy", mae.table[None])
    result = run_cli("identify", str(tmp_path / "pe.npy"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["grid"]["best"]["shape"] == [4, 4]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_pos_embed_is_read_with_integer_positions(run_cli, tmp_path, dtype):
    """MAE's table stored in bf16 / fp16: the rounding is not read as diffusers' base_size."""
    import ml_dtypes

    mae = next(f for f in FIXTURES if f.name == "mae_4x4_d16_cls").table  # float64, MAE's code
    stored = mae.astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16)
    save_file({"pos_embed": stored[None]}, str(tmp_path / "m.safetensors"))
    grid = findings(run_cli, str(tmp_path / "m.safetensors"))["pos_embed"]["grid"]
    assert grid["storage"] == dtype
    assert grid["best"]["command"] == "pecli grid 4 4 --d 16 --preset mae --extra-tokens 1"


@pytest.mark.parametrize("fixture", FIXTURES, ids=ids(FIXTURES))
def test_unflattened_grid_tables_with_a_batch_axis(run_cli, tmp_path, fixture):
    """(1, H, W, d) and (1, T, H, W, d), as SAM-style or video models keep pos_embed."""
    sides, table = expected_grid(fixture.params), rows(fixture.table)
    if len(table) != int(np.prod(sides)):
        pytest.skip("extra tokens do not fit an unflattened grid")
    if fixture.name in UNREAD:
        pytest.skip("identify does not read CogVideoX's table at interpolation scales other than 1")
    as_npy = tmp_path / "pe.npy"
    np.save(as_npy, table)
    alone = json.loads(run_cli("identify", str(as_npy), "--json").stdout)["grid"]["best"]
    grid = np.ascontiguousarray(table.reshape(1, *alone["shape"], -1))
    conv = np.zeros((8, 3, 7, 7), np.float32)  # a convolution kernel: skipped by its header
    save_file({"pos_embed": grid, "patch_embed.proj.weight": conv}, str(tmp_path / "g.safetensors"))
    found = findings(run_cli, str(tmp_path / "g.safetensors"))
    assert found["pos_embed"]["grid"]["best"]["command"] == alone["command"]
    assert found["patch_embed.proj.weight"]["verdict"] == "skipped"
