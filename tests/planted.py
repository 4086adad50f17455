"""Helpers of the certificate's writer tests: mpmath's rounding, and a value planted on a tie.

``rounded(x, dtype)`` is mpmath's own rounding of ``x`` to the significand of ``dtype``
(round to nearest, ties to even: ``mpmath.workprec(bits)`` and unary plus), for values in
the normal range of the dtype (the tests keep them there), never pecli's.
:func:`plant_tie` replaces one value of :func:`pecli.core.angles.sin_cos` (the kernels'
direct evaluation) by a tie of the output dtype next to it: rounding alone would write the
even neighbour; only the certificate's fallback writes the correctly rounded value.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np

#: Significand bits of each output dtype (IEEE 754-2008; bfloat16: 8).
BITS = {"float32": 24, "float16": 11, "bfloat16": 8}


def rounded(x: mpmath.mpf, dtype: str) -> float:
    """``x`` rounded to nearest, ties to even, on ``dtype``'s significand (normal range)."""
    with mpmath.workprec(BITS[dtype]):
        return float(+x)


def odd_tie(x: mpmath.mpf, dtype: str) -> float | None:
    """The tie next to ``x``'s rounding ``r`` on ``dtype`` when ``r`` is odd (else None).

    An odd ``r`` has even neighbours, so the tie (halfway from ``r`` to a neighbour) rounds to
    the neighbour, not to ``r``: a value planted there is written wrong unless recomputed.
    """
    r = mpmath.mpf(rounded(x, dtype))
    exponent = int(mpmath.floor(mpmath.log(abs(r), 2)))
    quantum = mpmath.ldexp(1, exponent - BITS[dtype] + 1)
    if int(r / quantum) % 2 == 0:
        return None
    return float(r + quantum / 2)


def plant_tie(
    monkeypatch: object, angles: object, hit: Callable[[np.ndarray], np.ndarray], value: float
) -> list[int]:
    """Make ``angles.sin_cos`` return ``value`` as the cosine where ``hit(angle_hi)`` holds.

    Returns a list that counts the planted entries (one per call that hit).
    """
    real = angles.sin_cos  # type: ignore[attr-defined]
    planted: list[int] = []

    def sin_cos(angle, out=None):
        s, c = real(angle)
        where = hit(np.asarray(angle[0]))
        if np.any(where):
            c = np.array(c, copy=True)
            c[where] = value
            planted.append(int(np.count_nonzero(where)))
        if out is not None:
            out[0][...], out[1][...] = s, c
            return out
        return s, c

    monkeypatch.setattr(angles, "sin_cos", sin_cos)  # type: ignore[attr-defined]
    return planted
