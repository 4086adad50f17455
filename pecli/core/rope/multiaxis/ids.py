"""Position ids of image and video tokens: one row per token, one column per axis.

Each builder follows one model's source (named in its docstring): the order of the tokens
(text before or after the patches, row-major patches), what text tokens get, and where the
positions start (0 or 1, a class token). Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import ParameterError
from ...rules import MAX_POSITION

__all__ = ["check_grid", "grid_ids", "llama4_ids", "with_text"]

#: Largest token count an id table is built for (2^31 rows).
MAX_TOKENS = 1 << 31


def check_grid(grid: Sequence[int], dims: int, *, most: int | None = None) -> tuple[int, ...]:
    """The grid sizes as ints, ``dims`` of them, each >= 1 (and <= ``most``).

    Examples
    --------
    >>> check_grid([4, 6], 2)
    (4, 6)

    """
    sizes = tuple(grid)
    if len(sizes) != dims:
        raise ParameterError("grid", f"must have {dims} sizes for this preset", list(sizes))
    for size in sizes:
        if not isinstance(size, int | np.integer) or size < 1 or size > MAX_POSITION:
            raise ParameterError("grid", "sizes must be integers >= 1", list(sizes))
        if most is not None and size > most:
            raise ParameterError("grid", f"sizes must be <= {most} for this preset", list(sizes))
    if int(np.prod(sizes, dtype=object)) > MAX_TOKENS:
        raise ParameterError("grid", "must hold at most 2^31 tokens", list(sizes))
    return tuple(int(s) for s in sizes)


def grid_ids(sizes: Sequence[int], *, fixed: dict[int, float] | None = None,
             axes: int | None = None, columns: Sequence[int] | None = None,
             base: float = 0.0) -> np.ndarray:  # fmt: skip
    """Row-major ids of a grid: ``meshgrid(arange(s_0), arange(s_1), …, indexing="ij")``.

    ``columns[i]`` is the id column of grid dimension ``i`` (default ``i``), ``fixed`` sets other
    columns to a constant (FLUX's axis 0 = 0), ``base`` is added to every grid coordinate.

    Examples
    --------
    >>> grid_ids([2, 3], axes=3, columns=[1, 2]).tolist()[:4]
    [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 2.0], [0.0, 1.0, 0.0]]

    """
    axes = len(sizes) if axes is None else axes
    columns = list(range(len(sizes))) if columns is None else list(columns)
    mesh = np.meshgrid(*[np.arange(s, dtype=np.float64) + base for s in sizes], indexing="ij")
    out = np.zeros((int(np.prod(sizes)), axes), dtype=np.float64)
    for col, coords in zip(columns, mesh, strict=True):
        out[:, col] = coords.reshape(-1)
    for col, value in (fixed or {}).items():
        out[:, col] = value
    return out


def with_text(image: np.ndarray, text: int, *, axis: int | None = None) -> np.ndarray:
    """Text tokens first, then the image tokens (FLUX.1 and FLUX.2 concatenate so).

    Text ids are 0 on every axis (FLUX.1 ``txt_ids = zeros``), or ``0 … text−1`` on ``axis``
    (FLUX.2 ``_prepare_text_ids``: ``(t, h, w, l) = (0, 0, 0, arange(L))``).

    Examples
    --------
    >>> with_text(np.ones((1, 4)), 2, axis=3).tolist()
    [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]

    """
    if not isinstance(text, int | np.integer) or text < 0 or text > MAX_TOKENS:
        raise ParameterError("text", "must be an integer >= 0", text)
    words = np.zeros((int(text), image.shape[1]), dtype=np.float64)
    if axis is not None:
        words[:, axis] = np.arange(text)
    return np.concatenate([words, image])


def llama4_ids(side: int) -> np.ndarray:
    """Llama 4 vision: ``(x + 1, y + 1)`` of patch ``i`` (x = i mod side), then the class token.

    transformers ``models/llama4/modeling_llama4.py`` ``Llama4VisionRotaryEmbedding.
    _compute_freqs_ci``: the class token is last and its frequencies are masked to 0, so its ids
    here are ``(0, 0)`` (angle 0: cos 1, sin 0).

    Examples
    --------
    >>> llama4_ids(24)[25].tolist(), llama4_ids(2).tolist()[-1]
    ([2.0, 2.0], [0.0, 0.0])

    """
    ids = grid_ids([side, side], columns=[1, 0], base=1.0)  # y = i // side, x = i % side
    return np.concatenate([ids, np.zeros((1, 2))])
