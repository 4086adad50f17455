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
    [
        "pecli add -i <(cat x.csv)",
        "cat x.csv | pecli add -i /dev/stdin",
        "pecli add -i <(cat x.npy) --format csv",
        "cat x.csv | pecli add -i /proc/self/fd/0",
    ],
)
def test_add_reads_a_pipe_given_by_name(pecli_cmd, tmp_path, how):
    (tmp_path / "x.csv").write_text(CSV)
    np.save(tmp_path / "x.npy", np.array([[1.0, 2.0], [3.0, 4.0]]))
    result = bash(how.replace("pecli", shlex.join(pecli_cmd)), tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "x_1,x_2" and len(lines) == 3
    np.testing.assert_allclose(
        np.loadtxt(lines[1:], delimiter=","),
        [[1 + np.sin(1), 2 + np.cos(1)], [3 + np.sin(2), 4 + np.cos(2)]],
        atol=3e-7,
    )


def test_fourier_reads_a_fifo(pecli_cmd, tmp_path):
    import os

    os.mkfifo(tmp_path / "values")
    script = f"printf '0\\n1\\n' > values & {shlex.join(pecli_cmd)} fourier --k 1 -i values"
    result = bash(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["0.0,1.0", "0.8414709848078965,0.5403023058681398"]


def test_an_empty_device_is_an_empty_input(pecli_cmd):
    result = subprocess.run(
        [*pecli_cmd, "add", "-i", "/dev/null"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "empty input" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("suffix", ["npy", "csv"])
def test_diff_reads_a_fifo_as_identify_and_add_do(pecli_cmd, tmp_path, suffix):
    """A FIFO is read once, in order; its values are the file's (0 ulps from itself)."""
    import os

    table = np.array([[0.0, 1.0], [0.8414709848078965, 0.5403023058681398]])
    np.save(tmp_path / "t.npy", table)
    np.savetxt(tmp_path / "t.csv", table, delimiter=",", fmt="%.17g", header="a,b", comments="")
    os.mkfifo(tmp_path / "pipe")
    script = f"cat t.{suffix} > pipe & {shlex.join(pecli_cmd)} diff pipe t.npy --format json"
    result = bash(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert '"differing": 0' in result.stdout


@pytest.mark.parametrize("command", [["diff", "pipe", "t.npy"], ["identify", "pipe"]])
def test_a_fifo_nobody_writes_waits_like_cat_until_ctrl_c(pecli_cmd, tmp_path, command):
    """No writer: open() waits, as for ``cat``; Ctrl-C ends the wait with status 130."""
    import os
    import signal
    import time

    np.save(tmp_path / "t.npy", np.eye(2))
    os.mkfifo(tmp_path / "pipe")
    proc = subprocess.Popen(
        [*pecli_cmd, *command], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(1.0)
    assert proc.poll() is None  # still waiting for a writer
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and b"Traceback" not in err


@pytest.mark.parametrize(
    ("command", "option"),
    [
        (["diff", "{fifo}", "{fifo}"], "'A'"),
        (["identify", "{fifo}"], "'FILE'"),
        (["rope", "identify", "{fifo}"], "'FILE'"),
        (
            [
                "rope",
                "permute",
                "--input",
                "{fifo}",
                "--tensor",
                "wq",
                "--heads",
                "2",
                "-o",
                "{out}",
            ],
            "--input",
        ),
    ],
)
def test_a_fifo_named_safetensors_is_refused_at_once_with_why(pecli_cmd, tmp_path, command, option):
    """.safetensors are read at offsets: a FIFO is refused before it is opened (no wait)."""
    import os

    fifo = tmp_path / "m.safetensors"
    os.mkfifo(fifo)
    args = [a.format(fifo=fifo, out=tmp_path / "out.safetensors") for a in command]
    result = subprocess.run(
        [*pecli_cmd, *args], capture_output=True, text=True, timeout=30, check=False
    )  # opening the FIFO would wait: a timeout, not a hang
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert option in result.stderr and "is not a regular file" in result.stderr
    assert "is read at offsets (save a stream to a file first)" in result.stderr


def test_the_safetensors_reader_itself_refuses_a_fifo_and_a_folder(tmp_path):
    """The refusal is the reader's, not each caller's: no caller can forget it and hang."""
    import os

    from pecli import ParameterError
    from pecli.io.reading.safetensors_file import SafetensorsFile

    fifo = tmp_path / "m.safetensors"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "is not a regular file"), (tmp_path, "is a folder")):
        with pytest.raises(ParameterError, match=kind) as refused:
            SafetensorsFile(str(path), parameter="input")
        assert "a .safetensors file is read at offsets" in str(refused.value)
    with pytest.raises(ParameterError, match=r"must be an existing \.safetensors file"):
        SafetensorsFile(str(tmp_path / "none.safetensors"), parameter="input")
