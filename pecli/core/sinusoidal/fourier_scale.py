"""The scale ``s`` of the Fourier feature map: its text, its exact value, its double-double.

A scale is a positive float64 taken exactly as given, or a text ``"pi"``, ``"2pi"``,
``"0.5*pi"`` meaning that multiple of π exactly (the NeRF paper's ``2^l π``): carried as
``(factor, times_pi)`` so that whole quarter turns stay exact, and as the double-double
``factor·(math.pi + PI_TAIL)`` (good to ~2^-105) in the angles. Pure Python and NumPy.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .. import angles
from ..errors import ParameterError

__all__ = ["PI_TAIL", "parse_scale", "scale_double", "scale_terms"]

#: π minus its float64 value ``math.pi``, so that a scale written as "pi" is exactly π.
PI_TAIL = 1.2246467991473532e-16


def scale_terms(scale: float | str) -> tuple[float, bool]:
    """``(factor, times_pi)``: the exact scale is ``factor``, or ``factor·π``, checked."""
    if not isinstance(scale, str):
        return _check_scale(scale), False
    return _parse(scale)


def scale_double(exact_scale: tuple[float, bool]) -> tuple[float, float]:
    """The scale as a double-double ``(hi, lo)``: exact for a number, ``factor·π`` to ~2^-105."""
    factor, times_pi = exact_scale
    if not times_pi:
        return factor, 0.0
    hi, lo = angles.product(np.array(factor), np.array(math.pi), np.array(PI_TAIL))
    return float(hi), float(lo)


def _check_scale(scale: object) -> float:
    try:
        value = float(scale)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError("scale", "must be a finite number > 0", scale) from None
    if not math.isfinite(value) or value <= 0:
        raise ParameterError("scale", "must be a finite number > 0", scale)
    return value


_SCALE = re.compile(r"^\s*(?P<factor>[0-9.eE+-]*?)\s*\*?\s*(?P<pi>pi|π)?\s*$")


def parse_scale(text: str) -> float:
    """Read a scale such as ``"1"``, ``"0.5"``, ``"pi"``, ``"2pi"`` or ``"0.5*pi"``.

    Raises
    ------
    ParameterError
        Unless the text is a number, optionally followed by ``pi``, and the value is > 0.

    Examples
    --------
    >>> parse_scale("2pi") == 2 * math.pi, parse_scale("0.25")
    (True, 0.25)

    """
    factor, times_pi = _parse(text)
    return factor * math.pi if times_pi else factor


def _parse(text: str) -> tuple[float, bool]:
    """``(factor, times_pi)`` of a scale text, checked."""
    match = _SCALE.match(text.lower())
    rule = "must be a number > 0, pi, 2pi or a number times pi (e.g. 0.5pi)"
    if match is None or not (match["factor"] or match["pi"]):
        raise ParameterError("scale", rule, text)
    try:
        factor = float(match["factor"]) if match["factor"] else 1.0
    except ValueError:
        raise ParameterError("scale", rule, text) from None
    value = factor * (math.pi if match["pi"] else 1.0)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError("scale", rule, text)
    return factor, bool(match["pi"])
