"""``pecli rope identify``: a reading that determines no rope type is no success (status 1).

It exited 0 with ``rope_type: not determined`` (a table of ones, a short cache whose slow pairs
its positions do not pin), while the help and docs/cli.md promised status 1 only for
``unknown``: a script checking the status took a reading of nothing for a success. Every table
here is written with NumPy from its formula.
"""

from __future__ import annotations

import json

import numpy as np
import pytest


def _half_split(theta: float, dim: int, n: int, dtype) -> np.ndarray:
    """``[cos | sin]`` of positions 0 … n−1, half-split, each value rounded once to ``dtype``."""
    angles = np.outer(np.arange(float(n)), theta ** (-np.arange(0, dim, 2) / dim))
    parts = [np.cos(angles), np.cos(angles), np.sin(angles), np.sin(angles)]
    return np.concatenate(parts, axis=1).astype(dtype)


@pytest.mark.parametrize(
    ("table", "said"),
    [
        (np.ones((16, 8), np.float32), "too few to fit θ"),  # read as cos = sin = 1: no angle
        (  # [cos | sin] of a table that does not rotate: cos 1, sin 0 at every position
            np.concatenate([np.ones((16, 8)), np.zeros((16, 8))], axis=1).astype(np.float32),
            "does not rotate",
        ),
        # θ 500000, d 128, 64 positions in float16: the slow pairs turn by less than float16
        # tells apart, so θ comes from the leading pairs and the type is open
        (_half_split(500000.0, 128, 64, np.float16), "are not determined by these positions"),
    ],
    ids=["ones", "no-rotation", "short-float16"],
)
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_type_not_determined_exits_1_after_the_report(run_cli, tmp_path, table, said, fmt):
    path = tmp_path / "t.npy"
    np.save(path, table)
    result = run_cli("rope", "identify", str(path), "--format", fmt)
    assert result.exit_code == 1, result.output
    if fmt == "json":
        report = json.loads(result.stdout)
        assert report["rope_type"] == "not determined"
        assert any(said in finding for finding in report["findings"]), report["findings"]
    else:
        assert "rope_type: not determined" in result.stdout.splitlines()
        assert said in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "do not determine the rope type" in lines[0] and str(path) in lines[0]


def test_the_same_cache_long_enough_in_float32_is_read_with_status_0(run_cli, tmp_path):
    """The control: θ 500000, d 128, 64 positions in float32 pin every pair: default, 0."""
    path = tmp_path / "t.npy"
    np.save(path, _half_split(500000.0, 128, 64, np.float32))
    result = run_cli("rope", "identify", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["rope_type"], report["theta"]) == ("default", 500000.0)


def test_the_help_states_both_statuses(run_cli):
    text = " ".join(run_cli("rope", "identify", "--help").stdout.split())
    assert "rope_type: unknown" in text and "rope_type: not determined" in text


def test_pecli_s_metadata_that_rebuilds_the_values_makes_the_type_known(run_cli, tmp_path):
    """README's example: a bfloat16 cache of 3 rows and 2 pairs leaves the type open, but the
    metadata pecli wrote beside it rebuilds it bit for bit (status 0): its type is the
    report's, said to come from the metadata. The same values without
    the metadata, or with one value moved by one ulp, determine nothing (status 1)."""
    from safetensors.numpy import load_file, save_file

    from pecli.io.tensors import read_safetensors

    out = tmp_path / "c.safetensors"
    args = ["rope", "cache", "--head-dim", "4", "--n", "3", "--dtype", "bfloat16", "-o", str(out)]
    assert run_cli(*args, "-q").exit_code == 0
    with_metadata = run_cli("rope", "identify", str(out))
    assert with_metadata.exit_code == 0, with_metadata.output
    lines = with_metadata.stdout.splitlines()
    assert "rope_type: default" in lines  # the README's bf16 llama3 cache said "not determined"
    assert "rope_type_from: pecli's metadata (the values alone: not determined)" in lines
    assert "note: pecli's metadata agrees" in with_metadata.stdout
    raw, meta = load_file(out), read_safetensors(out)[1]
    bare = tmp_path / "bare.safetensors"
    save_file(raw, bare)  # the values alone
    moved = tmp_path / "moved.safetensors"
    bits = raw["sin"].view(np.uint16)  # bfloat16: one ulp up is the next bit pattern
    bits[2, 1::2] += 1  # both copies of pair 1's sin at position 2
    save_file(raw, moved, metadata=meta)
    for path, said in ((bare, "rope_type: not determined"), (moved, "metadata disagrees")):
        result = run_cli("rope", "identify", str(path))
        assert result.exit_code == 1 and said in result.stdout, result.output
        assert "do not determine the rope type" in result.stderr


