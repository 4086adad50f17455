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
(tests/grids/test_grids.py checks both against mpmath, fractional positions included).

References
----------
.. [1] K. He et al., "Masked Autoencoders Are Scalable Vision Learners", 2021.
.. [2] W. Peebles and S. Xie, "Scalable Diffusion Models with Transformers" (DiT), 2023.

"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..rules import check_n
from ..threads import block_buffers
from .broadcast import axis_tables, fill_block
from .knobs import GridEncoding
from .presets import grid_plan
from .spec import GridSpec

__all__ = ["GridEncoding", "grid_blocks", "grid_column_names", "grid_table", "grid_token_rows"]

#: Values per streamed block by default (as :data:`pecli.core.sinusoidal.encoding.BLOCK_CELLS`).
BLOCK_CELLS = 1 << 22
#: Values per block with ``reuse`` (1 MB of float32): the writer's ring stays in cache and
#: few fresh pages are zeroed (benchmarks/bench_headline.py, the grid row).
RING_CELLS = 1 << 18


def grid_table(shape: Sequence[int], **encoding: Any) -> np.ndarray:
    """The 2-D (or N-D) sinusoidal table of a grid of tokens, as a library builds it.

    Parameters
    ----------
    shape : sequence of int
        The grid's sides, ``(H, W)`` (rows, columns) for an image, ``(T, H, W)`` for a video;
        1 to 4 axes as the preset allows (``t2t-nd``: 1 to 4, ``tatp22``: 2 or 3,
        ``cogvideox``: 3, the others 2).
    **encoding : keyword-only
        The fields of :class:`GridEncoding`: ``d`` (required), ``preset``, ``base``,
        ``axis_order``, ``extra_tokens``, ``base_size``, ``interpolation_scale``,
        ``temporal_interpolation_scale``, ``dtype`` (float32 by default).

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
    positional-encodings ``torch_encodings.py`` ``PositionalEncoding2D/3D``; diffusers
    ``get_3d_sincos_pos_embed`` (CogVideoX), whose ``(T, H·W, D)`` output is this table
    reshaped.

    Examples
    --------
    >>> grid_table((3, 3), d=8, dtype="float64")[5].round(4)  # row 1, column 2: column first
    array([ 0.9093,  0.02  , -0.4161,  0.9998,  0.8415,  0.01  ,  0.5403,
            1.    ])
    >>> grid_table((2, 3), d=4, preset="timm", extra_tokens=1).shape
    (7, 4)

    """
    spec = GridSpec.checked(shape, GridEncoding(**encoding))
    table = np.empty((spec.rows, spec.plan.d), dtype=spec.dtype)
    fill_block(spec, table, 0, axis_tables(spec))
    return table


def grid_blocks(
    shape: Sequence[int], *, rows: int | None = None, reuse: int = 0, **encoding: Any
) -> Iterator[np.ndarray]:
    """The table of :func:`grid_table` as an iterator of row blocks, checked at the call.

    Parameters
    ----------
    shape, **encoding
        As in :func:`grid_table`.
    rows : int, keyword-only, optional
        Largest block height; by default about 4 M values a block (256 K with ``reuse``).
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
    spec = GridSpec.checked(shape, GridEncoding(**encoding))
    cells = RING_CELLS if reuse > 0 else BLOCK_CELLS
    height = check_n(rows, "rows") if rows else max(1, cells // spec.plan.d)
    return _blocks(spec, height, reuse)


def _blocks(spec: GridSpec, height: int, reuse: int) -> Iterator[np.ndarray]:
    buffers = block_buffers(height, spec.plan.d, spec.rows, spec.dtype, reuse)
    prepared = axis_tables(spec)  # per-axis tables once, broadcast into every block
    for row, block in zip(range(0, spec.rows, height), buffers, strict=True):
        fill_block(spec, block, row, prepared)
        yield block


def grid_token_rows(tokens: np.ndarray, shape: Sequence[int], **encoding: Any) -> np.ndarray:
    """The float64 rows of some grid tokens (0-based, extra tokens not counted).

    ``encoding`` is :func:`grid_table`'s (its ``extra_tokens`` and ``dtype`` are left out:
    the rows are the tokens', in float64). Used to compare a few rows of a table with each
    preset, and to size a table's CSV from a sample.

    >>> grid_token_rows(np.array([5]), (3, 3), d=8, preset="mocov3").round(4)
    array([[ 0.8415,  0.01  ,  0.5403,  1.    ,  0.9093,  0.02  , -0.4161,
             0.9998]])

    """
    knobs = replace(GridEncoding(**encoding), extra_tokens=0, dtype=np.float64)
    spec = GridSpec.checked(shape, knobs)
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
