"""A kernel's values times a factor, rounded under the certificate with the product's bound.

A rotary cache's attention factor and a table's amplitude multiply the kernel's float64
values ``v`` before the one rounding to the output dtype: ``s = fl(fl(v·hi) + fl(v·lo))``
for the double-double factor ``A = hi + lo`` (``s = fl(v·hi)`` when ``lo = 0``). With ``v``
within ``abs + rel·|v|`` of the exact ``x`` (the kernel's :class:`~.bounds.ErrorBound`),
``s`` is within :func:`scaled_bound` of ``A·x`` (docs/exactness.md, "Factors"). Pure NumPy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .bounds import UNIT_ROUNDOFF, ErrorBound, round_certified

__all__ = ["round_scaled", "scaled", "scaled_bound"]

#: Relative distance of a double-double factor from the exact one (``sqrt(2/d)`` to 40 digits:
#: about 2^-106), taken as the inputs' 2^-100.
FACTOR_ERROR = 2.0**-100


def scaled(values: np.ndarray, factor: tuple[float, float]) -> np.ndarray:
    """``fl(fl(v·hi) + fl(v·lo))`` (``fl(v·hi)`` when ``lo = 0``), float64.

    >>> scaled(np.array([0.5, -1.0]), (3.0, 0.0)).tolist()
    [1.5, -3.0]

    """
    hi, lo = factor
    if (hi, lo) == (1.0, 0.0):
        return values
    product: np.ndarray = values * hi + values * lo if lo else values * hi
    return product


def scaled_bound(bound: ErrorBound, factor: tuple[float, float]) -> ErrorBound:
    """The bound of :func:`scaled`'s ``s`` around ``A·x``, from ``bound`` of ``v`` around ``x``.

    ``|s − A·v| <= 2u·|A·v|·(1 + 2u)`` (three roundings, two of them on parts summing to
    ``A·v``; one when ``lo = 0``), ``|A·v − A·x| <= |A|·abs + rel·|A·v|``, and
    ``|A·v| <= |s|·(1 + 3u)``; a factor with a tail adds its own ``2^-100·|s|``. The factor
    1 leaves values and bound as they are.

    >>> b = scaled_bound(ErrorBound(absolute=1e-15), (2.0, 0.0))
    >>> b.absolute > 2e-15, b.relative > 2.0**-53
    (True, True)

    """
    hi, lo = factor
    if (hi, lo) == (1.0, 0.0):
        return bound
    size = (abs(hi) + abs(lo)) * (1 + 4 * UNIT_ROUNDOFF)
    rounding = (2 if lo else 1) * UNIT_ROUNDOFF + (FACTOR_ERROR if lo else 0.0)
    relative = (bound.relative + rounding) * (1 + 8 * UNIT_ROUNDOFF)
    absolute = np.asarray(bound.absolute) * size
    return ErrorBound(absolute if absolute.ndim else float(absolute), relative, "a factor")


def round_scaled(
    values: np.ndarray,
    bound: ErrorBound,
    factor: tuple[float, float],
    out: np.ndarray,
    recompute: Callable[[np.ndarray], np.ndarray],
) -> int:
    """``factor · values`` rounded into ``out`` under :func:`scaled_bound`; the recomputed count.

    ``recompute`` takes flat indices and returns the correctly rounded ``A·x`` there (e.g.
    :func:`~.fallback.sin_cos_exact` with ``factor``), as :func:`~.bounds.round_certified`.

    >>> out = np.empty(2, np.float32)
    >>> round_scaled(np.array([0.25, 0.5]), ErrorBound(1e-16), (2.0, 0.0), out, None), out
    (0, array([0.5, 1. ], dtype=float32))

    """
    return round_certified(scaled(values, factor), scaled_bound(bound, factor), out, recompute)
