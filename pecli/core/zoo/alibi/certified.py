"""ALiBi's products ``μ_h·d`` rounded to float32 under the certificate (docs/exactness.md#alibi).

Every value of the bias tensors but Falcon's is ``±μ_h·d`` for an integer distance
``0 <= d < k`` (or ``-inf`` above a causal diagonal): :func:`distance_rows` makes, head by
head, the row ``round(μ_h·d)`` for ``d = 0 … k-1``, and the tensors are copies of its values,
negated or not (exact). Each row value is computed in float64 as ``v = fl(m·d)`` from the
correctly rounded float64 slope ``m`` (:mod:`.powers`): with ``u = 2^-53``,
``m = μ(1 + δ1)`` and ``v = m·d·(1 + δ2)``, ``|δ1|, |δ2| <= u``, so
``|v - μd| <= (2u + u²)/(1 - u)²·|v| <= 2u·(1 + 2^-50)·|v|`` (:data:`PRODUCT_BOUND`). A value
whose rounding that bound leaves undecided is recomputed from the exact ``b``, ``k_h``,
``Q`` and ``d`` with mpmath (:func:`exact_products`). No value is ever a float32 midpoint:
``μd`` is irrational, or ``μ`` a power of two and ``μd`` has at most 24 significant bits
(``d < 2^24``), a float32 number. Pure NumPy and mpmath; no I/O.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from ...certificate import TALLY, ErrorBound, correctly_rounded, round_certified
from ...errors import RuntimeFailure
from .slopes import ExactSlopes

__all__ = ["PRODUCT_BOUND", "distance_rows", "exact_products"]

#: ``|fl(m·d) - μd| <= 2u·(1 + 2^-50)·|fl(m·d)|`` (module note).
PRODUCT_BOUND = ErrorBound(
    relative=2.0**-52 * (1 + 2.0**-50), source="docs/exactness.md#alibi: a rounded slope times d"
)
#: Products checked at a time (256 KB of float64).
CHUNK_VALUES = 1 << 15
#: Working precisions (bits) of the recomputation, tried in turn.
PRECISIONS = (128, 256)


def distance_rows(
    slopes: ExactSlopes, rounded: np.ndarray, n_key: int, dtype: DTypeLike
) -> np.ndarray:
    """``round(μ_h·d)`` in ``dtype`` for each head ``h`` and ``d = 0 … n_key - 1``, certified.

    Parameters
    ----------
    slopes : ExactSlopes
        The exact slopes ``μ_h`` of the heads.
    rounded : numpy.ndarray
        float64, shape ``(h,)``: the same slopes, each correctly rounded to float64.
    n_key : int
        The distances ``0 … n_key - 1`` (``n_key <= 2^24``).
    dtype : numpy.dtype
        float32 (the certificate's format; see the module note on midpoints).

    Returns
    -------
    numpy.ndarray
        ``dtype``, shape ``(h, n_key)``: every value the exact ``μ_h·d`` rounded once;
        :data:`~pecli.core.certificate.TALLY` counts them and the recomputed ones.

    Examples
    --------
    >>> s = ExactSlopes(8.0, 16, (1,))  # one slope 2^-0.5, irrational
    >>> distance_rows(s, s.rounded(), 3, np.float32).tolist()
    [[0.0, 0.7071067690849304, 1.4142135381698608]]

    """
    out = np.empty((rounded.size, n_key), dtype=dtype)
    step = max(1, CHUNK_VALUES // rounded.size)
    for start in range(0, n_key, step):  # a few hundred KB at a time: no page faults
        distances = np.arange(start, min(start + step, n_key), dtype=np.float64)

        def recompute(
            flat: np.ndarray, first: int = start, width: int = distances.size
        ) -> np.ndarray:
            heads, columns = np.divmod(flat, width)
            return exact_products(slopes, heads, first + columns, dtype)

        chunk = out[:, start : start + step]
        recomputed = round_certified(rounded[:, None] * distances, PRODUCT_BOUND, chunk, recompute)
        TALLY.add(checked=chunk.size, recomputed=recomputed)
    return out


def exact_products(
    slopes: ExactSlopes, heads: np.ndarray, distances: np.ndarray, dtype: DTypeLike
) -> np.ndarray:
    """``μ_h·d`` for each pair ``(h, d)``, correctly rounded to ``dtype`` (mpmath).

    The exponent ``b·k_h/Q`` is a ratio of integers and ``d`` an integer, so only mpmath's own
    error is bounded: ``2^(12 - prec)`` relative (the exponent's rounding, ``<= 2^-prec``
    relative, moves ``2^x`` by at most ``|x|·ln 2·2^-prec``, ``|x| <= 1024``; the power and the
    product add an ulp each). Undecided at 256 bits: :class:`RuntimeFailure` (none can be:
    no ``μ_h·d`` is a midpoint). Returns float64 holding values of ``dtype``.

    >>> exact_products(ExactSlopes(8.0, 8, (1,)), np.array([0]), np.array([3]), np.float32)
    array([1.5])

    """
    step = slopes.step
    pairs = zip(np.asarray(heads).tolist(), np.asarray(distances).tolist(), strict=True)
    exponents = [(step.numerator * slopes.powers[h], d) for h, d in pairs]
    return np.array([_decided(a, step.denominator, d, dtype) for a, d in exponents], np.float64)


def _decided(numerator: int, denominator: int, d: int, dtype: DTypeLike) -> float:
    """``2^(-numerator/denominator)·d`` rounded to ``dtype`` at the first precision deciding it."""
    import mpmath

    for prec in PRECISIONS:
        with mpmath.workprec(prec):
            x = mpmath.power(2, -mpmath.mpf(numerator) / denominator) * d
            e = abs(x) * mpmath.ldexp(1, 12 - prec)
            low, high = correctly_rounded(x - e, dtype), correctly_rounded(x + e, dtype)
        if low == high:
            return low
    raise RuntimeFailure(f"an ALiBi bias value stays undecided at {PRECISIONS[-1]} bits: {x}")
