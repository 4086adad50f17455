"""50-digit decimal arithmetic for the RoPE frequencies (exact formulas, then one rounding).

Every input (θ, factor, …) is taken as the exact value of its float64; the formulas of
:mod:`pecli.core.rope.frequencies` are then evaluated with 50 significant digits, so the
float64 frequency and its residual (exact minus float64) hold about 40 correct digits.
Pure standard library; no I/O.
"""

from __future__ import annotations

import decimal
from decimal import Decimal

__all__ = ["CTX", "PI", "dec", "inv_base", "ln", "to_float_pair"]

#: The context of every operation here (operators would use the thread's 28 digits).
CTX = decimal.Context(prec=50)
#: π to 60 digits.
PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")


def dec(value: float) -> Decimal:
    """The exact decimal value of a float64 (or int)."""
    return Decimal(value) if isinstance(value, int) else Decimal(float(value))


def ln(value: Decimal) -> Decimal:
    """Natural logarithm, 50 digits."""
    return CTX.ln(value)


def inv_base(theta: Decimal, exponent: Decimal) -> Decimal:
    """``θ^(-exponent)``, 50 digits."""
    return CTX.exp(CTX.minus(CTX.multiply(exponent, ln(theta))))


def to_float_pair(value: Decimal) -> tuple[float, float]:
    """``(nearest float64, value minus it)``: the frequency and its residual."""
    head = float(value)
    return head, float(CTX.subtract(value, Decimal(head)))
