"""ALiBi's slopes as powers ``2^(-c·k)``, rounded once to a format by an error bound, not a libc.

ALiBi's slopes are ``2^(-b·e_h)`` with ``e_h = k_h / Q`` (integers ``k_h``, one ``Q``), so each
is ``β^k_h`` for the one number ``β = 2^(-b/Q)``. :func:`rounded_powers` works on integers:

1. ``β`` to ``PREC`` bits. The decimal module's ``ln``, ``exp``, products and quotients are
   each correctly rounded (relative error at most ``u = ½·10^(1-digits)``): with ``digits =
   0.302·PREC + 12`` and ``|b/Q·ln 2| <= 710``, ``β`` is off by at most ``800·u < 2^-PREC``
   relative, then cut to a ``PREC``-bit integer mantissa (below one unit more): ``δ =
   2^(3-PREC)`` bounds it relative (two cuts, each below ``2^(1-PREC)``).
2. ``β^k`` for the ``k`` in increasing order, each the one before times ``β^(k - k')``; the
   powers of ``β`` by squarings and products. Every product is cut to ``PREC`` bits (relative
   error below ``δ``). By induction the squares ``β^(2^i)`` are within ``(1+δ)^(2^(i+1)-1)``,
   a power ``β^j`` made of them within ``(1+δ)^(2j)``, and ``β^k`` within ``(1+δ)^(3k)``
   (each step ``k' → k`` adds ``2(k-k')`` and its own cut, and there are at most ``k`` steps):
   ``|error| <= (1+δ)^(3k) - 1 <= 6kδ`` while ``3kδ <= 1/2`` (``k <= 2^40``), so the exact
   power is within ``6kδ/(1-6kδ) <= 12kδ`` of the computed one relative, at most ``96k``
   units of its ``PREC``-bit mantissa.
3. Each end of ``mantissa ± (128k + 128)`` is rounded to the format (nearest, ties to even). When
   both ends round to the same number, so does the exact power (rounding is monotone). When
   they do not, the power is near a midpoint and it is done again at twice ``PREC``. This stops:
   ``2^x`` for a rational ``x`` is a power of two (a representable number, half a unit from
   every midpoint) or irrational (never a midpoint).

Pure Python integers and :mod:`decimal`; no floating-point step decides a bit.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ...dtypes import MIN_EXPONENT, SIGNIFICAND_BITS
from ...errors import ParameterError

__all__ = ["exp2_multiples", "first_below_normal", "rounded_powers", "rounded_slopes"]


_PREC = 128  # first working precision, in bits
_Number = tuple[int, int]  # mantissa · 2^exponent, the mantissa of exactly PREC bits


def _normal(a: int, e: int, prec: int) -> _Number:
    """``a·2^e`` cut (towards 0) to a mantissa of ``prec`` bits."""
    shift = a.bit_length() - prec
    return (a >> shift, e + shift) if shift > 0 else (a << -shift, e + shift)


def _base(step: Fraction, prec: int) -> _Number:
    """``2^(-step)`` within ``δ = 2^(3-prec)`` relative (module note, point 1)."""
    context = decimal.Context(prec=int(0.302 * prec) + 12, Emin=-999999, Emax=999999)
    ratio = context.divide(decimal.Decimal(step.numerator), decimal.Decimal(step.denominator))
    value = context.exp(context.minus(context.multiply(ratio, context.ln(decimal.Decimal(2)))))
    numerator, denominator = value.as_integer_ratio()
    shift = prec + denominator.bit_length() - numerator.bit_length()
    return _normal((numerator << shift) // denominator, -shift, prec)


def _power(squares: list[_Number], k: int, prec: int) -> _Number:
    """``β^k`` from the squares ``β^(2^i)``, each product cut to ``prec`` bits."""
    a, e = 1 << (prec - 1), 1 - prec  # 1
    i = 0
    while k:
        if k & 1:
            a, e = _normal(a * squares[i][0], e + squares[i][1], prec)
        k >>= 1
        i += 1
    return a, e


def _round(a: int, e: int, bits: int) -> _Number:
    """``a·2^e`` (``a > 0``) rounded to ``bits`` significant bits, ties to even."""
    shift = a.bit_length() - bits
    if shift <= 0:
        return a << -shift, e + shift
    m, rest = a >> shift, a & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    m += rest > half or (rest == half and m & 1)
    if m >> bits:  # rounded up to the next power of two
        m, shift = m >> 1, shift + 1
    return m, e + shift


def rounded_powers(step: Fraction, ks: Sequence[int], bits: int) -> list[_Number]:
    """``2^(-step·k)`` for each ``k`` in ``ks``, rounded once to ``bits`` significant bits.

    Parameters
    ----------
    step : Fraction
        ``c >= 0``, exact (ALiBi: ``max_bias / Q``).
    ks : sequence of int
        The integer powers ``k >= 0`` (at most 2^40).
    bits : int
        Significant bits of the format (:data:`pecli.core.dtypes.SIGNIFICAND_BITS`); the
        caller keeps the results in its normal range (there is no subnormal rounding here).

    Returns
    -------
    list of (int, int)
        ``(m, e)``: the rounded value is ``m·2^e`` exactly (``m < 2^bits``).

    Examples
    --------
    >>> m, e = rounded_powers(Fraction(1, 2), [1], 53)[0]  # 2^-0.5 to float64
    >>> m * 2.0**e == 2**-0.5
    True

    """
    prec, found = _PREC, {}
    todo = sorted(set(ks))
    while todo:
        squares = [_base(step, prec)]
        for _ in range(max(todo).bit_length()):
            a, e = squares[-1]
            squares.append(_normal(a * a, 2 * e, prec))
        undecided, steps, (a, e), last = [], {}, (1 << (prec - 1), 1 - prec), 0
        for k in todo:  # β^k = β^last · β^(k - last)
            if k - last not in steps:
                steps[k - last] = _power(squares, k - last, prec)
            b, f = steps[k - last]
            (a, e), last = _normal(a * b, e + f, prec), k
            bound = 128 * k + 128  # units of a (module note, point 2)
            low, high = _round(a - bound, e, bits), _round(a + bound, e, bits)
            if low == high:
                found[k] = low
            else:
                undecided.append(k)
        todo, prec = undecided, 2 * prec
    return [found[k] for k in ks]


def first_below_normal(step: Fraction, ks: Sequence[int], dtype: str) -> int | None:
    """The index of the first ``k`` whose ``2^(-step·k)`` is below ``dtype``'s normal range.

    None when every power is at least its smallest normal number ``2^emin`` (exact test:
    ``step·k <= -emin``).

    >>> first_below_normal(Fraction(128), [0, 1, 2], "float32")
    1
    """
    top = -MIN_EXPONENT[dtype] * step.denominator  # step·k > -emin, in integers
    return next((i for i, k in enumerate(ks) if k * step.numerator > top), None)


def exp2_multiples(step: Fraction, ks: Sequence[int], dtype: str) -> np.ndarray:
    """``2^(-step·k)`` for each ``k``, each rounded once to ``dtype`` (float64 or float32).

    Raises
    ------
    ValueError
        A power below the normal range (check :func:`first_below_normal` first).

    Examples
    --------
    >>> exp2_multiples(Fraction(1, 4), [0, 2, 4], "float32").tolist()
    [1.0, 0.7071067690849304, 0.5]

    """
    if first_below_normal(step, ks, dtype) is not None:
        raise ValueError(f"a power below {dtype}'s normal range")
    rounded = rounded_powers(step, ks, SIGNIFICAND_BITS[dtype])
    return np.array([math.ldexp(m, e) for m, e in rounded], dtype=np.float64).astype(dtype)


def rounded_slopes(max_bias: float, unit: int, ks: Sequence[int], dtype: str) -> np.ndarray:
    """ALiBi's slopes ``2^(-max_bias·k/unit)``, each rounded once to ``dtype``.

    Raises
    ------
    ParameterError
        (as ``max_bias``) a slope below ``dtype``'s normal range: 0 or a subnormal would lose it.

    Examples
    --------
    >>> rounded_slopes(8.0, 8, [2, 4, 6, 8], "float32").tolist()  # 4 heads: 2^-2 … 2^-8
    [0.25, 0.0625, 0.015625, 0.00390625]

    """
    step = Fraction(max_bias) / unit
    head = first_below_normal(step, ks, dtype)
    if head is not None:
        emin = MIN_EXPONENT[dtype]
        rule = (
            f"gives slopes below {dtype}'s normal range (2^{emin}: head {head} would be "
            f"2^-{float(step * ks[head]):g}, a subnormal or 0 there); at most "
            f"{-emin / max(ks) * unit:g} with {len(ks)} heads"
        )
        raise ParameterError("max_bias", rule, max_bias)
    return exp2_multiples(step, ks, dtype)
