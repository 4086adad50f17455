"""An input matrix whose header is checked and whose rows are read on demand, in blocks."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ...core.rules import check_finite

__all__ = ["Blocks", "Matrix", "array_blocks", "as_2d", "checked_block"]

#: ``blocks(rows)`` yields ``(first_row, block)``, 0-based first row, 2-D float64 block.
Blocks = Callable[[int], Iterator[tuple[int, np.ndarray]]]


@dataclass(frozen=True)
class Matrix:
    """An input whose header has been checked and whose rows are read on demand.

    Attributes
    ----------
    shape : tuple of int
        Shape as stored (``.npy`` may be 0-D to N-D; CSV is always ``(n, m)``).
    columns : list of str or None
        The CSV header names, if there was a header line.
    read_blocks : callable
        ``read_blocks(rows)`` yields ``(first_row, block)`` pairs: ``block`` is a C-ordered
        float64 ``(r, m)`` array of at most ``rows`` rows, checked to be finite.

    """

    shape: tuple[int, ...]
    columns: list[str] | None
    read_blocks: Blocks

    def blocks(self, rows: int = 0) -> Iterator[tuple[int, np.ndarray]]:
        """Row blocks of about 4 MiB each (or ``rows`` rows), in order."""
        width = max(1, math.prod(self.shape[1:]))
        return self.read_blocks(rows or max(1, (1 << 19) // width))


def as_2d(array: np.ndarray) -> np.ndarray:
    """0-D → (1, 1), 1-D → (n, 1), 2-D as is, N-D → (n, rest)."""
    if array.ndim == 0:
        return array.reshape(1, 1)
    return array.reshape(array.shape[0], math.prod(array.shape[1:]))


def checked_block(block: np.ndarray, first_row: int, parameter: str) -> np.ndarray:
    """``block`` as C-ordered native float64, refusing NaN and infinities."""
    values = np.ascontiguousarray(block, dtype=np.float64)
    check_finite(values, parameter, rows=first_row)
    return values


def array_blocks(array: np.ndarray, parameter: str) -> Blocks:
    """Row blocks of an in-memory array (any shape, flattened to 2-D by :func:`as_2d`)."""
    table = as_2d(array)

    def blocks(rows: int) -> Iterator[tuple[int, np.ndarray]]:
        for first in range(0, table.shape[0], rows):
            yield first, checked_block(table[first : first + rows], first, parameter)

    return blocks
