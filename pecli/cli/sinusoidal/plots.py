"""``pecli plot-waves`` and ``pecli heatmap``: the article's two figures (docs/figures.md).

matplotlib is imported inside the commands, so the rest of pecli never pays for it.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.figure_rules import check_figure_size
from ...core.rules import check_position
from ...core.sinusoidal.frequencies import DEFAULT_BASE
from ...io import formats, guard, paths, writing
from .._app import app
from .._app import figures as load_figures
from ..options import Base, DataOutput, Dpi, EvenD, Quiet, Size, Title
from ..progress import say_written
from .options import convention_options

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ...core.sinusoidal.conventions import Convention

FigureOutput = Annotated[
    str | None,
    typer.Option(
        "-o",
        "--output",
        help="Figure file; the suffix picks the format (png, svg, pdf).",
        show_default=False,
    ),
]


def _positions(start: float, stop: float, points: int, most: int) -> np.ndarray:
    """``points`` sample positions from ``start`` to ``stop``, checked."""
    first, last = check_position("start", start), check_position("stop", stop)
    if last <= first:
        raise ParameterError("stop", "must be greater than --start", stop)
    if not 2 <= points <= most:
        raise ParameterError("points", f"must be an integer from 2 to {most}", points)
    positions = np.linspace(first, last, points)
    if not np.all(np.diff(positions) > 0):  # --stop 5e-324: every sample is the same number
        rule = f"must leave room for --points {points} distinct positions after --start"
        raise ParameterError("stop", rule, stop)
    return positions


def _parse_pairs(text: str | None, d: int) -> tuple[list[int], str | None]:
    """The pairs asked for, or the article's scaled to ``d`` and a line that names them."""
    from ...figures.sinusoidal.waves import ARTICLE_PAIRS, default_pairs

    if text is None:
        pairs = default_pairs(d)
        article = ", ".join(map(str, ARTICLE_PAIRS))
        drawn = ", ".join(map(str, pairs))
        origin = "the article's" if d == 512 else f"the article's {article} scaled to d = {d}"
        return pairs, f"pecli: drew pairs {drawn} ({origin})"
    try:
        pairs = [int(part) for part in text.split(",")]
    except ValueError:
        raise ParameterError(
            "pairs", "must be comma-separated integers, e.g. 1,10,50", text
        ) from None
    if not pairs or min(pairs) < 1:
        raise ParameterError("pairs", "must be integers >= 1", text)
    return pairs, None


class PlotOutputs:
    """The figure file and the optional data file of a plotting command, checked up front."""

    def __init__(
        self,
        output: str | None,
        default_name: str,
        data: str | None,
        quiet: bool,
        *,
        size: tuple[float, float] | None = None,
        dpi: float | None = None,
        default_size: tuple[float, float] = (9.0, 4.5),
        title: str | None = None,
    ) -> None:
        check_figure_size(size, dpi, default_size=default_size)  # before any work
        self.quiet, self.title = quiet, title
        self.figure = default_name if output is None else output
        self.replacing_unnamed = output is None and os.path.lexists(default_name)
        self.figure_format = formats.resolve_format(
            self.figure, None, formats=formats.FIGURE_FORMATS, default="png", format_option=False
        )
        formats.check_output(self.figure, self.figure_format)
        self.data = data
        if data is not None:
            self.data_format = formats.resolve_format(
                data, None, parameter="data", format_option=False
            )
            formats.check_output(data, self.data_format, parameter="data")
            if paths.is_stdout_alias(data) and paths.is_stdout_alias(self.figure):
                rule = "cannot share stdout with the figure: give one of them a file name"
                raise ParameterError("data", rule, data)

    def write(self, build: Callable[[], Figure], table: np.ndarray, columns: list[str]) -> None:
        """Build the figure, then write it and the data (if asked) together; name them.

        Both go to temporary files that replace the old ones only once both are complete,
        so a failure or an interrupt leaves the previous figure and data file as they were.
        """
        figure = build()
        if self.title is not None:  # --title
            load_figures("style").retitle(figure, self.title)
        with contextlib.ExitStack() as files:
            figure_file = files.enter_context(guard.atomic_output(self.figure))
            if self.data is not None:
                data_file = files.enter_context(guard.atomic_output(self.data))
                writing.write_table_to(
                    data_file,
                    [table],
                    fmt=self.data_format,
                    shape=table.shape,
                    dtype=table.dtype,
                    columns=columns,
                )
            writing.save_figure_to(figure_file, figure, self.figure_format)
            with guard.signals_held():  # both renames happen, or (on an error) neither
                files.close()
        say_written(self.data, quiet=self.quiet)
        say_written(self.figure, quiet=self.quiet, unnamed=self.replacing_unnamed)


