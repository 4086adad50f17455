"""Argument rules shared by the core, the I/O layer and the command line.

Every check returns the value in its working type or raises
:class:`~pecli.core.errors.ParameterError` naming the argument and the rule. The limits
(:data:`MAX_D`, :data:`MAX_POSITION`, :data:`BASE_RANGE`) and the names of layouts and
schedules live here too, and :func:`check_finite` words every "first non-finite value" error.
"""

from __future__ import annotations

import contextlib
import math
import numbers

import numpy as np

from .dtypes import OUTPUT_DTYPES, TABLE_DTYPES, float_dtype
from .errors import ParameterError

__all__ = [
    "BASE_RANGE",
    "LAYER_RULE",
    "LAYOUTS",
    "MAX_D",
    "MAX_POSITION",
    "SCHEDULES",
    "PositionRangeError",
    "check_base",
    "check_checkpoint_table",
    "check_d",
    "check_data_dtype",
    "check_data_shape",
    "check_dtype",
    "check_finite",
    "check_layout",
    "check_n",
    "check_padding_idx",
    "check_position",
    "check_positions",
    "check_schedule",
    "check_table_dtype",
    "check_width",
    "number_text",
    "schedule_name",
]


def as_int(value: object) -> int | None:
    """``value`` as an int if it is an integer (not a bool, not a float), else None."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


#: Largest width d: far above any model's, and small enough that one row stays cheap.
MAX_D = 1 << 17
#: The rule of a layer's index (``--layer``), one wording for the command line and the core.
LAYER_RULE = "must be a layer's index: an integer, in digits, 0 or more"
#: Largest |position|: beyond 2^53 consecutive integers are no longer all float64 numbers.
MAX_POSITION = 2.0**53
#: Largest table written to .safetensors, bytes: it is built whole in memory (and copied once).
MAX_CHECKPOINT_BYTES = 1 << 30
#: Bounds of the base C, so that every frequency C^(-j/h) is a finite float64.
BASE_RANGE = (1e-300, 1e300)


def check_d(d: object) -> int:
    """Return ``d`` as an int; raise :class:`ParameterError` unless even, from 2 to MAX_D."""
    value = as_int(d)
    if value is None or not 2 <= value <= MAX_D or value % 2:
        raise ParameterError("d", f"must be an even integer from 2 to {MAX_D}", d)
    return value


def check_n(n: object, name: str = "n", *, most: int | None = None) -> int:
    """Return ``n`` as an int; raise :class:`ParameterError` unless an integer from 1 to ``most``.

    Without ``most`` the bound is 2^53, the last position where every integer is exact.
    """
    value = as_int(n)
    if value is None or not 1 <= value <= (MAX_POSITION if most is None else most):
        raise ParameterError(name, f"must be an integer from 1 to {most or '2^53'}", n)
    return value


def check_base(base: object) -> float:
    """Return the base ``C`` as a float; raise :class:`ParameterError` unless in BASE_RANGE."""
    low, high = BASE_RANGE
    rule = f"must be a number from {low:g} to {high:g}"
    try:
        value = float(base)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ParameterError("base", rule, base) from None
    if not low <= value <= high:  # NaN fails too
        raise ParameterError("base", rule, base)
    return value


class PositionRangeError(ParameterError):
    """A position (or first position) outside ±2^53, where integer positions stop being exact.

    A :class:`~pecli.core.errors.ParameterError` like any other; its own class lets the
    command line say it in the rule of the option that took the value (``--start``'s), so
    that one option's range has one wording whichever layer refuses the value.
    """


def check_position(name: str, value: object) -> float:
    """Return a position as a float; raise :class:`ParameterError` unless |position| <= 2^53."""
    rule = "must be a finite number within ±2^53 (where integer positions are exact)"
    exact = as_int(value)  # an int is compared exactly, before float() rounds it
    try:
        position = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise PositionRangeError(name, rule, value) from None
    if not abs(position) <= MAX_POSITION or (exact is not None and abs(exact) > MAX_POSITION):
        raise PositionRangeError(name, rule, value)
    return position


def check_positions(start: object, n: int) -> float:
    """Return ``start`` as a float; raise unless it and ``start + n - 1`` are within ±2^53."""
    first = check_position("start", start)
    exact = as_int(start)
    last = exact + n - 1 if exact is not None else first + n - 1
    if abs(last) > MAX_POSITION:
        rule = f"must leave the last position start + n - 1 = {last} within ±2^53"
        raise PositionRangeError("start", rule, start)
    return first


def check_dtype(dtype: object) -> np.dtype:
    """Return the output dtype; raise :class:`ParameterError` unless float32 or float64."""
    resolved: np.dtype | None = None
    if dtype is not None:  # np.dtype(None) is float64: a forgotten argument, not a choice
        with contextlib.suppress(TypeError, ValueError):
            resolved = np.dtype(dtype)  # type: ignore[call-overload]
    # "is None" first: numpy compares a dtype equal to None (it reads None as float64)
    if resolved is None or not any(resolved == known for known in OUTPUT_DTYPES.values()):
        raise ParameterError("dtype", "must be float32 or float64", dtype)
    return resolved


def check_table_dtype(dtype: object) -> np.dtype:
    """The dtype of an encoding table: float64, float32, float16 or bfloat16 (ml_dtypes)."""
    if isinstance(dtype, str) and dtype in TABLE_DTYPES:
        return float_dtype(dtype)
    with contextlib.suppress(TypeError, ValueError):
        if dtype is not None and str(np.dtype(dtype)) in TABLE_DTYPES:  # type: ignore[call-overload]
            return float_dtype(str(np.dtype(dtype)))  # type: ignore[call-overload]
    raise ParameterError("dtype", f"must be one of {', '.join(TABLE_DTYPES)}", dtype)


#: Layouts of the sines and cosines in a row (docs/conventions.md).
LAYOUTS = ("interleaved", "sin-cos", "cos-sin")
#: Named frequency schedules and their shift ``s`` in ``ω_j = C^(-j/(h-s))`` (docs/conventions.md).
SCHEDULES = {"paper": 0.0, "tensor2tensor": 1.0}


def check_layout(layout: object) -> str:
    """Return the layout name; raise :class:`ParameterError` unless one of :data:`LAYOUTS`."""
    if layout not in LAYOUTS:
        raise ParameterError("layout", f"must be one of {', '.join(LAYOUTS)}", layout)
    return str(layout)


def check_schedule(schedule: object) -> float:
    """The shift ``s`` of a schedule: ``paper`` (0), ``tensor2tensor`` (1) or ``shift:S``.

    A number is taken as the shift itself. Raises :class:`ParameterError` for anything else
    or a shift that is not finite.
    """
    rule = "must be paper, tensor2tensor or shift:S with a finite number S"
    if isinstance(schedule, str) and schedule in SCHEDULES:
        return SCHEDULES[schedule]
    text = schedule[len("shift:") :] if isinstance(schedule, str) else schedule
    if isinstance(schedule, str) and not schedule.startswith("shift:"):
        raise ParameterError("schedule", rule, schedule)
    try:
        shift = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError("schedule", rule, schedule) from None
    if not math.isfinite(shift) or isinstance(schedule, bool):
        raise ParameterError("schedule", rule, schedule)
    return shift


def schedule_name(shift: float) -> str:
    """The name of the schedule with shift ``s``: ``paper``, ``tensor2tensor`` or ``shift:S``.

    ``S`` is written in full (the shortest text that reads back as the same float64).

    >>> schedule_name(1.0), schedule_name(0.1234567), schedule_name(3.0)
    ('tensor2tensor', 'shift:0.1234567', 'shift:3')
    """
    for name, value in SCHEDULES.items():
        if shift == value:
            return name
    return f"shift:{number_text(shift)}"


def number_text(value: float) -> str:
    """The shortest text that reads back as ``value``, without a trailing ``.0``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def check_width(d: object, *, pad_odd_d: bool) -> int:
    """Like :func:`check_d`, but an odd ``d >= 3`` is allowed when ``pad_odd_d`` is true."""
    if not pad_odd_d:
        value = as_int(d)
        if value is not None and value % 2 and 3 <= value <= MAX_D:
            rule = "must be even with this convention (odd d: `odd_d` zero, sine or sine-d+1)"
            raise ParameterError("d", rule, d)
        return check_d(d)
    value = as_int(d)
    if value is None or not 2 <= value <= MAX_D:
        raise ParameterError("d", f"must be an integer from 2 to {MAX_D}", d)
    return value


def check_padding_idx(padding_idx: object, n: int) -> int | None:
    """Return the padding row (or None); raise unless an integer in ``0 … n-1``."""
    if padding_idx is None:
        return None
    value = as_int(padding_idx)
    if value is None or not 0 <= value < n:
        raise ParameterError(
            "padding_idx", f"must be a row index between 0 and n - 1 = {n - 1}", padding_idx
        )
    return value


def check_finite(values: np.ndarray, parameter: str, *, rows: object = None) -> None:
    """Raise :class:`ParameterError` naming the first NaN or infinity of a 2-D block.

    The value names the place as ``"<value> at row r, column c"`` (1-based); ``rows`` maps
    the block's 0-based row to the text after the value instead: an int adds an offset
    (the block's first row in a longer table), a sequence of CSV line numbers gives
    ``"on line L"``.

    >>> check_finite(np.array([[1.0, np.inf]]), "x")
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: x must hold finite numbers only (got 'inf at row 1, column 2')
    """
    bad = ~np.isfinite(values)
    if not bad.any():
        return
    row, column = (int(k) for k in np.argwhere(bad)[0])
    if isinstance(rows, int | type(None)):
        place = f"at row {(rows or 0) + row + 1}"
    else:
        place = f"on line {rows[row]}"  # type: ignore[index]
    where = f"{values[row, column]} {place}, column {column + 1}"
    raise ParameterError(parameter, "must hold finite numbers only", where)


#: dtype kinds accepted as data: signed and unsigned integers, floats.
REAL_KINDS = "iuf"


def check_data_dtype(dtype: np.dtype, parameter: str = "x") -> None:
    """Raise :class:`ParameterError` unless ``dtype`` holds plain real numbers.

    Object, structured, complex, boolean, string and date dtypes are refused, so that
    nothing is ever unpickled and nothing is silently reinterpreted.
    """
    if dtype.names is not None or dtype.kind not in REAL_KINDS:
        rule = "must hold real numbers (integers or floats); objects are never unpickled"
        raise ParameterError(parameter, rule, f"dtype {dtype}")


def check_data_shape(shape: tuple[int, ...], parameter: str = "x") -> int:
    """Return ``d`` for an ``(n, d)`` shape; raise :class:`ParameterError` otherwise.

    The matrix must be 2-D, have at least one row, and an even number ``d >= 2`` of
    columns, because the encoding pairs a sine and a cosine per frequency.
    """
    if len(shape) != 2:
        rule = "must be a 2-D (n, d) matrix, one row per position"
        raise ParameterError(parameter, rule, f"{len(shape)}-D array of shape {shape}")
    n, d = shape
    if n < 1:
        raise ParameterError(parameter, "must hold at least one row", f"shape {shape}")
    if d < 2 or d % 2:
        rule = "must have an even number of columns d >= 2 (the encoding's width)"
        raise ParameterError(parameter, rule, f"{d} columns")
    return d


def check_checkpoint_table(n: int, d: int, dtype: np.dtype, fmt: str) -> None:
    """Raise :class:`ParameterError` for a table its format cannot hold.

    bfloat16 goes only to ``.safetensors`` (``.npy`` and CSV have no bfloat16); a
    ``.safetensors`` table is built in memory, so it holds at most :data:`MAX_CHECKPOINT_BYTES`.
    """
    if dtype.name == "bfloat16" and fmt != "safetensors":
        rule = (
            f"bfloat16 goes only to `output` NAME.safetensors ({fmt} cannot hold it; float16 can)"
        )
        raise ParameterError("dtype", rule, "bfloat16")
    if fmt == "safetensors" and n * d * dtype.itemsize > MAX_CHECKPOINT_BYTES:
        rule = f"must keep a .safetensors table within 1 GiB (it is built in memory; d = {d})"
        raise ParameterError("n", rule, n)
