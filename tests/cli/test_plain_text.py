"""Reports piped or redirected are written without rich, byte for byte as rich writes them.

The oracle is rich itself: each table or line goes through a rich ``Console`` set up as
pecli's piped output is (200 columns, no colour, no box), and the plain writer
(:func:`pecli.io.text.render`) must give the same text, or leave the work to rich.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.errors import MarkupError
from rich.table import Table

from pecli.io import text

#: Characters of pecli's reports, and some rich reads otherwise: markup, emoji codes, tabs,
#: wide and zero-width characters, a combining accent, a soft hyphen.
ALPHABET = "ab z019.,-_=+()/<>|*#'\"θω→…−±×·≤²" + "[]:\\\t漢\u200b\u0301\u00ad\u2028 "
CELL = st.text(ALPHABET, max_size=12)
#: Cells the plain writer takes (no markup, one cell per character): compared most often.
PLAIN = st.text("ab z019.,-_=+()/<>|*#'\"θω→…−±×·≤²", max_size=12)


def by_rich(*renderables: object) -> str:
    """What rich writes for the renderables on a 200-column page, no colour, no box."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=False, color_system=None, width=200, highlight=False
    )
    for renderable in renderables:
        if isinstance(renderable, Table):
            if renderable.title:
                console.print(renderable.title, soft_wrap=True)
                renderable.title = None
            renderable.box, renderable.show_edge, renderable.pad_edge = None, False, False
        console.print(renderable, soft_wrap=not isinstance(renderable, Table))
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def columns(title: str | None, names: list[str], justify: list[str], rows: list[list[str]]):
    """The same table as pecli's :class:`~pecli.io.text.Columns` and as a rich Table."""
    table = text.Columns(title)
    theirs = Table(title=title, title_justify="left")
    for name, side in zip(names, justify, strict=True):
        table.add_column(name, justify=side)
        theirs.add_column(name, justify=side)
    for row in rows:
        table.add_row(*row)
        theirs.add_row(*row)
    return table, theirs


def test_every_character_taken_as_one_cell_is_one_cell_for_rich():
    taken = [chr(c) for c in range(0x2400) if text._ONE_CELL.fullmatch(chr(c))]
    assert len(taken) > 700
    assert [c for c in taken if cell_len(c) != 1] == []


@st.composite
def tables(draw, cell):
    width = draw(st.integers(1, 5))
    names = draw(st.lists(cell, min_size=width, max_size=width))
    justify = draw(st.lists(st.sampled_from(["left", "right"]), min_size=width, max_size=width))
    rows = draw(st.lists(st.lists(cell, min_size=width, max_size=width), max_size=6))
    title = draw(st.none() | cell)
    return title, names, justify, rows


@settings(max_examples=300, deadline=None)
@given(tables(CELL), st.lists(CELL, max_size=3))
def test_a_table_and_lines_piped_are_what_rich_writes(table, lines):
    mine, theirs = columns(*table)
    try:
        expected = by_rich(*lines, theirs, *lines)
    except MarkupError:  # "[/]": rich refuses it, and so does pecli's report
        with pytest.raises(MarkupError):
            text.render(*lines, mine, *lines, terminal=False)
        return
    assert text.render(*lines, mine, *lines, terminal=False) == expected


@settings(max_examples=300, deadline=None)
@given(tables(PLAIN), st.lists(PLAIN, max_size=3))
def test_a_plain_table_and_lines_are_what_rich_writes(table, lines):
    mine, theirs = columns(*table)
    try:
        expected = by_rich(*lines, theirs, *lines)
    except MarkupError:  # "[/]": rich refuses it, and so does pecli's report
        with pytest.raises(MarkupError):
            text.render(*lines, mine, *lines, terminal=False)
        return
    assert text.render(*lines, mine, *lines, terminal=False) == expected


@pytest.mark.parametrize("cell", [50, 97, 98])
def test_a_table_at_the_page_width_or_past_it_is_what_rich_writes(cell):
    names = ["n", "x"]  # 2 + 2 + cell + … : 200 columns at 97 and 98 past it (rich folds)
    rows = [["1" * cell, "y" * cell], ["2", "z"]]
    mine, theirs = columns("title", names, ["right", "left"], rows)
    assert text.render(mine, terminal=False) == by_rich(theirs)


def test_a_line_longer_than_the_page_is_not_folded():
    line = "θ " + "x" * 300
    assert text.render(line, terminal=False) == by_rich(line) == line + "\n"


def test_a_piped_report_imports_no_rich(tmp_path):
    code = (
        "import sys; sys.argv = ['pecli', 'rope', 'axis-map', '--preset', 'wan']\n"
        "from pecli.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(str(sorted(m for m in sys.modules if m.startswith('rich'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.stdout.startswith("Wan 2.1/2.2")
    assert done.stderr.strip().endswith("[]")
