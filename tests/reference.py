"""Independent references for the tests: mpmath at 40 digits and plain loops over the formulas.

Nothing here imports pecli: these are the values pecli is checked against.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

mpmath.mp.dps = 40


def mp_omega(i: int, d: int, base: float) -> mpmath.mpf:
    """ω_i = C^(-2(i-1)/d) for the 1-based pair i, exactly (to 40 digits)."""
    return mpmath.power(mpmath.mpf(base), -mpmath.mpf(2 * (i - 1)) / d)


def mp_pe(pos: float, d: int, base: float = 10000.0) -> list[mpmath.mpf]:
    """pe(pos) as a list of d mpmath numbers, 1-based component 2i-1 = sin, 2i = cos."""
    row = []
    for i in range(1, d // 2 + 1):
        angle = mpmath.mpf(pos) * mp_omega(i, d, base)
        row += [mpmath.sin(angle), mpmath.cos(angle)]
    return row


def mp_pe_shift(pos: float, d: int, base: float, shift: float) -> list[mpmath.mpf]:
    """pe(pos) for the schedule ω_j = C^(-j/(h-s)) (docs/conventions.md), interleaved."""
    h = d // 2
    row = []
    for j in range(h):
        angle = mpmath.mpf(pos) * mpmath.power(mpmath.mpf(base), -mpmath.mpf(j) / (h - shift))
        row += [mpmath.sin(angle), mpmath.cos(angle)]
    return row


def mp_table(positions, d: int, base: float = 10000.0) -> np.ndarray:
    """mpmath table rounded once to float64 (the correctly rounded float64 table)."""
    return np.array([[float(v) for v in mp_pe(p, d, base)] for p in positions])


def loop_table(positions, d: int, base: float = 10000.0) -> np.ndarray:
    """A plain double loop straight from the formula of docs/encoding.md, in float64 via math."""
    out = np.zeros((len(positions), d))
    for r, pos in enumerate(positions):
        for k in range(1, d + 1):  # 1-based component
            i = (k + 1) // 2
            angle = pos / base ** (2 * (i - 1) / d)
            out[r, k - 1] = math.sin(angle) if k % 2 == 1 else math.cos(angle)
    return out
