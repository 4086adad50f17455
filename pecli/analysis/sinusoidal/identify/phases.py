"""The integer first position of a window, from the phases of its pairs.

Row ``r`` of a window that starts at position ``s`` holds the angles ``θ_j(r) = (s + r) ω_j``
(mod 2π). Once ``ω_j`` is known, each pair gives its phase ``φ_j = s ω_j`` (mod 2π), i.e. ``s``
modulo the pair's period ``2π / ω_j``. The slowest pairs tell the wrap count, the fast ones
the residue, and ``s`` is an integer: combining the pairs from the slowest to the fastest, like
the Chinese remainder theorem with tolerances, leaves a few integers, which are then checked
against the window itself (``verify``).

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ....core.dtypes import float_dtype
from ....core.median import unique
from .fits import wrap

__all__ = ["MAX_START", "Phases", "candidate_starts", "measure", "ties", "verify"]

#: Largest first position searched (positions 0 … MAX_START): 2^24, the last integer a
#: float32 framework holds exactly (its positions run in float32).
MAX_START = 2**24
#: Drift of a framework's float32 angles, per unit of position: the second pass allows each
#: pair's phase to be off by ``FRAMEWORK_DRIFT · (1 + s) · ω_j``.
FRAMEWORK_DRIFT = 2.0**-19
#: Relative error of the float64 arithmetic ``s ω_j`` behind the search, per unit of position.
FLOAT64_DRIFT = 2.0**-48
#: Most intervals or integers kept while the pairs are combined (else: not determined).
MAX_CANDIDATES = 1 << 22
#: Candidates of each pass checked against the window, best phase fit first.
VERIFY = 32
#: Rows of the window used to check a candidate.
VERIFY_ROWS = 256


@dataclass
class Phases:
    """Each pair's phase at row 0 and how far its rows scatter about ``(s + r) ω_j``.

    Attributes
    ----------
    phase : numpy.ndarray
        ``(h,)`` float64, radians in ``[-π, π)``: ``s ω_j`` mod 2π.
    tight : numpy.ndarray
        ``(h,)`` float64, radians: the tolerance of the first (exact) pass.

    """

    phase: np.ndarray
    tight: np.ndarray


def measure(theta: np.ndarray, rows: np.ndarray, omega: np.ndarray, floor: float) -> Phases:
    """The phase of each pair at row 0, and a tolerance from the scatter of its rows.

    ``theta`` is ``(m, h)`` (angles of the rows ``rows``), ``omega`` ``(h,)``; ``floor`` is the
    smallest tolerance (the storage's rounding), in radians.
    """
    intercept = theta - rows[:, None] * omega[None, :]
    phase = np.angle(np.exp(1j * intercept).mean(axis=0))
    spread = np.sqrt(np.mean(wrap(intercept - phase) ** 2, axis=0))
    return Phases(phase, 4 * spread + floor)


def candidate_starts(phases: Phases, omega: np.ndarray, drift: float) -> np.ndarray | None:
    """Integers ``s`` in ``0 … MAX_START`` whose phases ``s ω_j`` agree with every pair's.

    Parameters
    ----------
    phases : Phases
        From :func:`measure`.
    omega : numpy.ndarray
        ``(h,)`` float64, the exact angular frequencies.
    drift : float
        Allowed drift per unit of position (0 for exact tables, :data:`FRAMEWORK_DRIFT`).

    Returns
    -------
    numpy.ndarray or None
        Sorted int64 candidates (maybe empty); None when more than :data:`MAX_CANDIDATES`
        remain (the phases do not determine the start).

    Examples
    --------
    >>> omega = np.array([1.0, 0.1, 0.01, 0.001])
    >>> found = Phases(np.angle(np.exp(1j * 5000 * omega)), np.full(4, 1e-9))
    >>> candidate_starts(found, omega, 0.0)
    array([5000])

    """
    low, high = np.zeros(1), np.full(1, float(MAX_START))
    for j in np.argsort(omega, kind="stable").tolist():  # slowest first: wrap count, residue
        pair = (float(phases.phase[j]), float(phases.tight[j]), float(omega[j]), drift)
        one = _narrow_one(float(low[0]), float(high[0]), *pair) if low.size == 1 else None
        if one is None:  # several intervals (or several periods in one): the array path
            if (found := _narrow(low, high, *pair)) is None:
                return None
            low, high = found
        elif not one:
            return np.empty(0, np.int64)
        else:
            low, high = np.array(one[:1]), np.array(one[1:])
    return _integers(low, high)


def _narrow(
    low: np.ndarray, high: np.ndarray, phase: float, tight: float, omega: float, drift: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """The intervals ``[low, high]`` cut to the positions that agree with one pair's phase."""
    period = 2 * np.pi / omega
    width = tight / omega + (drift + FLOAT64_DRIFT) * (1 + high)  # positions
    informative = 2 * width < period
    if not informative.any():
        return low, high
    centre = phase / omega
    first = np.ceil((low - width - centre) / period)
    count = np.where(informative, np.floor((high + width - centre) / period) - first + 1, 1)
    count = np.maximum(count, 0).astype(np.int64)
    if count.sum() > MAX_CANDIDATES:
        return None
    which = np.repeat(np.arange(low.size), count)
    step = np.arange(which.size) - np.repeat(np.cumsum(count) - count, count)
    near = centre + (first[which] + step) * period
    keep = informative[which]
    new_low = np.where(keep, np.maximum(low[which], near - width[which]), low[which])
    new_high = np.where(keep, np.minimum(high[which], near + width[which]), high[which])
    inside = new_low <= new_high
    return new_low[inside], new_high[inside]


def _narrow_one(
    low: float, high: float, phase: float, tight: float, omega: float, drift: float
) -> tuple[float, ...] | None:
    """:func:`_narrow` for one interval that one period at most cuts, in Python floats.

    The same operations in the same order on float64, so the same bounds, without NumPy's
    per-call cost (hundreds of pairs, one interval each once the slow pairs have spoken).
    ``()`` when nothing is left, None when the array path is needed.
    """
    period = 2 * math.pi / omega
    width = tight / omega + (drift + FLOAT64_DRIFT) * (1 + high)
    if not 2 * width < period:
        return (low, high)
    centre = phase / omega
    first = math.ceil((low - width - centre) / period)
    count = math.floor((high + width - centre) / period) - first + 1
    if count > 1:
        return None
    if count < 1:
        return ()
    near = centre + first * period
    low, high = max(low, near - width), min(high, near + width)
    return (low, high) if low <= high else ()


def _integers(low: np.ndarray, high: np.ndarray) -> np.ndarray | None:
    """Every integer in the union of ``[low_k, high_k]`` (None when too many)."""
    first, last = np.ceil(low).astype(np.int64), np.floor(high).astype(np.int64)
    count = np.maximum(last - first + 1, 0)
    if count.sum() > MAX_CANDIDATES:
        return None
    which = np.repeat(np.arange(first.size), count)
    step = np.arange(which.size) - np.repeat(np.cumsum(count) - count, count)
    values: np.ndarray = first[which] + step  # ascending: the intervals are sorted and apart
    return values


def best_phase_fits(starts: np.ndarray, phases: Phases, omega: np.ndarray) -> np.ndarray:
    """The :data:`VERIFY` starts whose phases fit best, and the :data:`VERIFY` smallest.

    The squares are weighted by the exact pass's tolerance: the framework drift grows with
    the start and would favour large ones. The smallest starts are kept too, so that when
    many starts fit equally the smallest of them is among those checked.
    """
    if starts.size <= 2 * VERIFY:
        return starts
    chunks = []
    rows = max(1, (1 << 20) // omega.size)  # about 8 MB of float64 a chunk
    for part in np.array_split(starts, max(1, starts.size // rows)):
        error = wrap(part[:, None] * omega[None, :] - phases.phase[None, :])
        allowed = phases.tight[None, :] + FLOAT64_DRIFT * (1 + part[:, None]) * omega
        chunks.append(np.sum((error / allowed) ** 2, axis=1))
    score = np.concatenate(chunks)
    near = np.flatnonzero(score <= np.partition(score, VERIFY - 1)[VERIFY - 1])  # in order
    order = near[np.argsort(score[near], kind="stable")[:VERIFY]]  # = a stable sort's first
    return unique(np.concatenate([starts[order], starts[:VERIFY]]))


def verify(
    starts: np.ndarray,
    views: tuple[np.ndarray, np.ndarray],
    rows: np.ndarray,
    omega: np.ndarray,
    storage: str,
) -> np.ndarray:
    """Mean-square difference, per pair, between the window and its rebuild from each start.

    ``views`` are the sine and cosine columns ``(m, h)`` of the rows ``rows`` (0-based rows of
    the window); the rebuild is rounded to ``storage``, so an exact table gives 0. Returns
    ``(starts.size, h)`` float64.
    """
    sines, cosines = (view[:VERIFY_ROWS] for view in views)
    rows = rows[:VERIFY_ROWS]
    squares = np.empty((starts.size, omega.size))
    for k, start in enumerate(starts):
        theta = (float(start) + rows)[:, None] * omega[None, :]
        rebuilt_sin = np.sin(theta).astype(float_dtype(storage)).astype(np.float64)
        rebuilt_cos = np.cos(theta).astype(float_dtype(storage)).astype(np.float64)
        squares[k] = np.mean((rebuilt_sin - sines) ** 2 + (rebuilt_cos - cosines) ** 2, axis=0) / 2
    return squares


def ties(starts: np.ndarray, squares: np.ndarray, floor: float, entries: int) -> np.ndarray:
    """The starts that reproduce the window as well as the best one, ascending.

    Each pair's mean square is measured against the smallest any start gives it (plus
    ``floor²``, a fraction of the storage's rounding), so a pair that one start reproduces
    exactly is not drowned by the framework noise of the others; a start ties when its mean
    ratio is within 4 standard errors (``entries`` values compared) of the best.
    """
    ratio = np.mean(squares / (squares.min(axis=0) + floor**2), axis=1)
    return np.sort(starts[ratio <= ratio.min() * (1 + 4 * np.sqrt(2 / entries))])
