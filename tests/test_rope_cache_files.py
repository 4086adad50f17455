"""``pecli rope cache -o NAME.safetensors`` and ``pecli rope identify`` on cos/sin caches."""

from __future__ import annotations

import json

import ml_dtypes
import mpmath
import numpy as np
import pytest
import rope_reference as ref
from safetensors import safe_open

import pecli

LLAMA31 = [
    *("--rope-type", "llama3", "--theta", "500000", "--factor", "8"),
    *("--low-freq-factor", "1", "--high-freq-factor", "4"),
    *("--original-max-position-embeddings", "8192"),
]
YARN = [
    *("--rope-type", "yarn", "--theta", "150000", "--head-dim", "64", "--factor", "32"),
    *("--original-max-position-embeddings", "4096", "--no-truncate"),
]


def _read(path):
    with safe_open(path, framework="numpy") as handle:
        return {k: handle.get_tensor(k) for k in handle.keys()}, handle.metadata()  # noqa: SIM118


def _nearest_bf16(stored: np.ndarray, exact: list[mpmath.mpf]) -> bool:
    """Whether each stored bfloat16 is the nearest to the exact value (its neighbours are not)."""
    bits = stored.astype(ml_dtypes.bfloat16).view(np.uint16)
    for bit, want in zip(bits, exact, strict=True):
        here = mpmath.mpf(float(np.array(bit).view(ml_dtypes.bfloat16)))
        for step in (-1, 1):
            other = np.array((int(bit) + step) & 0xFFFF, np.uint16).view(ml_dtypes.bfloat16)
            if abs(mpmath.mpf(float(other)) - want) < abs(here - want):
                return False
    return True


def test_safetensors_cache_holds_cos_and_sin_rounded_once_to_bf16(run_cli, tmp_path):
    out = tmp_path / "cache.safetensors"
    args = [*YARN, "--n", "40", "--start", "4090", "--dtype", "bfloat16", "--layout", "gptj"]
    result = run_cli("rope", "cache", *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    tensors, meta = _read(out)
    assert sorted(tensors) == ["cos", "sin"]
    assert all(t.dtype == ml_dtypes.bfloat16 and t.shape == (40, 64) for t in tensors.values())
    exact = ref.yarn(150000.0, 64, 32, 4096, truncate=False)
    scale = 0.1 * mpmath.log(32) + 1
    for row in (0, 6, 39):
        want_cos, want_sin = ref.cache_row(4090 + row, exact, scale, "interleaved")
        assert _nearest_bf16(tensors["cos"][row], want_cos)
        assert _nearest_bf16(tensors["sin"][row], want_sin)
    assert meta["attention_factor"] == repr(float(0.1 * mpmath.log(32) + 1))
    fields = {k: meta[k] for k in ("kind", "rope_type", "theta", "head_dim", "rotary_dim")}
    assert fields == {"kind": "rope_cache", "rope_type": "yarn", "theta": "150000.0",
                      "head_dim": "64", "rotary_dim": "64"}  # fmt: skip
    assert (meta["layout"], meta["start"], meta["n"], meta["dtype"]) == (
        "interleaved", "4090", "40", "bfloat16"
    )  # fmt: skip
    assert meta["pecli_version"] == pecli.__version__
    params = json.loads(meta["rope_parameters"])
    assert params["factor"] == 32.0 and params["truncate"] is False


def test_safetensors_cache_agrees_with_the_npy_cache_and_part_picks_a_tensor(run_cli, tmp_path):
    for name in ("c.safetensors", "c.npy", "sin.safetensors"):
        part = ["--part", "sin"] if name.startswith("sin") else []
        result = run_cli("rope", "cache", *LLAMA31, "--n", "9", *part, "-o", str(tmp_path / name))
        assert result.exit_code == 0, result.output
    tensors, meta = _read(tmp_path / "c.safetensors")
    table = np.load(tmp_path / "c.npy")
    assert np.array_equal(np.concatenate([tensors["cos"], tensors["sin"]], axis=1), table)
    assert list(_read(tmp_path / "sin.safetensors")[0]) == ["sin"]
    assert meta["rope_type"] == "llama3" and meta["layout"] == "half-split"


@pytest.mark.parametrize("name", ["c.npy", "c.csv", "-"])
def test_bf16_is_refused_for_npy_and_csv(run_cli, tmp_path, name):
    output = name if name == "-" else str(tmp_path / name)
    result = run_cli("rope", "cache", "--head-dim", "8", "--dtype", "bfloat16", "-o", output)
    assert result.exit_code == 2
    assert result.stderr.startswith("pecli rope cache: error: Invalid value for '--dtype'")
    assert ".safetensors" in result.stderr and list(tmp_path.iterdir()) == []


def test_float16_cache_goes_to_npy_rounded_once_from_float64(run_cli, tmp_path):
    for dtype in ("float16", "float64"):
        out = str(tmp_path / f"{dtype}.npy")
        result = run_cli("rope", "cache", *LLAMA31, "--n", "5", "--dtype", dtype, "-o", out)
        assert result.exit_code == 0, result.output
    half, wide = np.load(tmp_path / "float16.npy"), np.load(tmp_path / "float64.npy")
    assert half.dtype == np.float16 and np.array_equal(half, wide.astype(np.float16))


def test_no_room_for_a_safetensors_cache_is_refused_before_writing(run_cli, tmp_path, monkeypatch):
    import shutil

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=100_000))
    out = tmp_path / "c.safetensors"
    result = run_cli("rope", "cache", "--n", "1000", "-o", str(out))  # 2 × 1000 × 128 × 4 bytes
    assert result.exit_code == 1 and "100000 bytes" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_safetensors_cache_over_1_gib_is_refused(run_cli, tmp_path):
    result = run_cli("rope", "cache", "--n", "2000000", "-o", str(tmp_path / "c.safetensors"))
    assert result.exit_code == 2 and "within 1 GiB" in result.stderr
    assert list(tmp_path.iterdir()) == []
