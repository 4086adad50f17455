"""Atomic output files, stdout and closed pipes: a failed or interrupted run leaves nothing.

A file is written to a temporary name in its own folder and renamed only when complete
(docs/cli.md); stdout writes loop over partial writes and turn a closed pipe into
:class:`OutputClosed`. No maths here.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .formats import is_special, is_stdout, name_max

__all__ = ["OutputClosed", "atomic_output", "signals_held"]


@contextlib.contextmanager
def atomic_output(output: str | os.PathLike[str] | None) -> Iterator[IO[bytes]]:
    """Open ``output`` for binary writing; a file appears only if the block succeeds.

    For a file, writes go to a temporary file in the same folder, which is renamed over
    ``output`` on success and removed on any exception (``KeyboardInterrupt`` included), so
    an existing file is replaced only by a complete one; a symbolic link keeps pointing at
    the file it names, which is the one replaced. A device, FIFO or socket (``/dev/null``,
    a named pipe) is written directly: it cannot be replaced. For stdout, yields its buffer.
    """
    if is_stdout(output):
        guard = _PipeGuard(sys.stdout.buffer)
        try:
            yield guard  # type: ignore[misc]
            guard.flush()
        except OSError as error:
            if not (isinstance(error, BrokenPipeError) or guard.broken):
                raise
            _silence_stdout()
            raise OutputClosed from None
        return
    if is_special(output):
        with open(str(output), "wb") as device:
            yield device
        return
    path = Path(os.path.realpath(str(output)))  # through symbolic links, dangling ones too
    import tempfile  # imported here, like json and shutil: start-up time counts

    short = len(os.fsencode(path.name)) + 16 <= name_max(path.parent)  # .NAME.XXXXXXXX.part
    prefix = f".{path.name}." if short else ".pecli-"
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back for a few renames; they are raised right after.

    Used when two files replace their old versions together, so that a signal cannot fall
    between the two renames. The handlers are swapped for a recorder (a signal mask would not
    do: another thread may take the signal); only the main thread can do this.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {
        signum: signal.signal(signum, lambda number, _frame: arrived.append(number))
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if arrived:
            signal.raise_signal(arrived[0])


class _PipeGuard:
    """Stdout's buffer, remembering a closed pipe even if a library re-raises it as OSError."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.broken = False

    def write(self, data: bytes) -> int:
        """Write all of ``data``: an unbuffered stdout (``python -u``) may take only a part."""
        view, done = memoryview(data).cast("B"), 0
        try:
            while done < len(view):
                written = self.raw.write(view[done:])
                if written is None:  # a non-blocking stdout that is full: wait until it drains
                    import select

                    select.select([], [self.raw.fileno()], [])
                done += written or 0
        except BrokenPipeError:
            self.broken = True
            raise
        return done

    def flush(self) -> None:
        try:
            self.raw.flush()
        except BrokenPipeError:
            self.broken = True
            raise


class OutputClosed(Exception):
    """The reader of stdout went away (``pecli … | head``); nothing more can be written."""


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so that no later flush can fail or complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
