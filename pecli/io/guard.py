"""How a run ends: signals, closed pipes and atomic output, in one place (docs/cli.md).

* **Signals** (SIGINT, SIGTERM, SIGHUP), the only module installing handlers: while pecli
  loads, a signal ends it at once (:func:`leave_on_signal`); once a command runs, it unwinds
  as ``KeyboardInterrupt`` (:func:`unwind_on_signal`), removing partial files, and
  :func:`signal_status` gives the exit status ``128 + signal``.
* **Stopping streamed writers**, one record checked by both ways of writing: row blocks
  pass through :func:`checked`; a worker thread (polars' CSV sink) is waited on by
  :func:`run_stoppable`, which tells it to end at its next chunk. A signal whose
  ``KeyboardInterrupt`` was swallowed (in a weakref callback) still stops the run.
* **stdout**: writes loop over partial writes; a closed pipe is :class:`OutputClosed` (141).
* **Files** are written to a temporary name in their own folder and renamed only when
  complete (:func:`atomic_output`); anything else is written through.

Standard library only: the console script installs its handlers before numpy loads.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

from .paths import (
    check_not_input,
    descriptor,
    is_special,
    is_stdout,
    name_max,
    naming_errors,
    open_through,
)
from .pipes import OutputClosed, guarded, pipe_was_closed

__all__ = [
    "EXIT_BROKEN_PIPE",
    "OutputClosed",
    "atomic_output",
    "begin_run",
    "checked",
    "exit_now",
    "leave_on_signal",
    "pipe_was_closed",
    "run_stoppable",
    "signal_status",
    "signals_held",
    "unwind_on_signal",
]

#: 128 + SIGPIPE, what a C tool killed by a closed pipe reports.
EXIT_BROKEN_PIPE = 128 + 13
#: The signals that stop a run: Ctrl-C, ``kill``, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_received = {"signal": 0}
#: Once a file of the run has replaced its old version, a signal is only recorded: the run
#: ends by saying what it wrote, then exits with 128 + signal (the message tells the truth).
_committed = {"held": False}
T = TypeVar("T")


def _install(handler: Any) -> dict[int, Any]:
    """Install ``handler`` for :data:`STOP_SIGNALS`; return the previous handlers.

    A signal the parent ignores (``nohup``, a background job of a script) stays ignored.
    """
    return {
        signum: signal.signal(signum, handler)
        for signum in STOP_SIGNALS
        if signal.getsignal(signum) is not signal.SIG_IGN
    }


def _leave(signum: int, frame: object) -> None:
    os._exit(128 + signum)


def leave_on_signal() -> None:
    """Until a command runs, end the process at once on a signal (nothing is open yet)."""
    _install(_leave)


def _interrupt(signum: int, frame: object) -> None:
    _received["signal"] = signum
    if not _committed["held"]:
        raise KeyboardInterrupt  # what long library loops (polars' sink) watch for


def _unraisable(report: Any) -> None:
    """Keep quiet about a signal's ``KeyboardInterrupt`` that fired inside a callback."""
    if isinstance(report.exc_value, KeyboardInterrupt) and _received["signal"]:
        return
    sys.__unraisablehook__(report)


def begin_run() -> None:
    """A command starts: no file of it has been committed yet (signals raise again)."""
    _committed["held"] = False


def unwind_on_signal() -> None:
    """While a command runs: record a signal and unwind as ``KeyboardInterrupt``."""
    sys.unraisablehook = _unraisable
    _install(_interrupt)


def signal_status(default: int = 0) -> int:
    """The exit status a signal asks for, ``128 + signal``; ``default`` if none arrived.

    ``default`` is for a ``KeyboardInterrupt`` that no recorded signal explains (Ctrl-C
    before the handlers were installed): ``signal_status(130)``.
    """
    return 128 + _received["signal"] if _received["signal"] else default


