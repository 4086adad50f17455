"""Which columns are sine/cosine pairs, and the constant factor on them (MLX's ``sqrt(2/d)``).

A pair ``(a sin θ, a cos θ)`` lies on a circle of radius ``a`` whatever ``θ``: an amplitude is
one factor on every column, so ``sin² + cos² = a²`` over every pair and row tells it, and the
table divided by it is fitted as any other. MLX's ``SinusoidalPositionalEncoding`` uses
``a = sqrt(2/d)`` unless its ``scale`` is given (``mlx/nn/layers/positional_encoding.py``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["AMPLITUDE_TOLERANCE", "CIRCLE_TOLERANCE", "amplitude_name", "circle_radius"]

#: Largest ``|sin² + cos² - a²| / a²`` for a pairing to count as sine/cosine pairs.
CIRCLE_TOLERANCE = 0.05
#: A radius within this relative distance of 1 or ``sqrt(2/d)`` is read as that value: far
#: above what a framework's float32 arithmetic moves the mean radius, far below any factor
#: a library puts on purpose.
AMPLITUDE_TOLERANCE = 1e-4


def circle_radius(sines: np.ndarray, cosines: np.ndarray) -> float:
    """The common radius ``a`` of every ``(sin, cos)`` pair (ValueError: not on one circle).

    A few rows are checked first, so that a table of other columns fails fast.

    Examples
    --------
    >>> theta = np.array([[0.0, 1.0], [2.0, 3.0]])
    >>> round(circle_radius(0.5 * np.sin(theta), 0.5 * np.cos(theta)), 12)
    0.5

    """
    with np.errstate(over="ignore"):  # a square beyond float64 is inf: on no circle
        squares = sines[:16] ** 2 + cosines[:16] ** 2
        radius = math.sqrt(float(np.mean(squares))) if squares.size else 1.0
        for part in (slice(0, 16), slice(None)):
            circle = sines[part] ** 2 + cosines[part] ** 2
            spread = (
                float(np.max(np.abs(circle / radius**2 - 1.0), initial=0))
                if 0 < radius < math.inf
                else math.inf
            )
            if spread > CIRCLE_TOLERANCE:
                worst = float(np.max(np.abs(circle - 1.0), initial=0))
                raise ValueError(
                    f"columns are not sine/cosine pairs (|sin² + cos² - 1| up to {worst:.2g})"
                )
    return math.sqrt(float(np.mean(sines**2 + cosines**2)))


def amplitude_name(radius: float, d: int, rounding: float = 0.0) -> float | str:
    """The amplitude as ``pecli compute --amplitude`` takes it: 1, ``"sqrt(2/d)"`` or a number.

    A radius within :data:`AMPLITUDE_TOLERANCE` (or 4 ``rounding``, the storage's unit
    roundoff, for float16 and bfloat16) of 1 or of ``sqrt(2/d)`` is read as that exact value;
    another is the shortest decimal within half a ``rounding`` of it (relative), else its 9
    digits: the mean radius of a float32 table of amplitude 0.5 is 0.499999998, whose table
    is not the one ``--amplitude 0.5`` writes. The residual then says whether the table is
    reproduced.

    Examples
    --------
    >>> amplitude_name(0.1767767, 64), amplitude_name(1.0000001, 64), amplitude_name(2.5, 64)
    ('sqrt(2/d)', 1.0, 2.5)
    >>> amplitude_name(0.499999998, 4, 2.0**-24), amplitude_name(0.499999998, 4)
    (0.5, 0.499999998)

    """
    tolerance = max(AMPLITUDE_TOLERANCE, 4 * rounding)
    if abs(radius - 1.0) <= tolerance:
        return 1.0
    if abs(radius / math.sqrt(2 / d) - 1.0) <= tolerance:
        return "sqrt(2/d)"
    for digits in range(1, 10):
        short = float(f"{radius:.{digits}g}")
        if abs(short - radius) <= rounding / 2 * abs(radius):
            return short
    return float(f"{radius:.9g}")
