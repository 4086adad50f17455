"""Streamed table output for the commands: room check, progress bar, write, "wrote NAME".

The rich progress bar goes to stderr and is shown only to a person at a terminal.

Never on stdout, never when stderr is piped or redirected, never when the data itself goes
to the terminal (the bar would be drawn between its lines), never with ``--quiet``: the data
stream is untouched either way. rich is imported only when a bar is actually shown.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

import numpy as np

from ..io import formats, paths, writing


def write_streamed(
    blocks: Iterable[np.ndarray],
    *,
    output: str,
    fmt: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
    columns: list[str],
    header: bool,
    quiet: bool,
    description: str,
    size: int | None,
) -> None:
    """Check the room for ``size`` bytes (if known), then write the blocks with progress."""
    if size is not None:
        formats.check_room(output, size)
    on_screen = paths.is_terminal(output)  # the bar would be drawn between the data's lines
    tracked = track_rows(
        blocks, total_rows=shape[0], description=description, quiet=quiet or on_screen
    )
    writing.write_table(
        tracked, output=output, fmt=fmt, shape=shape, dtype=dtype, columns=columns, header=header
    )
    say_written(output, quiet=quiet)


def say_written(output: str | None, *, quiet: bool, unnamed: bool = False) -> None:
    """``pecli: wrote NAME`` on stderr once a file is complete; nothing for stdout or a device.

    ``unnamed``: the name is a command's default (no ``-o``) and a file of that name was
    there before, which the message then says was replaced.
    """
    if quiet or paths.is_stdout(output) or paths.is_special(output):
        return
    note = " (no -o given: replaced the file of that name)" if unnamed else ""
    sys.stderr.write(f"pecli: wrote {output}{note}\n")


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
