"""``pecli conventions``, ``pecli identify`` and ``pecli precision``: other libraries' dialects.

rich (and matplotlib for ``precision -o``) are imported inside the commands.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..core.errors import ParameterError, RuntimeFailure
from ..core.frequencies import DEFAULT_BASE
from ..io import formats, paths, writing
from . import text
from ._app import app
from ._app import figures as load_figures
from .options import (
    Base,
    D,
    N,
    Quiet,
    convention_options,
)
from .progress import say_written, track_rows

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..analysis.identify import Identification
    from ..analysis.precision import PrecisionReport
    from ..core.conventions import Convention


class ComputeDtype(StrEnum):
    """Arithmetic of the framework-style table."""

    float32 = "float32"
    float16 = "float16"
    bfloat16 = "bfloat16"


def _table(title: str, *columns: str) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    return table


@app.command()
def conventions() -> None:
    """List the named conventions (--convention NAME) and who uses each.

    Example: pecli conventions
    """
    from ..core.conventions import PRESETS

    table = _table(
        "Conventions", "name", "schedule", "layout", "start", "padding", "odd d", "users"
    )
    for c in PRESETS.values():
        padding = "-" if c.padding_idx is None else f"row {c.padding_idx}"
        odd = "zero column" if c.pad_odd_d else "error"
        table.add_row(c.name, c.schedule, c.layout, str(c.start), padding, odd, c.users)
    text.show(table)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _show_identification(found: Identification) -> None:
    table = _table(f"pecli identify: {'match' if found.matched else 'no match'}", "what", "found")
    rows = {
        "convention": ", ".join(found.presets) or "custom (no named preset)",
        "layout": found.layout,
        "schedule": found.schedule,
        "base C": f"{found.base:.10g}"
        + (f" (fit {found.base_fit:.8g})" if math.isfinite(found.base_fit) else ""),
        "equivalent": found.equivalent or "-",
        "first position": f"{found.start:.10g}" + (f" ({found.note})" if found.note else ""),
        "padding rows (0-based)": ", ".join(map(str, found.padding_rows)) or "-",
        "zero components": ", ".join(map(str, found.zero_components)) or "-",
        "storage": found.storage,
        "orientation": "transposed (d × n)" if found.transposed else "rows = positions",
        "residual": f"{found.residual:.3g} (relative to tolerance: {found.relative_residual:.3g})",
        "rebuild with": found.command or "-",
    }
    for what, value in rows.items():
        table.add_row(what, value)
    text.show(table)


def _show_candidates(found: Identification) -> None:
    table = _table("Closest candidates", "reading", "max |error|", "relative to tolerance")
    for candidate in found.candidates[:5]:
        table.add_row(candidate.description, f"{candidate.residual:.3g}", f"{candidate.score:.3g}")
    text.show(table)


@app.command()
def identify(
    file: Annotated[
        str, typer.Argument(help="Table to identify (.npy or CSV; - for stdin), rows = positions.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Recognise the convention of a table: layout, schedule, base C, first position, storage.

    Exit status 1, with the closest candidates, when no reading reproduces the table
    within tolerance (one unit in the storage's last place plus float32 arithmetic).

    Example: pecli identify pe.npy --json
    """
    from ..analysis.identify import identify_table
    from ..io.reading import read_table

    try:
        found = identify_table(read_table(file))
    except ParameterError as error:  # unreadable, or too few rows to tell
        raise typer.BadParameter(f"{error.rule} (got {error.value})", param_hint="'FILE'") from None
    if as_json:
        import json

        typer.echo(json.dumps(_jsonable(dataclasses.asdict(found)), indent=2))
    elif found.matched:
        _show_identification(found)
    else:
        _show_candidates(found)
    if not found.matched:
        name = "the table on stdin" if file == "-" else file
        raise RuntimeFailure(f"{name} matches no convention within tolerance")  # status 1


def _position(value: float) -> str:
    """A position as written on the command line: 1000000, not 1e+06."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _show_precision(report: PrecisionReport) -> None:
    title = f"Max |error| per position range, {report.dtype} arithmetic vs float64"
    table = _table(title, "positions", f"framework ({report.dtype})", "pecli (rounded once)")
    for first, last, framework, pecli in report.ranges():
        table.add_row(f"{_position(first)} … {_position(last)}", f"{framework:.3g}", f"{pecli:.3g}")
    crossing = "none" if report.first_exceeding is None else f"{report.first_exceeding:g}"
    text.show(
        table,
        f"first position with error > {report.threshold:g}: {crossing}",
        f"largest position exact in {report.dtype}: {report.largest_exact}",
    )


@app.command()
@convention_options()
def precision(
    d: D = 512,
    n: N = 100000,
    base: Base = DEFAULT_BASE,
    compute_dtype: Annotated[
        ComputeDtype, typer.Option("--compute-dtype", help="Framework arithmetic to emulate.")
    ] = ComputeDtype.float32,
    threshold: Annotated[float, typer.Option("--threshold", help="Error to flag, > 0.")] = 1e-3,
    output: Annotated[
        str | None,
        typer.Option("-o", "--output", help="Also draw error vs position (png, svg, pdf)."),
    ] = None,
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Error of the table computed the way frameworks do (float32 angles, fp16, bf16).

    Compares against pecli's float64 table: max error per position range, first position
    above --threshold, largest position exact in the dtype (256 bf16, 2048 fp16).

    Example: pecli precision --d 512 --n 100000 --compute-dtype bfloat16 -o error.png
    """
    from ..analysis.precision import precision_report

    kind = _figure_kind(output)
    report = precision_report(
        d=d, n=n, convention=conv, base=base, dtype=compute_dtype.value, threshold=threshold,
        track=functools.partial(track_rows, total_rows=n, description="precision", quiet=quiet),
    )  # fmt: skip
    _show_precision(report)
    if output is not None and kind is not None:
        figures = load_figures("article")

        writing.save_figure(figures.precision_figure(report), output, kind)
        say_written(output, quiet=quiet)


def _figure_kind(output: str | None) -> str | None:
    """The figure format of ``-o``, checked before any work (None: no figure)."""
    if output is None:
        return None
    if paths.is_stdout_alias(output):
        raise ParameterError("output", "must be a file name: the table goes to stdout", output)
    kind = formats.resolve_format(
        output, None, formats=formats.FIGURE_FORMATS, default="png", format_option=False
    )
    formats.check_output(output, kind)
    return kind
