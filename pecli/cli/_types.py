"""Option types whose refusals read as pecli's own rules (docs/cli.md#errors).

click's choices and number ranges word their errors their own way ("-1 is not in the range
x>=0.", "'abc' is not a valid integer range."). The group (:mod:`pecli.cli._app`) swaps each
option's type for one of these before parsing: values, conversion and help are unchanged; only
the message of a refused value differs. A name one letter off names the closest name; a number
out of range is refused as the library refuses numbers ("must be an integer >= 0 (got -1)"),
and a word that is no number as any other number option ("'abc' is not a valid integer.").
"""

from __future__ import annotations

from typing import Any

try:  # typer >= 0.26 vendors click; earlier releases use click itself
    from typer._click import exceptions as click_exceptions  # type: ignore[import-not-found]
    from typer._click import types as click_types  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exceptions  # type: ignore[no-redef]
    from click import types as click_types  # type: ignore[no-redef]

__all__ = ["PositionType", "house_type", "in_option_rule"]

#: The choice type of typer's options: click's Choice, or typer's own TyperChoice where the
#: vendored click has none (typer 0.28, what a plain ``pip install .`` gets).
_Choice: Any = getattr(click_types, "Choice", None)
if _Choice is None:  # pragma: no cover - depends on the installed typer
    from typer._types import TyperChoice as _Choice


class _SuggestingChoice(_Choice):  # type: ignore[misc]
    """A choice of names whose error names the closest one ('pytorc': "did you mean 'pytorch'?").

    It converts through the choice it stands in for (typer's, for enums), so values and
    help are unchanged; only the message of a name that is not one of them differs.
    """

    def __init__(self, inner: Any) -> None:
        super().__init__(inner.choices, case_sensitive=inner.case_sensitive)
        self.inner = inner

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            return self.inner.convert(value, param, ctx)
        except click_exceptions.BadParameter:
            from . import _hints

            if elsewhere := self._elsewhere(value, param, ctx):  # --dtype bfloat16 in timestep
                choices = ", ".join(map(str, self.choices))
                self.fail(
                    f"{value!r} is not one of {choices}; it is a value of {elsewhere}", param, ctx
                )
            hint = _hints.not_one_of(value, list(self.choices))
            if hint is None:
                raise
            self.fail(f"{value!r} {hint}", param, ctx)

    @staticmethod
    def _elsewhere(value: Any, param: Any, ctx: Any) -> str:
        """The command's other options that take ``value`` (``--network-dtype``), or ""."""
        params = getattr(getattr(ctx, "command", None), "params", [])
        names = [
            max(p.opts, key=len)
            for p in params
            if p is not param and isinstance(p.type, _Choice) and value in map(str, p.type.choices)
        ]
        return " and ".join(names)


def _text(number: object) -> str:
    """``0`` for ``0.0``, else the number's shortest text (``2.5``, ``100000``)."""
    if not isinstance(number, float):
        return repr(number)  # an int as given, past 2^53 too
    from ..core.rules import number_text  # (imports NumPy: only once a value is refused)

    return number_text(number)


class _HouseRange:
    """The refusals of click's ``IntRange`` / ``FloatRange`` in pecli's words (a mixin)."""

    plain: Any  # click's INT or FLOAT: how a word that is no number is refused
    noun: str  # "an integer" or "a number"
    min: Any
    max: Any
    min_open: bool
    max_open: bool

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            return super().convert(value, param, ctx)  # type: ignore[misc]
        except click_exceptions.BadParameter:
            if self.plain is click_types.INT and _is_number(value):  # 1e30, 1.5: not in digits
                rule = f"{self.rule()} (got {value})"
                raise click_exceptions.BadParameter(rule, ctx, param) from None
            number = self.plain.convert(value, param, ctx)  # no number: "… is not a valid integer."
        raise click_exceptions.BadParameter(f"{self.rule()} (got {_text(number)})", ctx, param)

    def rule(self) -> str:
        """The rule, as pecli words it: ``must be an integer from 1 to 100000``."""
        low, high = _text(self.min), _text(self.max)
        if self.min is not None and self.max is not None and not (self.min_open or self.max_open):
            return f"must be {self.noun} from {low} to {high}"
        bounds = [f"{'>' if self.min_open else '>='} {low}"] if self.min is not None else []
        bounds += [f"{'<' if self.max_open else '<='} {high}"] if self.max is not None else []
        return f"must be {self.noun} {' and '.join(bounds)}"


