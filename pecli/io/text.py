"""Tables and reports for people on a terminal, plain aligned text for scripts and pipes.

On a terminal, rich draws boxes and colours at the terminal's width; piped or redirected, the
same tables are plain columns separated by spaces, with no trailing spaces and no escape
codes, so ``pecli conventions | grep fairseq`` and ``awk`` see clean lines. The text goes out
through :func:`pecli.io.guard.atomic_output`, so a closed pipe ends the run quietly (141).

Piped or redirected, lines and :class:`Columns` whose text rich would print as it is (no
markup, no emoji code, no control character, every character one cell wide, no table wider
than the page) are written here, without importing rich (15-25 ms of a report's start-up):
the same bytes rich writes, which ``tests/cli/test_plain_text.py`` checks against rich.
"""

from __future__ import annotations

import io
import re
import shutil
import sys
from typing import Any

from . import guard, paths

#: The page's width piped or redirected (rich's, given to it below).
WIDTH = 200
#: Characters rich prints as they are, one cell wide: printable ASCII, Latin-1, Greek, and
#: the punctuation, super- and subscripts, arrows and mathematical operators of pecli's reports.
_ONE_CELL = re.compile(
    "[\x20-\x7e\xa1-\xac\xae-\xff\u0370-\u0377\u037a-\u037f\u0384-\u038a\u038c"
    "\u038e-\u03a1\u03a3-\u03ff\u2010-\u2027\u2030-\u205e\u2070-\u2071\u2074-\u208e"
    "\u2190-\u22ff]*"
)
#: What rich would read as markup (``[bold]``) or an emoji code (``:smile:``).
_MARKUP = re.compile(r"\[|:\S*:")


class Columns:
    """A table of text cells: drawn by rich on a terminal, plain columns piped or redirected.

    The part of ``rich.table.Table`` pecli's reports use (a title, columns justified left or
    right, rows of strings), so a report piped to a file needs no rich.

    Examples
    --------
    >>> table = Columns("pairs")
    >>> table.add_column("pair", justify="right")
    >>> table.add_column("axis")
    >>> table.add_row("0", "t")
    >>> print(render(table, terminal=False), end="")
    pairs
    pair  axis
       0  t

    """

    def __init__(self, title: str | None = None) -> None:
        self.title = title
        self.names: list[str] = []
        self.justify: list[str] = []
        self.rows: list[tuple[str, ...]] = []

    def add_column(self, name: str, justify: str = "left") -> None:
        """A column, its cells justified ``left`` or ``right``."""
        self.names.append(name)
        self.justify.append(justify)

    def add_row(self, *cells: str) -> None:
        """A row of cells, one per column."""
        self.rows.append(cells)

    def rich(self) -> Any:
        """The same table as a ``rich.table.Table``."""
        from rich.table import Table

        table = Table(title=self.title, title_justify="left")
        for name, justify in zip(self.names, self.justify, strict=True):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for row in self.rows:
            table.add_row(*row)
        return table

    def plain(self) -> list[str] | None:
        """The lines rich writes for it piped (trailing spaces cut), or None if not sure."""
        lines = _plain(self.title) if self.title else []
        cells = [tuple(self.names), *self.rows]
        width = len(self.names)
        if lines is None or not width or any(len(row) != width for row in cells):
            return None
        if not all(isinstance(c, str) and _one_line(c) for row in cells for c in row):
            return None
        widths = [max(len(row[k]) for row in cells) for k in range(width)]
        if sum(widths) + 2 * (width - 1) > WIDTH or 0 in widths:
            return None
        for row in cells:
            shown = (  # rich cuts a right-justified cell's trailing spaces first
                c.rstrip().rjust(w) if j == "right" else c.ljust(w)
                for c, w, j in zip(row, widths, self.justify, strict=True)
            )
            lines.append("  ".join(shown).rstrip())
        return lines


def _one_line(text: str) -> bool:
    """Whether rich prints ``text`` as it is, on one line: plain, one cell per character."""
    return _ONE_CELL.fullmatch(text) is not None and _MARKUP.search(text) is None


def _plain(text: str) -> list[str] | None:
    """A line (or lines) as rich prints it piped, trailing spaces cut; None if not sure."""
    lines = text.split("\n")
    return [line.rstrip() for line in lines] if all(map(_one_line, lines)) else None


def _plain_lines(renderables: tuple[Any, ...]) -> list[str] | None:
    """Every renderable's plain lines, or None when one of them needs rich."""
    lines: list[str] = []
    for renderable in renderables:
        if isinstance(renderable, Columns) and renderable.justify:
            if set(renderable.justify) - {"left", "right"}:
                return None
            more = renderable.plain()
        else:
            more = _plain(renderable) if isinstance(renderable, str) else None
        if more is None:
            return None
        lines += more
    return lines


def render(*renderables: Any, terminal: bool) -> str:
    """The renderables (rich tables, :class:`Columns`, text): boxed on a terminal, plain otherwise.

    Piped, lines and :class:`Columns` rich would print as they are are written without it.
    """
    plain = None if terminal else _plain_lines(renderables)
    if plain is not None:
        return "".join(line + "\n" for line in plain)
    from rich.console import Console
    from rich.table import Table

    renderables = tuple(r.rich() if isinstance(r, Columns) else r for r in renderables)
    buffer = io.StringIO()
    width = shutil.get_terminal_size().columns if terminal else WIDTH
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


def titled_table(title: str, *columns: str) -> Columns:
    """A table with a title on its left and the named columns."""
    table = Columns(title)
    for column in columns:
        table.add_column(column)
    return table
