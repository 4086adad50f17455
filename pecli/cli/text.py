"""Tables and reports for people on a terminal, plain aligned text for scripts and pipes.

On a terminal, rich draws boxes and colours at the terminal's width; piped or redirected, the
same tables are plain columns separated by spaces, with no trailing spaces and no escape
codes, so ``pecli conventions | grep fairseq`` and ``awk`` see clean lines. The text goes out
through :func:`pecli.io.guard.atomic_output`, so a closed pipe ends the run quietly (141).
"""

from __future__ import annotations

import dataclasses
import io
import math
import shutil
import sys
from typing import TYPE_CHECKING, Any

from ..io import guard, paths

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.rebuild import Rebuild


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


def jsonable(value: Any) -> Any:
    """Plain JSON for ``--json``: infinities and NaN become null, tuples lists.

    >>> jsonable({"residual": float("inf"), "shape": (3, 4)})
    {'residual': None, 'shape': [3, 4]}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


#: The command that writes each family of tables (:class:`pecli.analysis.rebuild.Rebuild`).
TABLE_COMMANDS = {"encoding": "compute", "grid": "grid"}


def command_line(rebuild: Rebuild) -> str:
    """The ``pecli`` command line of a :class:`~pecli.analysis.rebuild.Rebuild` ("" if empty).

    >>> from pecli.analysis.rebuild import Rebuild
    >>> command_line(Rebuild("grid", (4, 4), (("d", "16"), ("extra_tokens", "1"))))
    'pecli grid 4 4 --d 16 --extra-tokens 1'
    >>> command_line(Rebuild("encoding", (), (("full_turns", True), ("output", "pe.safetensors"))))
    'pecli compute --full-turns -o pe.safetensors'
    """
    from ._app import option_words

    if not rebuild:
        return ""
    words = ["pecli", TABLE_COMMANDS[rebuild.table], *map(str, rebuild.positional)]
    for parameter, value in rebuild.arguments:
        words.append(option_words(f"`{parameter}`"))
        if value is not True:
            words.append(str(value))
    return " ".join(words)


#: The fields of the analysis' reports that name parameters in backticks, for a reader.
WORDED = ("presets", "note", "metadata")


def report(found: Any, *, worded: bool = False) -> Any:
    """A report of the analysis layer as plain JSON, as the command line writes it.

    Every :class:`~pecli.analysis.rebuild.Rebuild` becomes its command line, and the text of
    the fields in :data:`WORDED` names options where it names parameters in backticks
    (``pytorch `start` 0`` → ``pytorch --start 0``); the rest as :func:`jsonable`.
    """
    from ..analysis.rebuild import Rebuild
    from ._app import option_words

    if isinstance(found, Rebuild):
        return command_line(found)
    if dataclasses.is_dataclass(found) and not isinstance(found, type):
        fields = dataclasses.fields(found)
        return {f.name: report(getattr(found, f.name), worded=f.name in WORDED) for f in fields}
    if isinstance(found, dict):
        return {k: report(v, worded=worded) for k, v in found.items()}
    if isinstance(found, list | tuple):
        return [report(v, worded=worded) for v in found]
    if isinstance(found, str) and worded:
        return option_words(found)
    return jsonable(found)
