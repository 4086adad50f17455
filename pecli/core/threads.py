"""Splitting a kernel's rows over threads: how many, where to cut, and running the pieces.

NumPy releases the GIL in its ufuncs, so row ranges filled in threads run in parallel. No
maths here; a row's value never depends on how the rows were split.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable

from .errors import ParameterError

__all__ = ["CELLS_PER_WORKER", "run_split", "split_rows", "worker_count"]

#: Below this many (row, pair) cells per thread a second thread costs more than it saves.
CELLS_PER_WORKER = 1 << 19


def run_split(work: Callable[[int, int], None], ranges: list[tuple[int, int]]) -> None:
    """``work(n0, n1)`` for each range, in threads when there is more than one."""
    if len(ranges) == 1:
        work(*ranges[0])
        return
    from concurrent.futures import ThreadPoolExecutor  # only tables large enough to split

    with ThreadPoolExecutor(len(ranges)) as pool:
        for done in [pool.submit(work, n0, n1) for n0, n1 in ranges]:
            done.result()


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
