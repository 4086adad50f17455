"""Outputs that are written through, never replaced: /dev/stdout, /dev/fd/N, FIFOs, devices.

``{ echo a; pecli … -o /dev/stdout; echo b; } > log.txt`` must leave ``a``, the table and
``b`` in the user's ``log.txt``, the same file (its inode unchanged): an atomic rename over
the name would replace the file behind the descriptor (docs/cli.md#output-files).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import threading

import numpy as np
import pytest

from pecli.io import paths

TABLE = "sin_1,cos_1,sin_2,cos_2\n0.84147096,0.5403023,0.009999833,0.99995\n"


def _shell(script: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "link"])
def test_a_name_of_stdout_writes_into_the_users_file(pecli_cmd, tmp_path, name):
    log = tmp_path / "log.txt"
    log.write_text("")
    inode = log.stat().st_ino
    (tmp_path / "link").symlink_to("/dev/stdout")
    pecli = shlex.join(pecli_cmd)
    script = f"{{ echo a; {pecli} compute --d 4 --n 1 --format csv -o {name}; echo b; }} > log.txt"
    result = _shell(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert log.read_text() == f"a\n{TABLE}b\n"
    assert log.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "log.txt"]  # no .part left


def test_another_descriptor_is_written_at_its_offset(pecli_cmd, tmp_path):
    pecli = shlex.join(pecli_cmd)
    script = f"exec 3> three.txt; echo a >&3; {pecli} compute --d 4 --n 1 -o /dev/fd/3; echo b >&3"
    result = _shell(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "three.txt").read_text() == f"a\n{TABLE}b\n"


@pytest.mark.parametrize(
    ("command", "check"),
    [
        (["wavelengths", "--d", "4", "--format", "csv"], lambda text: "pair," in text),
        (["heatmap", "--d", "8", "--n", "3", "-q"], lambda text: "PNG" in text[:8]),
    ],
)
def test_other_commands_write_through_stdout_names(pecli_cmd, tmp_path, command, check):
    log = tmp_path / "log.bin"
    with open(log, "w") as handle:
        handle.write("a\n")
        handle.flush()
        result = subprocess.run(
            [*pecli_cmd, *command, "-o", "/dev/stdout"], stdout=handle, stderr=subprocess.PIPE,
            text=True, timeout=60, check=False,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = log.read_bytes()
    assert data.startswith(b"a\n") and check(data[2:].decode("latin-1"))
    assert [p.name for p in tmp_path.iterdir()] == ["log.bin"]


def test_a_fifo_is_written_through(pecli_cmd, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = subprocess.run(
        [*pecli_cmd, "compute", "--d", "4", "--n", "1", "-o", str(fifo)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert received == [TABLE.encode()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_descriptor_follows_links_to_this_process_only(tmp_path):
    (tmp_path / "out").symlink_to("/dev/stderr")
    assert paths.descriptor(tmp_path / "out") == 2
    assert paths.descriptor("/proc/self/fd/0") == 0
    assert paths.descriptor(f"/proc/{os.getpid()}/fd/1") == 1
    assert paths.descriptor("/proc/1/fd/1") is None and paths.is_special("/proc/1/fd/1")
    assert paths.descriptor(tmp_path / "plain.csv") is None
    assert not paths.is_special(tmp_path / "plain.csv")
    assert paths.is_special("/dev/null") and paths.descriptor("/dev/null") is None


def test_a_regular_file_is_still_replaced_atomically(pecli_cmd, tmp_path):
    target = tmp_path / "t.npy"
    target.write_bytes(b"old")
    inode = target.stat().st_ino
    result = subprocess.run(
        [*pecli_cmd, "compute", "--d", "4", "--n", "2", "-o", str(target)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert target.stat().st_ino != inode  # renamed over, as before
    np.testing.assert_allclose(np.load(target)[0], [0.84147096, 0.5403023, 0.009999833, 0.99995])


def test_a_replaced_file_keeps_its_mode(pecli_cmd, tmp_path):
    """A private table stays private when it is rebuilt (issue 12, 3f): mode 0600 is kept."""
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    target.chmod(0o600)
    result = subprocess.run(
        [*pecli_cmd, "compute", "--d", "4", "--n", "1", "-o", str(target)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert target.read_text() == TABLE
    assert target.stat().st_mode & 0o777 == 0o600
