"""``pecli fourier`` and ``pecli plot-fourier``: the Fourier feature map γ (docs/fourier.md).

matplotlib is imported inside ``plot-fourier`` only.
"""

from __future__ import annotations

import math
import os
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_dtype, number_text
from ...io.targets import PlotOutputs, TableTarget
from .._app import app
from .._app import figures as load_figures
from ..options import Dtype, InputFile, plot_options, table_options

if TYPE_CHECKING:  # pragma: no cover
    from ...io import reading


class Frequencies(StrEnum):
    """Frequency schedules of γ."""

    harmonic = "harmonic"
    octave = "octave"


K = Annotated[
    int,
    typer.Option(
        "--k",
        help="Number of frequencies k (2k features per value); 1 to 65536, 1024 with octave.",
    ),
]
PlotK = Annotated[int, typer.Option("--k", help="Number of frequencies k (a curve each), 1 to 64.")]
FrequenciesOpt = Annotated[
    Frequencies,
    typer.Option("--frequencies", help="harmonic: 1 … k (the article); octave: 2^0 … 2^(k-1)."),
]
Scale = Annotated[
    str, typer.Option("--scale", help="Factor on x, > 0: a number, pi, 2pi or e.g. 0.5pi.")
]
Values = Annotated[
    list[str] | None,
    typer.Argument(help="Values x (negative ones too, e.g. -1.5 or after --).", show_default=False),
]
Linspace = Annotated[
    tuple[float, float, int] | None,
    typer.Option(
        "--linspace",
        help="NUM evenly spaced values from START to STOP.",
        metavar="START STOP NUM",
        show_default=False,
    ),
]


#: Most values of --linspace (they are built in memory, 8 bytes each).
MAX_LINSPACE = 10_000_000
#: Output values per block γ is computed in (its temporaries are ~8 float64 arrays of it).
BLOCK_VALUES = 1 << 18


def _value(text: str) -> float:
    """A value given as an argument; unknown options end up here too, so name them."""
    try:
        value = float(text)
    except ValueError:
        rule = "is neither a number nor an option of fourier" if text.startswith("-") else ""
        if not rule and os.path.exists(text):  # a file given where values go
            rule = "is a file: values go here, a file of values after -i"
        message = f"{text!r} {rule or 'is not a number'}"
        raise typer.BadParameter(message, param_hint="'VALUES...'") from None
    if not math.isfinite(value):
        raise typer.BadParameter(f"must be finite numbers (got {text})", param_hint="'VALUES...'")
    return value


def _points(
    values: list[str] | None, input_file: str | None, linspace: tuple[float, float, int] | None
) -> reading.Matrix:
    """The input points from exactly one of the three sources, as a :class:`reading.Matrix`."""
    from ...io import reading  # mmap, csv: only commands that read input pay for them

    given = [values is not None and len(values) > 0, input_file is not None, linspace is not None]
    if sum(given) != 1:
        hint = "'VALUES...', '--input' or '--linspace'"
        raise typer.BadParameter("give exactly one source of values", param_hint=hint)
    if input_file is not None:
        matrix = reading.read_matrix(input_file)
        if len(matrix.shape) > 2 or math.prod(matrix.shape) == 0:
            rule = "must hold N values or an (N, m) matrix of coordinates"
            raise ParameterError("input", rule, f"shape {matrix.shape}")
        return matrix
    if linspace is not None:
        start, stop, num = linspace
        if not (math.isfinite(start) and math.isfinite(stop)):  # x, not positions: no 2^53
            rule = "START and STOP must be finite numbers"
            raise ParameterError("linspace", rule, f"{number_text(start)} {number_text(stop)}")
        if not 1 <= num <= MAX_LINSPACE:
            raise ParameterError(
                "linspace", f"NUM must be an integer from 1 to {MAX_LINSPACE}", num
            )
        if not math.isfinite(stop - start):
            raise ParameterError("linspace", "STOP - START must be finite", f"{start} {stop}")
        array = np.linspace(start, stop, num)
    else:
        array = np.array([_value(text) for text in values or []], dtype=np.float64)
    return reading.matrix_from_array(array)


