"""Reading input matrices: ``.npy`` or CSV, from a file or stdin. No maths here.

* The format is recognised from the content, not the name: the ``.npy`` magic string, else
  CSV text. Pickles and ``.npz`` archives are refused; nothing is ever unpickled.
* ``.npy`` headers are parsed before any data is touched; only real (integer or float)
  dtypes are accepted. A ``.npy`` file is read through a memory map, in row blocks, so it
  may be larger than memory; Fortran order and big-endian data are read correctly. A
  ``.npy`` on stdin is read block by block as it arrives (all at once if Fortran-ordered).
* CSV is comma-separated with an optional header line (recognised because none of its
  cells is a number); it is parsed whole, so its errors name the line and column.
* NaN and infinities are refused with their row (or line) and column.

Every problem raises :class:`~pecli.core.errors.ParameterError` for ``parameter`` (the command
line's ``--input``), so the command line reports it as a usage error.
"""

from __future__ import annotations

import csv
import math
import mmap
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Literal

import numpy as np

from ..core.errors import ParameterError
from ..core.rules import check_data_dtype, check_finite

__all__ = ["Matrix", "matrix_from_array", "read_matrix"]

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
PICKLE_OPCODE = b"\x80"
STDIN = "-"

#: ``blocks(rows)`` yields ``(first_row, block)``, 0-based first row, 2-D float64 block.
Blocks = Callable[[int], Iterator[tuple[int, np.ndarray]]]


