"""A rich progress bar on stderr for long table writes, shown only to a person at a terminal.

Never on stdout, never when stderr is piped or redirected, never with ``--quiet``: the data
stream is untouched either way. rich is imported only when a bar is actually shown.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

import numpy as np


def track_rows(
    blocks: Iterable[np.ndarray], *, total_rows: int, description: str, quiet: bool
) -> Iterable[np.ndarray]:
    """Pass row blocks through unchanged, advancing a progress bar by their heights."""
    if quiet or not sys.stderr.isatty():
        return blocks
    return _with_bar(blocks, total_rows, description)


def _with_bar(
    blocks: Iterable[np.ndarray], total_rows: int, description: str
) -> Iterator[np.ndarray]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        "rows",
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total_rows)
        for block in blocks:
            yield block
            bar.advance(task, len(block))
