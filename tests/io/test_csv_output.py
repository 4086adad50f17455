"""The frames handed to polars' CSV sink hold the block's values, whatever the column stride."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

from pecli.io import csv_output


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 15, 16, 300, 8192])
def test_frames_hold_the_block(rows, dtype):
    pl = csv_output.import_polars()
    rng = np.random.default_rng(rows)
    block = rng.standard_normal((rows, 7)).astype(dtype)
    schema = csv_output._schema(pl, 7, np.dtype(dtype))
    frames = list(csv_output._frames(pl, block, schema, np.dtype(dtype)))
    back = np.concatenate([frame.to_numpy() for frame in frames])
    assert back.dtype == dtype and np.array_equal(back, block)


@pytest.mark.parametrize("rows", [1, 10, 1000, 8192, 10000])
def test_column_stride_is_an_odd_number_of_cache_lines(rows):
    for itemsize in (4, 8):
        stride = csv_output._column_stride(rows, itemsize)
        assert stride >= rows and (stride * itemsize) % 64 == 0
        assert (stride * itemsize // 64) % 2 == 1 and stride * itemsize - rows * itemsize < 128


def test_csv_text_of_a_block_is_shortest_round_trip():
    table = (np.arange(1, 301, dtype=np.float32) / 7).reshape(100, 3)
    out = io.BytesIO()
    rows = csv_output.write_csv(
        out, [table[:64], table[64:]], columns=["a", "b", "c"], dtype=np.dtype(np.float32)
    )
    lines = out.getvalue().decode().splitlines()
    assert rows == 100 and lines[0] == "a,b,c"
    expected = [",".join(str(v) for v in r) for r in table]  # NumPy: shortest float32 text
    assert lines[1:] == expected


def test_float16_blocks_reach_polars_as_float64():
    pl = csv_output.import_polars()
    block = np.float16([[0.1, 0.7], [1.5, -2.0]])
    schema = csv_output._schema(pl, 2, np.dtype(np.float16))
    frame = next(csv_output._frames(pl, block, schema, np.dtype(np.float16)))
    assert frame.schema == schema and np.array_equal(frame.to_numpy(), block.astype(np.float64))


def test_polars_threads_are_bounded_under_an_address_space_limit_before_it_starts():
    import subprocess
    import sys

    code = (
        "import os, resource\n"
        "os.environ.pop('POLARS_MAX_THREADS', None)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (6 << 30, resource.RLIM_INFINITY))\n"
        "from pecli.io.csv_output import import_polars\n"
        "import_polars()\n"
        "print(os.environ.get('POLARS_MAX_THREADS'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    threads = done.stdout.strip()
    assert threads.isdecimal() and int(threads) >= 1, done.stdout + done.stderr


@pytest.mark.parametrize(("room_mb", "threads"), [(900, 1), (2000, 4), (10_000, 8)])
def test_polars_threads_are_one_plus_what_is_left_after_800_mb_in_400_mb_steps(
    monkeypatch, room_mb, threads
):
    """By hand, 8 CPUs: 900 MB leave 100 after the base (1 thread), 2000 leave 1200 (1 + 3),
    10 GB more than 8 threads take (8)."""
    import resource

    limit = 64 << 30
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limit, resource.RLIM_INFINITY))
    monkeypatch.setattr(csv_output, "_address_space_used", lambda: limit - (room_mb << 20))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert csv_output._threads_within_limit() == threads


def test_a_csv_size_estimate_counts_the_header_as_write_table_does_by_default():
    """Rows ``0.5,0.25`` and ``1.5,-2.0`` (9 bytes each with the newline) scaled to 10 rows
    are 90 bytes; the header ``a,b`` and its newline 4 more, unless ``header=False`` (by hand;
    ``write_table`` writes the header unless told not to)."""
    from pecli.io.formats import table_bytes

    sample = np.array([[0.5, 0.25], [1.5, -2.0]])
    args = ("csv", (10, 2), np.dtype("float64"))
    assert table_bytes(*args, sample=sample, columns=["a", "b"]) == 94
    assert table_bytes(*args, sample=sample, columns=["a", "b"], header=False) == 90


def test_write_streamed_says_a_plain_line_unless_asked_for_json(tmp_path, capsys):
    """Called without ``as_json``, the writer says the documented plain ``pecli: wrote NAME``
    line (silenced by ``quiet``), not a JSON object; the CSV is the block, written by hand."""
    from pecli.io.targets import write_streamed

    block = np.array([[0.5, 1.0], [0.25, -2.0]], np.float32)
    for quiet in (False, True):
        out = tmp_path / f"t{quiet}.csv"
        write_streamed(
            [block],
            output=str(out),
            fmt="csv",
            shape=(2, 2),
            dtype=np.dtype(np.float32),
            columns=["a", "b"],
            header=True,
            quiet=quiet,
            description="t",
            size=None,
        )
        assert out.read_text() == "a,b\n0.5,1.0\n0.25,-2.0\n"
        said = capsys.readouterr().err
        assert said == ("" if quiet else f"pecli: wrote {out}\n")


def test_a_thread_that_cannot_start_is_not_counted_as_started(monkeypatch):
    """16 threads asked, the 4th start refused: 3 started (the refused one is not counted).
    The probes are daemons on small stacks (at most 64 KiB, not the default 8 MB that
    ulimit -v would count), and the caller's stack size is given back."""
    import threading

    from pecli.core.errors import RuntimeFailure

    real, starts = threading.Thread, []
    before = threading.stack_size()
    threading.stack_size(before)

    class Refusing(real):
        def start(self):
            size = threading.stack_size()  # sets 0: put the size back
            threading.stack_size(size)
            starts.append((self.daemon, size))
            if len(starts) == 4:
                raise RuntimeError("can't start new thread")
            super().start()

    monkeypatch.setattr(threading, "Thread", Refusing)
    with pytest.raises(RuntimeFailure, match=r"needs about 16 and only 3 could start"):
        csv_output._check_thread_room(16)
    assert all(daemon and 0 < size <= 1 << 16 for daemon, size in starts)
    assert threading.stack_size() == before
