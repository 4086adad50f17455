"""Options shared by several commands, defined once as ``Annotated`` aliases."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer


class Dtype(StrEnum):
    """Output dtypes."""

    float32 = "float32"
    float64 = "float64"


class TableFormat(StrEnum):
    """Table formats."""

    csv = "csv"
    npy = "npy"


D = Annotated[int, typer.Option("--d", help="Width d (d_model) of the encoding; even, >= 2.")]
N = Annotated[int, typer.Option("--n", help="Number of positions (rows), >= 1.")]
Base = Annotated[
    float, typer.Option("--base", help="Base C of the frequencies ω_i = C^(-2(i-1)/d); > 0.")
]
Start = Annotated[
    int, typer.Option("--start", help="First position (1 as in the article; 0 for frameworks).")
]
DtypeOpt = Annotated[Dtype, typer.Option("--dtype", help="Output dtype (computed in float64).")]
TableOutput = Annotated[
    str,
    typer.Option(
        "-o", "--output", help="Output file (.csv or .npy), or - for stdout.", show_default=False
    ),
]
FormatOpt = Annotated[
    TableFormat | None,
    typer.Option("--format", help="Table format; overrides the suffix. [default: csv on stdout]"),
]
Header = Annotated[
    bool, typer.Option("--header/--no-header", help="Write a header line in CSV output.")
]
DataOutput = Annotated[
    str | None,
    typer.Option("--data", help="Also write the plotted data to this .csv or .npy file."),
]
InputFile = Annotated[
    str | None,
    typer.Option(
        "-i", "--input", help="Input .npy or CSV file (format read from the content), - for stdin."
    ),
]
