"""The zoo commands' outputs: a table view, CSV, JSON or a whole ``.npy`` array, checked first."""

from __future__ import annotations

import numpy as np

from ...io import formats, writing
from ..json_report import ArrayFormat, ArrayFormatOpt, table_kind

__all__ = ["ArrayFormat", "ArrayFormatOpt", "output_kind", "write_npy"]


def output_kind(output: str, fmt: ArrayFormat | None) -> str:
    """table, csv, json or npy from --format, else the suffix (table on stdout); checked."""
    return table_kind(output, fmt, ("csv", "json", "npy"))


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
