"""The ALiBi bias tensor a block of heads at a time, for writing (docs/zoo.md#alibi).

Each head's bias depends on its own slope only, so blocks of heads give the whole tensor in
bounded memory. In float32 every value is a copy, negated or not, of one of the head's ``k``
certified products ``round(μ_h·d)`` (:mod:`.certified`), or ``0`` or ``-inf``: a matrix row
is a window of the ``2k - 1`` values at ``d = j - i``, copied once into a reused buffer. In
float64, and for Falcon's bfloat16 arithmetic, the blocks are :func:`.bias.alibi_bias`'s.
Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import DTypeLike

from ...threads import AHEAD, block_buffers
from .bias import alibi_bias, key_positions
from .certified import distance_rows
from .records import AlibiConvention
from .rules import check_bias
from .slopes import ExactSlopes

__all__ = ["BLOCK_VALUES", "alibi_bias_blocks"]

#: Values per block of heads (4 MB of float32), at least one head.
BLOCK_VALUES = 1 << 20


def alibi_bias_blocks(
    slopes: ExactSlopes,
    n_key: int,
    *,
    n_query: int | None = None,
    convention: str = "causal",
    attention_mask: object = None,
    dtype: DTypeLike = np.float32,
    values: int = BLOCK_VALUES,
) -> tuple[tuple[int, int, int], Iterator[np.ndarray]]:
    """The shape of :func:`.bias.alibi_bias`'s tensor and its blocks of heads, in ``dtype``.

    Parameters
    ----------
    slopes : ExactSlopes
        The heads' exact slopes (:func:`~.slopes.exact_slopes`).
    n_key, n_query, convention, attention_mask
        As :func:`.bias.alibi_bias` (checked here, before any block is made).
    dtype : numpy.dtype, keyword-only
        float32: every value the exact one rounded once (certified, counted in
        :data:`~pecli.core.certificate.TALLY`; Falcon's values are its bfloat16 products);
        float64: ``fl(m·d)`` of the float64 slope ``m``, within ``2u`` of exact.
    values : int, keyword-only
        About how many values each block holds (whole heads, at least one).

    Returns
    -------
    tuple
        ``(h, q, k)`` (``q`` is 1 for the key-only conventions) and the blocks ``(r, q, k)``,
        the heads in order; a float32 block is a reused buffer, valid until ``AHEAD + 1`` more
        blocks were taken.

    Raises
    ------
    ParameterError
        As :func:`.bias.alibi_bias`, or a slope below float64's normal range.

    Examples
    --------
    >>> shape, blocks = alibi_bias_blocks(ExactSlopes(8.0, 2, (1, 2)), 3, values=9)
    >>> shape, [b[0].tolist() for b in blocks][1]  # slopes 1/16 and 1/256
    ((2, 3, 3), [[0.0, -inf, -inf], [-0.00390625, 0.0, -inf], [-0.0078125, -0.00390625, 0.0]])

    """
    n = len(slopes.powers)
    record, k, q = check_bias(n, n_key, n_query, convention, attention_mask)
    rounded = slopes.rounded("float64")
    step = max(1, values // (q * k))
    starts = range(0, n, step)
    if np.dtype(dtype) != np.float32 or record.bfloat16:
        name, mask = record.name, attention_mask
        bias = (
            alibi_bias(
                rounded[a : a + step], k, n_query=n_query, convention=name, attention_mask=mask
            )
            for a in starts
        )
        return (n, q, k), (b.astype(dtype, copy=False) for b in bias)
    buffers = block_buffers(step, q * k, n, np.float32, reuse=AHEAD + 2)
    positions = key_positions(k, attention_mask)
    return (n, q, k), (
        _fill(
            distance_rows(slopes.pick(a, a + step), rounded[a : a + step], k, np.float32),
            block.reshape(-1, q, k),
            record,
            positions,
        )
        for a, block in zip(starts, buffers, strict=True)
    )


def _fill(
    rows: np.ndarray, out: np.ndarray, record: AlibiConvention, positions: np.ndarray
) -> np.ndarray:
    """Each head's ``(q, k)`` bias into ``out`` from its row ``round(μ·d)``, ``d = 0 … k-1``."""
    q, k = out.shape[1:]
    for row, target in zip(rows, out, strict=True):
        if record.key_only and record.zero_at_last_key:  # m·(j - (k-1)) = -round(μ·(k-1-j))
            np.negative(row[::-1], out=target[0])
            target[0, -1] = 0.0  # not -0.0
        elif record.key_only:  # m·j over the mask's key positions (0 on padded keys)
            np.take(row, positions, out=target[0])
        else:  # window[t] = the value at j - i = t - (k-1); query i = k-q+r starts at q-1-r
            window = np.empty(2 * k - 1, dtype=row.dtype)
            np.negative(row[::-1], out=window[:k])
            window[k - 1] = 0.0
            window[k:] = -np.inf if record.causal else window[k - 2 :: -1]
            np.copyto(target, sliding_window_view(window, k)[q - 1 :: -1])
    return out
