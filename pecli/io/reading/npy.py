""".npy input: the header parsed before any data is touched, then row blocks.

A file is read through a memory map, so it may be larger than memory; stdin block by block as
it arrives (all at once if Fortran-ordered). Fortran order and big-endian data are read
correctly; only real (integer or float) dtypes are accepted. For ``identify`` a whole table is
loaded keeping its stored float dtype (bfloat16 too). No maths here.
"""

from __future__ import annotations

import errno
import math
import mmap
import os
from collections.abc import Iterator
from typing import IO, Literal

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_data_dtype
from .matrix import Blocks, Matrix, array_blocks, as_2d, checked_block

__all__ = ["MAX_TABLE_VALUES", "load_keeping_dtype", "read_npy"]

#: Largest table read whole: 2^26 values, 256 MiB of float32.
MAX_TABLE_VALUES = 1 << 26


def read_npy(stream: IO[bytes], path: str | None, parameter: str) -> Matrix:
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
        return Matrix(shape, None, stream_blocks(stream, shape, dtype, order, parameter))
    offset = stream.tell()
    needed = offset + math.prod(shape) * dtype.itemsize
    if os.path.getsize(path) < needed:
        raise ParameterError(parameter, "is a truncated .npy file", path)
    if math.prod(shape) == 0:
        return Matrix(shape, None, array_blocks(np.empty(shape, dtype=dtype), parameter))
    if order == "C":
        return Matrix(shape, None, file_blocks(path, offset, shape, dtype, parameter))
    return Matrix(shape, None, mapped_blocks(path, offset, shape, dtype, order, parameter))


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


def mapped_blocks(
    path: str,
    offset: int,
    shape: tuple[int, ...],
    dtype: np.dtype,
    order: Literal["C", "F"],
    parameter: str,
) -> Blocks:
    """Row blocks of a memory-mapped ``.npy`` file (Fortran order: a row spans the file).

    In C order the pages of the rows already done are handed back to the kernel
    (``MADV_DONTNEED``; they stay in the page cache), so the process's resident memory
    stays about one block however large the file is.
    """
    with open(path, "rb") as handle:
        mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    flat = np.frombuffer(mapping, dtype=dtype, count=math.prod(shape), offset=offset)
    table = as_2d(flat.reshape(shape, order=order))
    row_bytes = table.shape[1] * dtype.itemsize
    can_release = order == "C" and hasattr(mmap, "MADV_DONTNEED")

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        released = 0  # pages [0, released) handed back already
        for first in range(0, table.shape[0], rows):
            yield first, checked_block(table[first : first + rows], first, parameter)
            done = (offset + min(first + rows, table.shape[0]) * row_bytes) // mmap.PAGESIZE
            if can_release and done > released:
                start, length = released * mmap.PAGESIZE, (done - released) * mmap.PAGESIZE
                mapping.madvise(mmap.MADV_DONTNEED, start, length)
                released = done

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


def load_keeping_dtype(source: str, name: str, parameter: str) -> np.ndarray:
    """A whole ``.npy`` table in its stored float dtype (2-byte void items are bfloat16)."""
    try:
        table: np.ndarray = np.load(source, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError, EOFError) as error:
        if getattr(error, "errno", None) == errno.ENOMEM:  # a memory limit, not a bad file
            raise MemoryError(str(error)) from None
        raise ParameterError(parameter, f"must be a valid .npy file ({error})", name) from None
    if table.size > MAX_TABLE_VALUES:  # checked on the header, before reading the data
        rule = f"must hold at most {MAX_TABLE_VALUES} values (save its first rows)"
        raise ParameterError(parameter, rule, f"shape {table.shape}")
    table = np.array(table)  # read it now, off the memory map
    if table.dtype.kind == "V" and table.dtype.itemsize == 2 and not table.dtype.names:
        import ml_dtypes  # only for bfloat16: 0.5 s to import (ml_dtypes 0.7)

        return table.view(ml_dtypes.bfloat16)
    if table.dtype.kind not in "fiu":
        raise ParameterError(parameter, "must hold real numbers", f"dtype {table.dtype}")
    return table if table.dtype.kind == "f" else table.astype(np.float64)
