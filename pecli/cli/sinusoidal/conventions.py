"""``pecli conventions``: the named conventions and their aliases (docs/conventions.md).

rich is imported by the tables of :mod:`pecli.cli.text`.
"""

from __future__ import annotations

from ...io import text
from .._app import app, option_words


@app.command()
def conventions() -> None:
    """List the named conventions (--convention NAME) and who uses each.

    Example: pecli conventions
    """
    from ...core.sinusoidal.conventions import ALIASES, PRESETS

    columns = ("name", "schedule", "layout", "start", "padding", "odd d", "factors", "users")
    table = text.titled_table("Conventions", *columns)
    for c in PRESETS.values():
        padding = "-" if c.padding_idx is None else f"row {c.padding_idx}"
        factors = f"amplitude {c.amplitude}" if c.amplitude != 1.0 else "-"
        users = option_words(c.users)  # the options that take a library's knobs
        table.add_row(c.name, c.schedule, c.layout, str(c.start), padding, c.odd_d, factors, users)
    text.show(table)
    aliases = text.titled_table("Aliases (the same table)", "alias", "convention")
    for alias, name in ALIASES.items():
        aliases.add_row(alias, name)
    text.show(aliases)
