"""The zoo commands' outputs: a table view, CSV, JSON or a whole ``.npy`` array, checked first."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import numpy as np
import typer

from ...io import formats, writing


class ArrayFormat(StrEnum):
    """Formats of a small report that is also an array."""

    table = "table"
    csv = "csv"
    json = "json"
    npy = "npy"


ArrayFormatOpt = Annotated[
    ArrayFormat | None,
    typer.Option("--format", help="table, csv, json or npy. [default: the suffix, else table]"),
]


def output_kind(output: str, fmt: ArrayFormat | None) -> str:
    """table, csv, json or npy from --format, else the suffix (table on stdout); checked."""
    kind = formats.resolve_format(
        output,
        fmt.value if fmt else None,
        default="table",
        formats=tuple(ArrayFormat),
        suffixes=("csv", "json", "npy"),
    )
    formats.check_output(output, kind)
    return kind


def write_npy(array: np.ndarray, output: str) -> None:
    """The whole array as ``.npy`` (any number of dimensions), atomically."""
    formats.check_room(output, array.nbytes)
    writing.write_table(
        [array],
        output=output,
        fmt="npy",
        shape=array.shape,  # type: ignore[arg-type]
        dtype=array.dtype,
        columns=[],
    )
