"""2-D and N-D grid tables: one row per token, row-major, computed exactly and streamed.

Token ``k`` of an ``H × W`` grid sits at row ``r = k // W`` and column ``c = k % W``, the
order in which a patch embedding flattens its output (``flatten(2).transpose(1, 2)``); more
axes extend the same row-major order. Extra tokens (a class token, DiT's extra tokens) are
all-zero rows before the grid. A coordinate is an integer ``k``, or with diffusers'
``base_size`` and ``interpolation_scale`` the fraction ``k · base_size / (n · scale)``.

Accuracy: a position is carried as a double-double (``k·base_size`` and ``n·scale`` are
exact products, their quotient is good to about 2^-104 relative), the angle ``p·ω`` as a
double-double with the exact frequency (:mod:`pecli.core.angles`), and sin/cos are evaluated
in float64 from it, as in :func:`pecli.positional_encoding`: each float64 value is within
about one ulp of the exact one, and float32 values are the correctly rounded ones
(tests/test_grids.py checks both against mpmath, fractional positions included).

References
----------
.. [1] K. He et al., "Masked Autoencoders Are Scalable Vision Learners", 2021.
.. [2] W. Peebles and S. Xie, "Scalable Diffusion Models with Transformers" (DiT), 2023.

"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

from .. import angles
from ..frequencies import DEFAULT_BASE, frequencies_with_residuals
from ..rules import check_dtype, check_n
from ..threads import block_buffers
from .presets import GridPlan, grid_plan
from .rules import check_extra_tokens, check_grid_scale, check_grid_shape

__all__ = ["grid_blocks", "grid_column_names", "grid_table", "grid_token_rows"]

#: Values per streamed block by default (as :data:`pecli.core.encoding.BLOCK_CELLS`).
BLOCK_CELLS = 1 << 22


def _divide(a: angles.DoubleDouble, b: angles.DoubleDouble) -> angles.DoubleDouble:
    """``a / b`` for double-doubles, to about 2^-104 relative (one correction step)."""
    q1 = a[0] / b[0]
    p = angles.product(q1, b[0], b[1])  # q1·b_hi exactly, plus q1·b_lo
    r = angles.add(a, (-p[0], -p[1]))
    q2 = (r[0] + r[1]) / b[0]
    s = q1 + q2
    return s, q2 - (s - q1)


@dataclass(frozen=True)
class _GridSpec:
    """The checked arguments of a grid table, and the routine that fills any of its rows."""

    plan: GridPlan
    shape: tuple[int, ...]
    extra: int
    omega: np.ndarray
    residual: np.ndarray
    scale: tuple[float, float] | None
    dtype: np.dtype

    @classmethod
    def checked(
        cls, shape: object, d: object, preset: str, base: float, axis_order: object,
        extra_tokens: object, base_size: object, interpolation_scale: object, dtype: DTypeLike,
    ) -> _GridSpec:  # fmt: skip
        sides = check_grid_shape(shape)
        plan = grid_plan(preset, d, len(sides), axis_order)
        omega, residual = frequencies_with_residuals(2 * plan.pairs, base, plan.preset.schedule)
        scale = None
        if base_size is not None or float(interpolation_scale) != 1.0:  # type: ignore[arg-type]
            if preset != "mae":
                from ..errors import ParameterError

                rule = "applies only to --preset mae (diffusers get_2d_sincos_pos_embed)"
                name = "base_size" if base_size is not None else "interpolation_scale"
                raise ParameterError(name, rule, base_size or interpolation_scale)
            size = None if base_size is None else check_grid_scale("base_size", base_size)
            scale = (size or 0.0, check_grid_scale("interpolation_scale", interpolation_scale))
        extra = check_extra_tokens(extra_tokens)
        return cls(plan, sides, extra, omega, residual, scale, check_dtype(dtype))

    @property
    def rows(self) -> int:
        """Rows of the whole table: the extra tokens, then every token of the grid."""
        return self.extra + math.prod(self.shape)

    def positions(self, axis: int, k: np.ndarray) -> angles.DoubleDouble:
        """Coordinates ``k`` of ``axis`` as double-double positions."""
        k = k.astype(np.float64)
        if self.scale is None:
            return k, np.zeros_like(k)
        n = float(self.shape[axis])
        size, interpolation = self.scale
        zero = np.zeros(())
        numerator = angles.product(k, np.array(size or n), zero)  # exact (Dekker)
        return _divide(numerator, angles.product(np.array(n), np.array(interpolation), zero))

    def sin_cos(self, axis: int, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sin`` and ``cos`` of ``p·ω`` for the coordinates ``k`` of ``axis``: ``(len(k), h)``."""
        hi, lo = self.positions(axis, k)
        angle = angles.product(hi[:, None], self.omega, self.residual)
        angle = angles.add(angle, (lo[:, None] * self.omega, np.zeros_like(angle[1])))
        return angles.sin_cos(angle)

    def fill_tokens(self, out: np.ndarray, tokens: np.ndarray) -> None:
        """Fill ``out`` (``(len(tokens), d)``, zeroed) with the rows of grid tokens ``tokens``."""
        coords = np.unravel_index(tokens, self.shape)
        plan = self.plan
        for b, axis in enumerate(plan.order):
            unique, where = np.unique(coords[axis], return_inverse=True)
            s, c = self.sin_cos(axis, unique)
            cols = np.concatenate([plan.sin_cols[b], plan.cos_cols[b]])
            keep = np.flatnonzero(cols >= 0)
            order = keep[np.argsort(cols[keep])]  # this axis's values by output column
            if order.size == 0:
                continue
            small = np.concatenate([s, c], axis=1)[:, order].astype(out.dtype)  # rounded once
            first, targets = cols[order[0]], cols[order]
            if np.array_equal(targets, np.arange(first, first + targets.size)):  # a plain slice
                out[:, first : first + targets.size] = small[where]  # rows gathered, no scatter
            else:
                out[:, targets] = small[where]

    def fill(self, out: np.ndarray, row0: int) -> None:
        """Fill ``out`` (``(r, d)``) with the table's rows ``row0 … row0 + r - 1``."""
        out[...] = 0
        first = max(row0, self.extra)  # rows before it are extra tokens: zeros
        if first < row0 + len(out):
            tokens = np.arange(first - self.extra, row0 + len(out) - self.extra, dtype=np.int64)
            self.fill_tokens(out[first - row0 :], tokens)


