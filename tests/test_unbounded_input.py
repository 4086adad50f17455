"""Endless or binary stdin is refused as it arrives, not after reading it all (issue 12, 3d)."""

from __future__ import annotations

import resource
import shlex
import subprocess

import pytest


@pytest.mark.parametrize(
    ("source", "args", "words"),
    [
        ("cat /dev/zero", "add", "binary data"),
        ("cat /dev/zero", "fourier -i -", "binary data"),
        ("cat /dev/zero", "identify -", "binary data"),
        ("yes 1,2", "add", "64 MiB as CSV"),
        ("yes 1,2", "fourier -i -", "64 MiB as CSV"),
        ("yes 1,2", "identify -", "67,108,864 bytes"),
    ],
)
def test_endless_stdin_is_refused_early(pecli_cmd, tmp_path, source, args, words):
    script = f"{source} | {shlex.join(pecli_cmd)} {args}"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mib < 400 or peak_mib <= before / 1024  # read a bounded amount, not everything
    assert list(tmp_path.iterdir()) == []
