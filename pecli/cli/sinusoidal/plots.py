"""``pecli plot-waves`` and ``pecli heatmap``: the article's two figures (docs/figures.md).

matplotlib is imported inside the commands, so the rest of pecli never pays for it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_position
from ...core.sinusoidal.frequencies import DEFAULT_BASE
from ...io.targets import PlotOutputs
from .._app import app
from .._app import figures as load_figures
from ..options import Base, EvenD, plot_options
from .options import convention_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.sinusoidal.conventions import Convention


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


@app.command("plot-waves")
@convention_options(positions=False, plain="plot-waves")
@plot_options("waves.png")
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
    *,
    plot: PlotOutputs,
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
    positions = _positions(start, stop, points, figures.MAX_WAVE_POINTS)
    wanted, named = _parse_pairs(pairs, d)
    sched = conv.schedule
    curves = figures.wave_curves(positions, d=d, pairs=wanted, base=base, schedule=sched)
    if named and not plot.quiet:  # once d is known to be good
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
        size=plot.size,
        dpi=plot.dpi,
    )
    columns = ["position", *(f"sin_{i}" for i in wanted)]
    plot.write(draw, np.column_stack([positions, curves]), columns)


@app.command()
@convention_options()
@plot_options("heatmap.png")
def heatmap(
    d: Annotated[
        int, typer.Option("--d", help="Width d (d_model), 2 to 8192 for a heatmap.")
    ] = 128,
    n: Annotated[int, typer.Option("--n", help="Number of positions (columns), 1 to 10000.")] = 100,
    base: Base = DEFAULT_BASE,
    *,
    plot: PlotOutputs,
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
    figures.check_heatmap_size(n=n, d=d, pad_odd_d=conv.pad_odd_d)
    table = encoding_table(d=d, n=n, base=base, dtype="float64", **conv.table_kwargs())
    columns = component_names(d, conv.layout, odd_d=conv.odd_d)
    look = {"size": plot.size, "dpi": plot.dpi}
    plot.write(
        lambda: figures.heatmap_figure(table, start=conv.start, base=base, **look), table, columns
    )
