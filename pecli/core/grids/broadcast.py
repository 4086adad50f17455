"""Filling a streamed grid table's rows by broadcasting per-axis tables (no gather, no temporary).

A token's block for grid axis ``a`` depends only on its coordinate ``(t // S) % N`` (``N``
the axis's side, ``S`` the product of the later sides). :func:`axis_tables` computes, once per
table, every coordinate's block with :meth:`pecli.core.grids.spec.GridSpec.block_values`, the
routine :meth:`~pecli.core.grids.spec.GridSpec.fill_tokens` uses; :func:`fill_rows` then writes a
run of consecutive tokens as a few broadcast assignments per axis: whole periods of ``S·N``
tokens, whole runs of ``S`` tokens sharing a coordinate, and the partial runs at the ends.
The values are those of ``fill_tokens`` bit for bit (tests/grids/test_grids.py compares them); only
the copying differs: no ``(rows, d)`` index, no gathered temporary, no zeroing of covered
columns. Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .spec import GridSpec

__all__ = ["AXIS_CELLS", "AxisTable", "Prepared", "axis_tables", "fill_block", "fill_rows"]

#: Largest per-axis table (coordinates × columns) kept for a streamed table, 4 MB of float32:
#: a longer axis (a 1-D grid) is filled by :meth:`GridSpec.fill` instead.
AXIS_CELLS = 1 << 20


class AxisTable(NamedTuple):
    """Every coordinate's block of one axis and where it goes: ``(column, first, count)`` runs."""

    values: np.ndarray  # (N, k), the output dtype, columns in output order
    stride: int  # S: tokens per step of this coordinate
    runs: tuple[tuple[int, int, int], ...]  # output column, column of values, width


#: Per block its axis table, and the column ranges no block covers (zeros).
Prepared = tuple[list[AxisTable], list[tuple[int, int]]]


def axis_tables(spec: GridSpec) -> Prepared | None:
    """Per block its axis table, and the column ranges no block covers (zeros); or None.

    None when an axis table would exceed :data:`AXIS_CELLS` values.
    """
    plan, tables = spec.plan, []
    covered = np.zeros(plan.d, dtype=bool)
    for b, axis in enumerate(plan.order):
        side = spec.shape[axis]
        targets, order = plan.block_columns(b)
        if side * targets.size > AXIS_CELLS:
            return None
        values = spec.block_values(b, np.arange(side, dtype=np.int64), order)
        covered[targets] = True
        stride = math.prod(spec.shape[axis + 1 :])
        tables.append(AxisTable(values, stride, tuple(_runs(targets))))
    return tables, [(t, t + w) for t, _, w in _runs(np.flatnonzero(~covered))]


def _runs(targets: np.ndarray) -> list[tuple[int, int, int]]:
    """Increasing ``targets`` as runs of consecutive columns: (column, index in targets, width)."""
    breaks = np.flatnonzero(np.diff(targets) != 1) + 1
    starts = np.concatenate([[0], breaks]).astype(int)
    ends = np.concatenate([breaks, [targets.size]]).astype(int)
    pairs = zip(starts, ends, strict=True)
    return [(int(targets[a]), int(a), int(e - a)) for a, e in pairs if e > a]


def fill_block(spec: GridSpec, out: np.ndarray, row0: int, prepared: Prepared | None) -> None:
    """The table's rows ``row0 … row0 + len(out) − 1`` into ``out``: broadcast, or ``spec.fill``.

    ``prepared`` is :func:`axis_tables`' result (None: :meth:`GridSpec.fill`'s gather).
    """
    if prepared is None:
        spec.fill(out, row0)
        return
    first = min(max(row0, spec.extra), row0 + len(out))  # rows before it are extra tokens
    out[: first - row0] = 0
    fill_rows(out[first - row0 :], first - spec.extra, *prepared)


def fill_rows(
    out: np.ndarray, token: int, tables: list[AxisTable], zeros: list[tuple[int, int]]
) -> None:
    """Write the rows of grid tokens ``token … token + len(out) − 1`` into ``out`` (``(r, d)``)."""
    for lo, hi in zeros:
        out[:, lo:hi] = 0
    for table in tables:
        side = table.values.shape[0]
        for column, first, width in table.runs:
            _broadcast(
                out[:, column : column + width],
                table.values[:, first : first + width],
                token,
                table.stride,
                side,
            )


def _broadcast(target: np.ndarray, values: np.ndarray, token: int, stride: int, side: int) -> None:
    """``target[i] = values[((token + i) // stride) % side]`` by runs and periods."""
    period, i, end = stride * side, 0, target.shape[0]
    while i < end:
        t = token + i
        if t % period == 0 and end - i >= period:  # whole periods at once
            q = (end - i) // period
            periods = target[i : i + q * period].reshape(q, side, stride, -1)  # views: rows split
            periods[...] = values[None, :, None, :]
            i += q * period
            continue
        coord, into = (t // stride) % side, t % stride
        if into or end - i < stride:  # a partial run: one coordinate
            count = min(stride - into, end - i)
            target[i : i + count] = values[coord]
            i += count
            continue
        runs = min((end - i) // stride, side - coord)  # whole runs up to the period's end
        whole = target[i : i + runs * stride].reshape(runs, stride, -1)
        whole[...] = values[coord : coord + runs, None, :]
        i += runs * stride
