"""Inputs named by a path that is a pipe: ``<(command)``, a FIFO, ``/dev/stdin`` (issue 12, 3f).

``add`` and ``fourier`` read them once, in order, like stdin (``identify`` always did).
"""

from __future__ import annotations

import shlex
import subprocess

import numpy as np
import pytest
from shell import bash

CSV = "1,2\n3,4\n"


@pytest.mark.parametrize(
    "how",
    ["pecli add -i <(cat x.csv)", "cat x.csv | pecli add -i /dev/stdin",
     "pecli add -i <(cat x.npy) --format csv", "cat x.csv | pecli add -i /proc/self/fd/0"],
)  # fmt: skip
def test_add_reads_a_pipe_given_by_name(pecli_cmd, tmp_path, how):
    (tmp_path / "x.csv").write_text(CSV)
    np.save(tmp_path / "x.npy", np.array([[1.0, 2.0], [3.0, 4.0]]))
    result = bash(how.replace("pecli", shlex.join(pecli_cmd)), tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "x_1,x_2" and len(lines) == 3
    np.testing.assert_allclose(
        np.loadtxt(lines[1:], delimiter=","),
        [[1 + np.sin(1), 2 + np.cos(1)], [3 + np.sin(2), 4 + np.cos(2)]], atol=3e-7,
    )  # fmt: skip


def test_fourier_reads_a_fifo(pecli_cmd, tmp_path):
    import os

    os.mkfifo(tmp_path / "values")
    script = f"printf '0\\n1\\n' > values & {shlex.join(pecli_cmd)} fourier --k 1 -i values"
    result = bash(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["0.0,1.0", "0.8414709848078965,0.5403023058681398"]


def test_an_empty_device_is_an_empty_input(pecli_cmd):
    result = subprocess.run(
        [*pecli_cmd, "add", "-i", "/dev/null"], capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "empty input" in result.stderr
    assert result.stderr.count("\n") == 1
