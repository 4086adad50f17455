"""Argument checks shared by the core, the I/O layer and the command line.

Every check raises :class:`ParameterError`, a :class:`ValueError` that remembers which
argument broke which rule, so the command line can name the matching option (``--d`` for
``d``) without a second copy of the rules.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "ParameterError",
    "RuntimeFailure",
    "check_base",
    "check_d",
    "check_dtype",
    "check_n",
    "check_position",
]

#: Output dtypes pecli offers, by name.
DTYPES = {"float32": np.dtype(np.float32), "float64": np.dtype(np.float64)}


class ParameterError(ValueError):
    """An argument value breaks a documented rule.

    Attributes
    ----------
    parameter : str
        The argument's name in the Python API (``"d"``, ``"n"``, ``"base"``, ...); the
        command-line option of the same name is ``--<parameter>``.
    rule : str
        The rule, phrased to follow the name (``"must be an even integer >= 2"``).
    value : object
        The rejected value.

    """

    def __init__(self, parameter: str, rule: str, value: object) -> None:
        self.parameter = parameter
        self.rule = rule
        self.value = value
        super().__init__(f"{parameter} {rule} (got {value!r})")


class RuntimeFailure(Exception):
    """A run cannot go on for a reason outside the arguments (no room on the disk, …).

    The command line prints its message as one line and exits with status 1.
    """


def _as_int(value: object) -> int | None:
    """``value`` as an int if it is an integer (not a bool, not a float), else None."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


def check_d(d: object) -> int:
    """Return ``d`` as an int; raise :class:`ParameterError` unless it is an even integer >= 2."""
    value = _as_int(d)
    if value is None or value < 2 or value % 2:
        raise ParameterError("d", "must be an even integer >= 2", d)
    return value


def check_n(n: object, name: str = "n") -> int:
    """Return ``n`` as an int; raise :class:`ParameterError` unless it is an integer >= 1."""
    value = _as_int(n)
    if value is None or value < 1:
        raise ParameterError(name, "must be an integer >= 1", n)
    return value


def check_base(base: object) -> float:
    """Return the base ``C`` as a float; raise :class:`ParameterError` unless finite and > 0."""
    try:
        value = float(base)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError("base", "must be a finite number > 0", base) from None
    if not math.isfinite(value) or value <= 0:
        raise ParameterError("base", "must be a finite number > 0", base)
    return value


def check_position(name: str, value: object) -> float:
    """Return a position as a float; raise :class:`ParameterError` unless it is finite."""
    try:
        position = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(name, "must be a finite number", value) from None
    if not math.isfinite(position):
        raise ParameterError(name, "must be a finite number", value)
    return position


def check_dtype(dtype: object) -> np.dtype:
    """Return the output dtype; raise :class:`ParameterError` unless float32 or float64."""
    resolved: np.dtype | None
    try:
        resolved = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        resolved = None
    if resolved not in DTYPES.values():
        raise ParameterError("dtype", "must be float32 or float64", dtype)
    return resolved  # type: ignore[return-value]
