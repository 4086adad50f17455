"""pecli.io.paths: what it says about an output's file system and a failed write.

Oracles are hand-made: a mount table written here (``/proc/self/mountinfo``'s format, proc(5))
and the errors Python raises for ``ENOSPC`` (``OSError(28, ...)``, and the bare
``OSError("[Errno 28] ...")`` a writer such as polars re-raises).
"""

from __future__ import annotations

import errno

import pytest
from mountinfo import fake_mountinfo

from pecli.io import paths

TABLE = (
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "40 27 0:40 / /srv/archive rw,relatime - ext4 /dev/vdb ro\n"
    "41 27 0:41 / /srv/archive/new rw,relatime - ext4 /dev/vdc rw\n"
)


def test_a_folder_on_a_read_only_mount_is_named_with_its_mount(monkeypatch):
    """The super-block option ``ro`` (after `` - ``) of the longest mount above the folder."""
    fake_mountinfo(monkeypatch, TABLE)
    monkeypatch.setattr(paths.os.path, "realpath", lambda folder: str(folder))
    monkeypatch.setattr(paths.os, "statvfs", lambda folder: pytest.fail("table was enough"))
    problem = paths.file_system_problem("/srv/archive/old")
    assert problem == "is on a read-only file system (/srv/archive)"


def test_the_longest_mount_above_a_folder_wins_whatever_the_order_of_the_table(monkeypatch):
    """/data/deep (proc) listed before /data (ext4): the folder /data/deep/x is on proc,
    the longer of the two mount points above it, which holds no new files."""
    table = (
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "50 27 0:50 / /data/deep rw,relatime - proc proc rw\n"
        "51 27 0:51 / /data rw,relatime - ext4 /dev/vdb rw\n"
    )
    fake_mountinfo(monkeypatch, table)
    monkeypatch.setattr(paths.os.path, "realpath", lambda folder: str(folder))
    problem = paths.file_system_problem("/data/deep/x")
    assert problem == "is on a proc file system (/data/deep), which holds no new files"


def test_a_failed_write_names_its_output_or_stdout():
    with pytest.raises(OSError) as to_file, paths.naming_errors("/srv/out.npy"):
        raise OSError(errno.ENOSPC, "No space left on device")
    assert to_file.value.filename == "/srv/out.npy"
    with pytest.raises(OSError) as to_stdout, paths.naming_errors(None):
        raise OSError(f"[Errno {errno.ENOSPC}] No space left on device")
    assert str(to_stdout.value) == "No space left on device: stdout"


def test_name_max_of_a_folder_that_is_not_there_is_linuxs_name_max(tmp_path):
    """``pathconf`` cannot ask a missing folder; the answer is then NAME_MAX of Linux's
    ``<linux/limits.h>``, 255; an existing folder gets its file system's own answer."""
    import os

    from pecli.io.paths import name_max

    assert name_max(tmp_path / "absent") == 255
    assert name_max(tmp_path) == os.pathconf(tmp_path, "PC_NAME_MAX")


def test_a_name_16_bytes_under_name_max_keeps_its_name_in_the_part_file(tmp_path):
    """.NAME.XXXXXXXX.part is the name plus 15 bytes: at NAME_MAX − 16 it still fits."""
    from pecli.io.guard import atomic_output
    from pecli.io.paths import name_max

    target = tmp_path / ("a" * (name_max(tmp_path) - 16))
    with atomic_output(target) as handle:
        handle.write(b"x")
        [part] = [p.name for p in tmp_path.iterdir()]
    assert part.startswith(f".{target.name}.") and part.endswith(".part")
    assert len(part) == len(target.name) + 15
