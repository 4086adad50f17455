"""Tables and reports for people on a terminal, plain aligned text for scripts and pipes.

On a terminal, rich draws boxes and colours at the terminal's width; piped or redirected, the
same tables are plain columns separated by spaces, with no trailing spaces and no escape
codes, so ``pecli conventions | grep fairseq`` and ``awk`` see clean lines. The text goes out
through :func:`pecli.io.guard.atomic_output`, so a closed pipe ends the run quietly (141).
"""

from __future__ import annotations

import io
import shutil
import sys
from typing import Any

from . import guard, paths


def render(*renderables: Any, terminal: bool) -> str:
    """The renderables (rich tables, text) as text: boxed on a terminal, plain otherwise."""
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    width = shutil.get_terminal_size().columns if terminal else 200
    console = Console(
        file=buffer,
        force_terminal=terminal,
        color_system="auto" if terminal else None,
        width=width,
        highlight=False,
    )
    for renderable in renderables:
        if isinstance(renderable, Table) and renderable.title:  # a whole line, not wrapped
            console.print(
                renderable.title, style="table.title" if terminal else None, soft_wrap=True
            )
            renderable.title = None  # to the table's width, a title wrapped mid-phrase
        if not terminal and isinstance(renderable, Table):
            renderable.box, renderable.show_edge, renderable.pad_edge = None, False, False
        console.print(renderable, soft_wrap=not isinstance(renderable, Table))  # commands whole
    text = buffer.getvalue()
    return text if terminal else "".join(line.rstrip() + "\n" for line in text.splitlines())


def show(*renderables: Any, output: str | None = None) -> None:
    """Write the renderables to ``output`` (stdout by default) in the form that suits it."""
    terminal = paths.is_stdout_alias(output) and sys.stdout.isatty()
    text = render(*renderables, terminal=terminal)
    with guard.atomic_output(output) as handle:
        handle.write(text.encode("utf-8", errors="replace"))


def titled_table(title: str, *columns: str) -> Any:
    """A rich table with a title on its left and the named columns."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    return table
