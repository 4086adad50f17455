"""pecli.io.paths against its documented rules (docs/cli.md#output-files), in this process.

Oracles: what the kernel says of the objects made here (a FIFO, /dev/null, a descriptor
opened read-only), proc(5)'s ``/proc/PID/fd/N`` names and symbolic-link limit (40), and
the mount table's format (proc(5), ``\\040`` for a space).
"""

from __future__ import annotations

import os
import stat
from types import SimpleNamespace

import pytest
from mountinfo import fake_mountinfo

from pecli.core.errors import ParameterError
from pecli.io import paths


@pytest.mark.parametrize(
    ("name", "fd"),
    [
        ("/dev/stdout", 1),
        ("/dev/fd/2", 2),
        ("/proc/self/fd/0", 0),
        ("/proc/{pid}/fd/1", 1),  # this process's own number, filled in by the test (a
        ("/proc/{pid}/task/{pid}/fd/2", 2),  # number in the id would differ between workers)
        ("/proc/thread-self/fd/1", 1),
        ("/proc/1/fd/1", None),  # another process's descriptor
        ("/proc/self/fd/x1", None),
        ("/dev/fd/\u0661", None),  # ARABIC-INDIC DIGIT ONE: a digit, not an ASCII one
        ("-", None),
        (None, None),
        ("table.csv", None),
    ],
)
def test_the_descriptor_a_name_leads_to(name, fd):
    name = name.format(pid=os.getpid()) if name else name
    assert paths.descriptor(name) == fd


@pytest.mark.parametrize(("links", "fd"), [(39, 1), (40, None)])
def test_links_are_followed_up_to_the_kernel_s_limit(tmp_path, links, fd):
    """A chain of 39 links to /dev/fd/1 is read in 40 steps, the kernel's limit; 40 are not."""
    target = "/dev/fd/1"
    for k in range(links):
        link = tmp_path / f"l{k}"
        link.symlink_to(target)
        target = str(link)
    assert paths.descriptor(target) == fd


