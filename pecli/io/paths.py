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

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from typing import IO

__all__ = [
    "STDOUT",
    "check_not_input",
    "descriptor",
    "descriptor_problem",
    "file_system_problem",
    "input_problem",
    "is_special",
    "is_stdout",
    "is_stdout_alias",
    "is_terminal",
    "name_max",
    "naming_errors",
    "note_input",
    "offsets_problem",
    "open_through",
    "reading_inputs",
    "remember_open_descriptors",
    "same_file",
]

STDOUT = "-"
#: A folder of open descriptors in /proc (of a process, or of one of its threads).
_FD_FOLDER = re.compile(r"/proc/(\d+|self|thread-self)(/task/\d+)?/fd")
#: Symbolic links followed at most (the kernel's own limit is 40).
_MAX_LINKS = 40
#: The descriptors open when the command line started (None: not recorded, the library).
_inherited: set[int] | None = None
#: The files a running command reads, by what they are (st_dev, st_ino), with their names;
#: None outside a command (the library keeps no record).
_inputs: dict[tuple[int, int], str] | None = None


def remember_open_descriptors() -> None:
    """Record which descriptors the caller handed over, before pecli opens any of its own.

    ``-o /dev/fd/3`` is then refused unless the shell opened 3 (``3> file``): otherwise the
    number could name one of pecli's own files, such as the temporary file of a figure.
    """
    global _inherited
    listing = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)  # takes a number itself
    try:
        _inherited = {int(name) for name in os.listdir(listing) if name.isdigit()} - {listing}
    finally:
        os.close(listing)


def is_stdout(output: str | os.PathLike[str] | None) -> bool:
    """True when ``output`` means standard output (``None`` or ``"-"``)."""
    return output is None or str(output) == STDOUT


