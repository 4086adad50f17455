"""Splitting a kernel's rows over threads: how many, where to cut, and running the pieces.

NumPy releases the GIL in its ufuncs, so row ranges filled in threads run in parallel. No
maths here; a row's value never depends on how the rows were split.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from .errors import ParameterError

__all__ = [
    "AHEAD",
    "CELLS_PER_WORKER",
    "block_buffers",
    "computed_ahead",
    "run_split",
    "split_rows",
    "wait_until",
    "worker_count",
]

#: Below this many (row, pair) cells per thread a second thread costs more than it saves.
CELLS_PER_WORKER = 1 << 19
#: Blocks :func:`computed_ahead` computes ahead of the consumer. It holds one more, and one is
#: being computed: blocks of ``table_blocks(reuse=AHEAD + 2)`` are never overwritten in use.
AHEAD = 2

T = TypeVar("T")
_END = object()


def computed_ahead(blocks: Iterator[T], depth: int = AHEAD) -> Iterator[T]:
    """Yield ``blocks`` while a thread computes up to ``depth`` of the next ones.

    The consumer (a writer) works while the next blocks are computed. An exception of the
    computation is raised here; when the consumer stops (an error, ``KeyboardInterrupt``,
    ``close()``), the thread ends after its current block and is waited for.

    Notes
    -----
    The consumer runs in the main thread, where a signal handler may raise
    ``KeyboardInterrupt`` between any two bytecodes. ``queue.Queue`` and ``threading.Event``
    are built on ``threading.Condition``, written in Python: interrupted there, the main
    thread may leave a lock held (the producer then waits on it for ever, and so does the
    process) or release one it no longer holds (``RuntimeError: release unlocked lock``).
    So the two threads share only what an interruption cannot corrupt: C-level
    ``queue.SimpleQueue`` s (the blocks, and ``depth`` credits that bound them) and plain flags,
    polled with ``time.sleep``.

    """
    ready: queue.SimpleQueue[object] = queue.SimpleQueue()
    credits: queue.SimpleQueue[None] = queue.SimpleQueue()
    for _ in range(depth):
        credits.put(None)
    state = {"begun": False, "stop": False, "done": False}
    thread = threading.Thread(
        target=_produce, args=(blocks, ready, credits, state), name="pecli-compute", daemon=True
    )
    try:
        try:
            thread.start()
        except RuntimeError:  # no thread to spare (a memory or thread limit): compute in line
            yield from blocks
            return
        while (item := ready.get()) is not _END:
            credits.put(None)  # its place is free: the producer may queue one more
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]
    finally:
        state["stop"] = True  # a later signal must not skip the wait (its buffers are ours)
        wait_until(lambda: not state["begun"] or state["done"])


def wait_until(condition: Callable[[], bool]) -> None:
    """Sleep 0.05 s at a time until ``condition()``; a ``KeyboardInterrupt`` meanwhile is ignored.

    For the main thread awaiting a worker after a signal: a second signal must not leave the
    worker running on buffers or a file being removed. Nothing but ``time.sleep`` is
    interrupted, so no lock can be left held.
    """
    while not condition():
        with contextlib.suppress(KeyboardInterrupt):
            time.sleep(0.05)


def block_buffers(rows: int, width: int, n: int, dtype: Any, reuse: int) -> Iterator[np.ndarray]:
    """Arrays for the blocks of an ``(n, width)`` table, ``rows`` rows at a time.

    ``reuse >= 1``: views of ``reuse`` buffers taken in turn, each overwritten once ``reuse``
    more blocks were taken (no fresh pages, so no page faults and zeroing per block: the
    writer of :func:`computed_ahead` holds at most ``AHEAD + 1`` blocks, so ``AHEAD + 2``
    are safe); ``0``: a new array for every block.

    >>> [b.shape for b in block_buffers(4, 3, 10, np.float32, reuse=2)]
    [(4, 3), (4, 3), (2, 3)]
    """
    shape = (min(rows, n), width)
    ring = [np.empty(shape, dtype) for _ in range(min(max(reuse, 0), -(-n // rows)))]
    for k, row in enumerate(range(0, n, rows)):
        yield (ring[k % len(ring)] if ring else np.empty(shape, dtype))[: n - row]


def _produce(
    blocks: Iterator[object],
    ready: queue.SimpleQueue[object],
    credits: queue.SimpleQueue[None],
    state: dict[str, bool],
) -> None:
    """Put each block, then ``_END`` (or the exception), into ``ready``, until ``stop``."""
    state["begun"] = True
    try:
        for item in itertools.chain(blocks, [_END]):
            if not _put(ready, credits, item, state):
                break
    except BaseException as error:  # handed to the consumer
        _put(ready, credits, error, state)
    finally:
        with contextlib.suppress(BaseException):
            getattr(blocks, "close", lambda: None)()  # a progress bar ends in its own thread
        state["done"] = True


def _put(
    ready: queue.SimpleQueue[object],
    credits: queue.SimpleQueue[None],
    item: object,
    state: dict[str, bool],
) -> bool:
    """Put ``item`` once a credit says there is room; False if the consumer stopped first."""
    while not state["stop"]:
        with contextlib.suppress(queue.Empty):
            credits.get(timeout=0.05)
            ready.put(item)
            return True
    return False


def run_split(work: Callable[[int, int], None], ranges: list[tuple[int, int]]) -> None:
    """``work(n0, n1)`` for each range: the first in line, the others in threads.

    A range whose thread cannot start (a memory or thread limit: ``RuntimeError``) is done in
    line after the first, so the result is the same, only slower. The first exception of any
    range is raised once every started thread has ended.
    """
    errors: list[BaseException] = []

    def guarded(n0: int, n1: int) -> None:
        try:
            work(n0, n1)
        except BaseException as error:  # handed to the caller
            errors.append(error)

    started, in_line = [], [ranges[0]]
    for n0, n1 in ranges[1:]:
        thread = threading.Thread(target=guarded, args=(n0, n1), name="pecli-split", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # no thread to spare: this range in line
            in_line.append((n0, n1))
        else:
            started.append(thread)
    try:
        for n0, n1 in in_line:
            guarded(n0, n1)
    finally:
        for thread in started:
            thread.join()
    if errors:
        raise errors[0]


def worker_count(workers: int | None, cells: int) -> int:
    """``workers`` checked, or (None) the CPUs usable, at most one per CELLS_PER_WORKER cells."""
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ParameterError("workers", "must be an integer >= 1", workers)
        return workers
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, cells // CELLS_PER_WORKER))


def split_rows(n0: int, n1: int, unit: int, parts: int) -> list[tuple[int, int]]:
    """Cut ``[n0, n1)`` into at most ``parts`` ranges whose inner bounds are multiples of unit."""
    units = -(-n1 // unit) - n0 // unit
    cuts = {n0, n1} | {(n0 // unit + units * k // parts) * unit for k in range(1, parts)}
    inner = sorted(c for c in cuts if n0 <= c <= n1)
    return list(itertools.pairwise(inner))