def grid_table(
    shape: Sequence[int],
    *,
    d: int,
    preset: str = "mae",
    base: float = DEFAULT_BASE,
    axis_order: str | Sequence[int] | None = None,
    extra_tokens: int = 0,
    base_size: float | None = None,
    interpolation_scale: float = 1.0,
    dtype: DTypeLike = np.float32,
) -> np.ndarray:
    """The 2-D (or N-D) sinusoidal table of a grid of tokens, as a library builds it.

    Parameters
    ----------
    shape : sequence of int
        The grid's sides, ``(H, W)`` (rows, columns) for an image; 1 to 4 axes as the preset
        allows (``t2t-nd``: 1 to 4, ``tatp22``: 2 or 3, the others 2).
    d : int, keyword-only
        Width of a row (``embed_dim``), 1 … 131072; ``mae``, ``mocov3``, ``big-vision``,
        ``timm`` and ``timm-interleaved`` need a multiple of 4 (``big-vision`` at least 8).
    preset : str, keyword-only
        One of :data:`pecli.core.grids.GRID_PRESETS` (docs/grids.md).
    base : float, keyword-only
        The base ``C`` (``temperature``, ``max_timescale``), from 1e-300 to 1e300.
    axis_order : {"row-first", "col-first"} or sequence of int, keyword-only
        Which grid axis each block encodes, overriding the preset's (``mae`` and
        ``big-vision``: ``col-first``; the others: row first, axis 1 first).
    extra_tokens : int, keyword-only
        All-zero rows before the grid (1 for a class token; DiT's ``extra_tokens``).
    base_size, interpolation_scale : float, keyword-only
        diffusers' knobs, ``mae`` only: coordinate ``k`` of an axis of ``n`` becomes the
        position ``k · base_size / (n · interpolation_scale)`` (``base_size`` defaults to
        ``n``; diffusers' own default is 16).
    dtype : {float32, float64}, keyword-only
        Output dtype; computed in float64 and rounded once.

    Returns
    -------
    numpy.ndarray
        Shape ``(extra_tokens + H·W·…, d)``, C-ordered, row-major token order.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an unknown preset, a shape or ``d`` the preset does not take,
        an axis order that is not a permutation, diffusers' knobs on another preset, or an
        invalid ``base``, ``extra_tokens`` or ``dtype``.

    References
    ----------
    MAE ``util/pos_embed.py`` and diffusers ``models/embeddings.py``
    ``get_2d_sincos_pos_embed``; MoCo v3 ``vits.py``; big_vision ``models/vit.py``
    ``posemb_sincos_2d``; timm ``layers/pos_embed_sincos.py`` ``build_sincos2d_pos_embed``;
    tensor2tensor ``layers/common_attention.py`` ``add_timing_signal_nd``;
    positional-encodings ``torch_encodings.py`` ``PositionalEncoding2D/3D``.

    Examples
    --------
    >>> grid_table((3, 3), d=8, dtype="float64")[5].round(4)  # row 1, column 2: column first
    array([ 0.9093,  0.02  , -0.4161,  0.9998,  0.8415,  0.01  ,  0.5403,
            1.    ])
    >>> grid_table((2, 3), d=4, preset="timm", extra_tokens=1).shape
    (7, 4)

    """
    spec = _GridSpec.checked(
        shape, d, preset, base, axis_order, extra_tokens, base_size, interpolation_scale, dtype
    )
    table = np.empty((spec.rows, spec.plan.d), dtype=spec.dtype)
    spec.fill(table, 0)
    return table