def _fd_link(output: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(pid, fd)`` when ``output`` leads through links to a ``/proc/PID/fd/N`` entry."""
    path = os.path.abspath(str(output))
    for _ in range(_MAX_LINKS):
        folder, name = os.path.realpath(os.path.dirname(path)), os.path.basename(path)
        found = _FD_FOLDER.fullmatch(folder)
        if found and name.isascii() and name.isdigit():
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


def is_stdout_alias(output: str | os.PathLike[str] | None) -> bool:
    """True for stdout itself and for names of descriptor 1 (``/dev/stdout``, ``/dev/fd/1``)."""
    return is_stdout(output) or descriptor(output) == 1


def descriptor_problem(output: str | os.PathLike[str] | None) -> str | None:
    """Why ``output``, a name of one of this process's descriptors, cannot be written to.

    None when it can (or when ``output`` names no descriptor).
    """
    fd = descriptor(output)
    if fd is None:
        return None
    flags = _flags(fd)
    if flags is None or (_inherited is not None and fd not in _inherited):
        return f"must name an open descriptor; {fd} is not open (open it: {fd}> FILE)"
    if flags & os.O_ACCMODE == os.O_RDONLY:
        return f"must name a descriptor open for writing; {fd} is open for reading only"
    return None


def _flags(fd: int) -> int | None:
    import fcntl

    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL)
    except (OSError, OverflowError, ValueError):
        return None


def is_terminal(output: str | os.PathLike[str] | None) -> bool:
    """Whether a written-through output is a terminal (``/dev/tty``, ``/dev/stdout`` on one)."""
    fd = descriptor(output)
    if is_stdout(output) or fd is not None:
        return os.isatty(1 if fd is None else fd)
    try:  # only a character device can be one; opening a FIFO would wake its reader
        if not stat.S_ISCHR(os.stat(str(output)).st_mode):
            return False
        probe = os.open(str(output), os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return os.isatty(probe)
    finally:
        os.close(probe)


def open_through(output: str | os.PathLike[str] | None) -> IO[bytes]:
    """Open an output that is written through (:func:`is_special`) for binary writing.

    One of this process's descriptors is duplicated, so writes go on at its offset and
    closing the copy leaves it open; a regular file behind another process's descriptor is
    appended to, never truncated; a device, FIFO or socket is opened for writing.
    """
    fd = descriptor(output)
    if fd is not None:
        return os.fdopen(os.dup(fd), "wb")
    try:
        regular = stat.S_ISREG(os.stat(str(output)).st_mode)
    except OSError:
        regular = False
    return open(str(output), "ab" if regular else "wb")


#: File systems of the kernel's own (Linux): they hold no new files, whatever their mode says.
_KERNEL_FILE_SYSTEMS = frozenset(
    {
        *("proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs"),
        *("configfs", "pstore", "bpf", "efivarfs", "fusectl", "binfmt_misc", "devpts"),
        *("autofs", "nsfs"),
    }
)


def file_system_problem(folder: str | os.PathLike[str]) -> str | None:
    """Why no file can be created in ``folder`` whatever its mode: read-only, or the kernel's.

    The mount that holds ``folder`` is the longest mount point of ``/proc/self/mountinfo``
    above it (its type and options); without a mount table, ``statvfs`` tells read-only.

    >>> file_system_problem("/proc")
    'is on a proc file system (/proc), which holds no new files'
    """
    where = os.path.realpath(folder)
    best: tuple[str, str, str] | None = None
    with (
        contextlib.suppress(OSError),
        open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as table,
    ):
        for line in table:
            fields, _, tail = line.partition(" - ")
            parts, rest = fields.split(), tail.split()
            if len(parts) < 6 or len(rest) < 3:
                continue
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), parts[4])
            inside = where == point or where.startswith(point.rstrip("/") + "/")
            if inside and (best is None or len(point) >= len(best[0])):
                best = (point, rest[0], f"{parts[5]},{rest[2]}")
    if best is not None and best[1] in _KERNEL_FILE_SYSTEMS:
        return f"is on a {best[1]} file system ({best[0]}), which holds no new files"
    read_only = best is not None and "ro" in best[2].split(",")
    with contextlib.suppress(OSError):
        read_only = read_only or bool(os.statvfs(where).f_flag & os.ST_RDONLY)
    return f"is on a read-only file system ({best[0] if best else where})" if read_only else None


def name_max(folder: str | os.PathLike[str]) -> int:
    """Longest file name the folder's file system takes, in bytes (255 almost everywhere)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


@contextlib.contextmanager
def naming_errors(output: str | os.PathLike[str] | None) -> Iterator[None]:
    """A write error (``ENOSPC`` on ``/dev/full``) names the output it failed on.

    Some writers (polars) re-raise the system's error as a bare ``OSError("[Errno 28] …")``:
    its text is kept without the ``[Errno N]`` prefix.
    """
    name = "stdout" if output is None else os.fspath(output)
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        if error.filename is None and error.strerror is not None:
            error.filename = name
            raise
        if error.filename is None:
            text = re.sub(r"^\[Errno \d+\] ", "", str(error))
            raise OSError(f"{text}: {name}") from error
        raise


@contextlib.contextmanager
def reading_inputs() -> Iterator[None]:
    """While a command runs, remember the files it reads (:func:`note_input`), then forget."""
    global _inputs
    _inputs = {}
    try:
        yield
    finally:
        _inputs = None


def note_input(path: str | os.PathLike[str]) -> None:
    """Remember that the running command reads ``path``: no output may replace that file.

    What the file *is* counts (``st_dev``, ``st_ino``, through symbolic links), so a hard
    link, a symbolic link or another spelling of it is recognised; ``-`` is stdin, which may
    be a file too (``< x.npy``). Outside a command (the library) nothing is recorded; names
    that are no regular file (a pipe, a terminal) are skipped.
    """
    if _inputs is None:
        return
    stdin = str(path) == STDOUT
    try:
        found = os.fstat(0) if stdin else os.stat(str(path))
    except (OSError, ValueError):
        return
    if stat.S_ISREG(found.st_mode):
        _inputs.setdefault((found.st_dev, found.st_ino), "stdin" if stdin else os.fspath(path))


def input_problem(output: str | os.PathLike[str] | None) -> str | None:
    """Why ``output`` cannot be written: it is (or leads to) a file the command reads.

    >>> input_problem("-") is None
    True
    """
    if _inputs is None or is_stdout(output):
        return None
    try:
        found = os.stat(str(output))  # follows links, /dev/fd/N and /proc/self/fd/N included
    except (OSError, ValueError):
        return None
    name = _inputs.get((found.st_dev, found.st_ino))
    if name is None:
        return None
    return f"must not be the input {name} (it would be replaced): give another file name"


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two outputs would replace one file: the same path once links are followed.

    :func:`pecli.io.guard.atomic_output` replaces the file a symbolic link names, so a link
    to the other output is that output; a hard link is a name of its own, replaced apart.

    >>> same_file("t.csv", "./t.csv"), same_file("t.csv", "u.csv")
    (True, False)
    """
    return os.path.realpath(str(a)) == os.path.realpath(str(b))


def check_not_input(
    output: str | os.PathLike[str] | None,
    inputs: tuple[str | None, ...] = (),
    parameter: str = "output",
) -> None:
    """Raise ``ParameterError`` if ``output`` is a file the command reads (or will: ``inputs``)."""
    for source in inputs:
        if source is not None:
            note_input(source)
    if problem := input_problem(output):
        from ..core.errors import ParameterError

        raise ParameterError(parameter, problem, str(output))


def offsets_problem(path: str, what: str, mode: int | None = None) -> str | None:
    """Why ``path`` (of ``mode``, else as stat finds it) cannot be read at offsets, or None.

    ``.safetensors``, ``.npz`` and GGUF are read by ``pread``: a FIFO or device is refused at
    once rather than opened (which waits for a writer); ``.npy`` and CSV take pipes.

    >>> offsets_problem("/no/such", ".safetensors file")
    'must be an existing .safetensors file'
    >>> offsets_problem("/dev/null", "GGUF")
    'is not a regular file: a GGUF is read at offsets (save a stream to a file first)'
    """
    with contextlib.suppress(OSError, ValueError):
        mode = os.stat(path).st_mode if mode is None else mode
    if mode is None:
        return f"must be an existing {what}"
    if stat.S_ISREG(mode):
        return None
    kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
    return f"is {kind}: a {what} is read at offsets (save a stream to a file first)"
