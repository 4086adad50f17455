"""Reading input: ``.npy`` or CSV, from a file or stdin, in blocks or whole. No maths here.

* The format is recognised from the content, not the name: the ``.npy`` magic string, else
  CSV text. Pickles and ``.npz`` archives are refused; nothing is ever unpickled.
* ``.npy`` headers are parsed before any data is touched; only real (integer or float)
  dtypes are accepted. A ``.npy`` file is read through a memory map, in row blocks, so it
  may be larger than memory; Fortran order and big-endian data are read correctly. A
  ``.npy`` on stdin is read block by block as it arrives (all at once if Fortran-ordered).
* CSV is comma-separated with an optional header line (recognised because none of its
  cells is a number); it is parsed whole, so its errors name the line and column.
* NaN and infinities are refused with their row (or line) and column.

:func:`read_matrix` streams float64 row blocks (``add``, ``fourier``); :func:`read_table`
loads one whole table in its stored dtype (``identify``). The formats are read in
:mod:`.npy` and :mod:`.csv_text`, the block iterator is :mod:`.matrix`. Every problem raises
:class:`~pecli.core.errors.ParameterError` for ``parameter`` (the command line's ``--input``),
so the command line reports it as a usage error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, Literal

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_data_dtype
from .. import streams
from ..paths import note_input
from .bounded import bounded_chunks
from .csv_text import as_stored, parse_csv
from .matrix import Matrix, array_blocks
from .npy import MAX_TABLE_VALUES, load_keeping_dtype, read_npy

__all__ = [
    "MAX_CSV_BYTES",
    "MAX_STDIN_BYTES",
    "MAX_TABLE_VALUES",
    "TABLE_FORMATS",
    "Matrix",
    "check_source",
    "existing_rule",
    "matrix_from_array",
    "read_array",
    "read_matrix",
    "read_table",
    "read_vector",
]

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
PICKLE_OPCODE = b"\x80"
STDIN = "-"
Kind = Literal["table", "array", "activations", "vector"]

#: Largest CSV text read whole: ~6 million float32 values, a few GB while parsed.
MAX_CSV_BYTES = 64 << 20
#: Most bytes taken from stdin: a table of MAX_TABLE_VALUES values as CSV fits.
MAX_STDIN_BYTES = 1 << 30
#: Each whole reader's shapes (fewest and most axes), whether it takes infinities, its words.
_KINDS = {
    "table": (2, 2, False, "a non-empty 2-D table"),
    "array": (1, 4, True, "a non-empty 1-D to 4-D table"),
    "activations": (1, 4, False, "a non-empty 1-D to 4-D table"),  # no mask: inf is refused
    "vector": (1, 1, False, "one non-empty vector: a 1-D array, one row or one column"),
}
#: What :func:`read_table` reads (recognised by content): named when an input is missing.
TABLE_FORMATS = (".npy", "CSV")


def existing_rule(formats: Sequence[str]) -> str:
    """The rule an input that is not a file breaks, naming the ``formats`` a command reads.

    >>> existing_rule((*TABLE_FORMATS, ".safetensors"))
    'must be an existing .npy, CSV or .safetensors file (or -)'
    """
    *most, last = formats
    return f"must be an existing {', '.join(most) + ' or ' if most else ''}{last} file (or -)"


def check_source(source: str, *, parameter: str, formats: Sequence[str] = TABLE_FORMATS) -> None:
    """Raise unless ``source`` is ``-``, a pipe or a file; naming every one of ``formats``."""
    if source != STDIN and not _is_stream(source) and not os.path.isfile(source):
        raise _not_a_file(source, existing_rule(formats), parameter)


def _not_a_file(source: str, rule: str, parameter: str) -> ParameterError:
    """A missing file, told from a folder (which is named as one)."""
    if os.path.isdir(source):
        rule = rule.replace("must be an existing", "must be a file, not a folder: an existing", 1)
    return ParameterError(parameter, rule, source)


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
        return _read_stream(_stdin(parameter), None, parameter)
    if _is_stream(source):  # <(command), a FIFO, /dev/stdin on a pipe: read once, in order
        return _read_named_stream(source, parameter)
    if not os.path.isfile(source):
        raise _not_a_file(source, "must be an existing file (or - for stdin)", parameter)
    note_input(source)
    with open(source, "rb") as handle:
        return _read_stream(handle, source, parameter)


def _read_named_stream(source: str, parameter: str) -> Matrix:
    """A pipe opened by name; it stays open until its last row block has been read."""
    handle = open(source, "rb")  # noqa: SIM115  (closed by the blocks, below)
    try:
        if handle.isatty():
            raise ParameterError(parameter, "is a terminal: pipe data in or give a file", source)
        matrix = _read_stream(handle, None, parameter)
    except BaseException:
        handle.close()
        raise

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        with handle:
            yield from matrix.read_blocks(rows)

    return dataclasses.replace(matrix, read_blocks=blocks)


def _stdin(parameter: str) -> IO[bytes]:
    """Standard input's bytes; a closed stdin or a terminal is refused, naming ``parameter``."""
    if streams.closed(0) or sys.stdin is None:
        rule = "is stdin, which is closed (<&-): give a file name or pipe data in"
        raise ParameterError(parameter, rule, STDIN)
    if sys.stdin.isatty():
        raise ParameterError(parameter, "is a terminal: pipe data in or give a file name", STDIN)
    return sys.stdin.buffer