def exit_now(status: int) -> None:
    """Leave at once with ``status``, after flushing stdout and stderr.

    After a signal, a library's worker threads (polars' CSV sink) may still be winding down;
    the interpreter's shutdown would cancel them mid-call, which aborts.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # closed or missing
            stream.flush()
    os._exit(status)


def checked(blocks: Iterable[T]) -> Iterator[T]:
    """Pass blocks through; once a signal arrived, raise ``KeyboardInterrupt`` at the next."""
    for block in blocks:
        if _received["signal"]:
            raise KeyboardInterrupt
        yield block


def run_stoppable(work: Callable[[], object], stop: threading.Event) -> None:
    """Run ``work`` in a worker thread while this thread waits, ready for signals.

    ``work`` must end soon after ``stop`` is set. The wait wakes when it ends, or every
    0.05 s (a signal may reach another thread); on a signal ``stop`` is set, the worker awaited and
    the interruption re-raised. An exception of ``work`` is re-raised here. The threads share
    no ``threading.Condition`` (``Event.wait``, ``Thread.join``): a ``KeyboardInterrupt``
    raised inside one, in this thread, may leave its lock held and the worker stuck on it
    (:func:`pecli.core.threads.computed_ahead` has the details).
    """
    from ..core.threads import wait_until  # numpy: not for --help, which imports this module

    failure: list[BaseException] = []
    state = {"begun": False, "done": False}
    finished: queue.SimpleQueue[None] = queue.SimpleQueue()  # C-level: wakes the wait at once

    def run() -> None:
        state["begun"] = True
        try:
            work()
        except BaseException as error:  # handed to the calling thread
            failure.append(error)
        finally:
            state["done"] = True
            finished.put(None)

    try:  # a signal may arrive while the thread starts: ``stop`` is set all the same
        threading.Thread(target=run, name="pecli-writer", daemon=True).start()
        while not state["done"] or _received["signal"]:
            if _received["signal"]:  # its KeyboardInterrupt was swallowed somewhere
                raise KeyboardInterrupt
            with contextlib.suppress(queue.Empty):
                finished.get(timeout=0.05)
    except BaseException:
        stop.set()
        wait_until(lambda: not state["begun"] or state["done"])  # it ends at its next chunk
        raise
    if failure:
        raise failure[0]


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold the stop signals back for a few renames; they are raised right after.

    Two files replace their old versions together: no signal falls between the renames. The
    handlers become a recorder (a mask would not do: another thread may take the signal).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = _install(lambda number, _frame: arrived.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if arrived:
            signal.raise_signal(arrived[0])


@contextlib.contextmanager
def atomic_output(output: str | os.PathLike[str] | None) -> Iterator[IO[bytes]]:
    """Open ``output`` for binary writing; a file appears only if the block succeeds.

    For a file, writes go to a temporary file in the same folder, which is renamed over
    ``output`` on success and removed on any exception (``KeyboardInterrupt`` included), so
    an existing file is replaced only by a complete one; a symbolic link keeps pointing at
    the file it names, which is the one replaced. A replaced file keeps its mode; a new
    one follows the umask.
    Anything else is written through, never replaced (:func:`pecli.io.paths.is_special`):
    a name of one of this process's descriptors (``/dev/stdout``, ``/dev/fd/N``) writes to
    that descriptor at its current offset; a device, FIFO or socket is opened and written.
    For stdout, yields its buffer; a closed pipe raises :class:`OutputClosed`.
    """
    check_not_input(output)  # the last check: a command's input stays as it is
    fd = descriptor(output)
    if is_stdout(output) or fd == 1:
        with naming_errors("stdout"), guarded(sys.stdout.buffer, stdout=True) as pipe:
            yield pipe
        return
    if fd is not None or is_special(output):
        with naming_errors(output), guarded(open_through(output), stdout=False) as handle:
            yield handle
        return
    path = os.path.realpath(str(output))  # through symbolic links, dangling ones too
    folder, name = os.path.split(path)
    import tempfile  # imported here: start-up time counts

    short = len(os.fsencode(name)) + 16 <= name_max(folder)  # .NAME.XXXXXXXX.part
    fd, tmp = tempfile.mkstemp(
        prefix=f".{name}." if short else ".pecli-", suffix=".part", dir=folder
    )
    part, where = os.path.basename(tmp), os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:  # through the folder's descriptor: a folder renamed meanwhile keeps no .part file
        with naming_errors(output), os.fdopen(fd, "wb") as handle:
            yield handle
            os.fchmod(handle.fileno(), _mode(path))
        _commit(lambda: os.replace(part, name, src_dir_fd=where, dst_dir_fd=where))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(part, dir_fd=where)
        raise
    finally:
        os.close(where)


def _commit(rename: Callable[[], None]) -> None:
    """Rename a complete file into place, unless a signal came first; later ones are held.

    From the rename on, a signal is recorded but not raised (:func:`_interrupt`): the old
    file is either intact (signal before) or replaced and the run goes on to say so.
    """
    already = _committed["held"]
    _committed["held"] = True  # set before the check: a signal from here on is only recorded
    if _received["signal"] and not already:
        _committed["held"] = False
        raise KeyboardInterrupt
    rename()


def _mode(path: str) -> int:
    """The mode a replaced file keeps; a new file follows the umask (``0o666 & ~umask``)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0o022)  # read it back: os.umask only sets
        os.umask(mask)
        return 0o666 & ~mask
