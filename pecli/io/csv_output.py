"""CSV output of a table given as row blocks, through polars' streaming CSV sink.

The rules of docs/cli.md: a plain header line, commas, ``.`` decimals whatever the locale, and the
shortest text that parses back to each stored value (polars writes the shortest round-trip
text of float32 and float64 values). The blocks are handed to polars one by one as an I/O
source of its streaming engine, so memory stays flat and polars formats with all its threads;
benchmarks/bench_csv.py measures it against ``np.savetxt``. The sink runs in a worker thread
that :func:`pecli.io.guard.run_stoppable` waits on, so that a signal (Ctrl-C, SIGTERM) stops
the source at its next chunk instead of after the whole table. polars is imported only
here, so commands that write no CSV never pay for it. No maths here.
"""

from __future__ import annotations

import io
import itertools
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import IO, Any

import numpy as np

from ..core.errors import RuntimeFailure
from . import guard

__all__ = ["header_line", "import_polars", "text_bytes", "write_csv"]

#: Values per DataFrame handed to polars (1024 rows at d = 512): memory stays a few chunks.
CHUNK_VALUES = 1 << 19
#: Rows transposed at a time into the columns polars holds.
TILE_ROWS = 128


def header_line(columns: list[str]) -> bytes:
    """The header line, quoted only where a name needs it (by the standard :mod:`csv` rules)."""
    import csv

    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerow(columns)
    return text.getvalue().encode("utf-8")


def write_csv(
    handle: IO[bytes],
    blocks: Iterable[np.ndarray],
    *,
    columns: list[str],
    dtype: np.dtype,
    header: bool = True,
) -> int:
    """Write row blocks as CSV to a binary ``handle``; return the number of rows written.

    Parameters
    ----------
    handle : binary file object
        Where the text goes (a file, or stdout's buffer).
    blocks : iterable of numpy.ndarray
        Row blocks of shape ``(r, len(columns))``.
    columns : list of str, keyword-only
        Header names (need not be unique: polars sees its own placeholder names).
    dtype : numpy.dtype, keyword-only
        float32 or float64: the values are written as the shortest text of this dtype.
    header : bool, keyword-only
        Whether the first line is the header.

    Raises
    ------
    Exception
        Whatever the blocks raise, unchanged (polars passes it through).

    """
    pl = import_polars()
    from polars.io.plugins import register_io_source

    schema = _schema(pl, len(columns), dtype)
    rows = [0]
    stop = threading.Event()

    def frames(*_: Any) -> Iterator[Any]:  # polars passes projection hints: unused
        for block in blocks:
            rows[0] += len(block)
            for frame in _frames(pl, block, schema, dtype):
                if stop.is_set() or getattr(handle, "broken", False):
                    return  # polars ends the sink normally; the caller re-raises
                    #         (a closed reader: polars would go on pulling every row)
                yield frame

    blocks = iter(blocks)
    first = next(blocks, None)  # computed before the header: an error leaves no output at all
    if first is not None:
        blocks = itertools.chain([first], blocks)
    if header:
        handle.write(header_line(columns))
    query = register_io_source(io_source=frames, schema=schema)
    guard.run_stoppable(lambda: query.sink_csv(handle, include_header=False), stop)
    return rows[0]


def text_bytes(rows: np.ndarray, dtype: np.dtype) -> int:
    """Bytes of ``rows`` (``(r, d)``) as CSV lines without a header, formatted in memory."""
    pl = import_polars()
    frames = _frames(pl, rows, _schema(pl, rows.shape[1], dtype), dtype)
    return sum(len(frame.write_csv(include_header=False)) for frame in frames)  # ASCII text


def _schema(pl: Any, width: int, dtype: np.dtype) -> dict[str, Any]:
    """The placeholder column names polars sees, typed as the stored values."""
    kind = pl.Float32 if np.dtype(dtype) == np.float32 else pl.Float64
    return {f"c{j}": kind for j in range(width)}


def import_polars() -> Any:
    """Import polars, set up to live within the process's limits (docs/cli.md#memory-limits).

    polars' allocator (jemalloc) starts a background thread that, under a memory limit,
    cannot start and floods stderr: it is turned off. Under an address-space limit
    (``ulimit -v``) polars gets as many threads as fit, each taking about
    :data:`CSV_THREAD_BYTES`; below :data:`CSV_BASE_BYTES` it cannot run at all, and rather
    than abort (a Rust panic, status 134) the command fails at once.

    Raises
    ------
    RuntimeFailure
        If ``POLARS_MAX_THREADS`` is set to anything but a positive integer (polars aborts
        with a Rust panic on ``0``), the address-space limit is below
        :data:`CSV_BASE_BYTES`, or fewer than :data:`CSV_THREADS` threads can start
        (``ulimit -u``, a cgroup's ``pids.max``: polars' runtime then waits forever for a
        thread it could not start). Threads are probed only without an address-space limit.

    """
    value = os.environ.get("POLARS_MAX_THREADS")
    if value is not None and not (value.strip().isdecimal() and int(value) > 0):
        message = f"POLARS_MAX_THREADS must be a positive integer or unset (got {value!r})"
        raise RuntimeFailure(message)
    if "polars" not in sys.modules:  # these settings are read when polars starts
        os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:false")
        threads = _threads_within_limit()
        if value is None and threads is not None:
            os.environ["POLARS_MAX_THREADS"] = str(threads)
        if threads is None:  # each probe thread leaves a 64 MB malloc arena: not under ulimit -v
            _check_thread_room(CSV_THREADS)
    import polars

    return polars


