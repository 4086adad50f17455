"""``pecli plot-waves`` and ``pecli heatmap``: the article's two figures (docs/figures.md).

matplotlib is imported inside the commands, so the rest of pecli never pays for it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ..core.errors import ParameterError
from ..core.frequencies import DEFAULT_BASE
from ..core.rules import check_position
from ..io import formats, guard, paths, writing
from ._app import app
from ._app import figures as load_figures
from .options import (
    Base,
    DataOutput,
    EvenD,
    Quiet,
    convention_options,
)
from .progress import say_written

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..core.conventions import Convention

FigureOutput = Annotated[
    str | None,
    typer.Option(
        "-o",
        "--output",
        help="Figure file; the suffix picks the format (png, svg, pdf).",
        show_default=False,
    ),
]


#: The article's pairs i (its first figure).
DEFAULT_PAIRS = "1,10,50,100"


def _positions(start: float, stop: float, points: int, most: int) -> np.ndarray:
    """``points`` sample positions from ``start`` to ``stop``, checked."""
    first, last = check_position("start", start), check_position("stop", stop)
    if last <= first:
        raise ParameterError("stop", "must be greater than --start", stop)
    if not 2 <= points <= most:
        raise ParameterError("points", f"must be an integer from 2 to {most}", points)
    return np.linspace(first, last, points)


def _parse_pairs(text: str, d: int) -> list[int]:
    try:
        pairs = [int(part) for part in text.split(",")]
    except ValueError:
        raise ParameterError(
            "pairs", "must be comma-separated integers, e.g. 1,10,50", text
        ) from None
    if not pairs or min(pairs) < 1:
        raise ParameterError("pairs", "must be integers >= 1", text)
    if text == DEFAULT_PAIRS and max(pairs) > d // 2:  # the user typed --d, not --pairs
        rule = f"must be at least {2 * max(pairs)} for the default --pairs {text} (or give them)"
        raise ParameterError("d", rule, d)
    return pairs


class PlotOutputs:
    """The figure file and the optional data file of a plotting command, checked up front."""

    def __init__(
        self, output: str | None, default_name: str, data: str | None, quiet: bool
    ) -> None:
        self.quiet = quiet
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
        with contextlib.ExitStack() as files:
            figure_file = files.enter_context(guard.atomic_output(self.figure))
            if self.data is not None:
                data_file = files.enter_context(guard.atomic_output(self.data))
                writing.write_table_to(
                    data_file, [table], fmt=self.data_format, shape=table.shape,
                    dtype=table.dtype, columns=columns,
                )  # fmt: skip
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
        str, typer.Option("--pairs", help="Pair indices i, comma-separated.")
    ] = DEFAULT_PAIRS,
    start: Annotated[float, typer.Option("--start", help="First position on the x axis.")] = 0.0,
    stop: Annotated[float, typer.Option("--stop", help="Last position on the x axis.")] = 250.0,
    points: Annotated[
        int, typer.Option("--points", help="Number of sample positions, 2 to 1000000.")
    ] = 2501,
    output: FigureOutput = None,
    data: DataOutput = None,
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Draw the sine component of chosen pairs i against position (the article's first figure).

    Each curve is pe(pos)[2i-1] = sin(pos / C^(2(i-1)/d)), sampled at --points positions
    from --start to --stop; the legend gives each wavelength. Writes waves.png without -o.
    A convention changes the frequencies (schedule) and the component numbers (layout).

    Example: pecli plot-waves --d 512 --pairs 1,10,50,100 -o figures/waves.svg
    """
    figures = load_figures("article")
    conv.check_plain("plot-waves")
    outputs = PlotOutputs(output, "waves.png", data, quiet)
    wanted = _parse_pairs(pairs, d)
    positions = _positions(start, stop, points, figures.MAX_WAVE_POINTS)
    sched = conv.schedule
    curves = figures.wave_curves(positions, d=d, pairs=wanted, base=base, schedule=sched)
    outputs.write(
        lambda: figures.waves_figure(
            positions, curves, pairs=wanted, d=d, base=base, schedule=sched, layout=conv.layout
        ),
        np.column_stack([positions, curves]),
        ["position", *(f"sin_{i}" for i in wanted)],
    )


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
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Draw pe(start) … pe(start + n - 1) as columns of a heatmap (the article's second figure).

    x = position, y = component with component 1 at the bottom, colours on the fixed
    range [-1, 1]. Writes heatmap.png without -o; --data also exports the (n, d) table.

    Example: pecli heatmap --d 128 --n 100 -o heatmap.png
    """
    from ..core.encoding import component_names, encoding_table

    figures = load_figures("article")

    outputs = PlotOutputs(output, "heatmap.png", data, quiet)
    figures.check_heatmap_size(n=n, d=d)
    table = encoding_table(d=d, n=n, base=base, dtype="float64", **conv.table_kwargs())
    columns = component_names(d, conv.layout, odd_d=conv.odd_d)
    outputs.write(
        lambda: figures.heatmap_figure(table, start=conv.start, base=base), table, columns
    )
