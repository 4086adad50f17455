"""Closed standard streams: ``2>&-`` is ignored, ``>&-`` and ``<&-`` are named (issue 12, 3c).

The descriptors are closed by the shell before pecli starts, which in-process tests cannot do.
"""

from __future__ import annotations

import shlex
import subprocess

import numpy as np
import pytest
from shell import bash


def _bash(pecli_cmd, args: str, redirect: str, cwd) -> subprocess.CompletedProcess[str]:
    # the shell's own stderr stays open: 2>&- applies to pecli alone
    return bash(f"{shlex.join(pecli_cmd)} {args} {redirect}", cwd, timeout=120)


@pytest.mark.parametrize(
    ("args", "made"),
    [
        ("compute --d 8 --n 100000 -o t.npy", "t.npy"),
        ("heatmap --d 8 --n 3 -o h.png", "h.png"),
        ("compute --d 8 --n 10 --format csv -o t.csv", "t.csv"),
    ],
)
def test_a_closed_stderr_is_ignored(pecli_cmd, tmp_path, args, made):
    result = _bash(pecli_cmd, args, "2>&-", tmp_path)
    assert result.returncode == 0
    assert [p.name for p in tmp_path.iterdir()] == [made]


def test_a_closed_stderr_keeps_the_usage_status(pecli_cmd, tmp_path):
    assert _bash(pecli_cmd, "compute --d 3", "2>&-", tmp_path).returncode == 2


@pytest.mark.parametrize(
    "args",
    [
        "compute --d 4 --n 2",
        "compute --d 4 --n 2 --format npy",
        "conventions",
        "wavelengths --d 4",
        "--help",
        "fourier --k 1 1",
    ],
)
def test_a_closed_stdout_is_named(pecli_cmd, tmp_path, args):
    result = _bash(pecli_cmd, args, ">&-", tmp_path)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "stdout is closed" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_closed_stdout_is_unused_when_writing_a_file(pecli_cmd, tmp_path):
    result = _bash(pecli_cmd, "compute --d 4 --n 2 -o t.npy", ">&-", tmp_path)
    assert result.returncode == 0, result.stderr
    np.testing.assert_allclose(np.load(tmp_path / "t.npy")[1, 0], np.sin(2), atol=1e-7)


@pytest.mark.parametrize(
    ("args", "option"),
    [("add", "--input"), ("fourier -i -", "--input"), ("identify -", "FILE")],
)
def test_a_closed_stdin_is_named(pecli_cmd, tmp_path, args, option):
    result = _bash(pecli_cmd, args, "<&-", tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "stdin, which is closed" in result.stderr
    assert f"'{option}'" in result.stderr