#: Files a table is mistaken for, by their first bytes: what each is.
_OTHER_FORMATS = {
    b"\x89PNG": "a PNG image (a figure)",
    b"%PDF": "a PDF document (a figure)",
    b"GGUF": "a GGUF file (pecli gguf show and gguf check read one)",
}


def _other_format(prefix: bytes) -> str | None:
    """What a file that is not a table is, from its first bytes, if it is a known kind.

    >>> _other_format(b"%PDF-1")
    'a PDF document (a figure)'
    """
    return next((what for magic, what in _OTHER_FORMATS.items() if prefix.startswith(magic)), None)


def matrix_from_array(array: np.ndarray, *, parameter: str = "values") -> Matrix:
    """Wrap an in-memory array (of real numbers) as a :class:`Matrix`."""
    check_data_dtype(array.dtype, parameter)
    return Matrix(array.shape, None, array_blocks(array, parameter))


def _read_stream(stream: IO[bytes], path: str | None, parameter: str) -> Matrix:
    prefix = stream.read(len(NPY_MAGIC))
    if prefix == NPY_MAGIC:
        return read_npy(stream, path, parameter)
    if prefix.startswith((ZIP_MAGIC, b"PK\x05\x06")):  # an archive, or an empty one
        raise ParameterError(parameter, "must be .npy or CSV, not an .npz archive", path or "-")
    if prefix.startswith(PICKLE_OPCODE):
        rule = "must be .npy or CSV; pickled data is never loaded"
        raise ParameterError(parameter, rule, "a pickle")
    if other := _other_format(prefix):
        raise ParameterError(parameter, f"must be .npy or CSV, not {other}", path or "-")
    rule = f"must be at most {MAX_CSV_BYTES >> 20} MiB as CSV (larger data: use .npy)"
    data = b"".join(bounded_chunks(stream, prefix, MAX_CSV_BYTES, rule, parameter, text=True))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = "\0"
    if text.lstrip()[:1] in ("{", "["):  # no CSV cell or header starts so
        rule = "must be .npy or CSV, not JSON: pecli rope config reads a model's config.json"
        rule += " (so does `config`, in the commands that have it)"
        raise ParameterError(parameter, rule, path or "-")
    if "\0" in text:  # not text, though it may decode (a run of zero bytes does)
        raise ParameterError(parameter, "must be .npy or CSV text", "binary data")
    return parse_csv(text, parameter)


def read_table(path: str | os.PathLike[str], *, parameter: str = "file") -> np.ndarray:
    """Load a whole 2-D table from ``.npy`` or CSV, keeping a ``.npy`` file's float dtype.

    A ``.npy`` array of shape ``(1, n, d)`` (a leading batch axis) is read as its ``(n, d)``.

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
    >>> folder = tempfile.TemporaryDirectory()
    >>> name = os.path.join(folder.name, "t.npy")
    >>> np.save(name, np.ones((3, 4), np.float16))
    >>> read_table(name).dtype
    dtype('float16')
    >>> folder.cleanup()

    """
    return _read(path, parameter, "table")


def read_array(path: str | os.PathLike[str], *, parameter: str = "file") -> np.ndarray:
    """Load a whole array of 1 to 4 dimensions, infinities allowed (NaN is not): an ALiBi bias.

    As :func:`read_table` (``.npy`` keeps its float dtype, CSV is a 2-D float64 table, the
    same size limits), but a ``.npy`` may be 1-D to 4-D and hold ``-inf`` (a causal mask).

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> folder = tempfile.TemporaryDirectory()
    >>> name = os.path.join(folder.name, "b.npy")
    >>> np.save(name, np.array([[[0.0, -np.inf], [-0.5, 0.0]]], np.float32))
    >>> read_array(name).shape
    (1, 2, 2)
    >>> folder.cleanup()

    """
    return _read(path, parameter, "array")


