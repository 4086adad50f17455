"""50-digit decimal arithmetic for the RoPE frequencies (exact formulas, then one rounding).

Every input (θ, factor, …) is taken as the exact value of its float64; the formulas of
:mod:`pecli.core.rope.formulas` are then evaluated with 50 significant digits, so the
float64 frequency and its residual (exact minus float64) hold about 40 correct digits.
A function decorated with :func:`fifty_digits` runs in that context, so its formula is
written with operators (``w / f * ramp``); each operator rounds once to 50 digits.
Pure standard library; no I/O.
"""

from __future__ import annotations

import decimal
import functools
from collections.abc import Callable
from decimal import Decimal
from typing import ParamSpec, TypeVar

__all__ = ["CTX", "PI", "dec", "fifty_digits", "inv_base", "to_float_pair"]

#: The context of every operation here (outside it, operators would use the thread's 28 digits).
CTX = decimal.Context(prec=50)
#: π to 60 digits.
PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")

_P = ParamSpec("_P")
_R = TypeVar("_R")


def fifty_digits(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``function`` in :data:`CTX`: its decimal operators round to 50 digits."""

    @functools.wraps(function)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with decimal.localcontext(CTX):
            return function(*args, **kwargs)

    return run


def dec(value: float) -> Decimal:
    """The exact decimal value of a float64 (or int)."""
    return Decimal(value) if isinstance(value, int) else Decimal(float(value))


@functools.lru_cache(maxsize=4096)
@fifty_digits
def inv_base(theta: Decimal, exponent: Decimal) -> Decimal:
    """``θ^(-exponent)``, 50 digits.

    Remembered by value: ``rope engines`` asks each engine's frequencies of the same θ and
    pairs (8 times 64 logarithms and exponentials of 50 digits, 20 ms of its start).
    """
    return (-(exponent * theta.ln())).exp()


@fifty_digits
def to_float_pair(value: Decimal) -> tuple[float, float]:
    """``(nearest float64, value minus it)``: the frequency and its residual."""
    head = float(value)
    return head, float(value - Decimal(head))
