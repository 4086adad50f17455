"""The sinusoidal positional encoding of Transformers: pure NumPy, arrays in and out.

Conventions (docs/encoding.md): even ``d``, pair ``i = 1 … d/2`` has ``ω_i = C^(-2(i-1)/d)`` and
components ``2i-1`` (sine) and ``2i`` (cosine). Angles ``pos·ω`` are double-doubles
(:mod:`pecli.core.angles`), sin/cos float64: within about one float64 ulp of the exact value,
rounded to the output dtype once. float32 tables of consecutive positions use the kernel of
:mod:`pecli.core.kernels` (5e-16 absolute); float64, float16 and bfloat16 tables and arbitrary
positions are evaluated directly (one ulp of each value, also near zero), the half types then
rounded by :func:`pecli.core.dtypes.round_once`. A table is the same bits however it is split.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only: numpy.typing costs start-up time
    from numpy.typing import ArrayLike, DTypeLike

from . import kernels
from .conventions import component_names, layout_views
from .dtypes import round_once
from .errors import ParameterError
from .frequencies import (
    DEFAULT_BASE,
    angular_frequencies,
    frequencies_with_residuals,
    wavelengths,
)
from .rules import check_n, check_padding_idx, check_positions, check_table_dtype, check_width

__all__ = [
    "BLOCK_CELLS", "DEFAULT_BASE", "angular_frequencies", "component_names", "encoding_table",
    "layout_views", "positional_encoding", "table_blocks", "wavelengths",
]  # fmt: skip

#: Values per streamed block by default: peak memory stays a few blocks whatever ``n`` is.
BLOCK_CELLS = 1 << 22


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
    layouts put the same values in sine/cosine blocks (docs/conventions.md).

    Parameters
    ----------
    positions : array_like
        Real positions, scalar or 1-D, finite.
    d : int, keyword-only
        Width of the encoding, even, 2 … 131072 (odd allowed with ``pad_odd_d``).
    base : float, keyword-only
        The base ``C``, from 1e-300 to 1e300.
    dtype : {float32, float64, float16, bfloat16}, keyword-only
        Output dtype; computed in float64 and rounded to it once (bfloat16: ml_dtypes).
    schedule : {"paper", "tensor2tensor", "shift:S"} or float, keyword-only
        Frequency schedule (see :func:`angular_frequencies`).
    layout : {"interleaved", "sin-cos", "cos-sin"}, keyword-only
        Columns of the sines and cosines (see :func:`pecli.core.conventions.layout_views`).
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
    omega, residual = frequencies_with_residuals(d, base, schedule)
    out_dtype = check_table_dtype(dtype)
    rule = "must be real numbers: a scalar or a non-empty 1-D array"
    try:
        pos = np.asarray(positions, dtype=np.float64)
    except (TypeError, ValueError):  # text, complex numbers, ragged lists
        raise ParameterError("positions", rule, repr(positions)[:80]) from None
    if pos.size == 0:
        raise ParameterError("positions", rule, "an empty array")
    if pos.ndim > 1:
        raise ParameterError("positions", "must be a scalar or a 1-D array", pos.shape)
    pos = pos.reshape(-1)
    if not np.all(np.isfinite(pos)):
        raise ParameterError("positions", "must all be finite", "non-finite values")
    table = np.zeros((pos.size, d))
    sin_out, cos_out = layout_views(table, layout)
    kernels.fill_sin_cos_direct(sin_out, cos_out, pos, omega, residual)
    return round_once(table, out_dtype)


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
    tables of PyTorch and the other frameworks. :func:`pecli.core.conventions.convention` gives
    the knobs of other libraries (``encoding_table(d=8, n=4, **convention("fairseq")
    .table_kwargs())``).

    Parameters
    ----------
    d : int, keyword-only
        Width of the encoding, even, 2 … 131072 (odd allowed with ``pad_odd_d``).
    n : int, keyword-only
        Number of positions (rows), >= 1.
    start : float, keyword-only
        First position; it and the last position within ±2^53.
    base : float, keyword-only
        The base ``C``, from 1e-300 to 1e300.
    dtype : {float32, float64, float16, bfloat16}, keyword-only
        Output dtype, rounded once from float64 (:func:`pecli.core.dtypes.round_once`).
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
    spec = _TableSpec.checked(d, n, start, base, dtype, schedule, layout, padding_idx, pad_odd_d)
    table = np.empty((n, spec.d), dtype=spec.dtype)
    spec.fill(table, 0)
    return table


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
    rows: int | None = None,
    reuse: int = 0,
) -> Iterator[np.ndarray]:
    """The table of :func:`encoding_table` as an iterator of row blocks, for streaming.

    All arguments are checked when this is called, before any block is computed, so a
    caller can validate everything before it opens an output file.

    Parameters
    ----------
    d, n, start, base, dtype, schedule, layout, padding_idx, pad_odd_d : keyword-only
        As in :func:`encoding_table`.
    rows : int, keyword-only, optional
        Largest block height, >= 1; by default blocks of about :data:`BLOCK_CELLS` values
        (16 MB of float32), enough for the kernel to use two threads.
    reuse : int, keyword-only
        ``k >= 1``: blocks are views of ``k`` buffers taken in turn (no fresh pages per block),
        each overwritten once ``k`` more blocks were taken; 0: every block is a new array.

    Returns
    -------
    iterator of numpy.ndarray
        Blocks of shape ``(r, d)`` with ``r <= rows``; their concatenation is the table.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid argument, raised by the call itself.

    """
    spec = _TableSpec.checked(d, n, start, base, dtype, schedule, layout, padding_idx, pad_odd_d)
    rows = check_n(rows, "rows") if rows else max(1, BLOCK_CELLS // spec.d)
    return _blocks(spec, n, rows, max(0, int(reuse)))


def _blocks(spec: _TableSpec, n: int, rows: int, reuse: int) -> Iterator[np.ndarray]:
    shape = (min(rows, n), spec.d)
    ring = [np.empty(shape, spec.dtype) for _ in range(min(reuse, -(-n // rows)))]
    for k, row in enumerate(range(0, n, rows)):
        block = (ring[k % len(ring)] if ring else np.empty(shape, spec.dtype))[: n - row]
        spec.fill(block, row)
        yield block


@dataclass(frozen=True)
class _TableSpec:
    """The checked arguments of a table, and the one routine that fills any run of its rows."""

    d: int
    n: int
    first: float
    omega: np.ndarray
    residual: np.ndarray
    dtype: np.dtype
    layout: str
    pad: int | None

    @classmethod
    def checked(
        cls, d: object, n: object, start: object, base: float, dtype: DTypeLike,
        schedule: str | float, layout: str, padding_idx: int | None, pad_odd_d: bool,
    ) -> _TableSpec:  # fmt: skip
        width = check_width(d, pad_odd_d=pad_odd_d)
        rows = check_n(n)
        first = check_positions(start, rows)
        omega, residual = frequencies_with_residuals(width, base, schedule)
        layout_views(np.empty((0, width)), layout)  # checks the layout now
        out_dtype = check_table_dtype(dtype)
        pad = check_padding_idx(padding_idx, rows)
        return cls(width, rows, first, omega, residual, out_dtype, layout, pad)

    def fill(self, out: np.ndarray, row0: int) -> None:
        """Fill ``out`` (``(r, d)``) with the table's rows ``row0 … row0 + r - 1``."""
        if self.dtype.itemsize == 2:  # float16, bfloat16: from float64, rounded once
            wide = np.empty(out.shape)
            replace(self, dtype=np.dtype(np.float64)).fill(wide, row0)
            out[...] = round_once(wide, self.dtype)
            return
        sin_out, cos_out = layout_views(out, self.layout)
        if self.dtype == np.float64:  # direct: one float64 ulp of each value (docs/encoding.md)
            rows = self.first + np.arange(row0, row0 + len(out), dtype=np.float64)
            kernels.fill_sin_cos_direct(sin_out, cos_out, rows, self.omega, self.residual)
        else:  # the kernel: within 5e-16 before rounding, so float32 is correctly rounded
            kernels.fill_sin_cos_consecutive(
                sin_out, cos_out, self.first, self.omega, omega_residual=self.residual, offset=row0
            )
        zero = -self.first - row0  # position 0, where every angle is 0: exactly [0, 1, 0, 1, …]
        if zero.is_integer() and 0 <= zero < len(out):  # (angle addition leaves ~1e-18 there)
            sin_out[int(zero)], cos_out[int(zero)] = 0, 1
        out[:, 2 * self.omega.size :] = 0  # the zero column of an odd d
        if self.pad is not None and row0 <= self.pad < row0 + len(out):
            out[self.pad - row0] = 0
