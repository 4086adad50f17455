"""``pecli precision``: what framework arithmetic (float32 angles, fp16, bf16) loses.

matplotlib is imported only for ``-o``.
"""

from __future__ import annotations

import functools
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from ...core.errors import ParameterError
from ...core.figure_rules import check_figure_size
from ...core.sinusoidal.frequencies import DEFAULT_BASE
from ...io import formats, paths, text, writing
from ...io.reports import say_written
from ...io.targets import track_rows
from .._app import app
from .._app import figures as load_figures
from ..options import Base, D, Dpi, N, Quiet, Size, Title
from .options import convention_options

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.sinusoidal.precision import PrecisionReport
    from ...core.sinusoidal.conventions import Convention


class ComputeDtype(StrEnum):
    """Arithmetic of the framework-style table."""

    float32 = "float32"
    float16 = "float16"
    bfloat16 = "bfloat16"


def _position(value: float) -> str:
    """A position as written on the command line: 1000000, not 1e+06."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _show_precision(report: PrecisionReport) -> None:
    title = f"Max |error| per position range, {report.dtype} arithmetic vs float64"
    table = text.titled_table(
        title, "positions", f"framework ({report.dtype})", "pecli (rounded once)"
    )
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
    title: Title = None,
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Error of the table computed the way frameworks do (float32 angles, fp16, bf16).

    Compares against pecli's float64 table: max error per position range, first position
    above --threshold, largest position exact in the dtype (256 bf16, 2048 fp16).

    Example: pecli precision --d 512 --n 100000 --compute-dtype bfloat16 -o error.png
    """
    from ...analysis.sinusoidal.precision import precision_report

    kind = _figure_kind(output, size, dpi)
    report = precision_report(
        d=d,
        n=n,
        convention=conv,
        base=base,
        dtype=compute_dtype.value,
        threshold=threshold,
        track=functools.partial(track_rows, total_rows=n, description="precision", quiet=quiet),
    )
    _show_precision(report)
    if output is not None and kind is not None:
        figures = load_figures("sinusoidal.article")

        figure = figures.precision_figure(report, size=size, dpi=dpi)
        if title is not None:
            load_figures("style").retitle(figure, title)
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
