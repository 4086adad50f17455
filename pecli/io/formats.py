"""Output formats and output checks made before any work: suffixes, terminals, folders, room.

Rules (docs/cli.md): ``-`` or no output means stdout; the format follows the file suffix unless
given; binary data never goes to a terminal; a file whose folder is missing or read-only, or
whose name is too long, is refused before anything is computed. No maths, no writing here.
"""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import IO

import numpy as np

from ..core.errors import ParameterError, RuntimeFailure
from . import csv_output, paths
from .paths import STDOUT, is_special, is_stdout, name_max

__all__ = [
    "FIGURE_FORMATS",
    "TABLE_FORMATS",
    "check_header",
    "check_output",
    "check_room",
    "npy_header",
    "resolve_format",
    "table_bytes",
]

TABLE_FORMATS = ("csv", "npy")
#: Formats of a table that may also go to a .safetensors file (by its suffix only).
COMPUTE_FORMATS = (*TABLE_FORMATS, "safetensors")
BINARY_FORMATS = ("npy", "png", "pdf")
FIGURE_FORMATS = ("png", "svg", "pdf")


def resolve_format(
    output: str | os.PathLike[str] | None,
    fmt: str | None,
    *,
    formats: tuple[str, ...] = TABLE_FORMATS,
    format_option: bool = True,
    suffixes: tuple[str, ...] | None = None,
    default: str = "csv",
    parameter: str = "output",
) -> str:
    """The output format: ``fmt`` if given, else the file suffix, else ``default`` for stdout.

    A name written through rather than replaced (``/dev/stdout``, a FIFO) without a known
    suffix takes ``default`` too.

    Raises
    ------
    ParameterError
        If ``fmt`` or the suffix is not one of ``formats``.

    """
    if fmt is not None:
        if fmt not in formats:
            raise ParameterError("format", f"must be one of {', '.join(formats)}", fmt)
        return fmt
    if is_stdout(output):
        return default
    if os.path.isdir(str(output)):  # before its missing suffix is blamed
        raise ParameterError(parameter, "is a folder, not a file", str(output))
    if str(output).endswith(("/", os.sep)):  # "t.csv/" would silently write t.csv
        raise ParameterError(parameter, "must name a file, not end in /", str(output))
    suffix = Path(str(output)).suffix.lower().lstrip(".")
    allowed = formats if suffixes is None else suffixes  # what a file name may end in
    if suffix not in allowed:
        if is_special(output):  # /dev/stdout, /dev/fd/3, a FIFO: a format as for stdout
            return default
        rule = f"must end in {', '.join('.' + f for f in allowed)}"
        rule += " (or give `format`)" if format_option else ""
        raise ParameterError(parameter, rule, str(output))
    return suffix


def check_output(
    output: str | os.PathLike[str] | None,
    fmt: str,
    *,
    parameter: str = "output",
    inputs: tuple[str | None, ...] = (),
) -> None:
    """Refuse, before any work, an output that cannot be written.

    ``inputs`` are files the command is about to read (:func:`pecli.io.paths.note_input`);
    those it read already are known.

    Raises
    ------
    ParameterError
        If the output is one of the command's input files (however it is spelled: links
        included), if the folder of a file does not exist or is not writable, if the path is
        a folder, if the folder is on a read-only file system or one of the kernel's
        (``/proc``, ``/sys``), or if binary data (npy, png, pdf) would go to a terminal.

    """
    paths.check_not_input(output, inputs, parameter)
    if is_stdout(output) or is_special(output):  # written through: nothing is created
        if fmt in BINARY_FORMATS and paths.is_terminal(output):
            rule = f"is a terminal; {fmt} is binary: redirect stdout or give a file name"
            raise ParameterError(parameter, rule, str(output or STDOUT))
        if problem := paths.descriptor_problem(output):
            raise ParameterError(parameter, problem, str(output))
        return
    try:
        os.stat(str(output))
    except OSError as error:
        if error.errno == errno.ELOOP:  # realpath would stop in the loop and replace a link
            raise ParameterError(parameter, "is a loop of symbolic links", str(output)) from None
    path = Path(os.path.realpath(str(output)))  # where atomic_output writes, through links
    folder = path.parent
    name_bytes = len(os.fsencode(path.name))
    if folder.is_dir() and name_bytes > (longest := name_max(folder)):
        rule = f"must have a file name of at most {longest} bytes"
        raise ParameterError(parameter, rule, f"{name_bytes} bytes")
    if path.is_dir():
        raise ParameterError(parameter, "is a folder, not a file", str(output))
    if not folder.is_dir():
        raise ParameterError(
            parameter, f"must be in an existing folder ({folder} is not)", str(output)
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ParameterError(
            parameter, f"must be in a writable folder ({folder} is not)", str(output)
        )
    if problem := paths.file_system_problem(folder):  # root may write anywhere: not there
        raise ParameterError(
            parameter, f"must be in a writable folder ({folder} {problem})", str(output)
        )


def check_header(fmt: str, header: bool | None) -> None:
    """Refuse a header line (``header`` True) asked of an output other than CSV.

    Only CSV has a header line: one asked for an npy or .safetensors output would be silently
    left out. No header (False) or no choice (None) is what those formats are: accepted, so a
    script may pass ``--no-header`` whatever the format.

    Raises
    ------
    ParameterError
        If ``header`` is True and ``fmt`` is not csv.

    """
    if header and fmt != "csv":
        raise ParameterError("header", "applies only to a CSV output", f"{fmt} output")


def table_bytes(
    fmt: str,
    shape: tuple[int, int],
    dtype: np.dtype,
    *,
    sample: np.ndarray | None = None,
    columns: list[str] | None = None,
    header: bool = True,
) -> int:
    """Size in bytes of a table written by :func:`write_table`: exact for npy, estimated for CSV.

    The CSV estimate formats ``sample`` (a few rows spread over the table, so that their
    text has the length of typical rows) and scales its mean row length to ``shape[0]`` rows.
    """
    if fmt == "npy":
        buffer = io.BytesIO()
        npy_header(buffer, shape, np.dtype(dtype))
        return buffer.tell() + shape[0] * shape[1] * np.dtype(dtype).itemsize
    if sample is None or columns is None:
        raise ValueError("a CSV size estimate needs sample rows and column names")
    body = csv_output.text_bytes(sample, dtype)  # in memory: no streaming sink for 64 rows
    head = len(csv_output.header_line(columns)) if header else 0
    return head + round(body * shape[0] / max(len(sample), 1))


def check_room(output: str | os.PathLike[str] | None, needed: int) -> None:
    """Refuse to start writing ``needed`` bytes to a file system that has less room.

    Raises
    ------
    RuntimeFailure
        If the folder of ``output`` has fewer than ``needed`` bytes free (both are named).

    """
    if is_stdout(output) or is_special(output):
        return
    folder = Path(os.path.realpath(str(output))).parent
    import shutil

    free = shutil.disk_usage(folder).free
    if needed > free:
        from rich.filesize import decimal

        def size(count: int) -> str:
            text = decimal(count)
            return text if text.endswith(" bytes") else f"{text} ({count} bytes)"

        message = f"not enough room for {output}: it needs {size(needed)}"
        raise RuntimeFailure(f"{message} and {folder} has {size(free)} free")


def npy_header(handle: IO[bytes], shape: tuple[int, ...], dtype: np.dtype) -> None:
    """Write the version 1.0 ``.npy`` header of a C-ordered little-endian array to ``handle``."""
    header = {"descr": dtype.newbyteorder("<").str, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(handle, header)
