"""``pecli plot-alibi`` and ``pecli plot-t5-buckets`` (docs/figures.md#alibi-and-t5-buckets)."""

from __future__ import annotations

from typing import Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...io.targets import PlotOutputs
from .._app import app
from .._app import figures as load_figures
from ..options import plot_options
from .alibi import FIRST, RIGHT, ConventionOpt, Heads, MaxBias, Variant, VariantOpt
from .t5 import Causal, MaxDistance, NumBuckets

#: Most keys drawn in one bias matrix.
MOST_KEYS = 4096


@app.command("plot-alibi")
@plot_options("alibi.png")
def plot_alibi(
    heads: Heads = 8,
    n: Annotated[int, typer.Option("--n", help="Key positions drawn, 2 to 4096.")] = 32,
    head: Annotated[int, typer.Option("--head", help="The head whose matrix is drawn.")] = 0,
    convention: ConventionOpt = FIRST,
    max_bias: MaxBias = 8.0,
    variant: VariantOpt = RIGHT,
    compare: Annotated[
        Variant | None,
        typer.Option(
            "--compare", help="Also draw this series' slopes, dashed.", show_default=False
        ),
    ] = None,
    *,
    plot: PlotOutputs,
) -> None:
    """Draw one head's ALiBi bias matrix beside every head's slope (log scale).

    The matrix is --convention's (masked entries blank); --compare draws another series
    beside the slopes, e.g. next-power-of-two for a head count that is no power of two.
    Writes alibi.png without -o; --data also exports head, slope (and the compared slope).

    Example: pecli plot-alibi --heads 12 --compare next-power-of-two -o alibi.svg
    """
    from ...core.zoo.alibi import alibi_bias

    if not 2 <= n <= MOST_KEYS:
        raise ParameterError("n", f"must be an integer from 2 to {MOST_KEYS} in a figure", n)
    columns = _series(heads, max_bias, variant, compare)
    slopes = columns["slope"]
    if not 0 <= head < heads:
        raise ParameterError("head", f"must be a head index from 0 to {heads - 1}", head)
    bias = alibi_bias(slopes[head : head + 1], n, convention=convention.value)[0]
    other = None if compare is None else (compare.value, columns[compare.value])
    knobs = {
        "head": head,
        "convention": convention.value,
        "max_bias": max_bias,
        "series": variant.value,
    }
    figures = load_figures("zoo")
    look = {"other": other, "size": plot.size, "dpi": plot.dpi}
    plot.write(
        lambda: figures.alibi_figure(bias, slopes, **look, **knobs),
        np.column_stack(list(columns.values())).astype(np.float64),
        list(columns),
    )


def _series(
    heads: int, max_bias: float, variant: Variant, compare: Variant | None
) -> dict[str, np.ndarray]:
    """``head``, ``slope`` and the compared series' slopes, as the data file's columns."""
    from ...core.zoo.alibi import alibi_slopes

    columns = {
        "head": np.arange(heads),
        "slope": alibi_slopes(heads, max_bias=max_bias, variant=variant.value),
    }
    if compare is not None:
        columns[compare.value] = alibi_slopes(heads, max_bias=max_bias, variant=compare.value)
    return columns


@app.command("plot-t5-buckets")
@plot_options("t5-buckets.png")
def plot_t5_buckets(
    num_buckets: NumBuckets = 32,
    max_distance: MaxDistance = 128,
    causal: Causal = False,
    span: Annotated[
        int | None,
        typer.Option(
            "--span",
            help="Relative positions -S … S, 1 to 100000. [default: 1.5 × --max-distance]",
            show_default=False,
        ),
    ] = None,
    *,
    plot: PlotOutputs,
) -> None:
    """Draw T5's bucket of each relative position memory − query: the staircase.

    One bucket per distance below max_exact, then logarithmically wider buckets up to
    --max-distance, past which every distance shares the last one. Writes t5-buckets.png
    without -o; --data also exports relative_position and bucket.

    Example: pecli plot-t5-buckets --num-buckets 32 --max-distance 128 -o t5.svg
    """
    from ...core.zoo.t5_buckets import relative_position_bucket

    s = (3 * max_distance) // 2 if span is None else span
    if not 1 <= s <= 100_000:  # the option the user typed (or left to its default) is named
        name, value = ("span", s) if span is not None else ("max_distance", max_distance)
        rule = "must be an integer from 1 to 100000 in a figure"
        if span is None:
            rule = "must give a default --span (3/2 of it) from 1 to 100000: give --span"
        raise ParameterError(name, rule, value)
    rp = np.arange(-s, s + 1)
    config = {"num_buckets": num_buckets, "max_distance": max_distance}
    buckets = relative_position_bucket(rp, bidirectional=not causal, **config)
    figures = load_figures("zoo")
    look = {"bidirectional": not causal, "size": plot.size, "dpi": plot.dpi}
    plot.write(
        lambda: figures.t5_buckets_figure(rp, buckets, **look, **config),
        np.column_stack([rp, buckets]).astype(np.float64),
        ["relative_position", "bucket"],
    )
