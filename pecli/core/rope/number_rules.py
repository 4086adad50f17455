"""The rules of one number of a rotary embedding (finite, > a bound, an integer >= 1).

Shared by the checks of :mod:`pecli.core.rope.spec` and the per-type rules of
:mod:`pecli.core.rope.registry`. A value from a JSON config may be a string or a bool where a
number belongs: the message then shows it as ``the string '2'``. Pure Python; no I/O.
"""

from __future__ import annotations

import math
import numbers

from ..errors import ParameterError

__all__ = ["check_theta", "count", "finite", "positive", "shown"]


class _Shown(str):
    """A value as an error message shows it: ``the string '2'`` (repr and str alike)."""

    def __repr__(self) -> str:
        return str(self)


def shown(value: object) -> object:
    """``value``, or ``the string '2'`` for a string (a JSON number given in quotes).

    >>> shown("2"), shown(2.0)
    (the string '2', 2.0)
    """
    return _Shown(f"the string {value!r}") if isinstance(value, str) else value


def positive(name: str, value: object, *, above: float = 0.0) -> float:
    """``value`` as a float if it is a finite real number > ``above``; else ParameterError.

    >>> positive("factor", 0)
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: factor must be a finite number > 0 (got 0)
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok:
        raise ParameterError(name, f"must be a finite number > {above:g}", shown(value))
    number = _as_float(value)
    if not math.isfinite(number) or number <= above:
        raise ParameterError(name, f"must be a finite number > {above:g}", _short(value))
    return number


def check_theta(value: object, parameter: str = "theta", *, field: str = "") -> float:
    """A θ (``rope_theta``) as a float: the one rule of every θ, a finite number > 1.

    ``field``: the config field it was read from, named in the rule (the error is then
    ``parameter``'s, the config's).

    >>> check_theta(1)
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: theta must be a finite number > 1 (got 1)
    >>> check_theta(0.5, "file", field="rope_theta")
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: file must give rope_theta as a finite number > 1 (got 0.5)
    """
    try:
        return positive(parameter, value, above=1.0)
    except ParameterError as error:
        if not field:
            raise
        rule = f"must give {field} as {error.rule.removeprefix('must be ')}"
        raise ParameterError(parameter, rule, error.value) from None


def count(name: str, value: object) -> int:
    """``value`` if it is an integer >= 1 (not a bool); else ParameterError."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or int(value) < 1:
        raise ParameterError(name, "must be an integer >= 1", shown(value))
    return int(value)


def finite(name: str, value: object) -> float:
    """``value`` as a float if it is a finite real number (not a bool); else ParameterError."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not math.isfinite(_as_float(value)):
        raise ParameterError(name, "must be a finite number", _short(shown(value)))
    return _as_float(value)


def _as_float(value: object) -> float:
    """``float(value)``, inf for an integer too large for a float (JSON allows 4,000 digits).

    >>> _as_float(10**400), _as_float(2)
    (inf, 2.0)
    """
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf


def _short(value: object) -> object:
    """An integer of more than 20 digits by its length: one line, not 4,000 digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return _Shown(f"an integer of {len(str(abs(value)))} digits")
    return value
