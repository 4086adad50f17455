"""``pecli diff --reference a|b``: the rotated-width cause names one reading, not both.

The caches are transformers' formula ``1/θ^(2i/r)`` in float64 written here (half-split
``[cos | sin]``, rounded once to float32): a 256-wide head with partial_rotary_factor 0.25
rotates 64 channels; the factor applied twice rotates 16. Before, diff named both readings
("applied twice in B, or the full head rotated in A") whichever table was right, and had no
``--reference``. Last, two round bases that are also an exponent over a head width.
"""

from __future__ import annotations

import json

import numpy as np
import pytest


def cache(theta: float, r: int, n: int = 2048) -> np.ndarray:
    inv = 1.0 / theta ** (np.arange(0, r, 2) / r)
    freqs = np.outer(np.arange(n, dtype=np.float64), inv)
    emb = np.concatenate([freqs, freqs], 1)
    return np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(np.float32)


def causes(run_cli, tmp_path, *options: str) -> list[str]:
    np.save(tmp_path / "a.npy", cache(1e6, 64))  # the slice of 64 channels
    np.save(tmp_path / "b.npy", cache(1e6, 16))  # 16: the factor applied again
    args = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json", *options]
    result = run_cli("diff", *args)
    assert result.exit_code == 1, result.output
    found = json.loads(result.stdout)
    (tmp_path / "report.json").write_text(result.stdout)
    assert found["transformations"] == ["rotated-width"], found["causes"]
    return found["causes"]


@pytest.mark.parametrize("side", ["a", "A"])
def test_reference_a_names_the_factor_applied_twice_in_b(run_cli, tmp_path, side):
    (words,) = causes(run_cli, tmp_path, "--reference", side)
    assert words.endswith("a partial_rotary_factor applied twice in B (1/4 of the intended slice)")
    assert "full head" not in words
    found = json.loads((tmp_path / "report.json").read_text())
    assert found["reference"] == "A"  # echoed for a script


def test_reference_b_names_the_full_head_rotated_in_a(run_cli, tmp_path):
    (words,) = causes(run_cli, tmp_path, "--reference", "b")
    assert words.endswith("the full head rotated in A where a slice should be")
    assert "twice" not in words


def test_without_a_reference_both_readings(run_cli, tmp_path):
    (words,) = causes(run_cli, tmp_path)
    assert "applied twice in B" in words and "or the full head rotated in A" in words


def test_reference_must_be_a_or_b(run_cli, tmp_path):
    np.save(tmp_path / "a.npy", cache(1e6, 64))
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "a.npy"), "--reference", "c")
    assert result.exit_code == 2
    assert "--reference" in result.output and "Traceback" not in result.output


def test_round_bases_name_the_exponent_reading_second(run_cli, tmp_path):
    """10^4 = (10^6)^(2/3): two bases, or a head of 96 whose exponent divides by 96, not 64.

    Before, the exponent reading was refused outright for a round θ' and diff said only
    "θ differs"; both readings are exact here, so both are named, the two bases first.
    """
    np.save(tmp_path / "a.npy", cache(1e6, 64))
    np.save(tmp_path / "b.npy", cache(1e4, 64))
    args = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json"]
    found = json.loads(run_cli("diff", *args).stdout)
    assert found["transformations"] == ["theta"], found["causes"]
    (words,) = found["causes"]
    assert words.startswith("θ (base, rope_theta) differs: A reads as θ = 1000000, B as θ = 10000")
    assert "; or B's θ' = 10000 = 1e+06^(2/3), as θ^(-2i/96) reads over 64 rotated" in words


def test_a_base_that_is_no_power_is_only_a_base(run_cli, tmp_path):
    np.save(tmp_path / "a.npy", cache(1e6, 64))
    np.save(tmp_path / "b.npy", cache(5e5, 64))
    args = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json"]
    (words,) = json.loads(run_cli("diff", *args).stdout)["causes"]
    assert words == "θ (base, rope_theta) differs: A reads as θ = 1000000, B as θ = 500000"
