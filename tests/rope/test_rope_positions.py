"""Rotary caches at positions that are not consecutive integers (``rope cache --positions``):
exact and rounded once (mpmath), transformers' own caches at its listed positions, diffusers'
fractional positions, and the refusals."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import rope_reference as ref
from library_fixtures import load

from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, cache_blocks
from pecli.core.rope.config import spec_from_config
from pecli.core.rope.framework import framework_cache_blocks

ROPE = {f.name: f for f in load("rope")}
MULTI = {f.name: f for f in load("multiaxis")}
YARN = RopeSpec(
    rope_type="yarn", theta=1e6, head_dim=16, factor=4.0, original_max_position_embeddings=32768
)


@pytest.mark.parametrize("layout", ["half-split", "interleaved"])
def test_fractional_and_negative_positions_are_correctly_rounded(layout):
    positions = np.array([0.5, -3.25, 1e6 + 0.125, 123456.789, 2.0**40 + 0.5, 7.0])
    freqs = rope_frequencies(YARN)
    table = np.concatenate(
        list(
            cache_blocks(
                CacheSpec(freqs, positions.size, layout=layout, positions=positions, rows=4)
            )
        )
    )
    inv = ref.yarn(1e6, 16, 4, 32768)
    scale = freqs.attention_factor
    for row, p in zip(table, positions, strict=True):
        cos, sin = ref.cache_row(mpmath.mpf(float(p)), inv, scale, layout)
        expected = np.array([float(v) for v in cos + sin]).astype(np.float32)
        assert np.array_equal(row, expected)


def test_consecutive_positions_give_the_start_n_cache():
    freqs = rope_frequencies(YARN)
    a = np.concatenate(list(cache_blocks(CacheSpec(freqs, 50, start=1000))))
    b = np.concatenate(
        list(cache_blocks(CacheSpec(freqs, 50, positions=np.arange(1000.0, 1050.0))))
    )
    assert ulps32(a, b).max() == 0


@pytest.mark.parametrize("name", ["llama31", "default", "linear"])
def test_transformers_listed_positions(name):
    cos = ROPE[f"{name}_cos"]
    spec = spec_from_config(cos.params["config"])[0]
    freqs, where = rope_frequencies(spec), np.array(cos.params["positions"], dtype=np.float64)
    ours = np.concatenate(
        list(
            framework_cache_blocks(
                CacheSpec(freqs, where.size, part="cos", rows=4, positions=where)
            )
        )
    )
    assert ulps32(ours, cos.table).max() <= 1


def test_diffusers_fractional_positions_bit_for_bit():
    cos, sin = MULTI["fractional_float64_cos"], MULTI["fractional_float64_sin"]
    where = np.array(cos.params["positions"])
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=16))
    both = np.concatenate(
        list(cache_blocks(CacheSpec(freqs, where.size, layout="interleaved", positions=where)))
    )
    assert np.array_equal(both[:, :16], cos.table) and np.array_equal(both[:, 16:], sin.table)


@pytest.mark.parametrize(
    ("positions", "start", "parameter"),
    [([0.0, np.nan], 0, "positions"), ([0.0, 2.0**60], 0, "positions"), ([1.0], 3, "start")],
)
def test_bad_positions_are_refused(positions, start, parameter):
    freqs = rope_frequencies(YARN)
    with pytest.raises(ParameterError) as caught:
        cache_blocks(CacheSpec(freqs, len(positions), start=start, positions=np.array(positions)))
    assert caught.value.parameter == parameter


def test_cli_positions_list_and_file(run_cli, tmp_path):
    np.save(tmp_path / "p.npy", np.array([[0.5], [-2.0], [1e7 + 0.25]]))
    listed = run_cli(
        "rope",
        "cache",
        "--head-dim",
        "8",
        "--positions",
        "0.5,-2,10000000.25",
        "--format",
        "npy",
        "-o",
        str(tmp_path / "a.npy"),
    )
    filed = run_cli(
        "rope",
        "cache",
        "--head-dim",
        "8",
        "--positions",
        str(tmp_path / "p.npy"),
        "--n",
        "3",
        "-o",
        str(tmp_path / "b.npy"),
    )
    assert listed.exit_code == filed.exit_code == 0, listed.output + filed.output
    a, b = np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy")
    freqs = rope_frequencies(RopeSpec(head_dim=8))
    where = np.array([0.5, -2.0, 1e7 + 0.25])
    expected = np.concatenate(list(cache_blocks(CacheSpec(freqs, 3, positions=where))))
    assert np.array_equal(a, expected) and np.array_equal(b, expected)


@pytest.mark.parametrize("shape", [(3,), (3, 1), (1, 3)])
def test_cli_positions_file_is_a_vector_of_any_of_its_shapes(run_cli, tmp_path, shape):
    """A 1-D .npy is the obvious list of positions; one row or one column means the same."""
    where = np.array([0.5, -2.0, 1e7 + 0.25])
    np.save(tmp_path / "p.npy", where.reshape(shape))
    result = run_cli(
        "rope",
        "cache",
        "--head-dim",
        "8",
        "--positions",
        str(tmp_path / "p.npy"),
        "-o",
        str(tmp_path / "c.npy"),
    )
    assert result.exit_code == 0, result.output
    expected = np.concatenate(
        list(cache_blocks(CacheSpec(rope_frequencies(RopeSpec(head_dim=8)), 3, positions=where)))
    )
    assert np.array_equal(np.load(tmp_path / "c.npy"), expected)


@pytest.mark.parametrize("shape", [(2, 2), (), (0,), (1, 1, 3)])
def test_cli_positions_file_of_another_shape_is_refused_naming_it(run_cli, tmp_path, shape):
    np.save(tmp_path / "p.npy", np.zeros(shape))
    result = run_cli(
        "rope", "cache", "--positions", str(tmp_path / "p.npy"), "-o", str(tmp_path / "c.npy")
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        "pecli rope cache: error: Invalid value for '--positions': must hold one non-empty "
        f"vector: a 1-D array, one row or one column (got shape {shape})"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.npy"]


def test_cli_positions_csv_estimate_and_transformers(run_cli):
    args = ["--positions", "16777217", "--arithmetic", "transformers", "--part", "sin"]
    result = run_cli("rope", "cache", "--head-dim", "4", *args, "--format", "csv")
    assert result.exit_code == 0, result.output
    first = np.float32(result.stdout.splitlines()[1].split(",")[0])
    assert first == np.float32(np.sin(2.0**24))  # 2^24 + 1 is 2^24 in float32


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--positions", "0,x"], "--positions"),
        (["--positions", "0,1", "--n", "3"], "--n"),
        (["--positions", "0,1", "--start", "2"], "--start"),
        (["--positions", "0,nan"], "--positions"),
        (["--positions", "0,1", "-o", "c.safetensors"], "--output"),
        (["--positions", "0,1", "--arithmetic", "llama.cpp"], "--positions"),
    ],
)
def test_cli_refusals(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("rope", "cache", "--head-dim", "8", *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_cli_positions_file_is_never_the_output(run_cli, tmp_path):
    path = tmp_path / "p.npy"
    np.save(path, np.array([1.0, 2.0]))
    before = path.read_bytes()
    result = run_cli("rope", "cache", "--positions", str(path), "-o", str(path))
    assert result.exit_code == 2 and path.read_bytes() == before


def test_cli_positions_from_stdin(pecli_cmd):
    import subprocess

    args = [*pecli_cmd, "rope", "cache", "--head-dim", "4", "--positions", "-", "--format", "csv"]
    done = subprocess.run(args, input=b"0.5\n-2\n", capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    expected = np.concatenate(
        list(
            cache_blocks(
                CacheSpec(
                    rope_frequencies(RopeSpec(head_dim=4)), 2, positions=np.array([0.5, -2.0])
                )
            )
        )
    )
    got = np.loadtxt(done.stdout.decode().splitlines()[1:], delimiter=",", ndmin=2)
    assert np.array_equal(got.astype(np.float32), expected)


def test_an_integer_position_past_2_53_is_refused_not_rounded_into_the_rule():
    """float64 rounds 2^53 + 1 to 2^53, which the rule |p| <= 2^53 lets through: the cache of
    another position, silently. Integers are checked before they become float64."""
    freqs = rope_frequencies(RopeSpec(head_dim=4))
    for positions in (np.array([0, 2**53 + 1]), np.array([2**64 - 1], dtype=np.uint64)):
        with pytest.raises(ParameterError, match=r"\|p\| <= 2\^53") as caught:
            cache_blocks(CacheSpec(freqs, positions.size, positions=positions))
        assert caught.value.parameter == "positions"
    edge = [
        np.concatenate(list(cache_blocks(CacheSpec(freqs, 1, positions=p))))
        for p in (np.array([-(2**53)]), [-(2.0**53)])
    ]
    assert np.array_equal(*edge)


@pytest.mark.parametrize("given", ["npy", "list"])
def test_cli_an_integer_position_past_2_53_is_refused(run_cli, tmp_path, given):
    """An int64 .npy or a typed 9007199254740993 was read as 2^53 and its cache written."""
    np.save(tmp_path / "p.npy", np.array([0, 2**53 + 1]))
    where = str(tmp_path / "p.npy") if given == "npy" else "0,9007199254740993"
    result = run_cli(
        "rope",
        "cache",
        "--head-dim",
        "4",
        "--positions",
        where,
        "-q",
        "-o",
        str(tmp_path / "c.npy"),
    )
    assert result.exit_code == 2, result.output
    line, *more = result.stderr.strip().splitlines()
    assert not more and "'--positions'" in line and "9007199254740993" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.npy"]