@app.command("plot-waves")
@convention_options(positions=False)
def plot_waves(
    d: EvenD = 512,
    base: Base = DEFAULT_BASE,
    pairs: Annotated[
        str | None,
        typer.Option(
            "--pairs",
            help="Pair indices i, comma-separated, at most 32. "
            "[default: 1,10,50,100 at d = 512; the same wavelengths at other d]",
            show_default=False,
        ),
    ] = None,
    start: Annotated[float, typer.Option("--start", help="First position on the x axis.")] = 0.0,
    stop: Annotated[float, typer.Option("--stop", help="Last position on the x axis.")] = 250.0,
    points: Annotated[
        int, typer.Option("--points", help="Number of sample positions, 2 to 1000000.")
    ] = 2501,
    panels: Annotated[
        bool,
        typer.Option(
            "--panels/--one-axes",
            help="One panel per pair, stacked, so that fast waves stay apart; or all in one axes.",
        ),
    ] = True,
    output: FigureOutput = None,
    data: DataOutput = None,
    dpi: Dpi = None,
    size: Size = None,
    title: Title = None,
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Draw the sine component of chosen pairs i against position (the article's first figure).

    Each curve is pe(pos)[2i-1] = sin(pos / C^(2(i-1)/d)), sampled at --points positions
    from --start to --stop; the legend gives each wavelength. Without --pairs the pairs are
    the article's 1, 10, 50, 100 scaled to d (named on stderr). Writes waves.png without -o.
    A convention changes the frequencies (schedule) and the component numbers (layout).

    Example: pecli plot-waves --d 64 --pairs 1,4,16 --one-axes -o waves.svg
    """
    figures = load_figures("sinusoidal.waves")
    conv.check_plain("plot-waves")
    outputs = PlotOutputs(output, "waves.png", data, quiet, size=size, dpi=dpi, title=title)
    positions = _positions(start, stop, points, figures.MAX_WAVE_POINTS)
    wanted, named = _parse_pairs(pairs, d)
    sched = conv.schedule
    curves = figures.wave_curves(positions, d=d, pairs=wanted, base=base, schedule=sched)
    if named and not quiet:  # once d is known to be good
        typer.echo(named, err=True)
    draw = functools.partial(
        figures.waves_figure,
        positions,
        curves,
        pairs=wanted,
        d=d,
        base=base,
        schedule=sched,
        layout=conv.layout,
        panels=panels,
        size=size,
        dpi=dpi,
    )
    columns = ["position", *(f"sin_{i}" for i in wanted)]
    outputs.write(draw, np.column_stack([positions, curves]), columns)


@app.command()
@convention_options()
def heatmap(
    d: Annotated[
        int, typer.Option("--d", help="Width d (d_model), 2 to 8192 for a heatmap.")
    ] = 128,
    n: Annotated[int, typer.Option("--n", help="Number of positions (columns), 1 to 10000.")] = 100,
    base: Base = DEFAULT_BASE,
    output: FigureOutput = None,
    data: DataOutput = None,
    dpi: Dpi = None,
    size: Size = None,
    title: Title = None,
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Draw pe(start) … pe(start + n - 1) as columns of a heatmap (the article's second figure).

    x = position, y = component with component 1 at the bottom, colours on the fixed
    range [-1, 1]; tables larger than the image are anti-aliased (each pixel a local mean).
    Writes heatmap.png without -o; --data also exports the (n, d) table.

    Example: pecli heatmap --d 512 --n 2048 --size 12 6 --dpi 150 -o heatmap.png
    """
    from ...core.sinusoidal.encoding import component_names, encoding_table

    figures = load_figures("sinusoidal.article")

    outputs = PlotOutputs(output, "heatmap.png", data, quiet, size=size, dpi=dpi, title=title)
    figures.check_heatmap_size(n=n, d=d, pad_odd_d=conv.pad_odd_d)
    table = encoding_table(d=d, n=n, base=base, dtype="float64", **conv.table_kwargs())
    columns = component_names(d, conv.layout, odd_d=conv.odd_d)
    outputs.write(
        lambda: figures.heatmap_figure(table, start=conv.start, base=base, size=size, dpi=dpi),
        table,
        columns,
    )
