"""Angles at a rational number of half turns per position: exact where sin or cos is 0.

A column whose angle is ``π·r·p`` with ``r`` rational (MLX's ``full_turns`` on a rational
frequency, ``2·10000^(-1/4) = 1/5``; LTX's ladder, ``(π/2)·θ^0``) has sines exactly 0 where
``r·p`` is an integer, cosines exactly 0 where it is an integer and a half. No precision
decides a value exactly 0 from a double-double angle (π rounded), so the certificate's
fallback is never asked for these: :func:`fill_turns` writes 0 and ±1 (times a factor,
rounded once) where ``2·r·p`` is an integer, decided exactly on the position's rational
value, and leaves the other rows to the direct kernel, under the certificate. Pure NumPy and
Python fractions; no I/O.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

from .certificate import TALLY, rounded_sum
from .certificate.rational import integer_root

__all__ = ["dyadic_quarter_turns", "fill_turns", "quarter_turns", "rational_power"]


def rational_power(base: float, exponent: Fraction) -> Fraction | None:
    """``base^exponent`` exactly when it is rational (``base`` > 0, a float), else None.

    >>> rational_power(10000.0, Fraction(-1, 4)), rational_power(10000.0, Fraction(1, 3))
    (Fraction(1, 10), None)

    """
    # gcd(a, b) = 1: base^(a/b) is rational iff base^(1/b) is, the b-th roots of its parts
    f = Fraction(base)
    roots = [integer_root(part, exponent.denominator) for part in (f.numerator, f.denominator)]
    if roots[0] is None or roots[1] is None:
        return None
    return Fraction(roots[0], roots[1]) ** exponent.numerator


def quarter_turns(positions: np.ndarray, rate: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """Where ``2·rate·p`` is an integer ``q`` (the angle ``π·rate·p`` is ``q`` quarter turns).

    Returns ``(mask, q mod 4)`` (the second for the masked rows, int64). Integer positions
    (every table of consecutive positions from an integer start) are decided in float64
    exactly; others on their exact rational values.

    >>> quarter_turns(np.array([0.0, 1.0, 2.5, 5.0]), Fraction(1, 5))
    (array([ True, False,  True,  True]), array([0, 1, 2]))

    """
    twice = 2 * rate
    p = np.asarray(positions, dtype=np.float64)
    whole = p == np.round(p)
    step = twice.denominator  # 2·rate·p is an integer for integer p iff step | p
    mask = np.zeros(p.shape, dtype=bool)
    quarter = np.zeros(p.shape, dtype=np.int64)
    if step <= 2**53:  # p/step and fmod stay exact up to a step of 2^53 itself
        hit = whole & (np.fmod(p, step) == 0)
        k = np.fmod(p[hit] / step, 4)  # exact: p/step is an integer below 2^53
        mask |= hit
        quarter[hit] = (k.astype(np.int64) * (twice.numerator % 4)) % 4
    for i in np.flatnonzero(~whole):  # fractional positions: their exact value
        q = twice * Fraction(float(p[i]))
        if q.denominator == 1:
            mask[i], quarter[i] = True, q.numerator % 4
    return mask, quarter[mask]


def dyadic_quarter_turns(
    x: np.ndarray, frequencies: np.ndarray, factor: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where ``2·x·f·factor`` is an integer ``q``, for float64 ``x``, integers ``f``: all at once.

    The angle ``π·x·f·factor`` is then ``q`` quarter turns, its sine and cosine exactly 0 or
    ±1. With ``2·f·factor = a·2^t``, ``a`` odd (a float64 factor is a binary fraction),
    ``2·x·f·factor`` is an integer exactly when ``x·2^t`` is (``ldexp``: exact, an underflow
    to a non-zero fraction is no integer), and ``q mod 4 = (x·2^t mod 4)·(a mod 4) mod 4``.

    Parameters
    ----------
    x : numpy.ndarray
        Shape ``(N, m)``, float64, finite.
    frequencies : numpy.ndarray
        Shape ``(k,)``, float64 integers.
    factor : float
        The scale's factor of π, > 0.

    Returns
    -------
    tuple of numpy.ndarray
        ``(mask, q mod 4)``, both of shape ``(N, k, m)`` (``q`` int64, 0 off the mask).

    Examples
    --------
    >>> mask, q = dyadic_quarter_turns(np.array([[0.5], [0.3]]), np.array([1.0, 2.0]), 1.0)
    >>> mask[:, :, 0].tolist(), q[:, :, 0].tolist()
    ([[True, True], [False, False]], [[1, 2], [0, 0]])

    """
    shift, odd = _odd_parts(np.asarray(frequencies, np.float64).tobytes(), float(factor))
    values = x[:, None, :]
    with np.errstate(over="ignore"):
        y = np.ldexp(values, shift[None, :, None])
    mask = np.isfinite(y) & (y == np.floor(y)) & ((y != 0) | (values == 0))
    q = np.fmod(np.where(mask, y, 0.0), 4).astype(np.int64) * odd[None, :, None] % 4
    return mask, q


@functools.lru_cache(maxsize=8)
def _odd_parts(frequencies: bytes, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """``t`` and ``a mod 4`` of ``2·f·factor = a·2^t`` (``a`` odd) for each frequency ``f``."""
    shifts, odds = [], []
    for f in np.frombuffer(frequencies, dtype=np.float64):
        twice = 2 * Fraction(float(f)) * Fraction(factor)
        num, den = twice.numerator, twice.denominator  # den a power of 2; num odd unless den 1
        zeros = (num & -num).bit_length() - 1
        shifts.append(zeros - (den.bit_length() - 1))
        odds.append((num >> zeros) % 4)
    return np.array(shifts, dtype=np.int32), np.array(odds, dtype=np.int64)


def fill_turns(
    outs: tuple[np.ndarray, np.ndarray],
    positions: np.ndarray,
    rate: Fraction,
    frequency: tuple[float, float],
    factor: tuple[float, float] = (1.0, 0.0),
) -> None:
    """Fill ``factor·sin`` and ``factor·cos`` of ``π·rate·p`` into two ``(m,)`` views.

    ``frequency``: the double-double ``π·rate`` the direct kernel takes for the other rows
    (certified when the views are not float64). The exact rows are counted as checked.
    """
    from . import direct  # here: plan.py reads rational_power at start-up (pecli --help)

    sin, cos = outs
    mask, q = quarter_turns(positions, rate)
    rest = ~mask
    if rest.any():
        s, c = np.empty((int(rest.sum()), 1), sin.dtype), np.empty((int(rest.sum()), 1), cos.dtype)
        w, res = (np.array([x]) for x in frequency)
        direct.fill_sin_cos_direct(s, c, positions[rest], w, res, factor=factor)
        sin[rest], cos[rest] = s[:, 0], c[:, 0]
    if mask.any():
        s1, c1 = _rounded(factor, sin.dtype), _rounded(factor, cos.dtype)
        sin[mask] = np.choose(q, [0.0, s1, 0.0, -s1])
        cos[mask] = np.choose(q, [c1, 0.0, -c1, 0.0])
        TALLY.add(checked=int(mask.sum()) * sum(o.dtype != np.float64 for o in outs))


def _rounded(factor: tuple[float, float], dtype: np.dtype) -> float:
    """``hi + lo`` rounded once to ``dtype`` (certified)."""
    if dtype == np.float64:
        return factor[0] + factor[1]
    out = np.empty(1, dtype)
    rounded_sum(np.array([factor[0]]), np.array([factor[1]]), out)
    return float(out[0])
