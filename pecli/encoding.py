"""The sinusoidal positional encoding of Transformers: pure NumPy, arrays in and out.

Conventions (SPEC §1, the article's): width ``d`` is even, components are numbered from 1,
pair ``i = 1 … d/2`` has the angular frequency ``ω_i = C^(-2(i-1)/d)`` and owns components
``2i-1`` (sine) and ``2i`` (cosine), interleaved. Angles and sin/cos are evaluated in float64;
the result is rounded to the output dtype once, at the end.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .conventions import component_names, layout_views
from .errors import (
    ParameterError,
    check_dtype,
    check_n,
    check_padding_idx,
    check_position,
    check_width,
)
from .frequencies import DEFAULT_BASE, _frequencies, angular_frequencies, wavelengths

__all__ = [
    "DEFAULT_BASE",
    "angular_frequencies",
    "component_names",
    "encoding_table",
    "layout_views",
    "positional_encoding",
    "table_blocks",
    "wavelengths",
]


def positional_encoding(
    positions: ArrayLike,
    *,
    d: int,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
    schedule: str | float = "paper",
    layout: str = "interleaved",
    pad_odd_d: bool = False,
) -> np.ndarray:
    """Encode arbitrary real positions: one row ``pe(pos)`` per position.

    ``pe(pos)[2i-1] = sin(pos · ω_i)`` and ``pe(pos)[2i] = cos(pos · ω_i)`` (1-based
    components), i.e. sines in the even 0-based columns and cosines in the odd ones. Other
    layouts put the same values in sine/cosine blocks (SPEC §3).

    Parameters
    ----------
    positions : array_like
        Real positions, scalar or 1-D, finite.
    d : int, keyword-only
        Width of the encoding, even and >= 2 (odd allowed with ``pad_odd_d``).
    base : float, keyword-only
        The base ``C``, finite and > 0.
    dtype : {float32, float64}, keyword-only
        Output dtype; the computation is float64 whatever this is.
    schedule : {"paper", "tensor2tensor", "shift:S"} or float, keyword-only
        Frequency schedule (see :func:`angular_frequencies`).
    layout : {"interleaved", "sin-cos", "cos-sin"}, keyword-only
        Columns of the sines and cosines (see :func:`pecli.conventions.layout_views`).
    pad_odd_d : bool, keyword-only
        Accept an odd ``d``: ``d // 2`` pairs and a last, all-zero column (tensor2tensor,
        fairseq, diffusers).

    Returns
    -------
    numpy.ndarray
        Shape ``(len(positions), d)`` (``(1, d)`` for a scalar), C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``base``, ``dtype``, ``schedule`` or
        ``layout``, a non-finite position, or positions that are not 0-D or 1-D.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> positional_encoding([0, 1], d=4, dtype="float64").round(6)
    array([[0.      , 1.      , 0.      , 1.      ],
           [0.841471, 0.540302, 0.01    , 0.99995 ]])
    >>> positional_encoding(1, d=5, layout="sin-cos", pad_odd_d=True, dtype="float64").round(6)
    array([[0.841471, 0.01    , 0.540302, 0.99995 , 0.      ]])

    """
    d = check_width(d, pad_odd_d=pad_odd_d)
    omega = _frequencies(d, base, schedule)
    out_dtype = check_dtype(dtype)
    pos = np.asarray(positions, dtype=np.float64)
    if pos.ndim > 1:
        raise ParameterError("positions", "must be a scalar or a 1-D array", pos.shape)
    pos = pos.reshape(-1)
    if not np.all(np.isfinite(pos)):
        raise ParameterError("positions", "must all be finite", "non-finite values")
    table = np.zeros((pos.size, d), dtype=out_dtype)
    _fill_sin_cos(*layout_views(table, layout), pos, omega)
    return table


def _fill_sin_cos(
    sin_out: np.ndarray, cos_out: np.ndarray, positions: np.ndarray, omega: np.ndarray
) -> None:
    """Write ``sin(pos·ω)`` and ``cos(pos·ω)``, evaluated in float64, into two ``(m, h)`` views.

    The views may be strided (interleaved layout) and of any float dtype: each value is
    rounded once, on assignment.
    """
    angles = positions[:, None] * omega[None, :]
    sin_out[...] = np.sin(angles)
    cos_out[...] = np.cos(angles)


def encoding_table(
    *,
    d: int,
    n: int,
    start: float = 1,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
    schedule: str | float = "paper",
    layout: str = "interleaved",
    padding_idx: int | None = None,
    pad_odd_d: bool = False,
) -> np.ndarray:
    """The table ``pe(start), pe(start + 1), …, pe(start + n - 1)``, one row per position.

    Positions start at 1 by default, as in the article; ``start=0`` gives the 0-based
    tables of PyTorch and the other frameworks. :func:`pecli.conventions.convention` gives
    the knobs of other libraries (``encoding_table(d=8, n=4, **convention("fairseq")
    .table_kwargs())``).

    Parameters
    ----------
    d : int, keyword-only
        Width of the encoding, even and >= 2 (odd allowed with ``pad_odd_d``).
    n : int, keyword-only
        Number of positions (rows), >= 1.
    start : float, keyword-only
        First position, finite.
    base : float, keyword-only
        The base ``C``, finite and > 0.
    dtype : {float32, float64}, keyword-only
        Output dtype.
    schedule, layout, pad_odd_d : keyword-only
        As in :func:`positional_encoding`.
    padding_idx : int or None, keyword-only
        A row index ``0 … n-1`` whose row is all zeros (fairseq's padding row; with
        ``start=0`` real positions then start at ``padding_idx + 1``).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``, C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``n``, ``start``, ``base``, ``dtype``,
        ``schedule``, ``layout`` or ``padding_idx``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5; tensor2tensor's
    ``get_timing_signal_1d``; fairseq's ``SinusoidalPositionalEmbedding``.

    Examples
    --------
    >>> encoding_table(d=4, n=2, dtype="float64").round(6)
    array([[ 0.841471,  0.540302,  0.01    ,  0.99995 ],
           [ 0.909297, -0.416147,  0.019999,  0.9998  ]])
    >>> encoding_table(d=4, n=3, start=0, layout="sin-cos", padding_idx=1, dtype="float64")
    array([[ 0.        ,  0.        ,  1.        ,  1.        ],
           [ 0.        ,  0.        ,  0.        ,  0.        ],
           [ 0.90929743,  0.01999867, -0.41614684,  0.99980001]])

    """
    blocks = table_blocks(
        d=d, n=n, start=start, base=base, dtype=dtype, schedule=schedule, layout=layout,
        padding_idx=padding_idx, pad_odd_d=pad_odd_d, rows=n,
    )  # fmt: skip
    return np.concatenate(list(blocks))


def table_blocks(
    *,
    d: int,
    n: int,
    start: float = 1,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
    schedule: str | float = "paper",
    layout: str = "interleaved",
    padding_idx: int | None = None,
    pad_odd_d: bool = False,
    rows: int = 4096,
) -> Iterator[np.ndarray]:
    """The table of :func:`encoding_table` as an iterator of row blocks, for streaming.

    All arguments are checked when this is called, before any block is computed, so a
    caller can validate everything before it opens an output file.

    Parameters
    ----------
    d, n, start, base, dtype, schedule, layout, padding_idx, pad_odd_d : keyword-only
        As in :func:`encoding_table`.
    rows : int, keyword-only
        Largest block height, >= 1.

    Returns
    -------
    iterator of numpy.ndarray
        Blocks of shape ``(r, d)`` with ``r <= rows``; their concatenation is the table.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid argument, raised by the call itself.

    """
    d = check_width(d, pad_odd_d=pad_odd_d)
    n = check_n(n)
    first = check_position("start", start)
    _frequencies(d, base, schedule)  # checks base and schedule now
    layout_views(np.empty((0, d)), layout)  # checks layout now
    out_dtype = check_dtype(dtype)
    pad = check_padding_idx(padding_idx, n)
    encode = functools.partial(
        positional_encoding, d=d, base=base, dtype=out_dtype, schedule=schedule, layout=layout,
        pad_odd_d=pad_odd_d,
    )  # fmt: skip
    return _blocks(encode, n, first, pad, check_n(rows, "rows"))


def _blocks(
    encode: Callable[[np.ndarray], np.ndarray], n: int, first: float, pad: int | None, rows: int
) -> Iterator[np.ndarray]:
    for row in range(0, n, rows):
        offsets = np.arange(row, min(row + rows, n), dtype=np.float64)
        block = encode(first + offsets)
        if pad is not None and row <= pad < row + len(offsets):
            block[pad - row] = 0
        yield block
