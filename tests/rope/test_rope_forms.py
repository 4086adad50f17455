"""``rope cache --form``: half width (GPT-J's own table), complex freqs_cis, 2×2 rotation
matrices, each rounded once from the exact values; refusals before any work."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import rope_reference as ref
from library_fixtures import load

from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.rope.forms import check_form, from_full, reform

ROPE = {f.name: f for f in load("rope")}


def test_half_form_is_gptj_create_sinusoidal_positions(run_cli, tmp_path):
    gptj = ROPE["gptj_table"]
    where = ",".join(str(p) for p in gptj.params["positions"])
    out = tmp_path / "half.npy"
    args = ["--positions", where, "--form", "half", "--layout", "gptj"]
    result = run_cli(
        "rope", "cache", "--head-dim", "64", *args, "--arithmetic", "transformers", "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    ours = np.load(out)  # [cos | sin]; GPT-J keeps [sin | cos]
    assert ours.shape == (8, 64) and ulps32(ours[:, :32], gptj.table[:, 32:]).max() <= 1
    assert ulps32(ours[:, 32:], gptj.table[:, :32]).max() <= 1


@pytest.mark.parametrize("layout", ["half-split", "interleaved"])
def test_complex_and_matrix_forms_are_correctly_rounded(run_cli, tmp_path, layout):
    args = [
        "rope",
        "cache",
        "--theta",
        "500000",
        "--head-dim",
        "8",
        "--n",
        "3",
        "--start",
        "1000000",
        "--layout",
        layout,
    ]
    assert run_cli(*args, "--form", "complex", "-o", str(tmp_path / "z.npy")).exit_code == 0
    assert run_cli(*args, "--form", "matrix", "-o", str(tmp_path / "m.npy")).exit_code == 0
    z, m = np.load(tmp_path / "z.npy"), np.load(tmp_path / "m.npy")
    assert z.dtype == np.complex64 and z.shape == (3, 4) and m.shape == (3, 4, 2, 2)
    inv = ref.default(500000.0, 8)
    for r in range(3):
        cos, sin = ref.cache_row(mpmath.mpf(1000000 + r), inv, 1.0, "half-split")
        c = np.array([float(v) for v in cos[:4]], dtype=np.float32)
        s = np.array([float(v) for v in sin[:4]], dtype=np.float32)
        assert np.array_equal(z[r].real, c) and np.array_equal(z[r].imag, s)
        assert np.array_equal(m[r, :, 0, 0], c) and np.array_equal(m[r, :, 0, 1], -s)
        assert np.array_equal(m[r, :, 1, 0], s) and np.array_equal(m[r, :, 1, 1], c)


def test_half_form_of_a_part_csv(run_cli):
    result = run_cli(
        "rope",
        "cache",
        "--head-dim",
        "4",
        "--n",
        "2",
        "--form",
        "half",
        "--part",
        "sin",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "sin_0,sin_1"
    assert result.stdout.splitlines()[2] == "0.84147096,0.009999833"


def test_from_full_reads_both_layouts():
    block = np.arange(16.0)[None, :]  # [cos 0…7 | sin 8…15], h = 4
    split = [a.tolist() for a in from_full(block, 4, "half-split")]
    pairs = [a.tolist() for a in from_full(block, 4, "interleaved")]
    assert split == [[[0, 1, 2, 3]], [[8, 9, 10, 11]]]
    assert pairs == [[[0, 2, 4, 6]], [[8, 10, 12, 14]]]


def test_half_form_rounds_bfloat16_once():
    import ml_dtypes

    x = np.array([[1 + 2**-8 + 2**-30]])
    out = reform(x, x, "half", "cos", np.dtype(ml_dtypes.bfloat16))
    assert float(out[0, 0]) == 1 + 2**-7  # via float32 it would round twice, to 1


@pytest.mark.parametrize(
    ("form", "part", "dtype", "parameter"),
    [
        ("round", "both", "float32", "form"),
        ("matrix", "sin", "float32", "part"),
        ("complex", "both", "float16", "dtype"),
    ],
)
def test_check_form_refuses(form, part, dtype, parameter):
    with pytest.raises(ParameterError) as caught:
        check_form(form, part, np.dtype(dtype))
    assert caught.value.parameter == parameter


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--form", "complex", "--format", "csv"], "'--format'"),  # not -o, never typed
        (["--form", "complex"], "'--form'"),  # stdout's CSV: nothing else was typed
        (["--form", "matrix", "-o", "c.safetensors"], "'--output'"),
        (["--form", "complex", "-o", "c.csv"], "'--output'"),
        (["--form", "matrix", "--part", "cos", "-o", "c.npy"], "--part"),
        (["--form", "complex", "--dtype", "float16", "-o", "c.npy"], "--dtype"),
    ],
)
def test_cli_refusals(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("rope", "cache", "--theta", "10000", "--n", "3", *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_pairs_are_channels_j_and_j_plus_half_or_2j_and_2j_plus_1():
    from pecli.core.rope.forms import pair_columns, pair_layouts

    t = np.arange(6.0)[None, :]  # channels 0 … 5: 3 pairs
    assert pair_columns(t, "half-split").tolist() == [[0, 1, 2]]
    assert pair_columns(t, "half-split", True).tolist() == [[3, 4, 5]]
    assert pair_columns(t, "interleaved").tolist() == [[0, 2, 4]]
    assert pair_columns(t, "interleaved", True).tolist() == [[1, 3, 5]]
    assert pair_layouts([np.array([[1.0, 2.0, 1.0, 2.0]])], "x") == ("half-split",)
    with pytest.raises(ParameterError) as caught:  # 3 rows of 4 columns, no pair repeats
        pair_layouts([np.arange(12.0).reshape(3, 4)], "must be a cache")
    assert caught.value.parameter == "file"
    assert "(got '4 columns, none equal to its partner (neither layout)')" in str(caught.value)


def test_a_table_of_more_than_64_rows_is_read_whole_for_its_layout():
    """transformers' half-split cos, [cos(pω) | cos(pω)] over positions 0 … 99 (100 rows, past
    the 64 spread rows checked first): half-split only; a value off in row 99 alone, the last
    row, is no layout."""
    from pecli.core.rope.forms import pair_layouts

    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    half = np.cos(np.outer(np.arange(100.0), inv))
    table = np.concatenate([half, half], axis=1)
    assert pair_layouts([table], "x") == ("half-split",)
    table[99, 0] += 1.0
    with pytest.raises(ParameterError):
        pair_layouts([table], "x")


def test_no_room_for_a_full_csv_cache_is_refused_before_writing(run_cli, tmp_path, monkeypatch):
    """1000 rows × 128 values fit the 2-bytes-a-value floor (256 kB) in 1 MB free, but each
    value is ~10 digits: the estimate (from rows spread over the cache) is refused up front."""
    import shutil

    real = shutil.disk_usage
    usage = real(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=1_000_000))
    out = tmp_path / "c.csv"
    result = run_cli("rope", "cache", "--n", "1000", "--head-dim", "64", "-o", str(out))
    assert result.exit_code == 1 and "1000000 bytes" in result.stderr, result.output
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(shutil, "disk_usage", real)  # the real room: the file is over 1 MB
    assert (
        run_cli("rope", "cache", "--n", "1000", "--head-dim", "64", "-o", str(out)).exit_code == 0
    )
    assert out.stat().st_size > 1_000_000
