"""identify's reports: one reading of a table, the closest candidates, a grid's reading.

Shared by the identify command for a table (:mod:`.command`) and for each tensor of a
checkpoint (:mod:`.checkpoints`). rich is imported by :func:`pecli.cli.text.titled_table`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import typer

from .. import text
from .._app import option_words

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.sinusoidal.identify import Identification


def show_identification(found: Identification) -> None:
    """Print a reading that matched: convention, layout, base, first position, storage."""
    table = text.titled_table(
        f"pecli identify: {'match' if found.matched else 'no match'}", "what", "found"
    )
    rows = {
        "convention": option_words(", ".join(found.presets)) or "custom (no named preset)",
        "layout": found.layout,
        "schedule": found.schedule,
        "base C": f"{found.base:.10g}"
        + (f" (fit {found.base_fit:.8g})" if math.isfinite(found.base_fit) else ""),
        "equivalent": found.equivalent or "-",
        "first position": f"{found.start:.10g}",
        "padding rows (0-based)": ", ".join(map(str, found.padding_rows)) or "-",
        "zero components": ", ".join(map(str, found.zero_components)) or "-",
        "storage": found.storage,
        "orientation": "transposed (d × n)" if found.transposed else "rows = positions",
        "residual": f"{found.residual:.3g} (relative to tolerance: {found.relative_residual:.3g})",
    }
    for what, value in rows.items():
        table.add_row(what, value)
    # below the table, whole: a command wrapped inside a box cannot be copied and pasted;
    # the note says what it leaves open, or what it does not rebuild
    command = f"rebuild with: {text.command_line(found.command) or '-'}"
    text.show(table, command, *([f"note: {option_words(found.note)}"] if found.note else []))


def show_candidates(found: Identification) -> None:
    """Print the closest readings of a table that matched none."""
    table = text.titled_table(
        "Closest candidates", "reading", "max |error|", "relative to tolerance"
    )
    for candidate in found.candidates[:5]:
        table.add_row(candidate.description, f"{candidate.residual:.3g}", f"{candidate.score:.3g}")
    text.show(table)


def show_grid(table: np.ndarray, *, as_json: bool) -> bool:
    """``pecli identify`` for a 2-D grid table: print the reading and say whether one matched.

    Called by ``identify`` (:mod:`.command`) when no 1-D convention reproduces the table.
    """
    import json

    from ...analysis.grids.identify import grid_match

    if (found := grid_match(table)) is None:
        return False
    if as_json:
        typer.echo(json.dumps({"grid": text.report(found)}, indent=2))
    else:
        show_grid_reading(found)
    return True


def show_grid_reading(found: Any) -> None:
    """Print a grid table's reading (a :class:`GridIdentification` that matched)."""
    shown = text.titled_table("pecli identify: match (a grid of tokens)", "what", "found")
    for what, value in _grid_rows(found):
        shown.add_row(what, value)
    command = text.command_line(found.best.command)
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