@app.command(context_settings={"ignore_unknown_options": True})
@table_options(dtype=Dtype.float64, certified=True)
def fourier(
    values: Values = None,
    input_file: InputFile = None,
    linspace: Linspace = None,
    k: K = 3,
    frequencies: FrequenciesOpt = Frequencies.harmonic,
    scale: Scale = "1",
    include_input: Annotated[
        bool, typer.Option("--include-input", help="Put the raw x first (as the NeRF code).")
    ] = False,
    *,
    out: TableTarget,
) -> None:
    """Fourier features γ(x) = [sin x, cos x, …, sin kx, cos kx] of values (NeRF, §5.1).

    Values come as arguments, from --input (.npy or CSV; one value or m coordinates per
    row; - for stdin) or from --linspace. Output is (N, 2k), or (N, m·2k [+ m]) for m
    coordinates, grouped by frequency: [sin(f·x_1..m), cos(f·x_1..m)] for each f.
    With --dtype float32 every value is correctly rounded (certified; pi is exactly π).

    Example: pecli fourier --k 3 -- 0.5 -1.5
    """
    from ...core.sinusoidal import fourier as gamma

    out.check(inputs=(input_file,))
    gamma.parse_scale(scale)  # checked now, before any input is read; γ takes the text (exact π)
    stored, kind = check_dtype(out.dtype), frequencies.value
    features = partial(
        gamma.fourier_features,
        k=k,
        frequencies=kind,
        scale=scale,
        include_input=include_input,
        dtype=stored,
    )
    gamma.fourier_frequencies(k, frequencies=kind)
    matrix = _points(values, input_file, linspace)
    n = matrix.shape[0] if matrix.shape else 1
    m = matrix.shape[1] if len(matrix.shape) == 2 else 1
    names = gamma.feature_names(m, k, include_input=include_input, frequencies=kind)
    rows = max(1, BLOCK_VALUES // len(names))  # γ's double-double angles: bounded memory
    blocks = (features(block) for _, block in matrix.blocks(rows))
    # float32: every value correctly rounded, counted as it is made (docs/exactness.md)
    out.write(blocks, shape=(n, len(names)), dtype=stored, columns=names, certified="counted")


@app.command("plot-fourier")
@plot_options("fourier.png", default_size=(9.0, 6.0))
def plot_fourier(
    k: PlotK = 3,
    frequencies: FrequenciesOpt = Frequencies.harmonic,
    scale: Scale = "1",
    periods: Annotated[int, typer.Option("--periods", help="Periods drawn, 2 to 1000.")] = 3,
    points: Annotated[int, typer.Option("--points", help="Sample points, 2 to 100000.")] = 1501,
    hidden: Annotated[int, typer.Option("--hidden", help="Hidden width of f, 1 to 256.")] = 32,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random network f.")] = 0,
    *,
    plot: PlotOutputs,
) -> None:
    """Draw γ(x) over several periods and, below, a random network f applied to γ(x).

    f is a fixed tanh network with two hidden layers (seeded), so f∘γ repeats with the
    period 2π/scale of the features, which the figure marks. Writes fourier.png without -o;
    --data also exports x, the features and f(γ(x)).

    Example: pecli plot-fourier --k 3 -o figures/fourier.svg
    """
    figure = load_figures("sinusoidal.fourier")
    drawn = figure.periodicity(
        k=k,
        frequencies=frequencies.value,
        scale=scale,
        periods=periods,
        points=points,
        hidden=hidden,
        seed=seed,
    )
    look = {"frequencies": drawn.frequencies, "period": drawn.period}
    plot.write(
        lambda: figure.periodicity_figure(
            drawn.x, drawn.features, drawn.output, **look, size=plot.size, dpi=plot.dpi
        ),
        drawn.table,
        drawn.columns,
    )
