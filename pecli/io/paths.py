"""What an output name refers to: stdout, an open descriptor, a device, or a regular file.

Only a regular file is written atomically (a temporary file renamed over it). Every other
output is written through, never replaced (docs/cli.md#output-files):

* ``-`` (or no name): standard output;
* a name that leads to one of this process's open descriptors — ``/dev/stdout``,
  ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N`` — even when that descriptor is a
  regular file (``{ echo a; pecli … -o /dev/stdout; } > log.txt`` keeps the ``a``);
* a terminal, pipe, FIFO, socket or device (``/dev/null``), or another process's descriptor.

Standard library only (loaded before numpy). No maths here.
"""

from __future__ import annotations

import os
import re
import stat

__all__ = ["STDOUT", "descriptor", "is_special", "is_stdout", "name_max"]

STDOUT = "-"
#: A folder of open descriptors in /proc (of a process, or of one of its threads).
_FD_FOLDER = re.compile(r"/proc/(\d+|self|thread-self)(/task/\d+)?/fd")
#: Symbolic links followed at most (the kernel's own limit is 40).
_MAX_LINKS = 40


def is_stdout(output: str | os.PathLike[str] | None) -> bool:
    """True when ``output`` means standard output (``None`` or ``"-"``)."""
    return output is None or str(output) == STDOUT


def _fd_link(output: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(pid, fd)`` when ``output`` leads through links to a ``/proc/PID/fd/N`` entry."""
    path = os.path.abspath(str(output))
    for _ in range(_MAX_LINKS):
        folder, name = os.path.realpath(os.path.dirname(path)), os.path.basename(path)
        found = _FD_FOLDER.fullmatch(folder)
        if found and name.isdigit():
            owner = found.group(1)
            return (int(owner) if owner.isdigit() else os.getpid()), int(name)
        path = os.path.join(folder, name)
        if not os.path.islink(path):
            return None
        path = os.path.join(folder, os.readlink(path))
    return None


def descriptor(output: str | os.PathLike[str] | None) -> int | None:
    """The open descriptor of this process that ``output`` names, else None.

    ``/dev/stdout`` gives 1, ``/dev/fd/5`` and ``/proc/self/fd/5`` give 5; so does a
    symbolic link to one of them.

    >>> descriptor("/dev/stdout"), descriptor("/dev/fd/2"), descriptor("table.csv")
    (1, 2, None)
    """
    if is_stdout(output):
        return None
    found = _fd_link(output)  # type: ignore[arg-type]
    if found is None or found[0] != os.getpid():
        return None
    return found[1]


def is_special(output: str | os.PathLike[str] | None) -> bool:
    """True for an output that must be written through, not replaced (not stdout itself).

    That is a name leading to an open descriptor (this process's or another's), or an
    existing terminal, pipe, FIFO, socket or device.
    """
    if is_stdout(output):
        return False
    if _fd_link(output) is not None:  # type: ignore[arg-type]
        return True
    try:
        mode = os.stat(str(output)).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def name_max(folder: str | os.PathLike[str]) -> int:
    """Longest file name the folder's file system takes, in bytes (255 almost everywhere)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255
