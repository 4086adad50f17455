"""A grid table's knobs: the :class:`GridEncoding` record every grid function takes.

The record is checked and prepared by :class:`~pecli.core.grids.spec.GridSpec`; the table
functions of :mod:`pecli.core.grids.table` take its fields as keywords.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

from ..sinusoidal.knobs import DEFAULT_BASE

__all__ = ["GridEncoding"]


@dataclass(frozen=True, kw_only=True)
class GridEncoding:
    """A grid table's knobs, the one record every grid function takes as keywords.

    :func:`~.table.grid_table`, :func:`~.table.grid_blocks` and
    :func:`~.table.grid_token_rows` take these fields as keyword arguments (``**encoding``)
    beside the grid's ``shape``, and check them all before any row is computed
    (:class:`~.spec.GridSpec`).

    Attributes
    ----------
    d : int
        Width of a row (``embed_dim``), 1 … 131072; ``mae``, ``mocov3``, ``big-vision``,
        ``timm`` and ``timm-interleaved`` need a multiple of 4 (``big-vision`` at least 8),
        ``cogvideox`` a multiple of 16 (blocks ``[time d/4 | width 3d/8 | height 3d/8]``).
    preset : str
        One of :data:`pecli.core.grids.GRID_PRESETS` (docs/grids.md).
    base : float
        The base ``C`` (``temperature``, ``max_timescale``), from 1e-300 to 1e300.
    axis_order : {"row-first", "col-first"} or sequence of int, optional
        Which grid axis each block encodes, overriding the preset's (``mae`` and
        ``big-vision``: ``col-first``; the others: row first, axis 1 first).
    extra_tokens : int
        All-zero rows before the grid (1 for a class token; DiT's ``extra_tokens``).
    base_size, interpolation_scale : float
        diffusers' knobs, ``mae`` only: coordinate ``k`` of an axis of ``n`` becomes the
        position ``k · base_size / (n · interpolation_scale)`` (``base_size`` defaults to
        ``n``; diffusers' own default is 16). ``cogvideox``: the spatial coordinates are
        divided by ``interpolation_scale`` (``spatial_interpolation_scale``).
    temporal_interpolation_scale : float
        ``cogvideox`` only: the frame index is divided by it (diffusers
        ``get_3d_sincos_pos_embed``).
    dtype : {float32, float64}
        Output dtype; computed in float64 and rounded once.

    Examples
    --------
    >>> GridEncoding(d=16, preset="timm").axis_order is None
    True

    """

    d: int
    preset: str = "mae"
    base: float = DEFAULT_BASE
    axis_order: str | Sequence[int] | None = None
    extra_tokens: int = 0
    base_size: float | None = None
    interpolation_scale: float = 1.0
    temporal_interpolation_scale: float = 1.0
    dtype: DTypeLike = np.float32
