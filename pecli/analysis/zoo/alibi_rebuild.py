"""How well each ALiBi convention rebuilds a bias tensor: its slopes, padding and error.

:func:`rebuild_error` reads the slopes a convention puts at distance 1 (:func:`slopes_of`),
rebuilds the tensor from them in that convention's own arithmetic and returns the largest
per-head relative difference; :mod:`.alibi` picks the convention that rebuilds it best.
A tensor is read a block of heads at a time (:func:`head_blocks`), never copied whole.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...core.zoo.alibi import ALIBI_CONVENTIONS, alibi_bias

__all__ = [
    "BLOCK_VALUES",
    "MASKED",
    "MASK_CONSTANT",
    "head_blocks",
    "left_padding",
    "mask_level",
    "rebuild_error",
    "row_blocks",
    "slopes_of",
]

#: Values at or below this are a mask (HF uses ``torch.finfo(dtype).min``), like ``-inf``.
MASKED = -1e30
#: One constant at or below this in every cell above the diagonal, below every other value,
#: is a causal mask too: ``-1e9``, or ``torch.finfo(torch.float16).min`` (-65504), above
#: :data:`MASKED`. No ALiBi bias holds a value above its diagonal below all those under it.
MASK_CONSTANT = -1e4
#: Values per block of heads a tensor is read in (8 MB of float64), at least one head.
BLOCK_VALUES = 1 << 20


def head_blocks(t: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``(first head, float64 block)`` of a tensor read a block of heads at a time."""
    step = max(1, BLOCK_VALUES // max(1, t[0].size)) if t.shape[0] else 1
    for h in range(0, max(t.shape[0], 1), step):  # no heads: one empty block
        yield h, t[h : h + step].astype(np.float64)


#: Query rows compared at a time: a few hundred KB, so the passes over them stay in cache.
CHUNK_VALUES = 1 << 15


def row_blocks(head: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``(first row, rows)`` of a head ``(q, k)``, about :data:`CHUNK_VALUES` values at a time."""
    step = max(1, CHUNK_VALUES // max(1, head.shape[-1]))
    for r in range(0, head.shape[0], step):
        yield r, head[r : r + step]


def left_padding(t: np.ndarray) -> int:
    """BLOOM's padded keys: the zeros before position 1 (-1 when the row does not start so)."""
    nonzero = np.flatnonzero(t[0, 0] != 0)
    return int(nonzero[0]) - 1 if nonzero.size else -1


def mask_level(t: np.ndarray) -> float:
    """Values at or below this are a causal mask in ``(h, q, k)``: :data:`MASKED`, or a constant.

    The queries are the last ``q`` of ``k`` positions. When head 0's cells above the diagonal
    (``q >= 2``) all hold one finite value ``c <=`` :data:`MASK_CONSTANT` that is below every
    other value of the head, ``c`` is the mask (``masked_fill`` with ``-1e9`` or
    ``torch.finfo(float16).min``); else :data:`MASKED`. A symmetric bias is never so: its
    cells above the diagonal hold the values of its cells below at the same distances. Read
    a few rows at a time (:func:`row_blocks`).

    Examples
    --------
    >>> i, j = np.arange(4)[:, None], np.arange(4)
    >>> mask_level(np.where(j <= i, -0.5 * (i - j), -1e9)[None])
    -1000000000.0
    >>> mask_level(np.where(j <= i, -0.5 * (i - j), -1e9)[None, 2:])  # the last 2 queries
    -1000000000.0
    >>> mask_level(-0.5 * np.abs(i - j)[None].astype(float))  # symmetric: no mask
    -1e+30

    """
    q, k = t.shape[1:]
    if q < 2 or k < q:
        return MASKED
    head = t[0]
    c = float(head[0, k - q + 1])  # the first cell above the diagonal
    if not (math.isfinite(c) and MASKED < c <= MASK_CONSTANT):
        return MASKED
    j = np.arange(k)[None, :]
    for r, rows in row_blocks(head):
        above = j > np.arange(k - q + r, k - q + r + len(rows))[:, None]  # key j after query i
        if (rows[above] != c).any() or not (rows[~above] > c).all():
            return MASKED
    return c


def slopes_of(t: np.ndarray, convention: str) -> np.ndarray:
    """The slopes a convention puts at distance 1 (h, q, k) → (h,).

    A key-only row is ``m`` times key positions that are 0 on the first key after the padding
    (BLOOM) or on the last key (MPT): the two keys nearest that 0 differ by ``m`` exactly.
    """
    q, k = t.shape[1:]
    record = ALIBI_CONVENTIONS[convention]
    slopes: np.ndarray
    f = np.float64
    if record.zero_at_last_key:
        slopes = t[:, 0, k - 1].astype(f) - t[:, 0, k - 2].astype(f)
    elif record.key_only:
        pad = max(left_padding(t), 0) if record.takes_mask else 0
        ok = pad + 1 < k
        slopes = t[:, 0, pad + 1].astype(f) - t[:, 0, pad].astype(f) if ok else np.zeros(len(t))
    else:  # the last query at distance 1 (causal and symmetric)
        slopes = -t[:, q - 1, k - 2].astype(f)
    return slopes


def _rebuild(t: np.ndarray, convention: str, m: np.ndarray, pad: int) -> np.ndarray:
    """The heads of ``m`` rebuilt; ``pad``: the whole tensor's :func:`left_padding`."""
    q, k = t.shape[1:]
    record = ALIBI_CONVENTIONS[convention]
    if record.takes_mask:
        mask = None if pad <= 0 else [0] * pad + [1] * (k - pad)
        return alibi_bias(m, k, convention=convention, attention_mask=mask)
    return alibi_bias(m, k, n_query=None if record.key_only else q, convention=convention)


def rebuild_error(t: np.ndarray, convention: str) -> float:
    """Largest per-head relative difference between ``t`` and its rebuild in ``convention``.

    Read and rebuilt a block of heads at a time (each head's error is its own); a matrix
    convention one head at a time against windows of its ``2k - 1`` values
    (:func:`_matrix_error`). ``inf``: the shape, the slopes or the mask do not fit.
    """
    q = t.shape[1]
    record = ALIBI_CONVENTIONS[convention]
    if record.key_only != (q == 1):
        return float("inf")
    m = slopes_of(t, convention)
    if not np.isfinite(m).all() or (m <= 0).any():
        return float("inf")
    if not record.key_only:
        return _matrix_error(t, m, record.causal)
    pad = left_padding(t) if record.takes_mask else 0
    ratios = []
    for h, block in head_blocks(t):
        r = block.shape[0]
        rebuilt = _rebuild(block, convention, m[h : h + r], pad)
        masked = ~np.isfinite(rebuilt)
        if (masked != (~np.isfinite(block) | (block <= MASKED))).any():
            return float("inf")
        diff = np.abs(np.where(masked, 0.0, block) - np.where(masked, 0.0, rebuilt))
        scale = np.abs(np.where(masked, 0.0, rebuilt)).reshape(r, -1).max(axis=1)
        ratios.append(diff.reshape(r, -1).max(axis=1) / np.maximum(scale, 1e-300))
    return float(np.concatenate(ratios).max())


def _matrix_error(t: np.ndarray, m: np.ndarray, causal: bool) -> float:
    """:func:`rebuild_error` of ``(h, q, k)`` matrices: ``-m·|i-j|``, masked above if causal.

    Values at or below each head's own :func:`mask_level` are masked (a head masked with
    ``-inf`` beside one masked with ``-1e9`` reads alike, whichever comes first).

    Row ``r`` (query ``i = k-q+r``) of a head is the window from ``q-1-r`` of its values at
    ``j - i = 1-k … q-1``, rebuilt as the same float64 numbers :func:`alibi_bias` makes. A
    head whose rows are such windows of its own values (its last row, then its first row's
    tail) is compared on those ``k + q - 1`` values alone; any other entry by entry.
    """
    q, k = t.shape[1:]
    offsets = np.arange(1 - k, q, dtype=np.float64)  # j - i
    masked = (offsets > 0) & causal
    worst = 0.0
    for head, slope in enumerate(m.tolist()):
        window = -(slope * np.abs(offsets)) + 0.0
        window[masked] = -np.inf
        level = mask_level(t[head : head + 1])
        error = _toeplitz(t[head], window, masked, level)
        error = _compared(t[head], window, level) if error is None else error
        worst = max(worst, error / max(slope * (k - 1), 1e-300))
    return worst


def _rows(window: np.ndarray, k: int) -> np.ndarray:
    """The ``(q, k)`` rows of a head from its values at ``j - i = 1-k … q-1``."""
    rows: np.ndarray = sliding_window_view(window, k)[::-1]
    return rows


def _toeplitz(
    head: np.ndarray, window: np.ndarray, masked: np.ndarray, level: float
) -> float | None:
    """The head's error when its rows are windows of its own values; None when they are not."""
    q, k = head.shape
    own = np.concatenate([head[q - 1], head[0, k - q + 1 :]])  # at j - i = 1-k … q-1
    rows = _rows(own, k)
    for r, block in row_blocks(head):
        if not np.array_equal(block, rows[r : r + len(block)]):
            return None
    if (own[masked] > level).any() or (own[~masked] <= level).any():
        return float("inf")
    return float(np.max(np.abs(own[~masked].astype(np.float64) - window[~masked]), initial=0.0))


def _compared(head: np.ndarray, window: np.ndarray, level: float) -> float:
    """The head's largest difference from the window, its mask compared as it is stored."""
    expected, largest = _rows(window, head.shape[1]), 0.0
    for r, block in row_blocks(head):
        want = expected[r : r + len(block)]
        kept = np.isfinite(want)
        if not np.array_equal(block > level, kept):
            return float("inf")
        with np.errstate(invalid="ignore"):
            out = np.abs(block - want)
        largest = max(largest, float(np.max(out, where=kept, initial=0.0)))
    return largest
