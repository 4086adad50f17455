"""Writing tables, figures and records in their formats, through :mod:`pecli.io.guard`'s files.

CSV has a plain header line, commas, ``.`` decimals and the shortest text that parses back to
each stored value; ``.npy`` is C-ordered little-endian; figures are byte-reproducible
(docs/cli.md, docs/figures.md). No maths here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING

import numpy as np

from ..core.threads import computed_ahead
from . import csv_output, guard
from .formats import npy_header
from .guard import atomic_output

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "save_figure",
    "save_figure_to",
    "write_array",
    "write_json",
    "write_records",
    "write_table",
    "write_table_to",
    "write_vector",
]


def write_table(
    blocks: Iterable[np.ndarray],
    *,
    output: str | os.PathLike[str] | None,
    fmt: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
    columns: list[str],
    header: bool = True,
) -> None:
    """Write a table, given as row blocks, as CSV or npy to a file or stdout.

    Parameters
    ----------
    blocks : iterable of numpy.ndarray
        Row blocks of shape ``(r, shape[1])`` whose heights add up to ``shape[0]``.
    output : str, path or None, keyword-only
        File name, or ``"-"`` / ``None`` for stdout.
    fmt : {"csv", "npy"}, keyword-only
        Output format.
    shape : tuple of int, keyword-only
        Shape of the whole table (the npy header is written before the first block); npy
        may have more than two axes (blocks are then split along the first).
    dtype : numpy.dtype, keyword-only
        Stored dtype; npy is written little-endian.
    columns : list of str, keyword-only
        CSV header names, one per column.
    header : bool, keyword-only
        Whether CSV output starts with the header line.

    Raises
    ------
    ValueError
        If the blocks do not add up to ``shape``; the file is then not created.

    """
    with atomic_output(output) as handle:
        write_table_to(
            handle, blocks, fmt=fmt, shape=shape, dtype=dtype, columns=columns, header=header
        )


def write_table_to(
    handle: IO[bytes],
    blocks: Iterable[np.ndarray],
    *,
    fmt: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
    columns: list[str],
    header: bool = True,
) -> None:
    """:func:`write_table` into an open binary ``handle`` (for several files made at once)."""
    stored = np.dtype(dtype).newbyteorder("<")
    rows = 0
    if fmt == "csv":
        rows = csv_output.write_csv(handle, blocks, columns=columns, dtype=stored, header=header)
    else:
        npy_header(handle, shape, stored)
        ahead = computed_ahead(iter(blocks))  # the next blocks are computed while one is written
        for block in guard.checked(ahead):  # CSV stops through guard.run_stoppable
            handle.write(_raw_bytes(np.ascontiguousarray(block, dtype=stored)))
            rows += block.shape[0]
    if rows != shape[0]:
        raise ValueError(f"blocks hold {rows} rows, expected {shape[0]}")


def write_vector(
    values: np.ndarray, *, output: str | os.PathLike[str] | None, dtype: np.dtype
) -> None:
    """Write a 1-D vector as ``.npy`` (little-endian ``dtype``), atomically, to a file or stdout.

    >>> import io, contextlib
    >>> with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
    ...     write_vector(np.arange(3.0), output="-", dtype=np.dtype("float32"))

    """
    stored = np.dtype(dtype).newbyteorder("<")
    vector = np.ascontiguousarray(np.asarray(values).reshape(-1), dtype=stored)
    with atomic_output(output) as handle:
        npy_header(handle, vector.shape, stored)
        handle.write(_raw_bytes(vector))


def write_array(array: np.ndarray, *, output: str | os.PathLike[str] | None) -> None:
    """A whole array of any number of dimensions as ``.npy``, atomically; room checked first.

    >>> import io, contextlib
    >>> with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
    ...     write_array(np.zeros((2, 3, 4)), output="-")

    """
    from .formats import check_room

    check_room(output, array.nbytes)
    write_table([array], output=output, fmt="npy", shape=array.shape, dtype=array.dtype, columns=[])


def _raw_bytes(block: np.ndarray) -> memoryview:
    """The bytes of a C-contiguous array, not copied (``tobytes`` would copy every block)."""
    return block.reshape(-1).view(np.uint8).data


def save_figure(figure: Figure, output: str | os.PathLike[str] | None, fmt: str) -> None:
    """Save ``figure`` as png, svg or pdf, byte-identical for identical figures.

    See docs/figures.md#figure-files.

    Dates are left out of the SVG and PDF metadata and the SVG ids get a fixed salt. Text
    stays text: SVG keeps it as ``<text>`` (editable, searchable; ``svg.fonttype: none``) and
    PDF embeds TrueType (Type 42) fonts rather than Type 3 ones, for this figure only.
    """
    with atomic_output(output) as handle:
        save_figure_to(handle, figure, fmt)


def save_figure_to(handle: IO[bytes], figure: Figure, fmt: str) -> None:
    """:func:`save_figure` into an open binary ``handle``."""
    from matplotlib import rc_context

    metadata: dict[str, dict[str, None]] = {
        "png": {},
        "svg": {"Date": None},
        "pdf": {"CreationDate": None, "ModDate": None},
    }
    # for this figure only (never global rcParams): fixed SVG ids, text as text, TrueType in PDF
    with rc_context({"svg.hashsalt": "pecli", "svg.fonttype": "none", "pdf.fonttype": 42}):
        figure.savefig(handle, format=fmt, metadata=metadata[fmt])


def write_records(
    columns: dict[str, np.ndarray], *, output: str | os.PathLike[str] | None, fmt: str
) -> None:
    """Write named columns of equal length (ints or floats) as CSV or JSON.

    CSV has a header line and the shortest round-trip text of each value; JSON is a list
    of one object per row, floats written by ``repr`` (also shortest round-trip).
    """
    if fmt == "json":
        lists = [jsonable(np.asarray(values).tolist()) for values in columns.values()]
        rows = [dict(zip(columns, row, strict=True)) for row in zip(*lists, strict=True)]
        import json

        text = json.dumps(rows, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    else:
        text = csv_output.import_polars().DataFrame(columns).write_csv()
    with atomic_output(output) as handle:
        handle.write(text.encode("utf-8"))


def write_json(value: object, *, output: str | os.PathLike[str] | None) -> None:
    """Write one JSON document (indented, UTF-8, newline at the end) atomically."""
    import json

    text = json.dumps(jsonable(value), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    with atomic_output(output) as handle:
        handle.write(text.encode("utf-8"))


def jsonable(value: object) -> object:
    """``value`` as strict JSON takes it: inf and NaN as None, tuples as lists, nested too.

    A pass-through pair's infinite wavelength is ``null``; ``--format json`` of a report and
    every JSON file pecli writes go through it.

    >>> jsonable({"a": [1.0, float("inf")], "b": float("nan"), "shape": (3, 4)})
    {'a': [1.0, None], 'b': None, 'shape': [3, 4]}
    """
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return value
