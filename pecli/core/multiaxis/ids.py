"""Position ids of text, image and video tokens: one row per token, one column per axis.

A :class:`GridIds` makes any range of rows on demand (a cache of a billion tokens is streamed
without its ids ever being whole in memory): text tokens first (FLUX.1: 0 on every axis; FLUX.2:
``0 … L−1`` on one axis), then a grid in row-major order (``meshgrid(…, indexing="ij")``), then
trailing tokens at 0 (Llama 4's class token). :class:`ArrayIds` wraps explicit ids. Each
model's ids of a grid are a function ``(sizes, text, fps) → GridIds`` here, named in its preset
(:mod:`.presets`): FLUX's text at 0, Llama 4's 1-based ids; Qwen-Image centres its rows and
columns; Cosmos scales frames by ``base_fps / fps``; CogVideoX and Allegro take
``torch.linspace`` grids over a crop (and Allegro divides them by its interpolation scales), all
in float32 as diffusers computes them. Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..rules import MAX_POSITION

__all__ = [
    "MAX_TOKENS",
    "ArrayIds",
    "GridIds",
    "allegro_ids",
    "check_grid",
    "check_ids",
    "check_text",
    "cogvideox_ids",
    "cosmos_ids",
    "crop_region",
    "flux2_ids",
    "flux_ids",
    "grid_ids",
    "llama4_ids",
    "qwen_image_ids",
    "torch_linspace",
    "xy_ids",
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
        if not isinstance(size, int | np.integer) or size < 1:
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


def flux_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """FLUX.1: text tokens first at ids 0, then the image ``(0, row, col)``."""
    return GridIds(sizes, axes=3, columns=(1, 2), text=text)  # text ids all 0


def flux2_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """FLUX.2: text first at ``(0, 0, 0, 0 … L−1)``, then the image ``(0, row, col, 0)``."""
    return GridIds(sizes, axes=4, columns=(1, 2), text=text, text_axes=(3,))


def grid_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """A plain grid: one id column per grid dimension, row-major."""
    return GridIds(sizes, axes=len(sizes), columns=tuple(range(len(sizes))))


def xy_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """RoPE-ViT axial: ``(i mod W, i div W)``, x first."""
    return GridIds(sizes, axes=2, columns=(1, 0))  # x = i mod W first, y = i div W


def llama4_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """Llama 4 vision: ``(x+1, y+1)``, then the class token at ids 0 (cos 1, sin 0).

    transformers ``Llama4VisionRotaryEmbedding._compute_freqs_ci`` masks its frequencies to 0.
    """
    return GridIds((sizes[0], sizes[0]), axes=2, columns=(1, 0), base=1.0, tail=1)


def qwen_image_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """Qwen-Image (``scale_rope``): rows ``−(h − h//2) … h//2 − 1``, columns alike, frame 0.

    Text comes first, at ``max(h//2, w//2) + k`` on all three axes.
    """
    h, w = sizes
    offsets = (-(h - h // 2), -(w - w // 2))
    return GridIds(
        sizes,
        axes=3,
        columns=(1, 2),
        text=text,
        text_axes=(0, 1, 2),
        offsets=offsets,
        text_base=max(h // 2, w // 2),
    )


def cosmos_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """Cosmos: frames at ``k`` (images) or ``k / fps · base_fps`` (videos, base_fps 24, float32)."""
    return GridIds(sizes, axes=3, columns=(0, 1, 2), fps=fps)


def cogvideox_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """CogVideoX 1.0: ``linspace`` grids over the crop of the 30 × 45 base grid, in float32.

    diffusers ``embeddings.py`` ``get_3d_rotary_pos_embed(grid_type="linspace")`` with the
    pipeline's ``get_resizecrop_region_for_grid((H, W), 45, 30)``.
    """
    t, h, w = sizes
    (top, left), (bottom, right) = crop_region(h, w, 45, 30)
    coords = (
        torch_linspace(0, t * (t - 1) / t, t),
        torch_linspace(top, bottom * (h - 1) / h, h),
        torch_linspace(left, right * (w - 1) / w, w),
    )
    return GridIds(
        sizes, axes=3, columns=(0, 1, 2), coords=tuple(tuple(c.tolist()) for c in coords)
    )


def allegro_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> GridIds:
    """Allegro: ``linspace`` grids divided by ``interpolation_scale`` (2.2, 2.0, 2.0), float32.

    diffusers ``embeddings.py`` ``get_3d_rotary_pos_embed_allegro`` with the pipeline's crop
    ``(0, 0)``–``(H, W)``.
    """
    f = np.float32
    scales = (2.2, 2.0, 2.0)
    grids = [
        torch_linspace(0, n * (n - 1) / n, n).astype(f) / f(s)
        for n, s in zip(sizes, scales, strict=True)
    ]
    coords = tuple(tuple(g.astype(np.float64).tolist()) for g in grids)
    return GridIds(sizes, axes=3, columns=(0, 1, 2), coords=coords)


def crop_region(h: int, w: int, tw: int, th: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The CogVideoX pipelines' ``get_resizecrop_region_for_grid`` (Python's ``round``)."""
    if h / w > th / tw:
        rh, rw = th, round(th / h * w)
    else:
        rw, rh = tw, round(tw / w * h)
    top, left = round((th - rh) / 2.0), round((tw - rw) / 2.0)
    return (top, left), (top + rh, left + rw)
