"""Inputs found by trying to break pecli: each gets status 2 and one line, and writes nothing."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["compute", "--d", "100000000"], "'--d'"),
        (["compute", "--n", "99999999999999999999"], "'--n'"),
        (["compute", "--start", "9223372036854775806"], "'--start'"),
        (["compute", "--start", "9007199254740990", "--n", "10"], "'--start'"),
        (["compute", "--base", "1e-320"], "'--base'"),
        (["compute", "--base", "1e309"], "'--base'"),
        (["wavelengths", "--d", "1000000000"], "'--d'"),
        (["fourier", "--k", "100000000", "1"], "'--k'"),
        (["fourier", "--k", "10", "1e308"], "'VALUES...'"),
        (["fourier", "--linspace", "0", "1", "1000000000"], "'--linspace'"),
        (["plot-fourier", "--points", "1000000"], "'--points'"),
        (["plot-fourier", "--hidden", "4096"], "'--hidden'"),
        (["plot-waves", "--start", "-1e308", "--stop", "1e308"], "'--start'"),
        (["heatmap", "-o", "-", "--data", "-"], "'--data'"),
        (["plot-waves", "-o", "-", "--data", "-"], "'--data'"),
        (["plot-waves", "--pairs", "5,0"], "'--pairs'"),  # pair i counts from 1
        (["precision", "-o", "-"], "'--output'"),
        (["precision", "--d", "1000000000", "--n", "1"], "'--d'"),
    ],
)
def test_rejected_before_any_work(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args)
    assert result.exit_code == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and option in result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_empty_matrix_is_a_usage_error(run_cli, tmp_path):
    np.save(tmp_path / "e.npy", np.zeros((0, 4)))
    for command in ("add", "fourier"):
        result = run_cli(command, "-i", str(tmp_path / "e.npy"))
        assert result.exit_code == 2 and "'--input'" in result.stderr, result.stderr


def test_identify_refuses_a_table_too_large_to_read_whole(run_cli, tmp_path):
    big = tmp_path / "big.npy"
    table = np.lib.format.open_memmap(big, mode="w+", dtype=np.float16, shape=(1 << 17, 513))
    del table  # a sparse file: nothing is written but the header
    result = run_cli("identify", str(big))
    assert result.exit_code == 2 and "at most 67108864 values" in result.stderr


def test_fp16_overflow_counts_as_an_error_not_nan(run_cli):
    result = run_cli("precision", "--n", "100", "--start", "100000", "--compute-dtype", "float16")
    assert result.exit_code == 0, result.stderr
    assert "first position with error > 0.001: 100000" in result.stdout
    assert "nan" not in result.stdout and result.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["compute", "--d", "4", "--n", "2", "--start", "9007199254740993", "-o", "pe.npy"],
        ["compute", "--d", "4", "--n", "2", "--start", "9007199254740992", "-o", "pe.csv"],
        ["heatmap", "--d", "4", "--n", "2", "--start", "9007199254740993", "-o", "h.png"],
        ["precision", "--d", "4", "--n", "2", "--start", "9007199254740993"],
    ],
)
def test_positions_beyond_2_53_are_refused_exactly(run_cli, tmp_path, monkeypatch, args):
    # 2^53 + 1 rounds to 2^53 in float64: the check must use the integer itself
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args)
    assert result.exit_code == 2 and "'--start'" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == [] and result.stdout == ""


def test_add_checks_the_last_position_of_the_whole_input(run_cli, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((3, 4)))
    result = run_cli("add", "-i", str(tmp_path / "x.npy"), "--start", "9007199254740991")
    assert result.exit_code == 2  # its last row, 2^53 + 1, is past; the first two are not
    assert (
        "with start and start + n - 1 within ±2^53" in result.stderr
        and "(got 9007199254740991)" in result.stderr
    )
    np.save(tmp_path / "x.npy", np.zeros((2, 4)))
    result = run_cli("add", "-i", str(tmp_path / "x.npy"), "--start", "9007199254740991")
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("order", ["stdin-first", "stdin-second"])
def test_one_input_from_stdin_is_taken(run_cli, tmp_path, order):
    """One input at most may be stdin (-), so one alone is read, on either side of diff.

    The table compared with itself is equal (exit 0); only a second "-" is refused."""
    table = "sin_1,cos_1\n0.0,1.0\n0.8414709848078965,0.5403023058681398\n"
    (tmp_path / "b.csv").write_text(table)
    files = ["-", str(tmp_path / "b.csv")]
    result = run_cli("diff", *(files if order == "stdin-first" else files[::-1]), input=table)
    assert result.exit_code == 0, result.output
    assert "equal within the tolerance" in result.stdout
