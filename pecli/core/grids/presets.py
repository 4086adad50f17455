"""How each library lays out a 2-D (or N-D) sinusoidal table: the grid presets.

A grid table gives every token of an ``H × W`` grid (or of any number of axes) one row made of
one *block* per axis: the 1-D sines and cosines of that axis's coordinate, over ``h`` pairs of
its own. The libraries differ in four ways (docs/grids.md): which axis the first block
encodes (the *axis order*), the frequencies of a block (the paper's ``C^(-j/h)`` or
tensor2tensor's ``C^(-j/(h-1))``), where the sines and cosines go in the row, and what
happens to a width that does not divide evenly.

References
----------
.. [1] K. He et al., "Masked Autoencoders Are Scalable Vision Learners", 2021
   (facebookresearch/mae ``util/pos_embed.py``).
.. [2] X. Chen et al., "An Empirical Study of Training Self-Supervised Vision
   Transformers", 2021 (facebookresearch/moco-v3 ``vits.py``).

"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..rules import MAX_D
from .rules import check_grid_axes

__all__ = ["GRID_PRESETS", "GridPlan", "GridPreset", "grid_plan"]

#: Axis orders of a 2-D grid by name: the grid axis each block encodes (0 = row, 1 = column).
NAMED_ORDERS = {"row-first": (0, 1), "col-first": (1, 0)}


@dataclass(frozen=True)
class GridPreset:
    """One library's 2-D / N-D layout.

    Attributes
    ----------
    name : str
        The preset's name.
    schedule : str
        ``paper`` (``ω_j = C^(-j/h)``) or ``tensor2tensor`` (``C^(-j/(h-1))``), over the
        ``h`` pairs of one axis.
    layout : str
        ``blocks``: ``[sin a | cos a]`` per axis; ``sines-first``: every axis's sines, then
        every axis's cosines; ``interleaved``: ``[sin, cos, sin, cos, …]`` per axis.
    order : str
        The default axis order: ``col-first`` (the first block encodes the column index),
        ``row-first``, or ``natural`` (axis 1 first, for any number of axes).
    width : str
        ``quarter``: ``d % 4 == 0``, ``d/4`` pairs per axis; ``floor``: ``d // (2m)`` pairs
        per axis and zero columns after them; ``ceil``: ``ceil(d / (2m))`` pairs per axis,
        the row cut to ``d`` columns; ``cogvideox``: ``d % 16 == 0``, uneven blocks of
        ``d/8, 3d/16, 3d/16`` pairs (time, then the two spatial axes).
    axes : tuple of int
        The numbers of axes the library accepts.
    users : str
        Who uses it, and the function.

    """

    name: str
    schedule: str
    layout: str
    order: str
    width: str
    axes: tuple[int, ...]
    users: str

    def default_order(self, m: int) -> tuple[int, ...]:
        """The axis order the library uses on ``m`` axes when none is given.

        >>> GRID_PRESETS["mae"].default_order(2), GRID_PRESETS["t2t-nd"].default_order(3)
        ((1, 0), (0, 1, 2))
        """
        return check_axis_order(None, m, self.order)


def _p(*fields: object) -> GridPreset:
    return GridPreset(*fields)  # type: ignore[arg-type]


#: The grid presets of docs/grids.md, by name.
GRID_PRESETS: dict[str, GridPreset] = {
    p.name: p
    for p in (
        _p(
            "mae",
            "paper",
            "blocks",
            "col-first",
            "quarter",
            (2,),
            "MAE get_2d_sincos_pos_embed, DiT, diffusers get_2d_sincos_pos_embed",
        ),
        _p(
            "mocov3",
            "paper",
            "blocks",
            "row-first",
            "quarter",
            (2,),
            "MoCo v3 build_2d_sincos_position_embedding",
        ),
        _p(
            "big-vision",
            "tensor2tensor",
            "blocks",
            "col-first",
            "quarter",
            (2,),
            "big_vision posemb_sincos_2d, vit-pytorch simple_vit posemb_sincos_2d",
        ),
        _p(
            "timm",
            "paper",
            "sines-first",
            "row-first",
            "quarter",
            (2,),
            "timm build_sincos2d_pos_embed",
        ),
        _p(
            "timm-interleaved",
            "paper",
            "blocks",
            "row-first",
            "quarter",
            (2,),
            "timm build_sincos2d_pos_embed(interleave_sin_cos=True)",
        ),
        _p(
            "t2t-nd",
            "tensor2tensor",
            "blocks",
            "natural",
            "floor",
            (1, 2, 3, 4),
            "tensor2tensor add_timing_signal_nd",
        ),
        _p(
            "tatp22",
            "paper",
            "interleaved",
            "natural",
            "ceil",
            (2, 3),
            "positional-encodings PositionalEncoding2D / PositionalEncoding3D",
        ),
        _p(
            "cogvideox",
            "paper",
            "blocks",
            "0,2,1",
            "cogvideox",
            (3,),
            "CogVideoX (additive), diffusers get_3d_sincos_pos_embed",
        ),
    )
}


@dataclass(frozen=True)
class GridPlan:
    """Where each axis's sines and cosines go in a row of width ``d``.

    ``order[b]`` is the grid axis that block ``b`` encodes; ``sin_cols[b, j]`` and
    ``cos_cols[b, j]`` are the columns of pair ``j`` of block ``b``, or -1 where the row
    was cut (``ceil`` width) or the block is shorter (``block_pairs[b] < pairs``). Columns
    that no pair owns are zero.
    """

    preset: GridPreset
    d: int
    order: tuple[int, ...]
    sin_cols: np.ndarray
    cos_cols: np.ndarray
    block_pairs: tuple[int, ...]

    @property
    def pairs(self) -> int:
        """Pairs of the longest block: the width of ``sin_cols`` and ``cos_cols``.

        >>> grid_plan("cogvideox", 32, 3).pairs  # blocks of 4, 6 and 6 pairs
        6
        """
        return max(self.block_pairs)

    def block_columns(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Block ``b``'s output columns, increasing, and which of its values goes to each.

        The second array indexes the block's ``2h`` values ``[sin_1 … sin_h | cos_1 … cos_h]``
        (``h = block_pairs[b]``); values the row has no column for (``ceil`` width) are left
        out, so both arrays may be shorter than ``2h``, or empty.

        >>> [a.tolist() for a in grid_plan("timm", 8, 2).block_columns(1)]  # [sin h|sin w|…]
        [[2, 3, 6, 7], [0, 1, 2, 3]]
        """
        h = self.block_pairs[b]
        cols = np.concatenate([self.sin_cols[b, :h], self.cos_cols[b, :h]])
        keep = np.flatnonzero(cols >= 0)
        order = keep[np.argsort(cols[keep])]
        return cols[order], order

    def column_names(self) -> list[str]:
        """``sin_<axis>_<i>`` / ``cos_<axis>_<i>`` per column, ``zero`` where no pair is.

        Axes are ``row``/``col`` in 2-D, ``frame``/``row``/``col`` for ``cogvideox``.
        """
        m = len(self.order)
        axes = ("row", "col") if m == 2 else tuple(f"axis{a + 1}" for a in range(m))
        if self.preset.name == "cogvideox":  # T H W: frame, row, column
            axes = ("frame", "row", "col")
        names = ["zero"] * self.d
        for b, axis in enumerate(self.order):
            for j in range(self.block_pairs[b]):
                for kind, cols in (("sin", self.sin_cols), ("cos", self.cos_cols)):
                    if cols[b, j] >= 0:
                        names[cols[b, j]] = f"{kind}_{axes[axis]}_{j + 1}"
        return names


