"""Endless or binary stdin is refused as it arrives, not after reading it all (issue 12, 3d)."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

#: Runs a bash script and prints the peak resident memory (KiB) of its processes alone.
PEAK = (
    "import resource, subprocess, sys; done = subprocess.run(['bash', '-c', sys.argv[1]]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)"
)


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
    script = f"{source} | {shlex.join(pecli_cmd)} {args} > /dev/null"
    result = subprocess.run(
        [sys.executable, "-c", PEAK, script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr
    peak_mib = int(result.stdout.split()[-1]) / 1024
    assert peak_mib < 400  # a bounded amount was read (64 MiB of CSV at most), not everything
    assert list(tmp_path.iterdir()) == []
