"""The ALiBi bias tensor a block of heads at a time, for writing (docs/zoo.md#alibi).

Each head's bias depends on its own slope only, so :func:`.alibi.alibi_bias` of blocks of
heads gives the whole tensor's values (the same bits), in bounded memory. Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .alibi import MAX_BIAS_VALUES, _check_slopes, alibi_bias

__all__ = ["BLOCK_VALUES", "alibi_bias_blocks"]

#: Values per block of heads (32 MB of float64), at least one head.
BLOCK_VALUES = 1 << 22


def alibi_bias_blocks(
    slopes: object,
    n_key: int,
    *,
    n_query: int | None = None,
    convention: str = "causal",
    attention_mask: object = None,
    values: int = BLOCK_VALUES,
) -> tuple[tuple[int, int, int], Iterator[np.ndarray]]:
    """The shape of :func:`.alibi.alibi_bias`'s tensor and its blocks of heads.

    Parameters
    ----------
    slopes, n_key, n_query, convention, attention_mask
        As :func:`.alibi.alibi_bias` (checked here, before any block is made).
    values : int, keyword-only
        About how many values each block holds (whole heads, at least one).

    Returns
    -------
    tuple
        ``(h, q, k)`` (``q`` is 1 for the key-only conventions) and the float64 blocks
        ``(r, q, k)``, the heads in order.

    Raises
    ------
    ParameterError
        As :func:`.alibi.alibi_bias`.

    Examples
    --------
    >>> shape, blocks = alibi_bias_blocks([0.5, 0.25], 3, values=9)
    >>> shape, [b.shape for b in blocks]
    ((2, 3, 3), [(1, 3, 3), (1, 3, 3)])

    """
    m = _check_slopes(slopes)

    def bias(heads: np.ndarray) -> np.ndarray:
        return alibi_bias(
            heads, n_key, n_query=n_query, convention=convention, attention_mask=attention_mask
        )

    head = bias(m[:1])  # every check but the cap on all heads' values
    if m.size * head.size > MAX_BIAS_VALUES:
        bias(m)  # refused: the cap is checked before anything is built
    step = max(1, values // head.size)
    return (m.size, head.shape[1], head.shape[2]), (
        bias(m[h : h + step]) for h in range(0, m.size, step)
    )