def check_axis_order(axis_order: object, m: int, default: str) -> tuple[int, ...]:
    """The axis order as a permutation of ``0 … m-1`` (``row-first``, ``col-first``, or ints)."""
    chosen = default if axis_order is None else axis_order
    if chosen == "natural":
        return tuple(range(m))
    rule = "must be row-first or col-first (2-D grids), or a permutation such as 1,0"
    if isinstance(chosen, str) and chosen in NAMED_ORDERS:
        if m != 2:
            raise ParameterError("axis_order", rule.replace("(2-D", "(only 2-D"), chosen)
        return NAMED_ORDERS[chosen]
    try:
        text: Any = chosen.split(",") if isinstance(chosen, str) else chosen
        order = tuple(int(str(a).strip()) for a in text)
    except (TypeError, ValueError):
        raise ParameterError("axis_order", rule, axis_order) from None
    if sorted(order) != list(range(m)):
        raise ParameterError("axis_order", f"{rule} of the {m} axes 0 … {m - 1}", axis_order)
    return order


def _pairs(preset: GridPreset, d: object, m: int) -> tuple[int, tuple[int, ...]]:
    """``(d, pairs of each block)``: the checked width and the pairs per block."""
    if not isinstance(d, int | np.integer) or isinstance(d, bool) or not 1 <= d <= MAX_D:
        raise ParameterError("d", f"must be an integer from 1 to {MAX_D}", d)
    d = int(d)
    least = 2 if preset.schedule == "tensor2tensor" else 1  # C^(-j/(h-1)) needs h >= 2
    if preset.width == "quarter":
        if d % 4 or d // 4 < least:
            rule = f"must be a multiple of 4, at least {4 * least}, for `preset` {preset.name}"
            raise ParameterError("d", rule, d)
        return d, (d // 4,) * m
    if preset.width == "cogvideox":  # diffusers: [time d/4 | width 3d/8 | height 3d/8]
        if d % 16:
            raise ParameterError("d", f"must be a multiple of 16 for `preset` {preset.name}", d)
        return d, (d // 8, 3 * d // 16, 3 * d // 16)
    if preset.width == "floor":
        if d // (2 * m) < least:
            rule = f"must be at least {2 * m * least} for `preset` {preset.name} on {m} axes"
            raise ParameterError("d", rule, d)
        return d, (d // (2 * m),) * m
    return d, (math.ceil(d / (2 * m)),) * m


def grid_plan(preset: str, d: object, m: int, axis_order: object = None) -> GridPlan:
    """The column plan of ``preset`` for width ``d`` on ``m`` axes.

    Raises
    ------
    ParameterError
        For an unknown preset, a number of axes the library does not take, a width it
        refuses, or an axis order that is not a permutation of the axes.

    Examples
    --------
    >>> grid_plan("timm", 8, 2).column_names()[:4]  # [sin h | sin w | cos h | cos w]
    ['sin_row_1', 'sin_row_2', 'sin_col_1', 'sin_col_2']

    """
    if preset not in GRID_PRESETS:
        raise ParameterError("preset", f"must be one of {', '.join(GRID_PRESETS)}", preset)
    chosen = GRID_PRESETS[preset]
    check_grid_axes(m, chosen.axes, chosen.name)
    d, hs = _pairs(chosen, d, m)
    order = check_axis_order(axis_order, m, chosen.order)
    h = max(hs)
    b, j = np.arange(m)[:, None], np.arange(h)[None, :]
    if chosen.layout == "blocks":  # blocks of their own pairs each, one after the other
        size = np.array(hs)[:, None]
        start = np.concatenate([[0], np.cumsum(2 * np.array(hs))[:-1]])[:, None]
        sin_cols = np.where(j < size, start + j, d)
        cos_cols = np.where(j < size, start + size + j, d)
    elif chosen.layout == "sines-first":
        sin_cols, cos_cols = b * h + j, m * h + b * h + j
    else:
        sin_cols, cos_cols = b * 2 * h + 2 * j, b * 2 * h + 2 * j + 1
    sin_cols = np.where(sin_cols < d, sin_cols, -1)
    cos_cols = np.where(cos_cols < d, cos_cols, -1)
    return GridPlan(chosen, d, order, sin_cols, cos_cols, hs)
