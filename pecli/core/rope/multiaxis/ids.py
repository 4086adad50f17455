"""Position ids of text, image and video tokens: one row per token, one column per axis.

A :class:`GridIds` makes any range of rows on demand (a cache of a billion tokens is streamed
without its ids ever being whole in memory): text tokens first (FLUX.1: 0 on every axis; FLUX.2:
``0 … L−1`` on one axis), then a grid in row-major order (``meshgrid(…, indexing="ij")``), then
trailing tokens at 0 (Llama 4's class token). :class:`ArrayIds` wraps explicit ids. Pure
NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...rules import MAX_POSITION

__all__ = [
    "MAX_TOKENS",
    "ArrayIds",
    "GridIds",
    "check_grid",
    "check_ids",
    "check_text",
    "torch_linspace",
]

#: Most tokens an id source may hold (2^40: far past any cache a disk holds).
MAX_TOKENS = 1 << 40


def check_text(text: object) -> int:
    """The number of text tokens as an int: 0 to :data:`MAX_TOKENS`.

    >>> check_text(3)
    3
    """
    if not isinstance(text, int | np.integer) or text < 0 or text > MAX_TOKENS:
        raise ParameterError("text", "must be an integer from 0 to 2^40", text)
    return int(text)


def check_grid(grid: Sequence[int], dims: int, *, most: int | None = None) -> tuple[int, ...]:
    """The grid sizes as ints, ``dims`` of them, each >= 1 (and <= ``most``).

    Examples
    --------
    >>> check_grid([4, 6], 2)
    (4, 6)

    """
    sizes = tuple(grid)
    if len(sizes) != dims:
        raise ParameterError("grid", f"must have {dims} sizes here", list(sizes))
    for size in sizes:
        if not isinstance(size, int | np.integer) or size < 1 or size > MAX_POSITION:
            raise ParameterError("grid", "sizes must be integers >= 1", list(sizes))
        if most is not None and size > most:
            raise ParameterError("grid", f"sizes must be <= {most} for this preset", list(sizes))
    if int(np.prod(sizes, dtype=object)) > MAX_TOKENS:
        raise ParameterError("grid", "must hold at most 2^40 tokens", list(sizes))
    return tuple(int(s) for s in sizes)


@dataclass(frozen=True)
class GridIds:
    """Ids of ``text`` text tokens, a grid, then ``tail`` tokens at 0, made a range at a time.

    Attributes
    ----------
    sizes : tuple of int
        The grid, outermost first.
    axes : int
        Id columns.
    columns : tuple of int
        The id column of each grid dimension.
    base : float
        Added to every grid coordinate (1 for Llama 4's 1-based ids).
    text : int
        Text tokens before the grid.
    text_axes : tuple of int
        The columns that count text tokens ``text_base + 0 … text−1`` (others 0); none: all 0.
    tail : int
        Tokens after the grid with every id 0.
    offsets : tuple of float or None
        Added to each grid dimension's coordinate (Qwen-Image centres rows and columns).
    fps : float or None
        Cosmos' videos: the first grid dimension's coordinate ``k`` becomes
        ``float32(float32(k) / fps) · 24`` (base_fps 24), as diffusers computes it in float32.
    text_base : float
        The first text id on ``text_axes``.
    coords : tuple of tuple of float, or None
        Each grid dimension's coordinate values by index, instead of ``0 … size−1``
        (CogVideoX's ``linspace`` crops).

    Examples
    --------
    >>> ids = GridIds((2, 3), axes=3, columns=(1, 2), text=1)
    >>> ids.n, ids.rows(0, 4).tolist()
    (7, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 2.0]])

    """

    sizes: tuple[int, ...]
    axes: int
    columns: tuple[int, ...]
    base: float = 0.0
    text: int = 0
    text_axes: tuple[int, ...] = ()
    tail: int = 0
    offsets: tuple[float, ...] | None = None
    fps: float | None = None
    text_base: float = 0.0
    coords: tuple[tuple[float, ...], ...] | None = None

    @property
    def n(self) -> int:
        """Tokens in all."""
        return self.text + int(np.prod(self.sizes, dtype=object)) + self.tail

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Ids of tokens ``start … stop−1``, shape ``(stop − start, axes)``, float64."""
        index = np.arange(start, stop, dtype=np.int64)
        out = np.zeros((index.size, self.axes), dtype=np.float64)
        words = index < self.text
        for column in self.text_axes:
            out[words, column] = index[words] + self.text_base
        cells = int(np.prod(self.sizes, dtype=object))
        inside = (index >= self.text) & (index < self.text + cells)
        coords = np.unravel_index(index[inside] - self.text, self.sizes)
        offsets = self.offsets or (0.0,) * len(self.sizes)
        for k, (column, coord) in enumerate(zip(self.columns, coords, strict=True)):
            values = coord if self.coords is None else np.asarray(self.coords[k])[coord]
            out[inside, column] = values + self.base + offsets[k]
        if self.fps is not None:
            f = np.float32
            frames = out[inside, self.columns[0]].astype(f)
            out[inside, self.columns[0]] = ((frames / f(self.fps)).astype(f) * f(24.0)).astype(f)
        return out


@dataclass(frozen=True)
class ArrayIds:
    """Explicit ids ``(tokens, axes)`` as an id source.

    >>> ArrayIds(np.ones((3, 2))).rows(1, 3).shape
    (2, 2)

    """

    array: np.ndarray

    @property
    def n(self) -> int:
        """Tokens in all."""
        return int(self.array.shape[0])

    @property
    def axes(self) -> int:
        """Id columns."""
        return int(self.array.shape[1])

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Ids of tokens ``start … stop−1``."""
        return np.asarray(self.array[start:stop], dtype=np.float64)


def check_ids(ids: np.ndarray, axes: int) -> ArrayIds:
    """Explicit ids checked: 2-D, one column per axis, finite, ``|id| <= 2^53``.

    Raises
    ------
    ParameterError
        (as ``ids``) otherwise.

    """
    array = np.asarray(ids)
    if array.ndim == 1 and axes == 1:
        array = array[:, None]
    if array.ndim != 2 or array.shape[1] != axes or array.shape[0] < 1:
        rule = f"must have shape (tokens, {axes}): one column per axis"
        raise ParameterError("ids", rule, array.shape)
    values = array.astype(np.float64)
    if not np.all(np.isfinite(values)) or np.any(np.abs(values) > MAX_POSITION):
        raise ParameterError("ids", "must be finite with |position| <= 2^53", "a bad id")
    return ArrayIds(values)


def torch_linspace(start: float, end: float, steps: int) -> np.ndarray:
    """``torch.linspace(start, end, steps, dtype=float32)`` as torch's CPU kernel computes it.

    ``step = (end − start)/(steps − 1)`` in float32; the first half ``start + step·i``, the
    second ``end − step·(steps − 1 − i)``, each one fused multiply-add (rounded once): equal to
    torch 2.13's values on 37 908 of 37 908 tested (CogVideoX's crops).

    >>> torch_linspace(2.0, 29 * 5 / 6, 6).tolist()[:3]
    [2.0, 6.433333396911621, 10.866666793823242]

    """
    f = np.float32
    first, last = f(start), f(end)
    step = (last - first) / f(max(steps - 1, 1))
    i = np.arange(steps)
    low = (np.float64(first) + np.float64(step) * i).astype(f)
    high = (np.float64(last) - np.float64(step) * (steps - 1 - i)).astype(f)
    return np.where(i < steps // 2, low, high).astype(np.float64)
