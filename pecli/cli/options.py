"""Options shared by several commands, defined once as ``Annotated`` aliases."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..core.rules import MAX_D


class Dtype(StrEnum):
    """Output dtypes."""

    float32 = "float32"
    float64 = "float64"


class TableDtype(StrEnum):
    """Dtypes of encoding tables (bfloat16 only in .safetensors)."""

    float32 = "float32"
    float64 = "float64"
    float16 = "float16"
    bfloat16 = "bfloat16"


class TableFormat(StrEnum):
    """Table formats."""

    csv = "csv"
    npy = "npy"


D = Annotated[
    int,
    typer.Option(
        "--d",
        help=f"Width d (d_model); even, 2 to {MAX_D} (odd with presets or --odd-d that accept it).",
    ),
]
EvenD = Annotated[int, typer.Option("--d", help=f"Width d (d_model); even, 2 to {MAX_D}.")]
N = Annotated[int, typer.Option("--n", help="Number of positions (rows), >= 1.")]
Base = Annotated[
    float,
    typer.Option("--base", help="Base C of the frequencies ω_i = C^(-2(i-1)/d); 1e-300 to 1e300."),
]
Start = Annotated[
    int, typer.Option("--start", help="First position (1 as in the article; 0 for frameworks).")
]
DtypeOpt = Annotated[Dtype, typer.Option("--dtype", help="Output dtype (computed in float64).")]
TableDtypeOpt = Annotated[
    TableDtype,
    typer.Option(
        "--dtype",
        help="Output dtype, computed in float64 and rounded once; bfloat16 only to .safetensors.",
    ),
]
ComputeOutput = Annotated[
    str,
    typer.Option(
        "-o",
        "--output",
        help="Output file (.csv, .npy or .safetensors), or - for stdout.",
        show_default=False,
    ),
]
ComputeKey = Annotated[
    str | None,
    typer.Option(
        "--key",
        help="Tensor name in a .safetensors output. [default: positional_encoding]",
        show_default=False,
    ),
]
IdentifyKey = Annotated[
    str | None,
    typer.Option(
        "--key",
        help="Identify only this tensor of a .safetensors or .npz checkpoint. [default: every "
        "table-shaped tensor]",
        show_default=False,
    ),
]
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
Quiet = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar and no messages on stderr.")
]
Dpi = Annotated[
    float | None,
    typer.Option(
        "--dpi", help="Resolution of the figure, 10 to 1200 dots per inch. [default: 100]"
    ),
]
Size = Annotated[
    tuple[float, float] | None,
    typer.Option(
        "--size",
        metavar="W H",
        help="Width and height of the figure in inches, 1 to 100 each. [default: the figure's]",
        show_default=False,
    ),
]

Title = Annotated[
    str | None,
    typer.Option(
        "--title",
        help='The figure\'s title; "" for none. [default: what the figure shows, in words]',
        show_default=False,
    ),
]


InputFile = Annotated[
    str | None,
    typer.Option(
        "-i", "--input", help="Input .npy or CSV file (format read from the content), - for stdin."
    ),
]
