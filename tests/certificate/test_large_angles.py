"""The consecutive kernel's bound near position 2^53 (``--full-turns``: angles up to 5.7e16).

``32u`` is argued for factors on ``angles.sin_cos``'s small-tail path (``|lo| < 2^-27``) with
the inputs' error negligible: true while every angle is below 2^24. Past it the bound is
``64u + 3·2^-100·θ_max`` (docs/exactness.md, "Large angles"). The kernel's float64 values are
checked against mpmath's ``sin``/``cos`` of the exact ``2π·ω·p`` (``mpmath.pi``, 300 bits),
and a float32 table there against mpmath's rounding, never against pecli.
"""

from __future__ import annotations

import mpmath
import numpy as np
from planted import rounded

from pecli.core import kernels
from pecli.core.sinusoidal.encoding import encoding_table
from pecli.core.sinusoidal.frequencies import frequencies_with_residuals
from pecli.core.sinusoidal.knobs import check_angle_scale

U = 2.0**-53
FIRST = 2.0**53 - 2048


def test_the_bound_is_the_constant_below_2_24_and_grows_past_it():
    one, zero = np.array([1.0]), np.zeros(1)
    assert kernels.consecutive_bound(1e7, 1000, one, zero) is kernels.CONSECUTIVE_BOUND
    big = kernels.consecutive_bound(FIRST, 512, 2 * np.pi * one, zero)
    theta = (FIRST + 512 + 2 * 256 * 64) * 2 * np.pi  # the reach, by hand
    assert big.absolute == 64 * U + 3 * 2.0**-100 * theta  # 4.7e-14, about 420u


def test_float64_values_near_2_53_with_full_turns_lie_within_the_bound():
    d, m = 8, 512
    w, res = frequencies_with_residuals(
        d, 10000.0, 0.0, "error", check_angle_scale(1.0, full_turns=True)
    )
    out = np.empty((m, d))
    kernels.fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], FIRST, w, omega_residual=res)
    bound = kernels.consecutive_bound(FIRST, m, w, res).absolute
    worst = 0.0
    with mpmath.workprec(300):
        omegas = [2 * mpmath.pi * mpmath.mpf(10) ** -j for j in range(d // 2)]  # 10000^(-2j/8)
        for r in range(0, m, 5):
            for j, omega in enumerate(omegas):
                x = (mpmath.mpf(FIRST) + r) * omega
                worst = max(
                    worst,
                    abs(float(mpmath.sin(x) - out[r, 2 * j])),
                    abs(float(mpmath.cos(x) - out[r, 2 * j + 1])),
                )
    assert worst <= bound
    assert worst < 8 * U  # measured 2.5u: the general path's bound is wide, not the values


def test_a_float32_table_near_2_53_with_full_turns_matches_mpmath():
    start, n, d = 9007199254740000, 64, 8
    table = encoding_table(n=n, d=d, start=start, full_turns=True, dtype="float32")
    with mpmath.workprec(300):
        for r in range(n):
            for j in range(d // 2):
                x = (mpmath.mpf(start) + r) * 2 * mpmath.pi * mpmath.mpf(10) ** -j
                for c, f in ((2 * j, mpmath.sin), (2 * j + 1, mpmath.cos)):
                    y = f(x)  # exactly 0 at whole quarter turns: mpmath leaves ~1e-80
                    want = 0.0 if abs(y) < 1e-60 else rounded(y, "float32")
                    assert float(table[r, c]) == want, (r, c)