def read_vector(path: str | os.PathLike[str], *, parameter: str = "file") -> np.ndarray:
    """Load one finite vector: a 1-D ``.npy``, or a table of one row or one column, flattened.

    A vector is an input (positions, timesteps): CSV text is read as written, in float64,
    never rounded to the narrow dtype its short decimals could be (``0.7`` is not float16's
    0.7001953125); a ``.npy`` keeps its dtype.

    >>> import numpy as np, tempfile, os
    >>> folder = tempfile.TemporaryDirectory()
    >>> name = os.path.join(folder.name, "p.npy")
    >>> np.save(name, np.array([[0.0], [1.5], [-2.0]]))
    >>> read_vector(name).tolist()
    [0.0, 1.5, -2.0]
    >>> folder.cleanup()
    """
    return _read(path, parameter, "vector")


def _read(path: str | os.PathLike[str], parameter: str, kind: Kind) -> np.ndarray:
    source = os.fspath(path)
    if source == STDIN or _is_stream(source):
        with _stream_as_file(source, parameter) as copy:
            return _read_file(copy, source, parameter, kind)
    check_source(source, parameter=parameter)
    note_input(source)
    return _read_file(source, source, parameter, kind)


def _read_file(source: str, name: str, parameter: str, kind: Kind) -> np.ndarray:
    with open(source, "rb") as handle:
        is_npy = handle.read(len(NPY_MAGIC)) == NPY_MAGIC
    if is_npy:
        table = load_keeping_dtype(source, name, parameter)
    else:
        if os.path.getsize(source) > MAX_CSV_BYTES:  # parsed whole: memory is ~40x the text
            rule = f"must be at most {MAX_CSV_BYTES / 2**20:g} MiB as CSV (a few hundred rows do)"
            raise ParameterError(parameter, rule, f"{os.path.getsize(source):,} bytes")
        matrix = read_matrix(source, parameter=parameter)
        table = np.concatenate([block for _, block in matrix.blocks()] or [np.empty((0, 0))])
        table = table if kind == "vector" else as_stored(table)  # a vector is an input
    if kind == "table" and table.ndim == 3 and table.shape[0] == 1:  # ViT's (1, tokens, d)
        table = table[0]
    if kind == "vector" and table.ndim == 2 and 1 in table.shape:
        table = table.reshape(-1)
    fewest, most, infinite, words = _KINDS[kind]
    if not fewest <= table.ndim <= most or table.size == 0:
        raise ParameterError(parameter, f"must hold {words}", f"shape {table.shape}")
    bad = _first_bad(table, infinite)
    if bad is not None:
        allowed = "numbers (infinities allowed)" if infinite else "finite numbers only"
        raise ParameterError(parameter, f"must hold {allowed}", f"{name}: {bad}")
    return table


def _first_bad(table: np.ndarray, infinite: bool) -> str | None:
    """The first NaN (or infinity, unless ``infinite``) and its index, e.g. ``nan at [2, 1, 5]``.

    Checked as float64, 2^20 values at a time, in the table's memory order (a view, no copy,
    for a contiguous table); NumPy's own float dtypes are tested as they are (a value is
    finite in float64 exactly when it is in its own dtype), others (bfloat16, integers) as
    float64. None when every value is allowed.
    """
    fortran = table.flags.f_contiguous and not table.flags.c_contiguous
    order: Literal["C", "F"] = "F" if fortran else "C"
    flat = table.ravel(order=order)
    native = flat.dtype in (np.float16, np.float32, np.float64)
    for start in range(0, flat.size, 1 << 20):
        values = flat[start : start + (1 << 20)]
        values = values if native else values.astype(np.float64)
        bad = np.isnan(values) if infinite else ~np.isfinite(values)
        if bad.any():
            at = int(np.argmax(bad))
            place = np.unravel_index(start + at, table.shape, order=order)
            return f"{float(values[at])} at [{', '.join(str(int(k)) for k in place)}]"
    return None


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
    with contextlib.ExitStack() as opened:
        stream = _stdin(parameter) if source == STDIN else opened.enter_context(open(source, "rb"))
        folder = opened.enter_context(tempfile.TemporaryDirectory(prefix="pecli-"))
        copy = os.path.join(folder, "stdin")
        first = stream.read(1 << 20)
        text = not first.startswith(NPY_MAGIC)  # CSV is refused once beyond what it may be
        limit = MAX_CSV_BYTES if text else MAX_STDIN_BYTES
        rule = f"must be at most {limit:,} bytes from a pipe (a few rows do)"
        with open(copy, "wb") as handle:
            for chunk in bounded_chunks(stream, first, limit, rule, parameter, text=text):
                handle.write(chunk)
        yield copy
