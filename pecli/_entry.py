"""The console script's entry point, which loads the command line.

Loading typer and the commands takes about 0.1 s; a Ctrl-C in that time exits quietly with
status 130 instead of printing an import traceback (no file has been opened yet). Once the
command line runs, :mod:`pecli.cli._app` handles signals.
"""

from __future__ import annotations

import os


def main() -> None:
    """Run ``pecli``."""
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        os._exit(130)
    run()
