"""pecli diff: each porting mistake made by hand with NumPy (not with pecli), then named.

The reference cache is transformers' formula written out here: ``inv_freq = 1/θ^(2i/d)``,
``emb = cat(freqs, freqs)``, ``[cos | sin]`` (half-split); each mistake is one NumPy edit.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from safetensors.numpy import save_file

GGUF = Path(__file__).parent / "fixtures" / "libraries" / "gguf"


def inv_freq(theta: float = 10000.0, d: int = 64) -> np.ndarray:
    return 1.0 / theta ** (np.arange(0, d, 2) / d)


def llama3(
    inv: np.ndarray, factor: float = 8.0, low: float = 1.0, high: float = 4.0, length: int = 1024
) -> np.ndarray:
    wavelen = 2 * math.pi / inv
    smooth = (length / wavelen - low) / (high - low)
    mixed = (1 - smooth) * inv / factor + smooth * inv
    return np.where(
        wavelen < length / high, inv, np.where(wavelen > length / low, inv / factor, mixed)
    )


def cache(
    inv: np.ndarray, n: int = 2048, start: int = 0, layout: str = "half-split", scale: float = 1.0
) -> np.ndarray:
    freqs = np.outer(np.arange(start, start + n, dtype=np.float64), inv)
    emb = np.concatenate([freqs, freqs], 1) if layout == "half-split" else np.repeat(freqs, 2, 1)
    return (np.concatenate([np.cos(emb), np.sin(emb)], 1) * scale).astype(np.float32)


def _run(run_cli, tmp_path, a: np.ndarray, b: np.ndarray, *options: str):
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    result = run_cli(
        "diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json", *options
    )
    return result, json.loads(result.stdout) if result.stdout else None


def _causes(run_cli, tmp_path, a, b, *options):
    result, report = _run(run_cli, tmp_path, a, b, *options)
    assert result.exit_code == 1, result.output
    return [cause.split(":")[0] for cause in report["causes"]]


def test_equal_tables_pass(run_cli, tmp_path):
    a = cache(inv_freq())
    result, report = _run(run_cli, tmp_path, a, a.copy())
    assert result.exit_code == 0 and report["equal"] and report["causes"] == []
    assert [d["first"] for d in report["decades"]] == [0, 10, 100, 1000]


def test_first_difference_and_decades_in_ulps(run_cli, tmp_path):
    a = cache(inv_freq())
    b = a.copy()
    b[345, 17] = np.nextafter(np.nextafter(b[345, 17], np.float32(9)), np.float32(9))
    result, report = _run(run_cli, tmp_path, a, b, "--start", "10")
    assert result.exit_code == 1
    assert report["first"] == {"row": 345, "column": 17} and report["differing"] == 1
    decade = next(d for d in report["decades"] if d["first"] <= 355 <= d["last"])
    assert decade["max_ulps"] == 2 and decade["differing"] == 1
    assert _run(run_cli, tmp_path, a, b, "--ulps", "2")[0].exit_code == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_entries_near_zero_are_in_ulps_of_the_largest_finite_magnitude(run_cli, tmp_path, dtype):
    """A NaN entry leaves the floor (2^-10 of the largest finite |x|) a number."""
    a = np.full((20, 4), 0.5, dtype)
    a[4, 0], a[12, 3] = np.nan, 0.0
    b = a.copy()
    b[12, 3] = 2.0**-14  # 2^-14 from 0: 2^-14 / ulp(2^-11) ulps (p significand bits)
    result, report = _run(run_cli, tmp_path, a, b)
    assert result.exit_code == 1 and report["differing"] == 1, result.output
    bits = np.finfo(dtype).nmant
    assert report["decades"][1]["max_ulps"] == 2.0**-14 / 2.0 ** (-11 - bits)


@pytest.mark.parametrize(
    ("make", "cause"),
    [
        (lambda a: cache(inv_freq(), layout="interleaved"), "pair layout swapped"),
        (lambda a: a.T.copy(), "rows transposed"),
        (lambda a: cache(inv_freq(), start=3), "first position off by 3"),
        (lambda a: cache(inv_freq(500000.0)), "θ (base, rope_theta) differs"),
        (lambda a: np.concatenate([a[:, 64:], a[:, :64]], 1), "sin/cos swapped"),
        (lambda a: np.concatenate([a[:, :32], a[:, 64:96]], 1), "half width against full width"),
        (lambda a: (a / 1.1386294).astype(np.float32), "attention factor missing"),
        (lambda a: a.astype(ml_dtypes.bfloat16), "stored in bf16"),
    ],
)
def test_each_mistake_is_named(run_cli, tmp_path, make, cause):
    a = cache(inv_freq())
    assert cause in _causes(run_cli, tmp_path, a, make(a), "--ulps", "0")


def test_scaling_missing_past_l(run_cli, tmp_path):
    scaled = cache(llama3(inv_freq()), n=4096)
    causes = _causes(run_cli, tmp_path, scaled, cache(inv_freq(), n=4096))
    assert causes == ["scaling missing past L"]


def test_computed_in_bf16(run_cli, tmp_path):
    bf = ml_dtypes.bfloat16
    positions = np.arange(2048).astype(bf).astype(np.float64)
    angles = (np.outer(positions, inv_freq().astype(bf).astype(np.float64))).astype(bf)
    emb = np.concatenate([angles, angles], 1).astype(np.float64)
    b = np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(bf)
    assert _causes(run_cli, tmp_path, cache(inv_freq()), b) == ["computed in bf16"]


def test_safetensors_cos_sin_is_read_as_one_cache(run_cli, tmp_path):
    a = cache(inv_freq())
    save_file({"cos": a[:, :64].copy(), "sin": a[:, 64:].copy()}, str(tmp_path / "c.safetensors"))
    np.save(tmp_path / "a.npy", a)
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "c.safetensors"))
    assert result.exit_code == 0, result.output


def test_gguf_tensors(run_cli):
    good, bad = str(GGUF / "llama31.gguf"), str(GGUF / "bad_llama31_freqs.gguf")
    assert run_cli("diff", good, good).exit_code == 0
    result = run_cli("diff", good, bad, "--format", "json")
    assert result.exit_code == 1 and json.loads(result.stdout)["first"] == {"row": 0, "column": 25}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.npy"], "'A'"),
        (["folder"], "must be an existing .npy, CSV, .safetensors or .gguf file"),
        (["missing.gguf"], "must be an existing .npy, CSV, .safetensors or .gguf file"),
        (["several.safetensors"], "holds 2 tensors: name one with --tensor-a"),
        (["a.npy", "--ulps", "-1"], "--ulps"),
        (["a.npy", "--format", "json", "-o", "a.npy"], "must not be the input a.npy"),
    ],
)
def test_usage_errors_are_one_line(run_cli, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    Path("folder").mkdir()
    np.save("a.npy", cache(inv_freq(), n=4))
    save_file({"x": np.zeros(3, np.float32), "y": np.ones(3, np.float32)}, "several.safetensors")
    before = Path("a.npy").read_bytes()
    result = run_cli("diff", args[0], "a.npy", *args[1:])
    assert result.exit_code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert Path("a.npy").read_bytes() == before


def test_a_few_ulps_are_no_shifted_start(run_cli, tmp_path):
    a = cache(inv_freq())
    b = a.copy()
    b[5, 3] = np.nextafter(np.nextafter(b[5, 3], np.float32(9)), np.float32(9))
    result, report = _run(run_cli, tmp_path, a, b, "--ulps", "0")
    assert result.exit_code == 1 and report["causes"] == []


def test_a_small_attention_factor_is_found(run_cli, tmp_path):
    a = cache(inv_freq())
    assert _causes(run_cli, tmp_path, a, (a / 1.01).astype(np.float32)) == [
        "attention factor missing"
    ]


def test_bf16_against_float32_is_measured_in_bf16_ulps(run_cli, tmp_path):
    a = cache(inv_freq(), n=16)
    b = a.astype(ml_dtypes.bfloat16)
    result, report = _run(run_cli, tmp_path, a, b)
    assert report["dtype"] == "bfloat16" and result.exit_code == 0  # within half a bf16 ulp


def test_rows_past_the_first_block(run_cli, tmp_path):
    a = np.linspace(-1, 1, 32 * 70000, dtype=np.float32).reshape(70000, 32)  # 3 blocks
    b = a.copy()
    b[69001, 1] += 0.5
    result, report = _run(run_cli, tmp_path, a, b)
    assert result.exit_code == 1
    assert report["first"] == {"row": 69001, "column": 1}
    assert [d["differing"] for d in report["decades"]] == [0, 0, 0, 0, 1]


def test_a_vector_against_a_cache_is_named_as_such(run_cli, tmp_path):
    causes = _causes(run_cli, tmp_path, inv_freq(), cache(inv_freq()))
    assert causes == ["not the same kind of table"]
