"""CSV input: comma-separated numbers with an optional header line, parsed whole.

A first line none of whose cells is a number is the header. Parsing whole lets every error
name its line and column. For ``identify``, the storage dtype of the values is found back
from their text. No maths here.
"""

from __future__ import annotations

import csv
import re
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_finite
from .matrix import Matrix, array_blocks

__all__ = ["as_stored", "parse_csv"]

#: A number as NumPy's CSV reader takes it: ASCII digits, no "_" separators ("1_0", "١" are
#: numbers to Python's float() but not to np.loadtxt).
_NUMBER = re.compile(
    r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\s*",
    re.ASCII | re.IGNORECASE,
)


def _is_number(cell: str) -> bool:
    return _NUMBER.fullmatch(cell) is not None


def parse_csv(text: str, parameter: str) -> Matrix:
    """Parse CSV text whole: optional header, then rows of numbers of one width."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise ParameterError(parameter, "must hold at least one row", "an empty input")
    try:
        first = next(csv.reader([lines[0][1]]))
    except csv.Error as error:  # a cell over the csv module's 131,072 characters
        raise ParameterError(parameter, "must be CSV with cells of numbers", str(error)) from None
    for separator, name in ((";", "semicolons"), ("\t", "tabs")):
        if len(first) == 1 and separator in first[0]:
            raise ParameterError(parameter, "must be comma-separated", f"cells split by {name}")
    words = first[0].split() if len(first) == 1 else []
    if len(words) > 1 and all(_is_number(word) for word in words):  # not a header: numbers
        raise ParameterError(parameter, "must be comma-separated", "numbers split by spaces")
    columns = None
    if not any(_is_number(cell) for cell in first):
        columns = [cell.strip() for cell in first]
        lines = lines[1:]
        if not lines:
            raise ParameterError(parameter, "must hold at least one row", "a header only")
    width = len(first)
    try:
        values = np.loadtxt(
            [line for _, line in lines], delimiter=",", comments=None, dtype=np.float64, ndmin=2
        )
    except ValueError as error:
        _locate_csv_error(lines, width, parameter)
        raise ParameterError(parameter, "must be CSV numbers", str(error)) from None
    if values.shape[1] != width:
        _locate_csv_error(lines, width, parameter)
    check_finite(values, parameter, rows=[number for number, _ in lines])
    return Matrix(values.shape, columns, array_blocks(values, parameter))


def _locate_csv_error(lines: list[tuple[int, str]], width: int, parameter: str) -> None:
    """Raise for the first ragged row or non-numeric cell (1-based line and column)."""
    for number, line in lines:
        cells = line.split(",")
        if len(cells) != width:
            rule = f"must have the same number of cells on every CSV line ({width} on the first)"
            raise ParameterError(parameter, rule, f"{len(cells)} cells on line {number}")
        for column, cell in enumerate(cells, 1):
            if not _is_number(cell):
                where = f"{cell.strip()!r} on line {number}, column {column}"
                raise ParameterError(parameter, "must hold numbers only", where)


#: Values whose text is checked to tell the storage dtype of a CSV table.
TEXT_SAMPLE = 4096


def as_stored(values: np.ndarray) -> np.ndarray:
    """CSV values in the narrowest dtype whose shortest round-trip text they were written as.

    A float32 table written as shortest float32 text ("0.84147096") parses to float64 numbers
    that are not float32 values; this finds the dtype back (float16, bfloat16, float32) from
    a sample spread over the table and returns the values in it, else the float64 values.
    """
    flat = values.reshape(-1)
    sample = flat[:: max(1, flat.size // TEXT_SAMPLE)][:TEXT_SAMPLE]
    for dtype, digits in ((np.float16, 5), (_bfloat16_if_short(sample), 4), (np.float32, 9)):
        if dtype is None:
            continue
        with np.errstate(over="ignore"):
            stored = sample.astype(dtype)
        if all(_shortest_text(x, dtype, digits) == v for x, v in zip(stored, sample, strict=True)):
            return values.astype(dtype)
    return values


def _bfloat16_if_short(sample: np.ndarray) -> Any:
    """ml_dtypes.bfloat16 when every value has at most 4 significant digits, else None.

    Shortest bfloat16 text never needs more than 4 digits (8 significand bits), so longer
    numbers cannot be bfloat16 text, and a float32 table does not import ml_dtypes (0.5 s).
    """
    if not all(float(f"{x:.3e}") == x for x in sample.tolist()):
        return None
    import ml_dtypes

    return ml_dtypes.bfloat16


def _shortest_text(value: Any, dtype: Any, digits: int) -> float:
    """The number written by the shortest decimal text that reads back as ``value`` in dtype."""
    for places in range(digits):
        text = float(f"{float(value):.{places}e}")
        if dtype(text) == value:
            return text
    return float(value)
