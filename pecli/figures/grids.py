"""Figures of 2-D grid tables: channels as H × W images, and the patch-similarity mosaic.

Pure functions of arrays returning a new :class:`matplotlib.figure.Figure` (never pyplot);
the caller saves it (:func:`pecli.io.writing.save_figure`). Importing this module imports
matplotlib, so only plotting commands import it (docs/grids.md#figures).

References
----------
.. [1] A. Dosovitskiy et al., "An Image is Worth 16x16 Words: Transformers for Image
   Recognition at Scale", ICLR 2021, Figure 7 (centre): the similarity of position
   embeddings, one tile per patch.

"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..core.errors import ParameterError
from .style import new_figure

__all__ = ["grid_channels_figure", "mosaic_gap", "patch_similarity", "patch_similarity_figure"]

#: Resolution of the figures (as the article's figures).
DPI = 100
#: Most panels of a small-multiples figure.
MAX_PANELS = 64
#: Largest grid side drawn as a similarity mosaic (its image has about side² pixels a side).
MAX_MOSAIC_SIDE = 64


def patch_similarity(table: np.ndarray) -> np.ndarray:
    """Cosine similarity of every token's row with every other's: ``(T, T)``, float64.

    ``s[a, b] = pe(a)·pe(b) / (|pe(a)| |pe(b)|)``; a row of zeros has similarity 0.

    >>> patch_similarity(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])).round(3)
    array([[1.   , 0.   , 0.707],
           [0.   , 1.   , 0.707],
           [0.707, 0.707, 1.   ]])

    """
    rows = np.asarray(table, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1)
    unit = rows / np.where(norms > 0, norms, 1.0)[:, None]
    similarity: np.ndarray = np.clip(unit @ unit.T, -1.0, 1.0)
    return similarity


def _panel_grid(count: int) -> tuple[int, int]:
    columns = math.ceil(math.sqrt(count))
    return math.ceil(count / columns), columns


def grid_channels_figure(
    values: np.ndarray,
    shape: tuple[int, int],
    *,
    names: list[str],
    title: str,
    figsize: tuple[float, float] | None = None,
    dpi: int = DPI,
) -> Figure:
    """Channels of a 2-D grid table, each as an ``H × W`` image (small multiples for several).

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(H·W, k)``: ``k`` columns of the table's grid rows (row-major tokens).
    shape : tuple of int
        The grid ``(H, W)``; row 0 is drawn at the top, as in the image.
    names : list of str
        ``k`` panel titles (the columns' names, ``sin_col_1`` …).
    title : str
        The figure's title.
    figsize, dpi : optional
        Size in inches (default: about 2.6 inches a panel) and resolution.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per channel on the shared colour range ``[-1, 1]``, one colorbar.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for more than 64 channels or values that do not fit the shape, or a
        figure past 50 million pixels (its fitted size at ``dpi`` too).

    """
    h, w = shape
    if values.ndim != 2 or values.shape[0] != h * w or not 1 <= values.shape[1] <= MAX_PANELS:
        rule = f"must be 1 to {MAX_PANELS} channels of the {h} × {w} grid"
        raise ParameterError("channels", rule, values.shape)
    rows, columns = _panel_grid(values.shape[1])
    fitted = (2.6 * columns + 1.2, 2.4 * rows + 0.6)
    fig = new_figure(figsize, dpi, default_size=fitted)  # held to 50 million pixels
    axes = fig.subplots(rows, columns, squeeze=False)
    image: Any = None
    for k, ax in enumerate(axes.flat):
        if k >= values.shape[1]:
            ax.set_axis_off()
            continue
        grid = np.asarray(values[:, k], dtype=np.float64).reshape(h, w)
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-1.0, vmax=1.0, interpolation="nearest")
        ax.set_title(names[k], fontsize=9)
        ax.set_xlabel("column c", fontsize=8)
        ax.set_ylabel("row r", fontsize=8)
        ax.tick_params(labelsize=7)
        _integer_ticks(ax)
    fig.suptitle(title)
    fig.colorbar(image, ax=axes, label="value", shrink=0.8)
    return fig


def mosaic_gap(shape: tuple[int, int]) -> int:
    """Cells of background between two tiles of the mosaic: a fifth of a tile, at least one.

    Wide enough that the tiles read as separate images at page size, not as one texture.

    >>> mosaic_gap((4, 6)), mosaic_gap((14, 14)), mosaic_gap((64, 64))
    (1, 3, 13)
    """
    return max(1, round(max(shape) / 5))


def _mosaic(similarity: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The ``H × W`` tiles of ``H × W`` similarities as one image, :func:`mosaic_gap` NaN apart."""
    h, w = shape
    g = mosaic_gap(shape)
    tiles = similarity.reshape(h, w, h, w)  # (tile row, tile col, row, col)
    image = np.full((h * (h + g) - g, w * (w + g) - g), np.nan)
    for r in range(h):
        for c in range(w):
            image[r * (h + g) : r * (h + g) + h, c * (w + g) : c * (w + g) + w] = tiles[r, c]
    return image


def patch_similarity_figure(
    table: np.ndarray,
    shape: tuple[int, int],
    *,
    title: str,
    patch: tuple[int, int] | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: int = DPI,
) -> Figure:
    """Similarity of the patches' encodings, as in the ViT paper's Figure 7.

    Without ``patch``: an ``H × W`` mosaic whose tile ``(r, c)`` is the cosine similarity of
    patch ``(r, c)`` with every patch, drawn as an ``H × W`` image. With ``patch``: that one
    tile, larger. Colours run from the smallest similarity (rounded down to a tenth) to 1.

    Parameters
    ----------
    table : numpy.ndarray
        Shape ``(H·W, d)``: the grid rows of a table (no extra tokens).
    shape : tuple of int
        The grid ``(H, W)``.
    title : str
        The figure's title.
    patch : tuple of int, optional
        ``(r, c)``, 0-based: draw only this patch's similarities.
    figsize, dpi : optional
        Size in inches and resolution.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ParameterError
        (a ``ValueError``) for a patch outside the grid or a mosaic side above 64, or a figure
        past 50 million pixels.

    """
    h, w = shape
    similarity = patch_similarity(table)
    fig = new_figure(figsize, dpi, default_size=(7.5, 6.5))  # held to 50 million pixels
    ax = fig.add_subplot()
    low = math.floor(float(similarity.min()) * 10) / 10  # the data's range: contrast
    style: dict[str, Any] = {
        "cmap": "viridis",
        "vmin": min(low, 0.9),
        "vmax": 1.0,
        "interpolation": "nearest",
    }
    if patch is not None:
        image = _one_tile(ax, similarity, shape, patch, style)
    else:
        if max(h, w) > MAX_MOSAIC_SIDE:
            rule = f"must have sides up to {MAX_MOSAIC_SIDE} for the mosaic (or give --patch)"
            raise ParameterError("shape", rule, shape)
        g = mosaic_gap(shape)  # cells of about 3 pixels at page size: a filter, not a sample
        image = ax.imshow(_mosaic(similarity, shape), **{**style, "interpolation": "antialiased"})
        ax.set_xticks([c * (w + g) + (w - 1) / 2 for c in range(w)], [str(c) for c in range(w)])
        ax.set_yticks([r * (h + g) + (h - 1) / 2 for r in range(h)], [str(r) for r in range(h)])
        ax.tick_params(length=0)
        ax.spines[:].set_visible(False)
        ax.tick_params(labelsize=7 if max(h, w) <= 16 else 5)
        ax.set_xlabel("patch column c (each tile: the similarity of that patch with every patch)")
        ax.set_ylabel("patch row r")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="cosine similarity", shrink=0.8)
    return fig


def _one_tile(
    ax: Any,
    similarity: np.ndarray,
    shape: tuple[int, int],
    patch: tuple[int, int],
    style: dict[str, Any],
) -> Any:
    """Draw patch ``(r, c)``'s similarities with every patch as an ``H × W`` image."""
    (h, w), (r, c) = shape, patch
    if not (0 <= r < h and 0 <= c < w):
        raise ParameterError("patch", f"must be a row 0 … {h - 1} and a column 0 … {w - 1}", patch)
    image = ax.imshow(similarity[r * w + c].reshape(h, w), **style)
    ax.plot([c], [r], marker="+", color="white", markersize=10)
    ax.set_xlabel("column c")
    ax.set_ylabel("row r")
    _integer_ticks(ax)
    return image


def _integer_ticks(ax: Any) -> None:
    """Ticks at whole patches only (0, 2, 4, …), never between two (2.5)."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
