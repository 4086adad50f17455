"""Closed standard streams (``>&-``, ``2>&-``, ``<&-``): made safe at start-up, named when used.

A process started with descriptor 0, 1 or 2 closed would hand that number to the next file it
opens, so a table meant for stdout could land in an output file. Before anything else is
opened, :func:`stand_in_for_closed` gives each closed one a stand-in:

* stdin: ``/dev/null``; reading ``-`` then fails with "stdin is closed" (:func:`closed`);
* stdout: a pipe whose reader is gone, so the first write fails and the command line says
  "stdout is closed" with status 1 instead of writing nowhere;
* stderr: ``/dev/null``; messages are lost, exit statuses still tell what happened.

At the end of a successful run, :func:`leave_after_success` flushes stdout and stderr and
leaves without the interpreter's teardown.

Standard library only (the console script calls this before numpy and typer load).
"""

from __future__ import annotations

import atexit
import os
import sys

__all__ = ["closed", "leave_after_success", "stand_in_for_closed", "succeeded"]

_closed: set[int] = set()
_ended = {"success": False}


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _place(fd: int, stand_in: int) -> None:
    if stand_in != fd:
        os.dup2(stand_in, fd)
        os.close(stand_in)


def stand_in_for_closed() -> None:
    """Give each closed standard descriptor a stand-in and Python a stream object for it."""
    for fd in (0, 1, 2):
        if _is_open(fd):
            continue
        _closed.add(fd)
        if fd == 1:
            reader, writer = os.pipe()
            os.close(reader)  # every write now fails with EPIPE, which names the problem
            _place(fd, writer)
        else:
            _place(fd, os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY))
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        if fd in _closed and getattr(sys, name) is None:  # Python made no stream for it
            setattr(sys, name, open(fd, mode, closefd=False))  # noqa: SIM115


def closed(fd: int) -> bool:
    """Whether standard descriptor ``fd`` (0, 1 or 2) was closed when pecli started.

    >>> closed(0) in (True, False)
    True
    """
    return fd in _closed


def leave_after_success() -> None:
    """At the interpreter's exit, after :func:`succeeded`: flush stdout and stderr, then leave.

    What the interpreter does after its exit functions is free every module's objects, which
    nobody sees: 12-15 ms with NumPy and typer loaded (``os._exit`` after ``import numpy,
    typer`` saves 12% of that script's time). Registered before anything else, the hook runs
    last: after the other threads were joined and every other exit function ran. A stream
    that cannot be flushed (a full disk) leaves the usual way, which reports it; a failed run
    has left already (:func:`pecli.io.guard.exit_now`).
    """
    atexit.register(_leave_without_teardown)


def succeeded() -> None:
    """The command ended with status 0: the process may skip its teardown."""
    _ended["success"] = True


def _leave_without_teardown() -> None:
    if not _ended["success"]:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(0)
