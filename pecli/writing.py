"""Writing tables and figures: formats, stdout, atomic files. No maths here.

Rules (SPEC §5): ``-`` or no output means stdout; the format follows the file suffix unless
given; CSV has a plain header line, commas, ``.`` decimals and the shortest text that parses
back to each stored value; ``.npy`` is C-ordered little-endian; a file is written to a
temporary name in its own folder and renamed only when complete, so a failed or interrupted
run leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from . import csv_stream
from .errors import ParameterError, RuntimeFailure

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "FIGURE_FORMATS",
    "TABLE_FORMATS",
    "OutputClosed",
    "atomic_output",
    "check_output",
    "check_room",
    "resolve_format",
    "save_figure",
    "table_bytes",
    "write_records",
    "write_table",
]

TABLE_FORMATS = ("csv", "npy")
BINARY_FORMATS = ("npy", "png", "pdf")
FIGURE_FORMATS = ("png", "svg", "pdf")
STDOUT = "-"


def is_stdout(output: str | os.PathLike[str] | None) -> bool:
    """True when ``output`` means standard output (``None`` or ``"-"``)."""
    return output is None or str(output) == STDOUT


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
    suffix = Path(str(output)).suffix.lower().lstrip(".")
    allowed = formats if suffixes is None else suffixes  # what a file name may end in
    if suffix not in allowed:
        rule = f"must end in {', '.join('.' + f for f in allowed)}"
        rule += " (or give --format)" if format_option else ""
        raise ParameterError(parameter, rule, str(output))
    return suffix


def is_special(output: str | os.PathLike[str] | None) -> bool:
    """True for an existing output that is not a regular file (a device, FIFO or socket)."""
    if is_stdout(output):
        return False
    try:
        return not stat.S_ISREG(os.stat(str(output)).st_mode) and not os.path.isdir(str(output))
    except OSError:
        return False


def check_output(
    output: str | os.PathLike[str] | None, fmt: str, *, parameter: str = "output"
) -> None:
    """Refuse, before any work, an output that cannot be written.

    Raises
    ------
    ParameterError
        If the folder of a file does not exist or is not writable, if the path is a folder,
        or if binary data (npy, png, pdf) would go to a terminal.

    """
    if is_stdout(output):
        if fmt in BINARY_FORMATS and sys.stdout.isatty():
            rule = f"is a terminal; {fmt} is binary: redirect stdout or give a file name"
            raise ParameterError(parameter, rule, STDOUT)
        return
    path = Path(os.path.realpath(str(output)))  # where atomic_output writes, through links
    folder = path.parent
    name_bytes = len(os.fsencode(path.name))
    if folder.is_dir() and name_bytes > (longest := _name_max(folder)):
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


def _name_max(folder: Path) -> int:
    """Longest file name the folder's file system takes, in bytes (255 almost everywhere)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


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
        _npy_header(buffer, shape, np.dtype(dtype))
        return buffer.tell() + shape[0] * shape[1] * np.dtype(dtype).itemsize
    if sample is None or columns is None:
        raise ValueError("a CSV size estimate needs sample rows and column names")
    body = io.BytesIO()
    csv_stream.write_csv(body, [sample], columns=columns, dtype=dtype, header=False)
    head = len(csv_stream.header_line(columns)) if header else 0
    return head + round(body.tell() * shape[0] / max(len(sample), 1))


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


