"""The console script's entry point, which loads the command line.

Loading numpy, typer and the commands takes about 0.1 s. A signal in that time ends the
process at once with status 128 + its number (nothing has been opened yet) instead of an
import traceback; once the command line runs, :mod:`pecli.cli._app` handles signals.
"""

from __future__ import annotations

import os
import signal


def _leave(signum: int, frame: object) -> None:
    os._exit(128 + signum)


def main() -> None:
    """Run ``pecli``."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _leave)
    from .cli import main as run

    run()
