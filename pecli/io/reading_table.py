"""Reading one whole table, keeping its stored dtype, from a file or stdin (for ``identify``).

:mod:`pecli.analysis.identify` needs the storage dtype (float16, bfloat16, float32 …) and all the
rows at once, so this reads whole tables, up to :data:`MAX_TABLE_VALUES` values; streamed,
float64 reading for ``add`` is :mod:`pecli.io.reading`. The format is recognised from the
content, as there. Stdin is copied to a temporary file first (at most
:data:`MAX_STDIN_BYTES`), then read like a file. No maths here.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..core.errors import ParameterError
from .reading import NPY_MAGIC, STDIN, read_matrix

__all__ = ["MAX_STDIN_BYTES", "MAX_TABLE_VALUES", "read_table"]

#: Largest table read whole: 2^26 values, 256 MiB of float32.
MAX_TABLE_VALUES = 1 << 26

#: Largest CSV text read whole: ~6 million float32 values, a few GB while parsed.
MAX_CSV_BYTES = 64 << 20

#: Most bytes taken from stdin: a table of MAX_TABLE_VALUES values as CSV fits.
MAX_STDIN_BYTES = 1 << 30


def read_table(path: str | os.PathLike[str], *, parameter: str = "file") -> np.ndarray:
    """Load a whole 2-D table from ``.npy`` or CSV, keeping a ``.npy`` file's float dtype.

    A ``.npy`` of 2-byte void items is read as bfloat16 (how NumPy saves
    ``ml_dtypes.bfloat16`` arrays). CSV goes through :func:`pecli.io.reading.read_matrix`
    (float64, errors located by line and column).

    Parameters
    ----------
    path : str or path
        A file name, or ``"-"`` for stdin (a pipe or a file, not a terminal).
    parameter : str, keyword-only
        The name errors are reported under.

    Returns
    -------
    numpy.ndarray
        2-D, non-empty, finite; the stored float dtype (``.npy``) or float64 (CSV).

    Raises
    ------
    ParameterError
        If the file is missing, stdin is a terminal or holds more than
        :data:`MAX_STDIN_BYTES`, a CSV is larger than :data:`MAX_CSV_BYTES`, or the data is
        not a finite, non-empty 2-D numeric table of at most :data:`MAX_TABLE_VALUES` values.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> name = os.path.join(tempfile.mkdtemp(), "t.npy")
    >>> np.save(name, np.ones((3, 4), np.float16))
    >>> read_table(name).dtype
    dtype('float16')

    """
    source = os.fspath(path)
    if source == STDIN or _is_stream(source):
        with _stream_as_file(source, parameter) as copy:
            return _read_file(copy, source, parameter)
    if not os.path.isfile(source):
        raise ParameterError(parameter, "must be an existing .npy or .csv file (or -)", source)
    return _read_file(source, source, parameter)


def _read_file(source: str, name: str, parameter: str) -> np.ndarray:
    with open(source, "rb") as handle:
        is_npy = handle.read(len(NPY_MAGIC)) == NPY_MAGIC
    if is_npy:
        table = _load_npy_keeping_dtype(source, name, parameter)
    else:
        if os.path.getsize(source) > MAX_CSV_BYTES:  # parsed whole: memory is ~40x the text
            rule = f"must be at most {MAX_CSV_BYTES / 2**20:g} MiB as CSV (a few hundred rows do)"
            raise ParameterError(parameter, rule, f"{os.path.getsize(source):,} bytes")
        matrix = read_matrix(source, parameter=parameter)
        table = np.concatenate([block for _, block in matrix.blocks()] or [np.empty((0, 0))])
        table = _as_stored(table)
    if table.ndim != 2 or table.size == 0:
        raise ParameterError(parameter, "must hold a non-empty 2-D table", f"shape {table.shape}")
    if not np.all(np.isfinite(table.astype(np.float64))):
        raise ParameterError(parameter, "must hold finite numbers only", name)
    return table


def _load_npy_keeping_dtype(source: str, name: str, parameter: str) -> np.ndarray:
    import ml_dtypes

    try:
        table: np.ndarray = np.load(source, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError, EOFError) as error:
        raise ParameterError(parameter, f"must be a valid .npy file ({error})", name) from None
    if table.size > MAX_TABLE_VALUES:  # checked on the header, before reading the data
        rule = f"must hold at most {MAX_TABLE_VALUES} values (save its first rows)"
        raise ParameterError(parameter, rule, f"shape {table.shape}")
    table = np.array(table)  # read it now, off the memory map
    if table.dtype.kind == "V" and table.dtype.itemsize == 2 and not table.dtype.names:
        return table.view(ml_dtypes.bfloat16)
    if table.dtype.kind not in "fiu":
        raise ParameterError(parameter, "must hold real numbers", f"dtype {table.dtype}")
    return table if table.dtype.kind == "f" else table.astype(np.float64)


#: Values whose text is checked to tell the storage dtype of a CSV table.
TEXT_SAMPLE = 4096


def _as_stored(values: np.ndarray) -> np.ndarray:
    """CSV values in the narrowest dtype whose shortest round-trip text they were written as.

    A float32 table written as shortest float32 text ("0.84147096") parses to float64 numbers
    that are not float32 values; this finds the dtype back (float16, bfloat16, float32) from
    a sample spread over the table and returns the values in it, else the float64 values.
    """
    import ml_dtypes

    flat = values.reshape(-1)
    sample = flat[:: max(1, flat.size // TEXT_SAMPLE)][:TEXT_SAMPLE]
    for dtype, digits in ((np.float16, 5), (ml_dtypes.bfloat16, 4), (np.float32, 9)):
        with np.errstate(over="ignore"):
            stored = sample.astype(dtype)
        if all(_shortest_text(x, dtype, digits) == v for x, v in zip(stored, sample, strict=True)):
            return values.astype(dtype)
    return values


def _shortest_text(value: Any, dtype: Any, digits: int) -> float:
    """The number written by the shortest decimal text that reads back as ``value`` in dtype."""
    for places in range(digits):
        text = float(f"{float(value):.{places}e}")
        if dtype(text) == value:
            return text
    return float(value)


def _is_stream(source: str) -> bool:
    """A named pipe or a /dev/fd path (``<(command)``): read once, like stdin."""
    try:
        mode = os.stat(source).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


@contextlib.contextmanager
def _stream_as_file(source: str, parameter: str) -> Iterator[str]:
    """Copy stdin or a pipe to a temporary file (removed afterwards) and yield its name."""
    if source == STDIN and (sys.stdin is None or sys.stdin.isatty()):
        raise ParameterError(parameter, "is a terminal: pipe a table in or give a file name", "-")
    with contextlib.ExitStack() as opened:
        stream = sys.stdin.buffer if source == STDIN else opened.enter_context(open(source, "rb"))
        folder = opened.enter_context(tempfile.TemporaryDirectory(prefix="pecli-"))
        copy = os.path.join(folder, "stdin")
        with open(copy, "wb") as handle:
            while chunk := stream.read(1 << 20):
                handle.write(chunk)
                if handle.tell() > MAX_STDIN_BYTES:
                    rule = f"must be at most {MAX_STDIN_BYTES:,} bytes from a pipe (a few rows do)"
                    raise ParameterError(parameter, rule, "more")
        yield copy
