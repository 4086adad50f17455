"""A kernel's error bound and the vectorised check of which roundings it leaves undecided.

An entry ``v`` (float64) of a kernel whose bound is ``e(v)`` stands for an exact value ``x``
somewhere in ``[v - e, v + e]``. Rounding to nearest is monotone, so ``x`` rounds like ``v``
when both ends of the interval round to the same output value; the check computes the two
ends (widened by the float64 rounding of ``v ± e`` itself) and compares their roundings.
NumPy, arrays in and out; into float32 the comparison is one compiled pass when built
(:mod:`.compiled`), the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..dtypes import round_once
from . import compiled

__all__ = ["UNIT_ROUNDOFF", "ErrorBound", "round_certified", "undecided"]

#: ``u = 2^-53``: half the float64 spacing at 1, the relative error of one float64 rounding.
UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True)
class ErrorBound:
    """``|v - x| <= absolute + relative·|v|`` for a computed ``v`` and the exact ``x``.

    Attributes
    ----------
    absolute : float or numpy.ndarray
        The part of the bound independent of the value (>= 0); an array: one per value.
    relative : float
        The part proportional to ``|v|`` (>= 0).
    source : str
        Where the bound is derived (a section of docs/exactness.md).

    Examples
    --------
    >>> ErrorBound(absolute=1e-15).at(np.array([0.5]))  # widened by 2u·|v| for fl(v ± e)
    array([1.1110223e-15])

    """

    absolute: float | np.ndarray = 0.0
    relative: float = 0.0
    source: str = ""

    def at(self, values: np.ndarray) -> np.ndarray:
        """The bound at each of ``values``, widened by the rounding of ``v ± e`` in float64."""
        rel = self.relative + 2 * UNIT_ROUNDOFF  # fl(v ± e) is off by at most u·|v ± e|
        bound: np.ndarray = np.abs(values) * rel + self.absolute * (1 + 4 * UNIT_ROUNDOFF)
        return bound

    def widest(self, largest: float) -> float:
        """One bound for every value of magnitude at most ``largest`` (widened as in :meth:`at`)."""
        return float(np.max(self.at(np.array([largest]))))


def undecided(values: np.ndarray, bound: ErrorBound, dtype: np.dtype) -> np.ndarray:
    """Flat indices of the entries whose rounding to ``dtype`` the bound does not decide.

    Parameters
    ----------
    values : numpy.ndarray
        float64, any shape: the kernel's values before rounding.
    bound : ErrorBound
        The kernel's proven error bound.
    dtype : numpy.dtype
        The output dtype (float32, float16, bfloat16, rounded once; for float64 nothing is
        rounded: none returned).

    Returns
    -------
    numpy.ndarray
        int64, the flat (C-order) indices of ``values`` whose interval ``v ± e`` straddles a
        rounding boundary of ``dtype``.

    Examples
    --------
    >>> tie = 1 + 2.0**-24  # halfway between the float32 numbers 1 and 1 + 2^-23
    >>> undecided(np.array([tie - 1e-16, 0.75]), ErrorBound(absolute=1e-15), np.float32)
    array([0])

    """
    if np.dtype(dtype) == np.float64:
        return np.zeros(0, dtype=np.int64)
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    largest = float(np.max(np.abs(flat), initial=0.0))
    scalar = not bound.relative and np.ndim(bound.absolute) == 0
    e = bound.widest(largest) if scalar else bound.at(np.asarray(values, np.float64)).reshape(-1)
    if np.dtype(dtype) == np.float32 and compiled.usable():  # one pass, the same bits
        return np.frombuffer(compiled.ends_differ(flat, e), dtype=np.int64)
    return np.flatnonzero(_ends_differ(flat, e, np.dtype(dtype)))


def _ends_differ(flat: np.ndarray, e: np.ndarray | float, dtype: np.dtype) -> np.ndarray:
    """``round(v - e) != round(v + e)`` in ``dtype``, elementwise."""
    with np.errstate(over="ignore"):
        low = _rounded(np.subtract(flat, e), dtype)
        high = _rounded(np.add(flat, e), dtype)
    differ: np.ndarray = low != high
    return differ


def _rounded(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``values`` rounded once to ``dtype``: a cast, but for bfloat16 (ml_dtypes' rounds twice)."""
    if dtype.name == "bfloat16":
        return round_once(values, dtype)
    return values.astype(dtype)


def round_certified(
    values: np.ndarray,
    bound: ErrorBound,
    out: np.ndarray,
    recompute: Callable[[np.ndarray], np.ndarray],
) -> int:
    """Round ``values`` into ``out`` and recompute the undecided entries; their count.

    Parameters
    ----------
    values : numpy.ndarray
        float64, the kernel's values, same shape as ``out``.
    bound : ErrorBound
        The kernel's proven error bound.
    out : numpy.ndarray
        Writable, of the output dtype; gets every value rounded once.
    recompute : callable
        Takes the flat indices of undecided entries, returns their correctly rounded values
        (float64 holding values of ``out``'s dtype), e.g. from :mod:`.fallback`.

    Returns
    -------
    int
        How many entries were recomputed.

    """
    out[...] = round_once(values, out.dtype) if out.dtype.name == "bfloat16" else values
    where = undecided(values, bound, out.dtype)
    if where.size:
        index = np.unravel_index(where, out.shape)
        out[index] = recompute(where)
    return int(where.size)
