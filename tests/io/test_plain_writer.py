"""Piped reports are written without rich when rich would print the text as it is.

The plain writer (:mod:`pecli.io.text`) lays out a :class:`~pecli.io.text.Columns` table as
rich does on a 200-column page with no box: cells padded to their column's widest cell, two
spaces between columns, trailing spaces cut. The expected lines are written out by hand.
With rich made unimportable, a report the plain writer takes must still come out whole; text
rich reads as markup (``[bold]``) is left to rich, which prints it without the tags.
"""

from __future__ import annotations

import sys

import pytest

from pecli.io import text


@pytest.fixture
def no_rich(monkeypatch):
    """``import rich.console`` and ``import rich.table`` fail while the test runs."""
    for name in ("rich", "rich.console", "rich.table"):
        monkeypatch.setitem(sys.modules, name, None)


def _table(title, names, justify, rows):
    table = text.Columns(title)
    for name, side in zip(names, justify, strict=True):
        table.add_column(name, justify=side)
    for row in rows:
        table.add_row(*row)
    return table


def test_a_table_and_lines_are_laid_out_without_rich(no_rich):
    """Widths 4 ("pair", "1234"), 2 ("ab") and 1: right-justified cells padded on the left."""
    table = _table(
        "pairs  ",
        ["pair", "ax", "k"],
        ["right", "left", "left"],
        [["7", "t", "1"], ["1234", "ab", "2"]],
    )
    assert table.plain() == ["pairs", "pair  ax  k", "   7  t   1", "1234  ab  2"]
    written = text.render("θ → ω  \nnext", table, terminal=False)
    assert written == "θ → ω\nnext\npairs\npair  ax  k\n   7  t   1\n1234  ab  2\n"


@pytest.mark.parametrize(("cells", "taken"), [(196, True), (197, False)])
def test_a_table_as_wide_as_the_page_is_laid_out_and_a_wider_one_is_left_to_rich(cells, taken):
    """Three columns take their cells' widths plus 2 x 2 spaces: 196 + 4 = 200, the page."""
    widths = [2, 3, cells - 5]
    rows = [["x" * w for w in widths]]
    table = _table(None, ["aa", "bbb", "cc"], ["left"] * 3, rows)
    want = ["aa  bbb  cc", "  ".join(rows[0])]
    assert table.plain() == (want if taken else None)
    assert len(want[1]) == cells + 4


@pytest.mark.parametrize("cell", ["[bold]x[/bold]", ":smile:", "漢字", "a\tb"])
def test_markup_and_wide_characters_are_left_to_rich(cell):
    """rich reads ``[…]`` and ``:name:`` as markup; 漢 is two cells wide; a tab is expanded."""
    assert _table(None, ["c"], ["left"], [[cell]]).plain() is None
    assert _table(cell, ["c"], ["left"], [["1"]]).plain() is None


def test_markup_piped_is_printed_as_rich_prints_it():
    """rich's markup: ``[bold]x[/bold]`` is the text ``x`` with no style (no colour piped)."""
    assert text.render("[bold]x[/bold] y", terminal=False) == "x y\n"
