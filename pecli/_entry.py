"""The console script's entry point, which loads the command line.

Loading numpy, typer and the commands takes about 0.1 s. A signal in that time ends the
process at once with status 128 + its number (nothing has been opened yet) instead of an
import traceback; :mod:`pecli.io.guard` (standard library only, so it loads first) installs
that handler, and the command line replaces it with the one that unwinds.
"""

from __future__ import annotations


def main() -> None:
    """Run ``pecli``."""
    from .io import guard, paths, streams

    streams.stand_in_for_closed()  # before any file is opened: none may take fd 0, 1 or 2
    paths.remember_open_descriptors()  # -o /dev/fd/N: only those the caller handed over
    _fit_memory_limit()
    guard.leave_on_signal()
    from .cli import main as run

    run()


def _fit_memory_limit() -> None:
    """Under an address-space limit (``ulimit -v``), one OpenBLAS thread: each reserves buffers.

    Set before numpy loads, and only if the caller chose nothing (docs/cli.md#memory-limits).
    """
    import os
    import resource

    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
