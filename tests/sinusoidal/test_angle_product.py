"""The double-double product ``x·(ω + r)``: exact against Python's fractions, zero terms skipped.

Frequencies of at most 26 bits (integers, Fourier features' harmonics) have no low half and
a zero residual adds nothing: those terms are skipped, so every case here is checked against
the exact rational product, and the tail's sign of zero against its rule (never −0).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pecli.core.angles import product

X = np.array([0.0, -0.0, 1e-30, 0.1, -0.7, 3.0, 1e6 + 0.5, -123456.789, 2.0**40 + 1, 7e15])


@pytest.mark.parametrize(
    ("omega", "residual"),
    [
        (np.arange(1.0, 65.0), np.zeros(64)),  # harmonics: no low half, no residual
        (2.0 ** np.arange(-8, 10), np.zeros(18)),  # powers of 2
        (10000.0 ** -(np.arange(32) / 32), np.full(32, 3e-20)),  # full-width ω, a residual
        (np.arange(1.0, 65.0), np.full(64, -(2.0**-60))),  # integer ω, a residual
    ],
)
def test_head_plus_tail_is_the_exact_product_to_the_tail_rounding(omega, residual):
    hi, lo = product(X[:, None], omega[None, :], residual[None, :])
    for i, x in enumerate(X.tolist()):
        for j, w in enumerate(omega.tolist()):
            whole = Fraction(x) * (Fraction(w) + Fraction(float(residual[j])))
            assert float(hi[i, j]) == x * w  # the head is fl(x·ω)
            apart = abs(Fraction(float(hi[i, j])) + Fraction(float(lo[i, j])) - whole)
            assert apart <= abs(whole) * Fraction(2) ** -100  # the tail's own rounding
            assert not (lo[i, j] == 0 and np.signbit(lo[i, j]))  # never -0


def test_sin_cos_of_a_double_double_with_a_large_tail_fills_both_outputs():
    """``hi + lo`` = 1 + 10^-3 (a tail above 2^-27): sin and cos against mpmath, into float32."""
    import mpmath

    from pecli.core.angles import sin_cos

    hi, lo = np.array([1.0, 2.0]), np.array([1e-3, -1e-3])
    out = (np.full(2, np.nan, np.float32), np.full(2, np.nan, np.float32))
    sin_cos((hi, lo), out=out)
    with mpmath.workprec(200):
        angles = [mpmath.mpf(1.0) + mpmath.mpf(1e-3), mpmath.mpf(2.0) - mpmath.mpf(1e-3)]
        sin = [np.float32(float(mpmath.sin(a))) for a in angles]
        cos = [np.float32(float(mpmath.cos(a))) for a in angles]
    assert out[0].tolist() == sin and out[1].tolist() == cos