@contextlib.contextmanager
def atomic_output(output: str | os.PathLike[str] | None) -> Iterator[IO[bytes]]:
    """Open ``output`` for binary writing; a file appears only if the block succeeds.

    For a file, writes go to a temporary file in the same folder, which is renamed over
    ``output`` on success and removed on any exception (``KeyboardInterrupt`` included), so
    an existing file is replaced only by a complete one; a symbolic link keeps pointing at
    the file it names, which is the one replaced. A device, FIFO or socket (``/dev/null``,
    a named pipe) is written directly: it cannot be replaced. For stdout, yields its buffer.
    """
    if is_stdout(output):
        guard = _PipeGuard(sys.stdout.buffer)
        try:
            yield guard  # type: ignore[misc]
            guard.flush()
        except OSError as error:
            if not (isinstance(error, BrokenPipeError) or guard.broken):
                raise
            _silence_stdout()
            raise OutputClosed from None
        return
    if is_special(output):
        with open(str(output), "wb") as device:
            yield device
        return
    path = Path(os.path.realpath(str(output)))  # through symbolic links, dangling ones too
    import tempfile  # imported here, like json and shutil: start-up time counts

    short = len(os.fsencode(path.name)) + 16 <= _name_max(path.parent)  # .NAME.XXXXXXXX.part
    prefix = f".{path.name}." if short else ".pecli-"
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back for a few renames; they are raised right after.

    Used when two files replace their old versions together, so that a signal cannot fall
    between the two renames. The handlers are swapped for a recorder (a signal mask would not
    do: another thread may take the signal); only the main thread can do this.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {
        signum: signal.signal(signum, lambda number, _frame: arrived.append(number))
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if arrived:
            signal.raise_signal(arrived[0])


class _PipeGuard:
    """Stdout's buffer, remembering a closed pipe even if a library re-raises it as OSError."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.broken = False

    def write(self, data: bytes) -> int:
        """Write all of ``data``: an unbuffered stdout (``python -u``) may take only a part."""
        view, done = memoryview(data).cast("B"), 0
        try:
            while done < len(view):
                written = self.raw.write(view[done:])
                if written is None:  # a non-blocking stdout that is full: wait until it drains
                    import select

                    select.select([], [self.raw.fileno()], [])
                done += written or 0
        except BrokenPipeError:
            self.broken = True
            raise
        return done

    def flush(self) -> None:
        try:
            self.raw.flush()
        except BrokenPipeError:
            self.broken = True
            raise


class OutputClosed(Exception):
    """The reader of stdout went away (``pecli … | head``); nothing more can be written."""


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so that no later flush can fail or complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _npy_header(handle: IO[bytes], shape: tuple[int, ...], dtype: np.dtype) -> None:
    header = {"descr": dtype.newbyteorder("<").str, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(handle, header)


def write_table(
    blocks: Iterable[np.ndarray],
    *,
    output: str | os.PathLike[str] | None,
    fmt: str,
    shape: tuple[int, int],
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
        Shape of the whole table (the npy header is written before the first block).
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
    shape: tuple[int, int],
    dtype: np.dtype,
    columns: list[str],
    header: bool = True,
) -> None:
    """:func:`write_table` into an open binary ``handle`` (for several files made at once)."""
    stored = np.dtype(dtype).newbyteorder("<")
    rows = 0
    if fmt == "csv":
        rows = csv_stream.write_csv(handle, blocks, columns=columns, dtype=stored, header=header)
    else:
        _npy_header(handle, shape, stored)
        for block in blocks:
            handle.write(np.ascontiguousarray(block, dtype=stored).tobytes())
            rows += block.shape[0]
    if rows != shape[0]:
        raise ValueError(f"blocks hold {rows} rows, expected {shape[0]}")


def save_figure(figure: Figure, output: str | os.PathLike[str] | None, fmt: str) -> None:
    """Save ``figure`` as png, svg or pdf, byte-identical for identical figures (SPEC §4.3).

    Dates are left out of the SVG and PDF metadata and the SVG ids get a fixed salt.
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
    with rc_context({"svg.hashsalt": "pecli"}):
        figure.savefig(handle, format=fmt, metadata=metadata[fmt])


def write_records(
    columns: dict[str, np.ndarray], *, output: str | os.PathLike[str] | None, fmt: str
) -> None:
    """Write named columns of equal length (ints or floats) as CSV or JSON.

    CSV has a header line and the shortest round-trip text of each value; JSON is a list
    of one object per row, floats written by ``repr`` (also shortest round-trip).
    """
    if fmt == "json":
        lists = [np.asarray(values).tolist() for values in columns.values()]
        rows = [dict(zip(columns, row, strict=True)) for row in zip(*lists, strict=True)]
        import json

        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    else:
        import polars as pl

        text = pl.DataFrame(columns).write_csv()
    with atomic_output(output) as handle:
        handle.write(text.encode("utf-8"))
