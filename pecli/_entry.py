"""The console script's entry point, which loads the command line.

Loading numpy, typer and the commands takes about 0.1 s. A signal in that time ends the
process at once with status 128 + its number (nothing has been opened yet) instead of an
import traceback; :mod:`pecli.io.guard` (standard library only, so it loads first) installs
that handler, and the command line replaces it with the one that unwinds.

Under an address-space limit too small for the libraries (numpy, OpenBLAS), loading them
fails in many ways: ``MemoryError``, ``ImportError`` ("failed to map segment"),
``SystemError``, OpenBLAS's own message, even SIGSEGV. Below :data:`START_BYTES` pecli
therefore says so at once, and any of those errors while loading is one line, status 1.

:func:`main` ends the process: a failure at once (:func:`pecli.io.guard.exit_now`), a success
at the interpreter's exit, without its teardown (:func:`pecli.io.streams.leave_after_success`).
"""

from __future__ import annotations

#: Address space pecli needs to load (measured: about 102 MiB with numpy 2 and OpenBLAS;
#: less fails in numpy's import or OpenBLAS's start-up), with a margin.
START_BYTES = 112 << 20


def main() -> None:
    """Run ``pecli``."""
    from .io import guard, paths, streams

    streams.stand_in_for_closed()  # before any file is opened: none may take fd 0, 1 or 2
    paths.remember_open_descriptors()  # -o /dev/fd/N: only those the caller handed over
    limit = _fit_memory_limit()
    if limit is not None and limit < START_BYTES:
        _out_of_memory(f"pecli needs about {START_BYTES >> 20} MB of address space to start")
    guard.leave_on_signal()
    streams.leave_after_success()  # first: its exit hook runs after every other one
    try:
        from .cli import main as run
    except (MemoryError, ImportError, SystemError) as error:
        if limit is None:
            raise
        _out_of_memory(f"loading pecli failed ({type(error).__name__})")
    try:
        run()
    except SystemExit as done:
        if done.code in (None, 0):  # a failure has left already, at once (guard.exit_now)
            streams.succeeded()
        raise
    except (MemoryError, SystemError) as error:  # while typer builds the commands
        if limit is None and not isinstance(error, MemoryError):
            raise
        _out_of_memory(f"starting the command line failed ({type(error).__name__})")


def _out_of_memory(reason: str) -> None:
    """One line on stderr, status 1; written with os.write (nothing left to allocate)."""
    import os
    import resource

    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    shown = f"; ulimit -v leaves {limit >> 20} MB" if limit != resource.RLIM_INFINITY else ""
    os.write(2, f"pecli: error: out of memory: {reason}{shown}\n".encode())
    os._exit(1)


def _fit_memory_limit() -> int | None:
    """One OpenBLAS thread; the address-space limit (``ulimit -v``) in bytes, None if none.

    Set before numpy loads, and only if the caller chose nothing (docs/cli.md#memory-limits).
    pecli's arithmetic is elementwise: OpenBLAS' idle threads spin after ``import numpy``,
    about 45 ms of CPU per run (90 ms beside ``rope cache``'s own threads), and under a limit
    each reserves buffers.
    """
    import os
    import resource

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    return int(limit)