@dataclass(frozen=True)
class Matrix:
    """An input whose header has been checked and whose rows are read on demand.

    Attributes
    ----------
    shape : tuple of int
        Shape as stored (``.npy`` may be 0-D to N-D; CSV is always ``(n, m)``).
    columns : list of str or None
        The CSV header names, if there was a header line.
    read_blocks : callable
        ``read_blocks(rows)`` yields ``(first_row, block)`` pairs: ``block`` is a C-ordered
        float64 ``(r, m)`` array of at most ``rows`` rows, checked to be finite.

    """

    shape: tuple[int, ...]
    columns: list[str] | None
    read_blocks: Blocks

    def blocks(self, rows: int = 0) -> Iterator[tuple[int, np.ndarray]]:
        """Row blocks of about 4 MiB each (or ``rows`` rows), in order."""
        width = max(1, math.prod(self.shape[1:]))
        return self.read_blocks(rows or max(1, (1 << 19) // width))


def read_matrix(source: str, *, parameter: str = "input") -> Matrix:
    """Open ``source`` (a file name, or ``-`` for stdin) and check its header.

    Raises
    ------
    ParameterError
        For a missing file, a terminal on stdin, a pickle or ``.npz``, a broken ``.npy``
        header, a non-real dtype, or (CSV) ragged rows, non-numeric cells or non-finite
        values; the value names the line / row and column where it can.

    """
    if source == STDIN:
        if sys.stdin.isatty():
            rule = "is a terminal: pipe data in or give a file name"
            raise ParameterError(parameter, rule, source)
        return _read_stream(sys.stdin.buffer, None, parameter)
    if not os.path.isfile(source):
        raise ParameterError(parameter, "must be an existing file (or - for stdin)", source)
    with open(source, "rb") as handle:
        return _read_stream(handle, source, parameter)


def matrix_from_array(array: np.ndarray, *, parameter: str = "values") -> Matrix:
    """Wrap an in-memory array (of real numbers) as a :class:`Matrix`."""
    check_data_dtype(array.dtype, parameter)
    return Matrix(array.shape, None, _array_blocks(array, parameter))


def _read_stream(stream: IO[bytes], path: str | None, parameter: str) -> Matrix:
    prefix = stream.read(len(NPY_MAGIC))
    if prefix == NPY_MAGIC:
        return _read_npy(stream, path, parameter)
    if prefix.startswith(ZIP_MAGIC):
        raise ParameterError(parameter, "must be .npy or CSV, not an .npz archive", path or "-")
    if prefix.startswith(PICKLE_OPCODE):
        rule = "must be .npy or CSV; pickled data is never loaded"
        raise ParameterError(parameter, rule, "a pickle")
    try:
        text = (prefix + stream.read()).decode("utf-8-sig")
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:  # not text, though it may decode (a run of zero bytes does)
        raise ParameterError(parameter, "must be .npy or CSV text", "binary data")
    return _parse_csv(text, parameter)


def _read_npy(stream: IO[bytes], path: str | None, parameter: str) -> Matrix:
    """Parse the header after the magic string; map (file) or stream (stdin) the data."""
    version = stream.read(2)
    read_header = np.lib.format.read_array_header_1_0
    if version[:1] != b"\x01":
        read_header = np.lib.format.read_array_header_2_0
    try:
        shape, fortran, dtype = read_header(stream)
    except (ValueError, OSError) as error:
        raise ParameterError(parameter, "must be a valid .npy file", str(error)) from None
    check_data_dtype(dtype, parameter)
    shape = tuple(shape)
    order: Literal["C", "F"] = "F" if fortran else "C"
    if path is None:
        return Matrix(shape, None, _stream_blocks(stream, shape, dtype, order, parameter))
    offset = stream.tell()
    needed = offset + math.prod(shape) * dtype.itemsize
    if os.path.getsize(path) < needed:
        raise ParameterError(parameter, "is a truncated .npy file", path)
    if math.prod(shape) == 0:
        return Matrix(shape, None, _array_blocks(np.empty(shape, dtype=dtype), parameter))
    return Matrix(shape, None, _mapped_blocks(path, offset, shape, dtype, order, parameter))


def _mapped_blocks(
    path: str,
    offset: int,
    shape: tuple[int, ...],
    dtype: np.dtype,
    order: Literal["C", "F"],
    parameter: str,
) -> Blocks:
    """Row blocks of a memory-mapped ``.npy`` file.

    In C order the pages of the rows already done are handed back to the kernel
    (``MADV_DONTNEED``; they stay in the page cache), so the process's resident memory
    stays about one block however large the file is.
    """
    with open(path, "rb") as handle:
        mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    flat = np.frombuffer(mapping, dtype=dtype, count=math.prod(shape), offset=offset)
    table = _as_2d(flat.reshape(shape, order=order))
    row_bytes = table.shape[1] * dtype.itemsize
    can_release = order == "C" and hasattr(mmap, "MADV_DONTNEED")

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        released = 0  # pages [0, released) handed back already
        for first in range(0, table.shape[0], rows):
            yield first, _checked(table[first : first + rows], first, parameter)
            done = (offset + min(first + rows, table.shape[0]) * row_bytes) // mmap.PAGESIZE
            if can_release and done > released:
                start, length = released * mmap.PAGESIZE, (done - released) * mmap.PAGESIZE
                mapping.madvise(mmap.MADV_DONTNEED, start, length)
                released = done

    return blocks


def _as_2d(array: np.ndarray) -> np.ndarray:
    """0-D → (1, 1), 1-D → (n, 1), 2-D as is, N-D → (n, rest)."""
    if array.ndim == 0:
        return array.reshape(1, 1)
    return array.reshape(array.shape[0], math.prod(array.shape[1:]))


def _checked(block: np.ndarray, first_row: int, parameter: str) -> np.ndarray:
    """``block`` as C-ordered native float64, refusing NaN and infinities."""
    values = np.ascontiguousarray(block, dtype=np.float64)
    check_finite(values, parameter, rows=first_row)
    return values


def _array_blocks(array: np.ndarray, parameter: str) -> Blocks:
    table = _as_2d(array)

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        for first in range(0, table.shape[0], rows):
            yield first, _checked(table[first : first + rows], first, parameter)

    return blocks


def _stream_blocks(
    stream: IO[bytes], shape: tuple[int, ...], dtype: np.dtype, order: str, parameter: str
) -> Blocks:
    n = shape[0] if shape else 1
    width = math.prod(shape[1:])

    def read(count: int) -> bytes:
        data = stream.read(count)
        if len(data) != count:
            raise ParameterError(parameter, "is a truncated .npy stream", f"{len(data)} bytes")
        return data

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        if order == "F":  # column-major: no row is complete before the last column arrives
            whole = np.frombuffer(read(math.prod(shape) * dtype.itemsize), dtype=dtype)
            yield from _array_blocks(whole.reshape(shape, order="F"), parameter)(rows)
            return
        for first in range(0, n, rows):
            count = min(rows, n - first)
            block = np.frombuffer(read(count * width * dtype.itemsize), dtype=dtype)
            yield first, _checked(block.reshape(count, width), first, parameter)

    return blocks


#: A number as NumPy's CSV reader takes it: ASCII digits, no "_" separators ("1_0", "١" are
#: numbers to Python's float() but not to np.loadtxt).
_NUMBER = re.compile(
    r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\s*",
    re.ASCII | re.IGNORECASE,
)


def _is_number(cell: str) -> bool:
    return _NUMBER.fullmatch(cell) is not None


def _parse_csv(text: str, parameter: str) -> Matrix:
    """Parse CSV text whole: optional header, then rows of numbers of one width."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise ParameterError(parameter, "must hold at least one row", "an empty input")
    first = next(csv.reader([lines[0][1]]))
    for separator, name in ((";", "semicolons"), ("\t", "tabs")):
        if len(first) == 1 and separator in first[0]:
            raise ParameterError(parameter, "must be comma-separated", f"cells split by {name}")
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
    return Matrix(values.shape, columns, _array_blocks(values, parameter))


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
