"""Reading tables that someone else wrote: ``.npy`` and ``.csv``. No maths here."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .errors import ParameterError

__all__ = ["read_table"]


def read_table(path: str | os.PathLike[str], *, parameter: str = "file") -> np.ndarray:
    """Load a 2-D numeric table from ``.npy`` or ``.csv`` (an optional header line is skipped).

    A ``.npy`` of 2-byte void items is read as bfloat16, which is how NumPy stores
    ``ml_dtypes.bfloat16`` arrays; other ``.npy`` keep their float dtype.

    Parameters
    ----------
    path : str or path
        The file.
    parameter : str, keyword-only
        Name given to :class:`ParameterError`.

    Returns
    -------
    numpy.ndarray
        2-D, in the file's float dtype (``.npy``) or float64 (``.csv``).

    Raises
    ------
    ParameterError
        If the file is missing, has another suffix, or does not hold a finite 2-D table.

    """
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in (".npy", ".csv") or not file.is_file():
        raise ParameterError(parameter, "must be an existing .npy or .csv file", str(path))
    try:
        table = _load_npy(file) if suffix == ".npy" else _load_csv(file)
    except (ValueError, OSError, EOFError) as error:
        raise ParameterError(parameter, f"must hold a numeric table ({error})", str(path)) from None
    if table.ndim != 2 or table.size == 0:
        raise ParameterError(parameter, "must hold a non-empty 2-D table", f"shape {table.shape}")
    if not np.all(np.isfinite(table.astype(np.float64))):
        raise ParameterError(parameter, "must hold finite numbers only", str(path))
    return table


def _load_npy(file: Path) -> np.ndarray:
    import ml_dtypes

    table: np.ndarray = np.load(file, allow_pickle=False)
    if table.dtype.kind == "V" and table.dtype.itemsize == 2:
        table = table.view(ml_dtypes.bfloat16)
    if table.dtype.kind not in "fiuV" or table.dtype.names:
        raise ValueError(f"dtype {table.dtype} is not a number")
    return table if table.dtype.kind in "fV" else table.astype(np.float64)


def _load_csv(file: Path) -> np.ndarray:
    with file.open(encoding="utf-8") as handle:
        first = handle.readline()
    try:
        [float(cell) for cell in first.split(",")]
        skip = 0
    except ValueError:
        skip = 1  # a header line
    table: np.ndarray = np.loadtxt(file, delimiter=",", skiprows=skip, ndmin=2, dtype=np.float64)
    return table