@pytest.mark.parametrize(
    ("vector", "nonzero"),
    [([1.0, 0.0, 0.0], 1), ([1.0, 0.0, 0.0, 0.0, 0.0], 1), ([1.0, 0.5, 0.0, 0.0], 2)],
)
def test_an_inv_freq_vector_of_fewer_than_3_nonzero_values_is_read_status_1(
    run_cli, tmp_path, vector, nonzero
):
    """``[1, 0, 0]`` passes the vector's rule (>= 3 finite numbers >= 0, the first > 0) but
    holds one frequency: θ's fit called ``np.polyfit`` on 2 positions and 1 value, "internal
    error: TypeError" (status 1 with no report). Fewer than 3 nonzero frequencies fit no θ."""
    path = tmp_path / "v.npy"
    np.save(path, np.array(vector))
    result = run_cli("rope", "identify", str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["rope_type"] == "unknown" and report["theta"] is None
    said = f"{nonzero} nonzero of {len(vector)} frequencies: too few to fit θ (3 needed)"
    assert said in report["findings"], report["findings"]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in result.stderr, result.stderr


def test_a_cache_whose_only_rotating_pair_is_pair_0_is_read_status_1(run_cli, tmp_path):
    """``[cos | sin]`` half-split of ω = (1, 0, 0) at positions 0 … 31: pairs 1 and 2 do not
    turn (cos 1, sin 0). The measured frequencies reached the same θ fit: internal error."""
    angles = np.outer(np.arange(32.0), [1.0, 0.0, 0.0])
    table = np.concatenate([np.cos(angles)] * 2 + [np.sin(angles)] * 2, axis=1)
    path = tmp_path / "c.npy"
    np.save(path, table)
    result = run_cli("rope", "identify", str(path))
    assert result.exit_code == 1, result.output
    assert "rope_type: unknown" in result.stdout.splitlines()
    assert "note: 1 nonzero of 3 frequencies: too few to fit θ (3 needed)" in result.stdout
    assert "internal error" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_pecli_s_metadata_that_rebuilds_a_longrope_cache_makes_its_type_known(run_cli, tmp_path):
    """A longrope cache pecli wrote reads as ``unknown`` (its per-pair factors hide θ), and
    the metadata beside it rebuilds it bit for bit: the report said both, then "matches no
    rope_type pecli knows", status 1, for the type pecli had just written and named. As for a
    type not determined, the metadata's rebuild is the reading (status 0, its type reported
    as the metadata's); the values alone still exit 1."""
    from safetensors.numpy import load_file, save_file

    out = tmp_path / "lr.safetensors"
    args = ["rope", "cache", "--rope-type", "longrope", "--factor", "4", "--head-dim", "8"]
    args += ["--original-max-position-embeddings", "64", "--short-factor", "1,1.5,2,3"]
    args += ["--long-factor", "2,3,4,5", "--n", "32", "-q", "-o", str(out)]
    assert run_cli(*args).exit_code == 0
    with_metadata = run_cli("rope", "identify", str(out))
    assert with_metadata.exit_code == 0, with_metadata.output
    lines = with_metadata.stdout.splitlines()
    assert "rope_type: longrope" in lines
    assert "rope_type_from: pecli's metadata (the values alone: unknown)" in lines
    assert "note: pecli's metadata agrees" in with_metadata.stdout
    bare = tmp_path / "bare.safetensors"
    save_file(load_file(out), bare)
    result = run_cli("rope", "identify", str(bare))
    assert result.exit_code == 1 and "matches no rope_type" in result.stderr, result.output


def test_one_pair_not_determined_is_named_alone():
    """θ 10000, d 8, 4096 positions in bfloat16: only the slowest pair (3, ω = 10^-3) stays
    open; the note said "pairs 3 … 3 are"."""
    import ml_dtypes

    from pecli.analysis.rope.identify import identify_rope

    table = _half_split(10000.0, 8, 4096, ml_dtypes.bfloat16)
    report, findings = identify_rope({"table": table}, {})
    assert report["rope_type"] == "not determined"
    said = "pair 3 is not determined by these positions: a longer cache (more positions) pins it"
    assert said in findings, findings


def test_a_cache_whose_cos_and_sin_were_exchanged_is_said_to_be_so(run_cli, tmp_path):
    """cos and sin saved under each other's names (θ 10000, d 8, positions 5 … 36, written
    from their formulas): the notes said only "the first position is not determined" and "a
    longer cache (more positions) pins them", which no longer cache does. Status 1 still."""
    angles = np.outer(np.arange(5.0, 37.0), 10000.0 ** (-np.arange(0, 8, 2) / 8))
    cos, sin = np.concatenate([np.cos(angles)] * 2, 1), np.concatenate([np.sin(angles)] * 2, 1)
    swapped, right = tmp_path / "swapped.npz", tmp_path / "right.npz"
    np.savez(swapped, cos=sin, sin=cos)
    np.savez(right, cos=cos, sin=sin)
    result = run_cli("rope", "identify", str(swapped))
    assert result.exit_code == 1, result.output
    said = (
        "note: read with cos and sin exchanged, the rows are positions 5 on and every pair is "
        "determined: are the two tables swapped?"
    )
    assert said in result.stdout.splitlines(), result.stdout
    control = run_cli("rope", "identify", str(right))
    assert control.exit_code == 0 and "exchanged" not in control.stdout, control.output
