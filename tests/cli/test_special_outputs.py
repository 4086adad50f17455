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
from shell import bash

from pecli.io import paths

TABLE = "sin_1,cos_1,sin_2,cos_2\n0.84147096,0.5403023,0.009999833,0.99995\n"


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "link"])
def test_a_name_of_stdout_writes_into_the_users_file(pecli_cmd, tmp_path, name):
    log = tmp_path / "log.txt"
    log.write_text("")
    inode = log.stat().st_ino
    (tmp_path / "link").symlink_to("/dev/stdout")
    pecli = shlex.join(pecli_cmd)
    script = f"{{ echo a; {pecli} compute --d 4 --n 1 --format csv -o {name}; echo b; }} > log.txt"
    result = bash(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert log.read_text() == f"a\n{TABLE}b\n"
    assert log.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "log.txt"]  # no .part left


def test_another_descriptor_is_written_at_its_offset(pecli_cmd, tmp_path):
    pecli = shlex.join(pecli_cmd)
    script = f"exec 3> three.txt; echo a >&3; {pecli} compute --d 4 --n 1 -o /dev/fd/3; echo b >&3"
    result = bash(script, tmp_path)
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
            [*pecli_cmd, *command, "-o", "/dev/stdout"],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
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
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
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
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
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
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert target.read_text() == TABLE
    assert target.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("args", "option"),
    [
        ("heatmap --d 4 --n 3 -o h.png --data /dev/fd/7", "--data"),
        ("compute --d 4 --n 2 -o /dev/fd/7", "--output"),
        ("compute --d 4 --n 2 -o /dev/fd/3", "--output"),  # the number a listing would take
        ("compute --d 4 --n 2 -o /dev/fd/99999999999999999999", "--output"),
    ],
)
def test_a_descriptor_the_caller_did_not_open_is_refused(pecli_cmd, tmp_path, args, option):
    """Else /dev/fd/N could name pecli's own files, such as the figure's temporary file."""
    (tmp_path / "h.png").write_bytes(b"old figure")
    result = bash(f"exec 3>&- 7>&-; {shlex.join(pecli_cmd)} {args}", tmp_path)
    assert result.returncode == 2 and f"'{option}'" in result.stderr, result.stderr
    assert "not open" in result.stderr and result.stderr.count("\n") == 1
    assert (tmp_path / "h.png").read_bytes() == b"old figure"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.png"]


def test_a_descriptor_open_for_reading_is_refused(pecli_cmd, tmp_path):
    (tmp_path / "in.txt").write_text("keep\n")
    result = bash(f"{shlex.join(pecli_cmd)} compute --d 4 -o /dev/fd/7 7< in.txt", tmp_path)
    assert result.returncode == 2 and "open for reading only" in result.stderr
    assert (tmp_path / "in.txt").read_text() == "keep\n"


def test_another_process_descriptor_is_appended_to(pecli_cmd, tmp_path):
    pecli = shlex.join(pecli_cmd)
    # not the shell's last command, so the shell stays and /proc/$$ is another process
    script = f"exec >> log.txt; echo a; {pecli} compute --d 4 --n 1 -o /proc/$$/fd/1; echo b"
    result = bash(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "log.txt").read_text() == f"a\n{TABLE}b\n"  # not truncated


@pytest.mark.parametrize(
    "args",
    [
        "heatmap --d 4 --n 2 -o - --data /dev/stdout",
        "heatmap --d 4 --n 2 -o /dev/fd/1 --data -",
        "precision --d 8 --n 100 -o /dev/stdout",
    ],
)
def test_stdout_is_not_shared_through_its_names(pecli_cmd, tmp_path, args):
    result = bash(f"{shlex.join(pecli_cmd)} {args} > out", tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert (tmp_path / "out").read_bytes() == b""


def test_binary_is_not_written_to_a_terminal_through_its_names(pecli_cmd):
    import pty

    main, secondary = pty.openpty()
    try:
        for name in ("/dev/stdout", "/dev/fd/1", os.ttyname(secondary)):
            proc = subprocess.run(
                [*pecli_cmd, "compute", "--d", "4", "--format", "npy", "-o", name],
                stdout=secondary,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
                check=False,
            )
            assert proc.returncode == 2 and "terminal" in proc.stderr, (name, proc.stderr)
    finally:
        os.close(secondary)
        os.close(main)


def test_a_loop_of_links_is_refused_and_kept(pecli_cmd, tmp_path):
    (tmp_path / "c.csv").symlink_to("d.csv")
    (tmp_path / "d.csv").symlink_to("c.csv")
    result = subprocess.run(
        [*pecli_cmd, "compute", "--d", "4", "-o", str(tmp_path / "c.csv")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "loop of symbolic links" in result.stderr
    assert (tmp_path / "c.csv").is_symlink()


def test_a_closed_reader_behind_a_descriptor_is_141(pecli_cmd, tmp_path):
    pecli = shlex.join(pecli_cmd)
    table = f"{pecli} compute --d 512 --n 200000 -o /dev/fd/3 3>&1 >/dev/null"
    script = f"{table} | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}"
    result = bash(script, tmp_path)
    assert result.stdout.strip() == "141" and result.stderr == ""


def test_a_certified_safetensors_cache_through_stdout_follows_what_was_there(pecli_cmd, tmp_path):
    """``{ echo a; pecli rope cache … -o c.safetensors; echo b; } > log`` with c.safetensors a
    link to /dev/stdout: ``a``, the whole safetensors, ``b``. The certificate's counts come
    after the data, but stdout is not sought back into: the first header stays (no counts),
    and ``a`` is not overwritten. cos and sin of positions 0, 1 at ω = 1, 0.01 (θ = 10^4,
    d = 4), half-split, each rounded once to float32 from mpmath."""
    import json

    import mpmath
    from safetensors.numpy import load

    (tmp_path / "c.safetensors").symlink_to("/dev/stdout")
    pecli = shlex.join(pecli_cmd)
    script = (
        f"{{ echo a; {pecli} rope cache --head-dim 4 --n 2 -o c.safetensors -q; echo b; }} > log"
    )
    result = bash(script, tmp_path)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    data = (tmp_path / "log").read_bytes()
    assert data.startswith(b"a\n") and data.endswith(b"b\n")
    body = data[2:-2]
    size = int.from_bytes(body[:8], "little")
    assert len(body) == 8 + size + 2 * 2 * 4 * 4  # the header, then cos and sin: 2 × 4 float32
    assert "pecli_certificate" not in json.loads(body[8 : 8 + size])["__metadata__"]
    tensors = load(body)
    for name, f in (("cos", mpmath.cos), ("sin", mpmath.sin)):
        half = [[float(f(p * w)) for w in (1, mpmath.mpf("0.01"))] for p in (0, 1)]
        assert np.array_equal(tensors[name], np.array([row * 2 for row in half], np.float32))


def test_only_a_character_device_can_be_a_terminal(pecli_cmd, tmp_path):
    """A FIFO or a regular file named by -o is no terminal: npy goes to it (a terminal refuses
    binary output)."""
    fifo, plain = tmp_path / "pipe", tmp_path / "plain.npy"
    os.mkfifo(fifo)
    plain.write_bytes(b"")
    assert not paths.is_terminal(fifo) and not paths.is_terminal(plain)  # the FIFO not opened
    assert not paths.is_terminal("/dev/null")  # a character device, but no terminal
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = subprocess.run(
        [*pecli_cmd, "compute", "--d", "4", "--n", "1", "--format", "npy", "-o", str(fifo)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert received[0].startswith(b"\x93NUMPY")
