"""T5's relative-position buckets (docs/zoo.md#t5-relative-position-buckets).

T5 adds to the attention logits a learned scalar per head and *bucket*: the relative position
``memory − query`` (key position minus query position) is mapped to one of ``num_buckets``
buckets, one per distance below ``max_exact = num_buckets // 2`` (a bidirectional encoder
halves ``num_buckets`` first and gives keys after the query the upper half), then buckets
growing logarithmically up to ``max_distance``, past which all distances share the last one.
A causal decoder sees only keys at or before the query: positive relative positions fall into
bucket 0 with distance 0.

References
----------
.. [1] C. Raffel et al., "Exploring the Limits of Transfer Learning with a Unified Text-to-Text
   Transformer", JMLR 21 (2020), §2.1.
.. [2] transformers: ``models/t5/modeling_t5.py``, ``T5Attention._relative_position_bucket``
   and ``compute_bias`` (``relative_position = memory_position - context_position``), after
   Mesh TensorFlow's ``_relative_position_bucket``.

"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ..rules import as_int

__all__ = ["MAX_T5_VALUES", "bucket_grid", "bucket_ranges", "relative_position_bucket"]

#: Largest bucket table, in values: it is built whole in memory.
MAX_T5_VALUES = 1 << 26


def check_buckets(num_buckets: object, max_distance: object, bidirectional: bool) -> int:
    """Return ``max_exact``; raise :class:`ParameterError` for a configuration T5 cannot use.

    ``num_buckets`` must leave ``max_exact >= 1`` (2 or more, 4 or more when bidirectional)
    and ``max_distance`` must exceed ``max_exact`` (else the log of the ratio is <= 0).
    """
    nb = as_int(num_buckets)
    least = 4 if bidirectional else 2
    if nb is None or not least <= nb <= 1 << 16:
        kind = "bidirectional" if bidirectional else "causal"
        rule = f"must be an integer from {least} to 65536 ({kind})"
        raise ParameterError("num_buckets", rule, num_buckets)
    max_exact = (nb // 2 if bidirectional else nb) // 2
    md = as_int(max_distance)
    if md is None or not max_exact < md <= 1 << 30:
        rule = f"must be an integer above max_exact = {max_exact} and at most 2^30"
        raise ParameterError("max_distance", rule, max_distance)
    return max_exact


def relative_position_bucket(
    relative_position: object,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """The T5 bucket of each relative position ``memory − query``, in T5's float32 arithmetic.

    Parameters
    ----------
    relative_position : array_like of int
        Key position minus query position, any shape, ``|value| < 2^31``.
    bidirectional : bool, keyword-only
        True for the encoder (keys after the query get buckets ``num_buckets//2`` and up),
        False for the causal decoder (keys after the query share bucket 0).
    num_buckets : int, keyword-only
        Number of buckets (T5: 32).
    max_distance : int, keyword-only
        Distance from which every position shares the last bucket (T5: 128).

    Returns
    -------
    numpy.ndarray
        int64, same shape, values from 0 to ``num_buckets - 1``.

    Notes
    -----
    With ``n`` the distance and ``E = max_exact``, a distance ``n >= E`` gets bucket
    ``min(E + floor(ln(n/E) / ln(max_distance/E) · (B - E)), B - 1)`` with ``B`` the (halved)
    bucket count. The logarithm is taken in float32 and the rest in float32 with the divisor
    ``ln(max_distance/E)`` rounded to float32, as ``torch.log(relative_position.float() / E)
    / math.log(...) * (B - E)`` does.

    Examples
    --------
    >>> rp = [-200, -128, -20, -8, -1, 0, 1, 8, 20, 128, 200]
    >>> relative_position_bucket(rp).tolist()
    [15, 15, 10, 8, 1, 0, 17, 24, 26, 31, 31]
    >>> relative_position_bucket([-20, -1, 0, 1, 20], bidirectional=False).tolist()
    [17, 1, 0, 0, 0]

    """
    max_exact = check_buckets(num_buckets, max_distance, bidirectional)
    rp = np.asarray(relative_position)
    if rp.dtype.kind not in "iu" or (rp.size and np.abs(rp.astype(np.int64)).max() >= 1 << 31):
        raise ParameterError("relative_position", "must be integers below 2^31 in size", rp.dtype)
    rp = rp.astype(np.int64)
    buckets = int(num_buckets)
    offset = np.zeros_like(rp)
    if bidirectional:
        buckets //= 2
        offset = (rp > 0) * buckets
        distance = np.abs(rp)
    else:
        distance = -np.minimum(rp, 0)
    with np.errstate(divide="ignore"):
        scaled = np.log(distance.astype(np.float32) / np.float32(max_exact))
    scaled = scaled / np.float32(math.log(int(max_distance) / max_exact))
    scaled = scaled * np.float32(buckets - max_exact)
    large = np.minimum(
        max_exact + np.where(distance >= max_exact, scaled, 0).astype(np.int64), buckets - 1
    )
    return offset + np.where(distance < max_exact, distance, large)


def bucket_grid(
    n_query: int,
    n_key: int,
    *,
    past: int = 0,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """The bucket of each (query, key) pair, as ``T5Attention.compute_bias`` looks it up.

    Query ``i`` sits at position ``past + i`` (``past_seen_tokens``: tokens already in the
    cache), key ``j`` at ``j``; the relative position is ``j − (past + i)``.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(n_query, n_key)``.

    Examples
    --------
    >>> bucket_grid(2, 4).tolist()
    [[0, 17, 18, 19], [1, 0, 17, 18]]

    """
    q, k, p = as_int(n_query), as_int(n_key), as_int(past)
    if k is None or k < 1:
        raise ParameterError("keys", "must be an integer >= 1", n_key)
    if q is None or q < 1:
        raise ParameterError("queries", "must be an integer >= 1", n_query)
    if q * k > MAX_T5_VALUES:
        raise ParameterError("keys", f"times {q} queries must be at most 2^26 buckets", n_key)
    if p is None or not 0 <= p < 1 << 30:
        raise ParameterError("past", "must be an integer from 0 to 2^30 - 1", past)
    rp = np.arange(-(p + q - 1), k - p, dtype=np.int64)  # every j − (p + i), ascending
    line = relative_position_bucket(
        rp, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )  # each of the q + k - 1 distances once; row i is line[q-1-i : q-1-i+k]
    return np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(line, k)[::-1])


def bucket_ranges(
    relative: np.ndarray, buckets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each bucket that occurs, its least and greatest relative position, and their count.

    Parameters
    ----------
    relative, buckets : numpy.ndarray
        Relative positions and their buckets (:func:`relative_position_bucket`), same shape.

    Returns
    -------
    (bucket, low, high, count) : tuple of numpy.ndarray
        One entry per bucket, in bucket order.

    Examples
    --------
    >>> rp = np.arange(-3, 4)
    >>> [a.tolist() for a in bucket_ranges(rp, np.array([3, 2, 1, 0, 4, 5, 6]))][:3]
    [[0, 1, 2, 3, 4, 5, 6], [0, -1, -2, -3, 1, 2, 3], [0, -1, -2, -3, 1, 2, 3]]

    """
    order = np.argsort(buckets, kind="stable")
    ranked, positions = buckets[order], relative[order]
    values, first, counts = np.unique(ranked, return_index=True, return_counts=True)
    low, high = np.minimum.reduceat(positions, first), np.maximum.reduceat(positions, first)
    return values, low, high, counts
