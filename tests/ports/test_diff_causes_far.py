"""diff's causes away from row 0: the temperature read at ``--start``, two mistakes past row 256.

The tables are written here in NumPy, not by pecli: q activations (random normal, one head)
with Llama 4's query temperature ``1 + β·ln(1 + ⌊(p + 1)/s⌋)`` at positions ``start + r``
(s and β chosen here), and transformers' formula ``1/θ^(2i/d)`` in float64 (half-split
``[cos | sin]``, rounded once to float32) for the rotary caches. Before: the temperature
read row r as position r ("a factor per position" at ``--start 1000``), and two mistakes at
once were screened on the first 256 rows only, so an offset of 300 or 1000 with a layout
swap gave "none of the known mistakes explains it".
"""

from __future__ import annotations

import json

import numpy as np
import pytest


def report(run_cli, tmp_path, a: np.ndarray, b: np.ndarray, *options: str) -> dict:
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    args = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json", *options]
    result = run_cli("diff", *args)
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(("start", "s"), [(1000, 64), (5000, 512), (0, 64)])
def test_temperature_reads_positions_from_start(run_cli, tmp_path, start, s):
    a = np.random.default_rng(5).normal(size=(1024, 64)).astype(np.float32)
    p = start + np.arange(1024.0)
    tempered = (a * (1 + 0.1 * np.log1p(np.floor((p + 1) / s)))[:, None]).astype(np.float32)
    found = report(run_cli, tmp_path, tempered, a, "--start", str(start))
    assert found["transformations"] == ["temperature"], found["causes"]
    assert f"s = {s}, β = 0.1 " in found["causes"][0], found["causes"]


def rope_cache(n: int, start: int, layout: str, theta: float = 10000.0, d: int = 64):
    inv = 1.0 / theta ** (np.arange(0, d, 2) / d)
    freqs = np.outer(np.arange(start, start + n, dtype=np.float64), inv)
    emb = np.concatenate([freqs, freqs], 1) if layout == "half-split" else np.repeat(freqs, 2, 1)
    return np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(np.float32)


@pytest.mark.parametrize("k", [300, 1000, 3000])
def test_layout_and_a_far_start_at_once(run_cli, tmp_path, k):
    ours = rope_cache(4096, 0, "half-split")
    theirs = rope_cache(4096, k, "interleaved")  # starts k later and pairs (2i, 2i + 1)
    found = report(run_cli, tmp_path, ours, theirs)
    assert found["transformations"] == ["two-at-once"], found["causes"]
    words = found["causes"][0]
    assert "pair layout swapped" in words and f"first position off by {k}" in words, words


def test_a_temperature_that_steps_once_at_row_1_names_the_tempered_table_a(run_cli, tmp_path):
    """At --start s − 2 the factor steps up once, from row 0 to row 1 (1 → 1 + β·ln 2), and
    is flat after: the last row's factor equals row 1's. A is still the table without it."""
    start, s = 1022, 1024
    a = np.random.default_rng(6).normal(size=(200, 64)).astype(np.float32)
    a[-1] = a[1]  # the same row: its factor is row 1's bit for bit
    p = start + np.arange(200.0)
    tempered = (a * (1 + 0.1 * np.log1p(np.floor((p + 1) / s)))[:, None]).astype(np.float32)
    found = report(run_cli, tmp_path, tempered, a, "--start", str(start))
    assert found["transformations"] == ["temperature"], found["causes"]
    assert found["causes"][0].startswith(
        "query temperature missing: A = B × 1 + β·ln(1 + ⌊(p + 1)/s⌋), s = 1024, β = 0.1 "
    ), found["causes"]
