"""Argument rules of grid tables (:mod:`pecli.core.grids`), beside the general ones.

Every check returns the value in its working type or raises
:class:`~pecli.core.errors.ParameterError` naming the argument and the rule, as
:mod:`pecli.core.rules` does for the 1-D encoding (whose ``as_int`` they share).
"""

from __future__ import annotations

import math

from ..errors import ParameterError
from ..rules import as_int

__all__ = [
    "MAX_GRID_TOKENS",
    "check_extra_tokens",
    "check_grid_axes",
    "check_grid_scale",
    "check_grid_shape",
]


#: Largest number of tokens of a grid, H·W·…: the rows must stay countable exactly.
MAX_GRID_TOKENS = 1 << 40


def check_grid_shape(shape: object) -> tuple[int, ...]:
    """Return the grid's sides as a tuple; raise unless 1 to 4 integers >= 1, product <= 2^40.

    >>> check_grid_shape([3, 5])
    (3, 5)
    """
    rule = "must be 1 to 4 integers >= 1 (rows, columns, …) with at most 2^40 tokens"
    try:
        sides: tuple[object, ...] = tuple(shape)  # type: ignore[arg-type]
    except TypeError:
        raise ParameterError("shape", rule, shape) from None
    values = [as_int(side) for side in sides]
    if not 1 <= len(values) <= 4 or any(v is None or v < 1 for v in values):
        raise ParameterError("shape", rule, shape)
    if math.prod(values) > MAX_GRID_TOKENS:  # type: ignore[arg-type]
        raise ParameterError("shape", rule, shape)
    return tuple(values)  # type: ignore[arg-type]


def check_grid_axes(m: int, allowed: tuple[int, ...], preset: str) -> None:
    """Raise :class:`ParameterError` unless a grid of ``m`` axes is one ``preset`` takes."""
    if m not in allowed:
        counts = " or ".join(str(a) for a in allowed)
        raise ParameterError("shape", f"must have {counts} axes for `preset` {preset}", m)


def check_extra_tokens(extra_tokens: object) -> int:
    """Return the number of leading zero rows (cls and other tokens); an integer 0 … 2^20."""
    value = as_int(extra_tokens)
    if value is None or not 0 <= value <= 1 << 20:
        raise ParameterError("extra_tokens", "must be an integer from 0 to 2^20", extra_tokens)
    return value


def check_grid_scale(name: str, value: object) -> float:
    """Return diffusers' ``base_size`` or ``interpolation_scale``; a number from 1e-6 to 1e6."""
    rule = "must be a number from 1e-6 to 1e6"
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(name, rule, value) from None
    if not 1e-6 <= number <= 1e6 or isinstance(value, bool):
        raise ParameterError(name, rule, value)
    return number
