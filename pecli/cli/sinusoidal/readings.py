"""The reports of a 1-D table's reading: the match, or the closest candidates.

Shown by ``pecli identify`` for a table (:mod:`pecli.cli.sinusoidal.identify`) and for one
tensor of a checkpoint (:mod:`pecli.cli.checkpoints`). rich is imported by :mod:`pecli.cli.text`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...io import text
from .._app import option_words
from ..text import command_line

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
    command = f"rebuild with: {command_line(found.command) or '-'}"
    text.show(table, command, *([f"note: {option_words(found.note)}"] if found.note else []))


def show_candidates(found: Identification) -> None:
    """Print the closest readings of a table that matched none."""
    table = text.titled_table(
        "Closest candidates", "reading", "max |error|", "relative to tolerance"
    )
    for candidate in found.candidates[:5]:
        table.add_row(candidate.description, f"{candidate.residual:.3g}", f"{candidate.score:.3g}")
    text.show(table)