class _IntRange(_HouseRange, click_types.IntRange):  # type: ignore[misc]
    plain, noun = click_types.INT, "an integer"


class _FloatRange(_HouseRange, click_types.FloatRange):  # type: ignore[misc]
    plain, noun = click_types.FLOAT, "a number"


def _is_number(value: Any) -> bool:
    """Whether a word is a number click's INT refuses (``1e30``, ``1.5``, ``inf``)."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


class PositionType(click_types.IntParamType):  # type: ignore[misc]
    """An integer position (``--start``): a number not written as an integer gets the rule.

    click's INT refuses ``--start 1e30`` as "'1e30' is not a valid integer.", which names
    neither the range nor why; this type says the option's ``rule`` (``must be an integer
    within ±2^53 …``) instead. Integers are converted as by INT, and the command checks
    their range with the same rule; a word that is no number is refused as by INT.

    >>> PositionType("must be an integer").convert("12", None, None)
    12
    """

    name = "integer"

    def __init__(self, rule: str) -> None:
        self.rule = rule

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click_exceptions.BadParameter:
            if not _is_number(value):
                raise
        raise click_exceptions.BadParameter(f"{self.rule} (got {value})", ctx, param)


class _DigitsInt(PositionType):
    """click's INT, but a number not written as an integer (``1e3``, ``2.0``) is told so.

    An option with no range of its own (``--d``, ``--n``, ``--k``: the command checks the
    rest) had click's "'1e3' is not a valid integer.", a rule nowhere: the rule here is only
    that it be an integer in digits (a :class:`PositionType` of that rule).
    """

    def __init__(self) -> None:
        super().__init__("must be an integer, in digits")


def in_option_rule(error: Exception, group: Any) -> Exception:
    """``error``, or a position out of range said in the rule of the option that took it.

    The library words a range of ``start`` its own way (a float start, no ``n``); on the
    command line ``--start 1e30`` and ``--start 9007199254740993`` break one rule, the
    option's :class:`PositionType` rule, and are told it in one wording. ``group``: the
    group running the command (its ``chosen`` command, through sub-groups).
    """
    from ..core.errors import ParameterError
    from ..core.rules import PositionRangeError  # (on an error path only)

    if not isinstance(error, PositionRangeError):
        return error
    command = group
    while getattr(command, "chosen", None) is not None:
        command = command.chosen
    for param in getattr(command, "params", []):
        if param.name == error.parameter and isinstance(param.type, PositionType):
            return ParameterError(error.parameter, param.type.rule, error.value)
    return error


def house_type(kind: Any) -> Any:
    """``kind`` itself, or the type that refuses its values in pecli's words (same values).

    >>> house_type(click_types.IntRange(min=0)).rule()
    'must be an integer >= 0'
    >>> house_type(click_types.FloatRange(0.0, 1.0, min_open=True)).rule()
    'must be a number > 0 and <= 1'
    >>> house_type(click_types.INT).convert("12", None, None)
    12
    """
    if isinstance(kind, _HouseRange | _SuggestingChoice | _DigitsInt):
        return kind
    if kind is click_types.INT:
        return _DigitsInt()
    if isinstance(kind, click_types.Tuple):  # --linspace START STOP NUM: each part's type
        kind.types = [house_type(part) for part in kind.types]
        return kind
    if isinstance(kind, _Choice):
        return _SuggestingChoice(kind)
    for plain, house in ((click_types.IntRange, _IntRange), (click_types.FloatRange, _FloatRange)):
        if type(kind) is plain:
            swapped = house.__new__(house)
            swapped.__dict__.update(vars(kind))
            return swapped
    return kind
