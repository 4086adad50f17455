"""identify's report of a grid's table: the preset, the grid, the axis order, the command.

Shown by ``identify`` for a table (:mod:`pecli.cli.sinusoidal.identify`) and for a tensor of
a checkpoint (:mod:`pecli.cli.checkpoints`) that no 1-D convention reproduces. rich is
imported by :func:`pecli.cli.text.titled_table`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import typer

from ...io import text
from ..text import command_line, report


def show_grid(table: np.ndarray, *, as_json: bool) -> bool:
    """``pecli identify`` for a 2-D grid table: print the reading and say whether one matched.

    Called by ``identify`` when no 1-D convention reproduces the table.
    """
    import json

    from ...analysis.grids.identify import grid_match

    if (found := grid_match(table)) is None:
        return False
    if as_json:
        typer.echo(json.dumps({"grid": report(found)}, indent=2))
    else:
        show_grid_reading(found)
    return True


def show_grid_reading(found: Any) -> None:
    """Print a grid table's reading (a :class:`GridIdentification` that matched)."""
    shown = text.titled_table("pecli identify: match (a grid of tokens)", "what", "found")
    for what, value in _grid_rows(found):
        shown.add_row(what, value)
    command = command_line(found.best.command)
    text.show(shown, f"rebuild with: {command}")  # whole, for copy and paste


def _grid_rows(found: Any) -> list[tuple[str, str]]:
    """The report's lines: what, and what identify found."""
    best = found.best
    return [
        ("preset", best.preset),
        ("grid", " × ".join(map(str, best.shape)) + _axes_named(len(best.shape))),
        ("axis order", f"{best.first}: {best.note}"),
        ("extra tokens", f"{found.extra_tokens} all-zero rows first"),
        ("storage", found.storage),
        ("max |error|", f"{best.max_error:.3g}"),
        ("same table", "; ".join(_also(r) for r in found.also) or "-"),
    ]


def _axes_named(axes: int) -> str:
    """What the sides of a grid are, after them."""
    return " (rows × columns, row-major tokens)" if axes == 2 else " (axes 1 … n, row-major tokens)"


def _also(reading: Any) -> str:
    order = ",".join(map(str, reading.axis_order))
    return f"{reading.preset} --axis-order {order} ({reading.first})"
