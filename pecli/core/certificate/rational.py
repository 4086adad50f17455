"""Exact rational powers ``(a/b)^(p/γ)`` and their correct rounding, for the fallback.

Ziv's loop (:mod:`.fallback`) narrows an interval around the exact value until it lies on one
side of every rounding boundary; a value *exactly on* a boundary, a midpoint between two
numbers of the output dtype, is never separated from it at any precision. ``(a/b)^(p/γ)``
with integers ``a, b, p`` and a float ``γ`` has a rational exponent ``r/s`` (``γ`` is a binary
fraction), so it is rational exactly when ``a/b`` in lowest terms has an ``s``-th root in
integers (unique factorisation), e.g. the xPos base ``ζ_15 = 406/896 = 29/64`` at ``d = 128``
to the power 5 is ``29^5/2^30``, ``29^5 = 20,511,149`` having 25 bits: halfway between two
float32 numbers. :func:`exact_power` finds such values and :func:`rounded_fraction` rounds
them in integers, ties to even; every other value is irrational, or rational too large to be
a number or a midpoint of any float dtype, and Ziv's loop decides it. Pure Python integers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..dtypes import MIN_EXPONENT, SIGNIFICAND_BITS

__all__ = ["MIDPOINT_BITS", "exact_power", "integer_root", "rounded_fraction"]

#: Every number and midpoint of float64, float32, float16 and bfloat16 in lowest terms has a
#: numerator and a denominator below ``2^MIDPOINT_BITS``: an odd significand of at most 54
#: bits times ``2^E`` with ``-1075 <= E <= 1024`` (float64 is the widest).
MIDPOINT_BITS = 1100


def integer_root(n: int, k: int) -> int | None:
    """The integer ``k``-th root of ``n >= 1`` if there is one (bisection, exact).

    >>> integer_root(10000, 4), integer_root(10000, 3), integer_root(1, 10**9)
    (10, None, 1)

    """
    if n == 1:
        return 1
    if k >= n.bit_length():  # 2^k > n >= 2: only 1 could be the root, and 1^k != n
        return None
    lo, hi = 1, 1 << (n.bit_length() // k + 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if mid**k <= n else (lo, mid - 1)
    return lo if lo**k == n else None


def exact_power(a: int, b: int, p: int, gamma: float) -> Fraction | None:
    """``(a/b)^(p/γ)`` exactly, when it is rational and small enough to be a float or midpoint.

    Parameters
    ----------
    a, b : int
        The base's numerator and denominator, ``>= 1``.
    p : int
        The exponent's numerator.
    gamma : float
        The exponent's denominator, finite, ``> 0`` (a binary fraction, so ``p/γ = r/s``).

    Returns
    -------
    fractions.Fraction or None
        The exact value; None when it is irrational (``a/b`` in lowest terms has no integer
        ``s``-th root: unique factorisation), or rational with a numerator or denominator of
        at least ``2^MIDPOINT_BITS``, hence neither a number nor a midpoint of any float dtype
        (:data:`MIDPOINT_BITS`). Either way no rounding boundary holds it, and an mpmath
        evaluation at a high enough precision decides its rounding.

    Examples
    --------
    >>> exact_power(406, 896, 2560, 512.0)  # xPos, d = 128, pair 15, position 2560
    Fraction(20511149, 1073741824)
    >>> exact_power(2, 7, 1, 2.0) is None  # sqrt(2/7): irrational
    True

    """
    base, exponent = Fraction(a, b), Fraction(p) / Fraction(gamma)
    top = integer_root(base.numerator, exponent.denominator)
    bottom = integer_root(base.denominator, exponent.denominator)
    if top is None or bottom is None:
        return None
    r = abs(exponent.numerator)
    if any(r * (n.bit_length() - 1) >= MIDPOINT_BITS for n in (top, bottom)):  # n^r ≥ 2^(r·…)
        return None
    root = Fraction(top, bottom)
    return root**exponent.numerator  # at most r·len(n) <= 2·MIDPOINT_BITS bits each: cheap


def rounded_fraction(x: Fraction, dtype: object) -> float:
    """``x`` rounded to nearest, ties to even, in ``dtype`` (subnormals on their quantum).

    Returned as a Python float, exactly; a value past the dtype's largest number rounds like
    an unbounded exponent would (the caller's cast makes it inf, as for :func:`.correctly_rounded`).

    >>> rounded_fraction(Fraction(20511149, 2**30), np.float32) * 2**29  # halfway: to even
    10255574.0
    >>> rounded_fraction(Fraction(3, 2**150), np.float32) == 2.0**-148  # 1.5 quanta: to even
    True

    """
    name = np.dtype(dtype).name  # type: ignore[call-overload]
    bits, emin = SIGNIFICAND_BITS[name], MIN_EXPONENT[name]
    if x == 0:
        return 0.0
    size = abs(x)
    exponent = size.numerator.bit_length() - size.denominator.bit_length()  # or one less
    if size < Fraction(2) ** exponent:
        exponent -= 1  # now 2^exponent <= size < 2^(exponent + 1)
    quantum = max(exponent, emin) - bits + 1
    significand = round(size / Fraction(2) ** quantum)  # Fraction's round: half to even
    return math.copysign(math.ldexp(significand, quantum), x)  # exact: at most bits + 1 bits
