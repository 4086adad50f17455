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
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only: numpy.typing costs start-up time
    from numpy.typing import ArrayLike

from ..errors import ParameterError
from ..rules import check_n
from ..threads import block_buffers
from .conventions import component_names, layout_views
from .filling import TableSpec
from .frequencies import DEFAULT_BASE, angular_frequencies, wavelengths
from .knobs import Encoding

__all__ = [
    "BLOCK_CELLS",
    "DEFAULT_BASE",
    "Encoding",
    "angular_frequencies",
    "component_names",
    "encoding_table",
    "layout_views",
    "positional_encoding",
    "table_blocks",
    "wavelengths",
]

#: Values per streamed block by default: peak memory stays a few blocks whatever ``n`` is.
BLOCK_CELLS = 1 << 22


def positional_encoding(positions: ArrayLike, **encoding: Any) -> np.ndarray:
    """Encode arbitrary real positions: one row ``pe(pos)`` per position.

    ``pe(pos)[2i-1] = sin(pos · ω_i)`` and ``pe(pos)[2i] = cos(pos · ω_i)`` (1-based
    components), i.e. sines in the even 0-based columns and cosines in the odd ones. Other
    layouts put the same values in sine/cosine blocks (docs/conventions.md).

    Parameters
    ----------
    positions : array_like
        Real positions, scalar or 1-D, finite.
    **encoding : keyword-only
        The fields of :class:`Encoding`: ``d`` (required), ``base``, ``dtype`` (float32 by
        default), ``schedule``, ``layout``, ``pad_odd_d``, ``odd_d``, ``angle_scale``,
        ``full_turns``, ``amplitude``.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(positions), d)`` (``(1, d)`` for a scalar), C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``base``, ``dtype``, ``schedule`` or
        ``layout``, a non-finite position, positions that are not 0-D or 1-D, or whose
        angles ``p·ω`` pass 2^56 radians.

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
    # the reach of start … start + n − 1 is no bound on these positions (it refused 5 zeros
    # with a scale of 2^55): theirs is checked on their own largest |position|
    spec = TableSpec.checked(Encoding(**encoding), pos.size, farthest=0.0)
    spec.check_reach(pos)
    table = np.empty((pos.size, spec.d), dtype=spec.dtype)
    spec.fill_positions(table, pos)
    return table


def encoding_table(
    *, n: int, start: float = 1, padding_idx: int | None = None, **encoding: Any
) -> np.ndarray:
    """The table ``pe(start), pe(start + 1), …, pe(start + n - 1)``, one row per position.

    Positions start at 1 by default, as in the article; ``start=0`` gives the 0-based
    tables of PyTorch and the other frameworks.
    :func:`pecli.core.sinusoidal.conventions.convention` gives the knobs of other libraries
    (``encoding_table(d=8, n=4, **convention("fairseq").table_kwargs())``).

    Parameters
    ----------
    n : int, keyword-only
        Number of positions (rows), >= 1.
    start : float, keyword-only
        First position; it and the last position within ±2^53.
    padding_idx : int or None, keyword-only
        A row index ``0 … n-1`` whose row is all zeros (fairseq's padding row; with
        ``start=0`` real positions then start at ``padding_idx + 1``).
    **encoding : keyword-only
        The fields of :class:`Encoding`, as in :func:`positional_encoding`.

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
    spec = TableSpec.checked(Encoding(**encoding), n, start, padding_idx)
    table = np.empty((n, spec.d), dtype=spec.dtype)
    spec.fill(table, 0)
    return table


def table_blocks(
    *,
    n: int,
    start: float = 1,
    padding_idx: int | None = None,
    rows: int | None = None,
    reuse: int = 0,
    **encoding: Any,
) -> Iterator[np.ndarray]:
    """The table of :func:`encoding_table` as an iterator of row blocks, for streaming.

    All arguments are checked when this is called, before any block is computed, so a
    caller can validate everything before it opens an output file.

    Parameters
    ----------
    n, start, padding_idx, **encoding : keyword-only
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
    spec = TableSpec.checked(Encoding(**encoding), n, start, padding_idx)
    rows = check_n(rows, "rows") if rows else max(1, BLOCK_CELLS // spec.d)
    return _blocks(spec, n, rows, max(0, int(reuse)))


def _blocks(spec: TableSpec, n: int, rows: int, reuse: int) -> Iterator[np.ndarray]:
    buffers = block_buffers(rows, spec.d, n, spec.dtype, reuse)
    for row, block in zip(range(0, n, rows), buffers, strict=True):
        spec.fill(block, row)
        yield block
