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


#: pecli's metadata for a θ 10000, head 64, 300-row float32 cache from position 0, written out
#: here (the fields ``pecli rope cache -o NAME.safetensors`` stores).
METADATA = {
    "pecli_version": "0.1.0",
    "kind": "rope_cache",
    "rope_type": "default",
    "theta": "10000.0",
    "head_dim": "64",
    "rotary_dim": "64",
    "layout": "half-split",
    "start": "0",
    "n": "300",
    "attention_factor": "1.0",
    "dtype": "float32",
    "arithmetic": "exact",
    "rope_parameters": '{"head_dim": 64, "rope_type": "default", "theta": 10000.0}',
}


def _numpy_cache(start: int) -> tuple[np.ndarray, np.ndarray]:
    """θ 10000, head 64, half-split, 300 positions from ``start``: NumPy in float64."""
    inv = 1 / 10000.0 ** (np.arange(0, 64, 2) / 64)
    angles = np.arange(start, start + 300, dtype=np.float64)[:, None] * inv[None, :]
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def _half(pair):
    return tuple(x.astype(np.float16).astype(np.float32) for x in pair)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        (lambda: _numpy_cache(3), "first position off by 3"),
        (lambda: _half(_numpy_cache(0)), "stored in fp16: B is A rounded once to float16"),
        (lambda: _numpy_cache(0)[::-1], "sin/cos swapped"),
    ],
    ids=["start", "fp16", "sin-cos"],
)
def test_rope_identify_says_why_the_metadata_disagrees(run_cli, tmp_path, values, words):
    from safetensors.numpy import save_file

    cos, sin = values()
    path = tmp_path / "port.safetensors"
    save_file({"cos": cos, "sin": sin}, str(path), metadata=METADATA)
    result = run_cli("rope", "identify", str(path), "--format", "json")
    findings = json.loads(result.stdout)["findings"]
    assert any("metadata disagrees" in f for f in findings), findings
    why = [f for f in findings if f.startswith("why (A the metadata's cache, B the values)")]
    assert len(why) == 1 and words in why[0], findings


def test_rope_identify_agrees_without_a_why(run_cli, tmp_path):
    from safetensors.numpy import save_file

    cos, sin = _numpy_cache(0)
    path = tmp_path / "port.safetensors"
    save_file({"cos": cos, "sin": sin}, str(path), metadata=METADATA)
    findings = json.loads(run_cli("rope", "identify", str(path), "--format", "json").stdout)[
        "findings"
    ]
    assert any("metadata agrees" in f for f in findings), findings
    assert not any(f.startswith("why") for f in findings)


@pytest.mark.parametrize(("start", "s"), [(0, 8), (100, 32)])
def test_rope_identify_reads_a_query_temperature_in_a_cache(run_cli, tmp_path, start, s):
    """Llama 4's temperature 1 + 0.1·ln(1 + ⌊(p + 1)/s⌋) on each row of a NumPy cache.

    Before, each row's own cos² + sin² made the file no cache at all (status 2, "none equal
    to its partner"); now θ is read from the phases and the causes name s and β.
    """
    cos, sin = _numpy_cache(start)
    p = start + np.arange(300.0)
    factor = (1 + 0.1 * np.log1p(np.floor((p + 1) / s)))[:, None]
    path = tmp_path / "tempered.npy"
    np.save(path, np.concatenate([cos * factor, sin * factor], axis=1).astype(np.float32))
    result = run_cli("rope", "identify", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["theta"] == pytest.approx(1e4, rel=1e-6) and found["start"] == start
    why = [f for f in found["findings"] if f.startswith("why (A these values")]
    assert len(why) == 1 and f"s = {s}, β = 0.1 " in why[0], found["findings"]
