"""``rope freqs -o inv_freq.npy``: the inv_freq vector as a model's buffer holds it (issue 22).

Refused before (only .csv/.json). Checked against transformers' own ``inv_freq``
(tests/fixtures/libraries/rope/, ``ROPE_INIT_FUNCTIONS`` in float32) and against mpmath.
"""

from __future__ import annotations

import json
import os

import mpmath
import numpy as np
import pytest
from library_fixtures import load

ROPE = {f.name: f for f in load("rope")}
LLAMA31 = [
    "--rope-type",
    "llama3",
    "--theta",
    "500000",
    "--head-dim",
    "128",
    "--factor",
    "8",
    "--low-freq-factor",
    "1",
    "--high-freq-factor",
    "4",
    "--original-max-position-embeddings",
    "8192",
]


def test_llama31_vector_is_transformers_buffer(run_cli, tmp_path):
    out = tmp_path / "inv_freq.npy"
    result = run_cli("rope", "freqs", *LLAMA31, "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    vector = np.load(out)
    expected = ROPE["llama31_inv_freq"].table  # transformers' float32 steps
    assert vector.dtype == np.float32 and vector.shape == expected.shape == (64,)
    np.testing.assert_allclose(vector, expected, rtol=3e-7, atol=0)  # a float32 ulp or so
    identified = run_cli("rope", "identify", str(out), "--format", "json")
    assert identified.exit_code == 0, identified.output
    found = json.loads(identified.stdout)
    assert (found["rope_type"], found["theta"], found["factor"]) == ("llama3", 500000.0, 8.0)


def test_float64_vector_is_the_exact_formula_rounded_once(run_cli, tmp_path):
    out = tmp_path / "inv.npy"
    args = ["--theta", "10000", "--head-dim", "64", "--dtype", "float64", "-o", str(out), "-q"]
    assert run_cli("rope", "freqs", *args).exit_code == 0
    vector = np.load(out)
    mpmath.mp.dps = 40
    exact = [float(mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / 64)) for i in range(32)]
    assert vector.dtype == np.float64 and vector.tolist() == exact


def test_format_npy_to_stdout_and_dtype_only_for_npy(run_cli, tmp_path):
    result = run_cli("rope", "freqs", "--head-dim", "8", "--format", "npy")
    assert result.exit_code == 0
    assert result.stdout_bytes.startswith(b"\x93NUMPY")
    refused = run_cli("rope", "freqs", "--dtype", "float64", "-o", str(tmp_path / "f.csv"))
    assert refused.exit_code == 2 and "'--dtype': applies only to .npy output" in refused.output
    assert not os.path.exists(tmp_path / "f.csv")


def test_an_existing_file_is_replaced_only_by_a_whole_vector(run_cli, tmp_path, monkeypatch):
    out = tmp_path / "inv.npy"
    out.write_bytes(b"keep")
    from pecli.io import writing

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk gone")

    monkeypatch.setattr(writing, "_raw_bytes", broken)
    result = run_cli("rope", "freqs", "-o", str(out))
    assert result.exit_code != 0
    assert out.read_bytes() == b"keep" and os.listdir(tmp_path) == ["inv.npy"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_is_stored(run_cli, tmp_path, dtype):
    out = tmp_path / "v.npy"
    assert run_cli("rope", "freqs", "--dtype", dtype, "-o", str(out), "-q").exit_code == 0
    assert np.load(out).dtype == np.dtype(dtype)
