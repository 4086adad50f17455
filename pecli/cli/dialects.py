"""``pecli conventions``, ``pecli identify`` and ``pecli precision``: other libraries' dialects.

rich (and matplotlib for ``precision -o``) are imported inside the commands.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from ..core.errors import ParameterError, RuntimeFailure
from ..core.figure_rules import check_figure_size
from ..core.frequencies import DEFAULT_BASE
from ..io import formats, paths, writing
from . import text
from ._app import app
from ._app import figures as load_figures
from .convention_options import convention_options
from .options import Base, D, Dpi, IdentifyKey, N, Quiet, Size
from .progress import say_written, track_rows

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
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
    from ..core.conventions import ALIASES, PRESETS

    columns = ("name", "schedule", "layout", "start", "padding", "odd d", "factors", "users")
    table = _table("Conventions", *columns)
    for c in PRESETS.values():
        padding = "-" if c.padding_idx is None else f"row {c.padding_idx}"
        factors = f"amplitude {c.amplitude}" if c.amplitude != 1.0 else "-"
        table.add_row(c.name, c.schedule, c.layout, str(c.start), padding, c.odd_d, factors,
                      c.users)  # fmt: skip
    text.show(table)
    aliases = _table("Aliases (the same table)", "alias", "convention")
    for alias, name in ALIASES.items():
        aliases.add_row(alias, name)
    text.show(aliases)


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
    }
    for what, value in rows.items():
        table.add_row(what, value)
    # below the table, whole: a command wrapped inside a box cannot be copied and pasted
    text.show(table, f"rebuild with: {found.command}" if found.command else "rebuild with: -")


def _show_candidates(found: Identification) -> None:
    table = _table("Closest candidates", "reading", "max |error|", "relative to tolerance")
    for candidate in found.candidates[:5]:
        table.add_row(candidate.description, f"{candidate.residual:.3g}", f"{candidate.score:.3g}")
    text.show(table)


@app.command()
def identify(
    file: Annotated[
        str,
        typer.Argument(
            help="Table to identify (.npy or CSV; - for stdin), rows = positions; or a "
            "checkpoint (.safetensors, .npz) whose table-shaped tensors are each identified."
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    key: IdentifyKey = None,
) -> None:
    """Recognise the convention of a table: layout, schedule, base C, first position, storage.

    Exit status 1, with the closest candidates, when no reading reproduces the table
    within tolerance (one unit in the storage's last place plus float32 arithmetic). In a
    checkpoint, every 2-D (or [1, n, d], [n, 1, d]) float tensor is screened and identified;
    learned tables are listed as not sinusoidal; status 1 when none is identified.

    Example: pecli identify pe.npy --json; pecli identify model.safetensors
    """
    from ..io.checkpoints import is_checkpoint
    from .grid import show_grid

    if key is not None and not is_checkpoint(file):
        raise ParameterError("key", "applies only to .safetensors and .npz files", file)
    if key is not None or is_checkpoint(file):
        from .checkpoint_report import identify_checkpoint

        return identify_checkpoint(file, key, as_json=as_json)
    table, found = _read_identified(file)
    if not found.matched and show_grid(table, as_json=as_json):  # a 2-D grid table (grid.py)
        return
    _report(found, file, as_json=as_json)


def _read_identified(file: str) -> tuple[np.ndarray, Identification]:
    """The whole table named by identify's FILE and its reading; a bad file names FILE."""
    from ..analysis.identify import identify_table
    from ..io.reading import read_table

    try:
        table = read_table(file)
        return table, identify_table(table)
    except ParameterError as error:  # unreadable, or too few rows to tell
        raise typer.BadParameter(f"{error.rule} (got {error.value})", param_hint="'FILE'") from None


def _report(found: Identification, file: str, *, as_json: bool) -> None:
    """Print identify's reading (or the closest candidates); status 1 when nothing matched."""
    if as_json:
        import json

        typer.echo(json.dumps(text.jsonable(dataclasses.asdict(found)), indent=2))
    elif found.matched:
        _show_identification(found)
    else:
        _show_candidates(found)
    if not found.matched:
        name = "the table on stdin" if file == "-" else file
        note = f"; {found.note}" if found.note else ""
        raise RuntimeFailure(f"{name} matches no convention within tolerance{note}")  # status 1


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
    dpi: Dpi = None,
    size: Size = None,
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

    kind = _figure_kind(output, size, dpi)
    report = precision_report(
        d=d, n=n, convention=conv, base=base, dtype=compute_dtype.value, threshold=threshold,
        track=functools.partial(track_rows, total_rows=n, description="precision", quiet=quiet),
    )  # fmt: skip
    _show_precision(report)
    if output is not None and kind is not None:
        figures = load_figures("article")

        figure = figures.precision_figure(report, size=size, dpi=dpi)
        writing.save_figure(figure, output, kind)
        say_written(output, quiet=quiet)


def _figure_kind(
    output: str | None, size: tuple[float, float] | None, dpi: float | None
) -> str | None:
    """The figure format of ``-o``, checked before any work with its size (None: no figure)."""
    check_figure_size(size, dpi)
    if output is None:
        return None
    if paths.is_stdout_alias(output):
        raise ParameterError("output", "must be a file name: the table goes to stdout", output)
    kind = formats.resolve_format(
        output, None, formats=formats.FIGURE_FORMATS, default="png", format_option=False
    )
    formats.check_output(output, kind)
    return kind
