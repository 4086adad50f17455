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
from ...core.rules import check_dtype, check_position
from ...io import formats, writing
from .._app import app
from .._app import figures as load_figures
from ..progress import say_written

if TYPE_CHECKING:  # pragma: no cover
    from ...io import reading
from ..options import (
    DataOutput,
    Dpi,
    Dtype,
    DtypeOpt,
    FormatOpt,
    Header,
    InputFile,
    Quiet,
    Size,
    TableOutput,
    Title,
)
from .plots import FigureOutput, PlotOutputs


class Frequencies(StrEnum):
    """Frequency schedules of γ."""

    harmonic = "harmonic"
    octave = "octave"


K = Annotated[
    int,
    typer.Option(
        "--k",
        help="Number of frequencies k (2k features per value); 1 to 65536, "
        "1024 with octave, 64 for plot-fourier.",
    ),
]
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
        check_position("linspace", start), check_position("linspace", stop)
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
    dtype: DtypeOpt = Dtype.float64,
    output: TableOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    quiet: Quiet = False,
) -> None:
    """Fourier features γ(x) = [sin x, cos x, …, sin kx, cos kx] of values (NeRF, §5.1).

    Values come as arguments, from --input (.npy or CSV; one value or m coordinates per
    row; - for stdin) or from --linspace. Output is (N, 2k), or (N, m·2k [+ m]) for m
    coordinates, grouped by frequency: [sin(f·x_1..m), cos(f·x_1..m)] for each f.

    Example: pecli fourier --k 3 -- 0.5 -1.5
    """
    from ...core.sinusoidal.fourier import (
        feature_names,
        fourier_features,
        fourier_frequencies,
        parse_scale,
    )

    kind = formats.resolve_format(output, fmt.value if fmt else None)
    formats.check_output(output, kind, inputs=(input_file,))
    parse_scale(scale)  # checked now, before any input is read; γ takes the text (exact π)
    stored, kind_f = check_dtype(dtype.value), frequencies.value
    gamma = partial(
        fourier_features,
        k=k,
        frequencies=kind_f,
        scale=scale,
        include_input=include_input,
        dtype=stored,
    )
    fourier_frequencies(k, frequencies=kind_f)
    matrix = _points(values, input_file, linspace)
    n = matrix.shape[0] if matrix.shape else 1
    m = matrix.shape[1] if len(matrix.shape) == 2 else 1
    names = feature_names(m, k, include_input=include_input, frequencies=kind_f)
    writing.write_table(
        (gamma(block) for _, block in matrix.blocks()),
        output=output,
        fmt=kind,
        shape=(n, len(names)),
        dtype=stored,
        columns=names,
        header=header,
    )
    say_written(output, quiet=quiet)


def _check_plot_ranges(*, periods: int, points: int, hidden: int, k: int) -> None:
    """plot-fourier's bounds; points × hidden is the size of the network's hidden layer."""
    _check_range("periods", periods, 2, 1000)
    _check_range("points", points, 2, 100_000)
    _check_range("hidden", hidden, 1, 256)
    _check_range("k", k, 1, 64)


def _check_range(option: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ParameterError(option, f"must be an integer from {low} to {high} in a figure", value)


@app.command("plot-fourier")
def plot_fourier(
    k: K = 3,
    frequencies: FrequenciesOpt = Frequencies.harmonic,
    scale: Scale = "1",
    periods: Annotated[int, typer.Option("--periods", help="Periods drawn, 2 to 1000.")] = 3,
    points: Annotated[int, typer.Option("--points", help="Sample points, 2 to 100000.")] = 1501,
    hidden: Annotated[int, typer.Option("--hidden", help="Hidden width of f, 1 to 256.")] = 32,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random network f.")] = 0,
    output: FigureOutput = None,
    data: DataOutput = None,
    dpi: Dpi = None,
    size: Size = None,
    title: Title = None,
    quiet: Quiet = False,
) -> None:
    """Draw γ(x) over several periods and, below, a random network f applied to γ(x).

    f is a fixed tanh network with two hidden layers (seeded), so f∘γ repeats with the
    period 2π/scale of the features, which the figure marks. Writes fourier.png without -o;
    --data also exports x, the features and f(γ(x)).

    Example: pecli plot-fourier --k 3 -o figures/fourier.svg
    """
    from ...core.sinusoidal.fourier import (
        feature_names,
        fourier_features,
        fourier_frequencies,
        parse_scale,
    )

    fourier_figure = load_figures("sinusoidal.fourier")
    outputs = PlotOutputs(
        output, "fourier.png", data, quiet, size=size, dpi=dpi, default_size=(9.0, 6.0), title=title
    )
    factor, freqs = parse_scale(scale), fourier_frequencies(k, frequencies=frequencies.value)
    _check_plot_ranges(periods=periods, points=points, hidden=hidden, k=k)
    network = fourier_figure.random_network(2 * k, hidden=hidden, seed=seed)
    period = 2 * math.pi / factor
    if not math.isfinite(periods * period):
        raise ParameterError("scale", "must leave --periods periods 2π/scale finite", scale)
    x = np.linspace(0.0, periods * period, points)
    features = fourier_features(x, k=k, frequencies=frequencies.value, scale=scale)
    output_f = network(features)
    outputs.write(
        lambda: fourier_figure.periodicity_figure(
            x, features, output_f, frequencies=freqs * factor, period=period, size=size, dpi=dpi
        ),
        np.column_stack([x, features, output_f]),
        ["x", *feature_names(1, k, frequencies=frequencies.value), "f"],
    )
