""".npy input: the header parsed before any data is touched, then row blocks.

A file is read in row blocks with bounded reads (never a memory map, which a file cut short
would turn into SIGBUS), so it may be larger than memory; stdin block by block as
it arrives (all at once if Fortran-ordered). Fortran order and big-endian data are read
correctly; only real (integer or float) dtypes are accepted. For ``identify`` a whole table is
loaded keeping its stored float dtype (bfloat16 too). No maths here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import IO, Any, Literal

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_data_dtype
from .bounded import read_into
from .matrix import Blocks, Matrix, array_blocks, checked_block

__all__ = ["MAX_TABLE_VALUES", "header_fields", "load_keeping_dtype", "npy_dtype", "read_npy"]

#: Largest table read whole: 2^26 values, 256 MiB of float32.
MAX_TABLE_VALUES = 1 << 26


#: The refusal of a .npy file shorter than its header's shape says, whichever reader finds it.
TRUNCATED = "is a truncated .npy file: it ends before its header's shape"


def read_npy(stream: IO[bytes], path: str | None, parameter: str) -> Matrix:
    """Parse the header after the magic string; map (file) or stream (stdin) the data."""
    version = (1, 0) if stream.read(2)[:1] == b"\x01" else (2, 0)
    try:
        shape, fortran, dtype = header_fields(stream, version)
    except (ValueError, OSError) as error:
        rule = f"must be a valid .npy file ({_why(error)})"
        raise ParameterError(parameter, rule, path or "stdin") from None
    check_data_dtype(dtype, parameter)
    shape = tuple(shape)
    order: Literal["C", "F"] = "F" if fortran else "C"
    if path is None:
        return Matrix(shape, None, stream_blocks(stream, shape, dtype, order, parameter))
    offset = stream.tell()
    needed = offset + math.prod(shape) * dtype.itemsize
    if os.path.getsize(path) < needed:
        raise ParameterError(parameter, TRUNCATED, path)
    if math.prod(shape) == 0:
        return Matrix(shape, None, array_blocks(np.empty(shape, dtype=dtype), parameter))
    if order == "C":
        return Matrix(shape, None, file_blocks(path, offset, shape, dtype, parameter))
    return Matrix(shape, None, fortran_blocks(path, offset, shape, dtype, parameter))


def file_blocks(
    path: str, offset: int, shape: tuple[int, ...], dtype: np.dtype, parameter: str
) -> Blocks:
    """Row blocks of a C-ordered ``.npy`` file, each read with one ``pread``.

    Only one block is in memory, and a file cut short while it is read (rewritten, truncated)
    is an error naming it, where a memory map would end the process with SIGBUS; so is one
    that vanished before its rows were read. Once open, a removed file is read to its end.
    """
    rows_total = shape[0] if shape else 1
    width = math.prod(shape[1:])
    row_bytes = width * dtype.itemsize

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        try:
            handle = open(path, "rb")  # noqa: SIM115  (closed by the with, below)
        except OSError:
            raise ParameterError(parameter, "vanished before its rows were read", path) from None
        with handle:
            for first in range(0, rows_total, rows):
                count = min(rows, rows_total - first)
                data = os.pread(handle.fileno(), count * row_bytes, offset + first * row_bytes)
                if len(data) != count * row_bytes:
                    rule = "changed while it was read: it ends before its header's shape"
                    raise ParameterError(parameter, rule, path)
                block = np.frombuffer(data, dtype=dtype).reshape(count, width)
                yield first, checked_block(block, first, parameter)

    return blocks


def fortran_blocks(
    path: str, offset: int, shape: tuple[int, ...], dtype: np.dtype, parameter: str
) -> Blocks:
    """Row blocks of a Fortran-ordered ``.npy`` file: a row spans the file, a column does not.

    Rows ``first … first+count`` of each column are one contiguous run, read with one
    bounded ``preadv`` into the block (no memory map: a file cut short meanwhile is an error
    naming it, not SIGBUS); the block is then put in the row-major order of ``as_2d``.
    """
    rows_total, inner = shape[0], shape[1:]
    width = math.prod(inner)

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        with open(path, "rb") as handle:
            for first in range(0, rows_total, rows):
                count = min(rows, rows_total - first)
                columns = np.empty((width, count), dtype=dtype)
                for j in range(width):
                    where = offset + (j * rows_total + first) * dtype.itemsize
                    if not read_into(handle.fileno(), columns[j], where):
                        rule = "changed while it was read: it ends before its header's shape"
                        raise ParameterError(parameter, rule, path)
                grid = columns.reshape(*inner[::-1], count)  # Fortran: the first axis fastest
                order = (grid.ndim - 1, *range(grid.ndim - 2, -1, -1))
                block = grid.transpose(order).reshape(count, width)
                yield first, checked_block(block, first, parameter)

    return blocks


def stream_blocks(
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
            yield from array_blocks(whole.reshape(shape, order="F"), parameter)(rows)
            return
        for first in range(0, n, rows):
            count = min(rows, n - first)
            block = np.frombuffer(read(count * width * dtype.itemsize), dtype=dtype)
            yield first, checked_block(block.reshape(count, width), first, parameter)

    return blocks


def load_keeping_dtype(
    source: str,
    name: str,
    parameter: str,
    *,
    complex_ok: bool = False,
    integers_as_stored: bool = False,
) -> np.ndarray:
    """A whole ``.npy`` table in its stored float dtype (2-byte void items are bfloat16).

    The header is checked first (at most :data:`MAX_TABLE_VALUES` values, a file that holds
    them); the data is then read with bounded reads, no memory map, so a file cut short
    meanwhile is an error naming it, never SIGBUS. ``complex_ok``: complex numbers are kept
    too (a ``freqs_cis``). Integers become float64 (refused past ``±2^53``), or with
    ``integers_as_stored`` stay in their dtype, for a caller that refuses them by name.
    """
    with open(source, "rb") as handle:
        shape, fortran, dtype = _header(handle, name, parameter)
        if os.fstat(handle.fileno()).st_size < handle.tell() + math.prod(shape) * dtype.itemsize:
            raise ParameterError(parameter, TRUNCATED, name)
        if math.prod(shape) > MAX_TABLE_VALUES:  # checked on the header, before the data
            rule = f"must hold at most {MAX_TABLE_VALUES} values (save its first rows)"
            raise ParameterError(parameter, rule, f"shape {shape}")
        if dtype.kind == "V" and dtype.itemsize == 2 and not dtype.names:
            import ml_dtypes  # only for bfloat16: 0.5 s to import (ml_dtypes 0.7)

            dtype = np.dtype(ml_dtypes.bfloat16).newbyteorder(dtype.byteorder)
        if dtype.kind not in "fiu" + "c" * complex_ok and dtype.name != "bfloat16":
            raise ParameterError(parameter, "must hold real numbers", f"dtype {dtype}")
        table = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
        if not read_into(handle.fileno(), table, handle.tell()):
            rule = "is a truncated .npy file, or changed while it was read"
            raise ParameterError(parameter, rule, name)
    table = table.astype(table.dtype.newbyteorder("="), copy=False)
    if table.dtype.kind in "fc" or dtype.name == "bfloat16" or integers_as_stored:
        return table
    return _exact_float64(table, parameter)


def npy_dtype(source: str) -> np.dtype | None:
    """The dtype a ``.npy`` file's header declares, or None when it has no readable header.

    >>> import tempfile, os
    >>> name = os.path.join(tempfile.mkdtemp(), "z.npy")
    >>> np.save(name, np.zeros(2, np.complex64))
    >>> npy_dtype(name)
    dtype('complex64')
    >>> os.remove(name); os.rmdir(os.path.dirname(name))
    """
    try:
        with open(source, "rb") as handle:
            dtype: np.dtype = np.dtype(_header(handle, source, "file")[2])
    except (OSError, ParameterError):
        return None
    return dtype


def _exact_float64(table: np.ndarray, parameter: str) -> np.ndarray:
    """An integer table as float64, refused when an entry is past ``±2^53``.

    float64 would round it (``2^53 + 1`` becomes ``2^53``): another number, silently.
    """
    past = table[(table > 1 << 53) | (table < -(1 << 53))].reshape(-1)
    if past.size:
        rule = "must hold integers within ±2^53 (read as float64, which rounds larger ones)"
        raise ParameterError(parameter, rule, int(past[0]))
    return table.astype(np.float64)


def _header(handle: IO[bytes], name: str, parameter: str) -> tuple[tuple[int, ...], bool, Any]:
    """Shape, Fortran order and dtype from a ``.npy`` header (versions 1.0 and 2.0)."""
    fmt = np.lib.format
    try:
        shape, fortran, dtype = header_fields(handle, fmt.read_magic(handle))
    except (ValueError, OSError, EOFError) as error:
        rule = f"must be a valid .npy file ({_why(error)})"
        raise ParameterError(parameter, rule, name) from None
    return tuple(shape), bool(fortran), dtype


def header_fields(stream: IO[bytes], version: tuple[int, int]) -> tuple[tuple[int, ...], bool, Any]:
    """Shape, Fortran order and dtype of the ``.npy`` header that follows the magic string.

    Every ``.npy`` header pecli reads (files, stdin, ``.npz`` members, activations) goes
    through here: NumPy's own reader, then its shape checked, since NumPy accepts a negative
    dimension in a header and fails only when the array is made.

    Raises
    ------
    ValueError
        A version other than 1.0 and 2.0, a header NumPy cannot parse, a negative dimension.

    """
    fmt = np.lib.format
    reader = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}.get(version)
    if reader is None:  # a bare KeyError would print as "(106, 117)"
        raise ValueError("format version {}.{}: only 1.0 and 2.0 are read".format(*version))
    shape, fortran, dtype = reader(stream)
    if any(size < 0 for size in shape):
        raise ValueError(f"its header's shape {tuple(shape)} has a negative dimension")
    return tuple(shape), bool(fortran), dtype


def _why(error: Exception) -> str:
    r"""The first line of NumPy's reason (a long header's runs on with advice): one line.

    >>> _why(ValueError("Header info length (20084) is large.\nTo allow loading, adjust …"))
    'Header info length (20084) is large.'
    """
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