def test_what_is_written_through_and_what_is_replaced(tmp_path):
    """Written through: a descriptor's name (this process's or another's), a device, a FIFO;
    replaced: a regular file; neither: stdout itself, a folder, a name that is not there."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    regular = tmp_path / "r.csv"
    regular.write_text("a")
    special = ["/dev/fd/1", "/proc/1/fd/1", "/dev/null", str(fifo)]
    plain = ["-", None, str(regular), str(tmp_path), str(tmp_path / "absent")]
    assert [paths.is_special(name) for name in special] == [True] * 4
    assert [paths.is_special(name) for name in plain] == [False] * 5


@pytest.mark.parametrize(
    ("name", "alias"), [(None, True), ("-", True), ("/dev/stdout", True), ("/dev/fd/2", False)]
)
def test_stdout_aliases(name, alias):
    assert paths.is_stdout_alias(name) is alias


def test_a_descriptor_must_be_open_for_writing_and_handed_over(tmp_path, monkeypatch):
    """A descriptor open read-only is refused; one open for writing (or both) is taken; a
    number not open, or one the shell did not hand over, is refused as not open."""
    path = tmp_path / "f"
    path.write_text("x")
    reading = os.open(path, os.O_RDONLY)
    writing = os.open(path, os.O_WRONLY)
    both = os.open(path, os.O_RDWR)
    try:
        monkeypatch.setattr(paths, "_inherited", None)
        assert "open for reading only" in paths.descriptor_problem(f"/dev/fd/{reading}")
        assert paths.descriptor_problem(f"/dev/fd/{writing}") is None
        assert paths.descriptor_problem(f"/dev/fd/{both}") is None
        assert paths.descriptor_problem(str(path)) is None
        monkeypatch.setattr(paths, "_inherited", {both})
        assert paths.descriptor_problem(f"/dev/fd/{both}") is None
        problem = paths.descriptor_problem(f"/dev/fd/{writing}")
        assert (
            problem
            == f"must name an open descriptor; {writing} is not open (open it: {writing}> FILE)"
        )
    finally:
        for fd in (reading, writing, both):
            os.close(fd)
    monkeypatch.setattr(paths, "_inherited", None)
    assert "is not open" in paths.descriptor_problem(f"/dev/fd/{reading}")


def test_no_fifo_file_or_null_device_is_a_terminal(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    regular = tmp_path / "r"
    regular.write_text("")
    names = [str(fifo), str(regular), "/dev/null", str(tmp_path / "absent")]
    assert [paths.is_terminal(name) for name in names] == [False] * 4


def test_a_regular_file_behind_a_name_is_appended_to_and_a_descriptor_duplicated(tmp_path):
    """open_through: a regular file is appended to (never truncated); this process's
    descriptor is duplicated, so closing the copy leaves it open."""
    regular = tmp_path / "r"
    regular.write_bytes(b"a")
    with paths.open_through(str(regular)) as out:
        out.write(b"b")
    assert regular.read_bytes() == b"ab"
    fd = os.open(tmp_path / "w", os.O_WRONLY | os.O_CREAT)
    try:
        with paths.open_through(f"/dev/fd/{fd}") as out:
            out.write(b"c")
        assert os.fstat(fd).st_size == 1  # still open after the copy closed
    finally:
        os.close(fd)
    with paths.open_through("/dev/null") as out:
        assert out.mode == "wb"


def test_an_output_that_is_an_input_is_refused_under_any_name(tmp_path):
    """Within a command: a hard link or symbolic link of an input is that input; another
    file is not; outside a command nothing is recorded."""
    source = tmp_path / "in.npy"
    source.write_bytes(b"x")
    os.link(source, tmp_path / "hard.npy")
    (tmp_path / "soft.npy").symlink_to(source)
    other = tmp_path / "other.npy"
    other.write_bytes(b"y")
    with paths.reading_inputs():
        paths.note_input(tmp_path / "absent.npy")  # nothing to remember
        paths.note_input(tmp_path)  # a folder: no regular file
        paths.check_not_input(str(other), (str(source), None))
        want = f"must not be the input {source} (it would be replaced): give another file name"
        assert paths.input_problem(str(tmp_path / "hard.npy")) == want
        assert paths.input_problem(str(tmp_path / "soft.npy")) == want
        assert paths.input_problem(str(tmp_path)) is None
        assert paths.input_problem("-") is None
        with pytest.raises(ParameterError) as caught:
            paths.check_not_input(str(tmp_path / "hard.npy"), parameter="out")
        assert caught.value.parameter == "out" and caught.value.rule == want
    assert paths.input_problem(str(source)) is None
    paths.note_input(source)  # outside a command: not recorded
    assert paths.input_problem(str(source)) is None


def test_what_cannot_be_read_at_offsets(tmp_path):
    regular = tmp_path / "r"
    regular.write_text("")
    assert paths.offsets_problem(str(regular), "GGUF") is None
    assert paths.offsets_problem(str(tmp_path), "GGUF") == (
        "is a folder: a GGUF is read at offsets (save a stream to a file first)"
    )
    assert paths.offsets_problem("/no/such", "GGUF", stat.S_IFREG) is None  # the mode given
    assert paths.offsets_problem("/no/such", "GGUF") == "must be an existing GGUF"


def test_write_errors_that_name_a_file_or_a_broken_pipe_pass_unchanged():
    with pytest.raises(BrokenPipeError) as pipe, paths.naming_errors("out.csv"):
        raise BrokenPipeError(32, "Broken pipe")
    assert pipe.value.filename is None
    with pytest.raises(OSError) as named, paths.naming_errors("out.csv"):
        raise OSError(28, "No space left on device", "/tmp/x")
    assert named.value.filename == "/tmp/x"


def test_a_mount_point_s_octal_escapes_are_read(monkeypatch):
    """proc(5): a space in a mount point is written \\040; later equal points win."""
    table = (
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "short line\n"
        "40 27 0:40 / /mnt/my\\040disk rw,relatime - ext4 /dev/vdb ro\n"
        "41 27 0:41 / /mnt/other rw,relatime - ext4 /dev/vdc rw\n"
        "42 27 0:42 / /mnt/other rw,relatime - devpts devpts rw\n"
    )
    fake_mountinfo(monkeypatch, table)
    monkeypatch.setattr(paths.os.path, "realpath", lambda folder: str(folder))
    monkeypatch.setattr(paths.os, "statvfs", lambda folder: SimpleNamespace(f_flag=0))
    assert paths.file_system_problem("/mnt/my disk/x") == (
        "is on a read-only file system (/mnt/my disk)"
    )
    assert paths.file_system_problem("/mnt/other") == (
        "is on a devpts file system (/mnt/other), which holds no new files"
    )
    assert paths.file_system_problem("/mnt/otherwise") is None


def test_a_pseudo_terminal_is_a_terminal_by_its_descriptor_and_as_stdout():
    """os.openpty's other end is a terminal: named /dev/fd/N, and as stdout ("-") while
    descriptor 1 is it."""
    master, slave = os.openpty()
    saved = os.dup(1)
    try:
        assert paths.is_terminal(f"/dev/fd/{slave}") is True
        os.dup2(slave, 1)
        assert paths.is_terminal("-") is True
    finally:
        os.dup2(saved, 1)
        for fd in (saved, master, slave):
            os.close(fd)
