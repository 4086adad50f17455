"""Which channels a rotation turned, and how they pair: read from q (or k) before and after.

A rotation keeps the norm of each of its pairs, so ``‖post_pair‖ = g·‖pre_pair‖`` (``g`` the
vector's gain: 1, or a temperature or an attention factor) holds within the storage's rounding
for the true pairing only; a channel that no pair turns keeps ``post = g·pre``. The channels
at either end of the head that stay proportional are found first (a bisection: a subset of
proportional channels is proportional), then every pairing that covers the others is scored
by its pairs' norms. Rows are vectors ``(token, head)``; everything is float64. No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Pairing", "candidates", "proportional", "score", "unchanged_ends"]

#: Roundings of the storage dtype one stored value may carry (transformers' own need 4: its
#: float32 and bf16 rotations recomputed in float64 land within 4 units of the largest |q|).
ROUNDINGS = 8.0
#: Rows (vectors) on which the candidate pairings are scored before the winner is checked on all.
SEARCH_ROWS = 512


@dataclass(frozen=True)
class Pairing:
    """One way of pairing the channels ``start … stop−1`` of a head into rotating pairs.

    ``pre`` and ``post`` hold each pair's two channels, shape ``(2, pairs)``: the same for
    ``interleaved`` (2j, 2j+1) and ``half-split`` (j, j+h) pairs, different for DeepSeek's
    ``interleaved-in`` (pairs (2j, 2j+1) in, written out as (j, j+h)).
    """

    layout: str
    start: int
    stop: int
    pre: np.ndarray
    post: np.ndarray

    @property
    def width(self) -> int:
        """The rotated width, ``stop − start``."""
        return self.stop - self.start

    def describe(self) -> str:
        """The pairing in words, e.g. ``half-split over channels 0–63``."""
        return f"{self.layout} over channels {self.start}–{self.stop - 1}"


def make_pairing(layout: str, start: int, stop: int) -> Pairing:
    """The pairs of ``layout`` over channels ``start … stop−1`` (an even width).

    >>> make_pairing("half-split", 0, 8).pre.tolist()
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    >>> make_pairing("interleaved-in", 4, 8).post.tolist()
    [[4, 5], [6, 7]]
    """
    half = (stop - start) // 2
    j = np.arange(half)
    split = np.stack([start + j, start + half + j])
    interleaved = np.stack([start + 2 * j, start + 2 * j + 1])
    pre = split if layout == "half-split" else interleaved
    post = interleaved if layout == "interleaved" else split
    return Pairing(layout, start, stop, pre, post)


def row_tolerance(x: np.ndarray, y: np.ndarray, unit: float) -> np.ndarray:
    """How far a stored value of each row may be from exact: ROUNDINGS units of its largest.

    ``x`` and ``y`` are ``(rows, channels)``; the result ``(rows,)`` is never 0 (a row of
    zeros gets the smallest normal float64).
    """
    largest = np.maximum(np.abs(x).max(axis=1), np.abs(y).max(axis=1))
    tol: np.ndarray = np.maximum(ROUNDINGS * unit * largest, np.finfo(np.float64).tiny)
    return tol


def proportional(x: np.ndarray, y: np.ndarray, tol: np.ndarray) -> bool:
    """Whether ``y = g·x`` on every row (one gain ``g`` per row, fitted) within ``tol``.

    >>> x = np.array([[1.0, 2.0], [3.0, -1.0]])
    >>> proportional(x, 1.5 * x, np.full(2, 1e-12)), proportional(x, x[:, ::-1], np.full(2, 0.1))
    (True, False)
    """
    if x.shape[1] == 0:
        return True
    gain = gains(x, y)
    return bool(np.all(np.abs(y - gain[:, None] * x).max(axis=1) <= tol))


def gains(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares gain ``g`` of ``y ≈ g·x`` per row (1 on a row of zeros)."""
    xx = np.einsum("rc,rc->r", x, x)
    xy = np.einsum("rc,rc->r", x, y)
    gain: np.ndarray = np.divide(xy, xx, out=np.ones_like(xx), where=xx > 0)
    return gain


def unchanged_ends(x: np.ndarray, y: np.ndarray, tol: np.ndarray) -> tuple[int, int]:
    """How many leading and trailing channels stay proportional (``post = g·pre``).

    Each count is the largest that passes :func:`proportional`, found by bisection. Both
    are at most ``channels``; a whole proportional row (NoPE) gives ``(channels, channels)``.
    A single channel fits any gain of its own, so an end of one channel counts as 0.

    >>> x = np.arange(1.0, 9.0).reshape(1, 8)
    >>> y = x.copy(); y[0, 2:4] = [-4.0, 3.0]  # channels 2, 3 turned by 90°
    >>> unchanged_ends(x, y, np.full(1, 1e-9))
    (2, 4)
    """

    def largest(side: int) -> int:
        low, high = 0, x.shape[1]  # low passes; find the largest count that does
        while low < high:
            mid = (low + high + 1) // 2
            cols = slice(0, mid) if side == 0 else slice(x.shape[1] - mid, None)
            if proportional(x[:, cols], y[:, cols], tol):
                low = mid
            else:
                high = mid - 1
        return low

    head, tail = largest(0), largest(1)
    if head == tail == x.shape[1]:
        return head, tail
    return (0 if head == 1 else head), (0 if tail == 1 else tail)  # one channel always fits


def candidates(channels: int, first: int, stop: int) -> list[Pairing]:
    """Every pairing whose rotated channels cover ``first … stop−1`` within the head.

    Interleaved pairs start at ``first`` or one before it; half-split (and DeepSeek's
    interleaved-in) slices start at ``first`` or end at ``stop``, of any half-width ``h``
    from ``⌈(stop − first)/2⌉`` up: the slowest pairs may not have turned measurably.
    """
    found: list[Pairing] = []
    for start in {first, max(first - 1, 0)}:
        end = start + 2 * -(-(stop - start) // 2)
        if end <= channels:
            found.append(make_pairing("interleaved", start, end))
    least = -(-(stop - first) // 2)
    slices = {(first, first + 2 * h) for h in range(least, (channels - first) // 2 + 1)}
    slices |= {(stop - 2 * h, stop) for h in range(least, stop // 2 + 1)}
    for start, end in sorted(slices):
        found.append(make_pairing("half-split", start, end))
        found.append(make_pairing("interleaved-in", start, end))
    return found


def score(pairing: Pairing, x: np.ndarray, y: np.ndarray, tol: np.ndarray) -> float:
    """The largest miss of the pair norms, in units of ``tol``: at most 1 for a true pairing.

    Each row's gain is the norm ratio over the whole slice (any pairing keeps it).
    """
    xa, xb = x[:, pairing.pre[0]], x[:, pairing.pre[1]]
    ya, yb = y[:, pairing.post[0]], y[:, pairing.post[1]]
    before, after = np.hypot(xa, xb), np.hypot(ya, yb)
    norm = np.sqrt(np.einsum("rp,rp->r", before, before))
    moved = np.sqrt(np.einsum("rp,rp->r", after, after))
    gain = np.divide(moved, norm, out=np.ones_like(norm), where=norm > 0)
    miss = np.abs(after - gain[:, None] * before).max(axis=1)
    return float((miss / (np.sqrt(2) * tol)).max())


def search_rows(rows: int, weight: np.ndarray) -> np.ndarray:
    """At most :data:`SEARCH_ROWS` rows, those turned most (largest ``weight``, e.g. |p|)."""
    if rows <= SEARCH_ROWS:
        return np.arange(rows)
    return np.sort(np.argsort(-weight, kind="stable")[:SEARCH_ROWS])