#: Address space polars takes beyond what the process already uses, with one thread, and per
#: further thread, with a margin for the kernel's threads (measured with ``prlimit --as``:
#: ``compute`` passes at 900 MB with one thread, 1.3 GB with two, 1.5 GB with four, but not
#: always at 800 MB with one; two threads under 1.3 GB aborted once on a loaded machine, so
#: a further thread is budgeted 400 MB).
CSV_BASE_BYTES = 800 << 20
CSV_THREAD_BYTES = 400 << 20


#: Threads that must be able to start before polars is imported: a CSV run peaks at 15
#: threads in all (2 cores); a probe of 16 beside the caller's leaves a margin.
CSV_THREADS = 16


def _check_thread_room(count: int) -> None:
    """Start ``count`` idle threads and stop them; fail in one line if they cannot start."""
    release = threading.Event()
    started: list[threading.Thread] = []
    stack = threading.stack_size(1 << 16)  # small stacks: no address space kept under ulimit -v
    try:
        for _ in range(count):
            started.append(threading.Thread(target=release.wait, daemon=True))
            started[-1].start()
    except RuntimeError as error:  # "can't start new thread"
        raise RuntimeFailure(
            f"cannot start threads: CSV output (polars) needs about {count} and only "
            f"{len(started) - 1} could start ({error}; ulimit -u or a pids limit); raise "
            "the limit or choose another format"
        ) from None
    finally:
        threading.stack_size(stack)
        release.set()
        for thread in started:
            if thread.is_alive():
                thread.join()


def _threads_within_limit() -> int | None:
    """The polars threads that fit the address-space limit; None without a limit."""
    import resource

    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    room = limit - _address_space_used()  # an input mapped by add counts too
    if room < CSV_BASE_BYTES:
        raise RuntimeFailure(
            f"out of memory: CSV output (polars) needs about {CSV_BASE_BYTES >> 20} MB of "
            f"address space and ulimit -v ({limit >> 20} MB) leaves {max(room, 0) >> 20} MB; "
            "raise the limit or choose another format"
        )
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, 1 + (room - CSV_BASE_BYTES) // CSV_THREAD_BYTES))


def _address_space_used() -> int:
    """The process's virtual size in bytes (``VmSize``), 0 where /proc cannot tell."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError):
        pass
    return 0


def _frames(pl: Any, block: np.ndarray, schema: dict[str, Any], dtype: np.dtype) -> Iterator[Any]:
    """The block as one DataFrame (its columns built once), yielded in slices to the sink.

    The transposition goes in tiles of rows, whose reads stay in the cache (half the time
    of one ``block.T`` copy). The columns are zero-copy slices of one buffer whose column
    stride is an odd number of 64-byte cache lines: polars formats a row by reading every
    column, and with a power-of-two stride (8192 rows of float32: 32 KiB) those reads all
    fall in the same few cache sets, which took a third more CPU than the formatting itself
    (``perf record`` on ``compute --d 512 --n 10000 --format csv``: the serializer at 1035
    samples against 558 for a DataFrame built by polars).
    """
    rows, width = block.shape
    held = np.dtype(np.float32 if np.dtype(dtype) == np.float32 else np.float64)  # as _schema
    stride = _column_stride(rows, held.itemsize)
    columns = np.empty((width, stride), dtype=held)  # polars holds columns
    for row in range(0, rows, TILE_ROWS):
        end = min(row + TILE_ROWS, rows)
        columns[:, row:end] = block[row:end].T
    flat = pl.Series("", columns.reshape(-1))  # one buffer; each column a slice of it
    frame = pl.DataFrame(
        [flat.slice(j * stride, rows).alias(name) for j, name in enumerate(schema)]
    )
    step = max(1, CHUNK_VALUES // max(len(schema), 1))
    for row in range(0, rows, step):
        yield frame.slice(row, step)


def _column_stride(rows: int, itemsize: int) -> int:
    """Values from one column's start to the next's: ``rows`` up to an odd number of lines.

    Rounded up to an odd number of 64-byte cache lines, so successive columns fall in
    different cache sets.

    >>> _column_stride(8192, 4), _column_stride(10, 4), _column_stride(8, 8)
    (8208, 16, 8)
    """
    lines = -(-rows * itemsize // 64)
    return (lines + 1 - lines % 2) * 64 // itemsize
