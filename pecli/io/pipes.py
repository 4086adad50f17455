"""stdout and other written-through outputs: partial writes looped, a closed reader named.

A closed pipe (``pecli … | head``) raises :class:`OutputClosed` (status 141 at the top);
typer and rich, which handle it themselves, are recognised by :func:`pipe_was_closed`.
Standard library only (loaded before numpy). Used through :mod:`pecli.io.guard`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO

__all__ = ["OutputClosed", "guarded", "pipe_was_closed"]


class OutputClosed(Exception):
    """The reader of stdout went away (``pecli … | head``); nothing more can be written."""


@contextlib.contextmanager
def guarded(raw: IO[bytes], *, stdout: bool) -> Iterator[IO[bytes]]:
    """A stream whose closed reader raises OutputClosed; stdout's fd 1 then goes to /dev/null.

    Any other stream (``/dev/fd/3``, a FIFO) is closed at the end.
    """
    pipe = _PipeGuard(raw)
    try:
        yield pipe  # type: ignore[misc]
        pipe.flush()
    except OSError as error:
        if not (isinstance(error, BrokenPipeError) or pipe.broken):
            raise
        if stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)  # no later flush can fail or complain
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        raise OutputClosed from None
    finally:
        if not stdout:
            with contextlib.suppress(OSError):  # a closed reader: nothing left to flush
                raw.close()


class _PipeGuard:
    """A pipe's buffer, remembering a closed reader even if a library re-raises it as OSError."""

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

    def seekable(self) -> bool:
        """False: written through at the current offset, never sought back.

        A safetensors header rewritten in place would land on what another writer put in a
        shared stdout (``{ echo a; pecli … -o /dev/stdout; } > log``); it keeps its first one.
        """
        return False

    def flush(self) -> None:
        try:
            self.raw.flush()
        except BrokenPipeError:
            self.broken = True
            raise


def _on_devnull(fd: int) -> bool:
    """Whether ``fd`` is open on /dev/null."""
    try:
        now, devnull = os.fstat(fd), os.stat(os.devnull)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (devnull.st_dev, devnull.st_ino)


#: Whether the caller gave stdout as /dev/null (``pecli … > /dev/null``): then fd 1 on
#: /dev/null at the end is the caller's choice, not a closed pipe typer or rich set aside.
STARTED_ON_DEVNULL = _on_devnull(1)


def pipe_was_closed() -> bool:
    """Whether typer or rich reacted to a closed stdout (a wrapper, or fd 1 put on /dev/null)."""
    if type(sys.stdout).__name__ == "PacifyFlushWrapper":
        return True
    return not STARTED_ON_DEVNULL and _on_devnull(1)