def grid_blocks(
    shape: Sequence[int],
    *,
    d: int,
    preset: str = "mae",
    base: float = DEFAULT_BASE,
    axis_order: str | Sequence[int] | None = None,
    extra_tokens: int = 0,
    base_size: float | None = None,
    interpolation_scale: float = 1.0,
    dtype: DTypeLike = np.float32,
    rows: int | None = None,
    reuse: int = 0,
) -> Iterator[np.ndarray]:
    """The table of :func:`grid_table` as an iterator of row blocks, checked at the call.

    Parameters
    ----------
    shape, d, preset, base, axis_order, extra_tokens, base_size, interpolation_scale, dtype
        As in :func:`grid_table`.
    rows : int, keyword-only, optional
        Largest block height; by default about 4 M values a block.
    reuse : int, keyword-only
        ``k >= 1``: blocks are views of ``k`` buffers taken in turn, each overwritten once
        ``k`` more blocks were taken; 0: every block is a new array
        (:func:`pecli.core.threads.block_buffers`).

    Returns
    -------
    iterator of numpy.ndarray
        Blocks ``(r, d)`` whose concatenation is the table, bit for bit.

    Examples
    --------
    >>> [b.shape for b in grid_blocks((3, 5), d=8, rows=6)]
    [(6, 8), (6, 8), (3, 8)]

    """
    spec = _GridSpec.checked(
        shape, d, preset, base, axis_order, extra_tokens, base_size, interpolation_scale, dtype
    )
    height = check_n(rows, "rows") if rows else max(1, BLOCK_CELLS // spec.plan.d)
    return _blocks(spec, height, reuse)


def _blocks(spec: _GridSpec, height: int, reuse: int) -> Iterator[np.ndarray]:
    buffers = block_buffers(height, spec.plan.d, spec.rows, spec.dtype, reuse)
    for row, block in zip(range(0, spec.rows, height), buffers, strict=True):
        spec.fill(block, row)
        yield block


def grid_token_rows(
    tokens: np.ndarray, shape: Sequence[int], *, d: int, preset: str = "mae", **knobs: object
) -> np.ndarray:
    """The float64 rows of some grid tokens (0-based, extra tokens not counted).

    ``knobs`` are those of :func:`grid_table` (``base``, ``axis_order``, ``base_size``,
    ``interpolation_scale``). Used to compare a few rows of a table with each preset.

    >>> grid_token_rows(np.array([5]), (3, 3), d=8, preset="mocov3").round(4)
    array([[ 0.8415,  0.01  ,  0.5403,  1.    ,  0.9093,  0.02  , -0.4161,
             0.9998]])

    """
    spec = _GridSpec.checked(
        shape, d, preset, knobs.pop("base", DEFAULT_BASE), knobs.pop("axis_order", None),  # type: ignore[arg-type]
        0, knobs.pop("base_size", None), knobs.pop("interpolation_scale", 1.0), np.float64,
    )  # fmt: skip
    out = np.zeros((len(tokens), spec.plan.d), dtype=np.float64)
    spec.fill_tokens(out, np.asarray(tokens, dtype=np.int64))
    return out


def grid_column_names(
    d: int, *, preset: str = "mae", axes: int = 2, axis_order: str | Sequence[int] | None = None
) -> list[str]:
    """Column names of a grid table: ``sin_col_1``, ``cos_row_2``, … (``axisN`` beyond 2-D).

    >>> grid_column_names(4)  # MAE: the first block encodes the column index
    ['sin_col_1', 'cos_col_1', 'sin_row_1', 'cos_row_1']

    """
    return grid_plan(preset, d, axes, axis_order).column_names()
