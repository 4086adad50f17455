"""A sinusoidal table's knobs: the :class:`Encoding` record and the rules of the extra knobs.

The extra knobs are those other libraries add to the table: odd d, angle scale, amplitude.

Each check returns the value in its working type or raises
:class:`~pecli.core.errors.ParameterError` naming the argument and the rule (like
:mod:`pecli.core.rules`). Factors are returned as double-doubles ``(hi, lo)``, so that the
table stays correctly rounded (docs/conventions.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only: numpy.typing costs start-up time
    from numpy.typing import DTypeLike

from ..dtypes import float_info
from ..errors import ParameterError

__all__ = [
    "DEFAULT_BASE",
    "ODD_D",
    "ODD_SINE",
    "Encoding",
    "check_amplitude",
    "check_angle_scale",
    "check_odd_d",
    "resolve_odd_d",
]

#: The base ``C`` of Vaswani et al. (2017).
DEFAULT_BASE = 10000.0

#: What an odd width ``d`` does (docs/conventions.md): refused (the PyTorch tutorial), a
#: zero last column (tensor2tensor, fairseq, diffusers), ``ceil(d/2)`` sines with frequencies
#: ``C^(-2j/d)`` (DistilBERT/XLM, keras-hub, HF Marian) or over ``d + 1`` channels (tatp22).
ODD_D = ("error", "zero", "sine", "sine-d+1")
#: The odd-d rules whose extra column is a sine.
ODD_SINE = ("sine", "sine-d+1")


@dataclass(frozen=True, kw_only=True)
class Encoding:
    """A sinusoidal encoding's knobs, the one record every table function takes as keywords.

    :func:`positional_encoding`, :func:`encoding_table` and :func:`table_blocks` take these
    fields as keyword arguments (``**encoding``), the rows they compute as their own, and
    check them all before any row is computed (:class:`~.filling.TableSpec`).

    Attributes
    ----------
    d : int
        Width of the encoding, even, 2 … 131072 (odd allowed with ``pad_odd_d`` or ``odd_d``).
    base : float
        The base ``C``, from 1e-300 to 1e300.
    dtype : {float32, float64, float16, bfloat16}
        Output dtype; computed in float64 and rounded to it once (float16 and bfloat16 by
        :func:`pecli.core.dtypes.round_once`; bfloat16 from ml_dtypes).
    schedule : {"paper", "tensor2tensor", "shift:S"} or float
        Frequency schedule (see :func:`angular_frequencies`).
    layout : {"interleaved", "sin-cos", "cos-sin"}
        Columns of the sines and cosines
        (:func:`pecli.core.sinusoidal.conventions.layout_views`).
    pad_odd_d : bool
        Accept an odd ``d``: ``d // 2`` pairs and a last, all-zero column (tensor2tensor,
        fairseq, diffusers); the same as ``odd_d="zero"``.
    odd_d : {"error", "zero", "sine", "sine-d+1"}, optional
        What an odd ``d`` does; overrides ``pad_odd_d``.
    angle_scale : float
        Factor ``k`` of the angles ``k·p·ω`` (diffusers' ``scale``).
    full_turns : bool
        Angles times 2π (MLX).
    amplitude : float or str
        Factor of every value: a number or ``"sqrt(2/d)"`` (MLX); see
        :class:`pecli.core.sinusoidal.conventions.Convention`.

    Examples
    --------
    >>> Encoding(d=8, layout="sin-cos").schedule
    'paper'

    """

    d: int
    base: float = DEFAULT_BASE
    dtype: DTypeLike = np.float32
    schedule: str | float = "paper"
    layout: str = "interleaved"
    pad_odd_d: bool = False
    odd_d: str | None = None
    angle_scale: float = 1.0
    full_turns: bool = False
    amplitude: float | str = 1.0


def check_odd_d(odd_d: object) -> str:
    """Return the odd-d rule; raise :class:`ParameterError` unless one of :data:`ODD_D`."""
    if odd_d not in ODD_D:
        raise ParameterError("odd_d", f"must be one of {', '.join(ODD_D)}", odd_d)
    return str(odd_d)


def check_angle_scale(scale: object, *, full_turns: bool = False) -> tuple[float, float]:
    """The factor ``k`` of the angles ``k·p·ω`` as a double-double (``2π·scale`` for turns).

    ``scale`` is diffusers' ``scale`` (finite, > 0); ``full_turns`` multiplies by 2π (MLX).
    """
    try:
        value = float(scale)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 1e300) or isinstance(scale, bool):
        raise ParameterError("angle_scale", "must be a number > 0 and at most 1e300", scale)
    if not full_turns:
        return value, 0.0
    two_pi_hi, two_pi_lo = 6.283185307179586, 2.4492935982947064e-16  # 2π = hi + lo to 1e-32
    head = value * two_pi_hi
    hi_a, lo_a = _veltkamp(value)
    hi_b, lo_b = _veltkamp(two_pi_hi)
    tail = ((hi_a * hi_b - head) + hi_a * lo_b + lo_a * hi_b) + lo_a * lo_b + value * two_pi_lo
    return head + tail, (head - (head + tail)) + tail


def _veltkamp(a: float) -> tuple[float, float]:
    t = a * 134217729.0
    hi = t - (t - a)
    return hi, a - hi


def check_amplitude(amplitude: object, d: int) -> tuple[float, float]:
    """The factor of every value as a double-double: a number, or ``"sqrt(2/d)"`` (MLX).

    ``sqrt(2/d)`` is taken to 40 digits, so ``hi + lo`` is it to about 1e-32 relative.
    """
    if amplitude == "sqrt(2/d)":
        import decimal

        exact = decimal.Context(prec=40).sqrt(decimal.Decimal(2) / decimal.Decimal(d))
        hi = float(exact)
        return hi, float(exact - decimal.Decimal(hi))
    try:
        value = float(amplitude)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value == 0 or isinstance(amplitude, bool):
        rule = "must be a finite non-zero number or sqrt(2/d)"
        raise ParameterError("amplitude", rule, amplitude)
    return value, 0.0


def check_amplitude_range(
    amplitude: tuple[float, float], dtype: np.dtype, given: object, parameter: str = "amplitude"
) -> None:
    """Raise unless ``|amplitude|`` keeps the table finite and its ±1 values normal in ``dtype``.

    ``parameter`` names the option (rope's cache: ``attention_factor``, also a factor on sin
    and cos).

    >>> check_amplitude_range((70000.0, 0.0), np.dtype(np.float16), 70000)
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: amplitude must be from 6.1e-05 to 6.55e+04 ... (got 70000)
    """
    info = float_info(dtype)
    low, high = float(info.smallest_normal), float(info.max)
    if not low <= abs(amplitude[0]) <= high:
        rule = (
            f"must be from {low:.3g} to {high:.3g} in magnitude for {dtype.name} "
            "(the values are sin and cos times it)"
        )
        raise ParameterError(parameter, rule, given)


def resolve_odd_d(odd_d: object, pad_odd_d: bool) -> str:
    """The odd-d rule from ``odd_d`` or, when it is None, the older ``pad_odd_d`` flag.

    Both given and disagreeing (``pad_odd_d=True`` with ``odd_d`` other than ``"zero"``) is an
    error, not one of them silently winning.
    """
    if odd_d is None:
        return "zero" if pad_odd_d else "error"
    rule = check_odd_d(odd_d)
    if pad_odd_d and rule != "zero":
        raise ParameterError("pad_odd_d", f"conflicts with odd_d={rule!r}: give one", pad_odd_d)
    return rule
