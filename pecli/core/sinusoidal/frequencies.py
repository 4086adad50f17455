"""Angular frequencies and wavelengths of the encoding, per schedule (docs/conventions.md).

The paper's schedule is ``ω_i = C^(-2(i-1)/d)``; written with ``h = d/2`` and ``j = i - 1``
it is ``ω_j = C^(-j/h)``, and the other schedules shift the denominator: ``C^(-j/(h-s))``
(tensor2tensor: ``s = 1``; diffusers: any ``downscale_freq_shift`` ``s``).

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math

import numpy as np

from .. import angles
from ..angles import frequency_residuals
from ..errors import ParameterError
from ..rules import MAX_D, check_base, check_schedule, check_width
from .knobs import DEFAULT_BASE, ODD_SINE, check_odd_d

__all__ = [
    "DEFAULT_BASE",
    "WidthBelowShift",
    "angular_frequencies",
    "frequency_count",
    "wavelengths",
]


class WidthBelowShift(ParameterError):
    """``d`` too narrow for the schedule's shift ``S``: ``h - S <= 0`` in ``C^(-j/(h-S))``.

    A :class:`~pecli.core.errors.ParameterError` of ``d``, which also keeps the two numbers,
    so that a caller who set the shift rather than ``d`` can name the shift instead.

    Attributes
    ----------
    shift : float
        The shift ``S``.
    half : float
        The ``h`` of width ``d`` (``d // 2``, or ``d/2``, ``(d+1)/2`` for odd sines).

    """

    def __init__(self, rule: str, d: object, *, shift: float, half: float) -> None:
        super().__init__("d", rule, d)
        self.shift, self.half = shift, half


def frequency_count(d: int, odd_d: str = "zero") -> int:
    """Frequencies of a width-``d`` table: ``ceil(d/2)`` when an odd ``d`` ends with a sine."""
    return -(-d // 2) if check_odd_d(odd_d) in ODD_SINE else d // 2


def _half(d: int, odd_d: str) -> float:
    """The ``h`` of ``ω_j = C^(-j/(h-s))``: ``d // 2``, or ``d/2`` / ``(d+1)/2`` (odd sines)."""
    if odd_d == "sine":  # DistilBERT/XLM, keras-hub, HF Marian: 2(j//2)/d for every column
        return d / 2
    if odd_d == "sine-d+1":  # tatp22's positional-encodings: the frequencies of d + 1 channels
        return float(-(-d // 2))
    return float(d // 2)


def _denominator(d: int, schedule: object, odd_d: str = "zero") -> float:
    """``h - s``, with tensor2tensor's own guard ``max(num_timescales - 1, 1)`` at ``h = 1``.

    The guard is the ``tensor2tensor`` schedule's, by that name; a shift ``shift:S`` or a
    number, diffusers' ``downscale_freq_shift`` among them, divides by ``h - S`` as diffusers
    does (by zero at ``h = S = 1``: NaN), so it needs ``h - S > 0`` even at ``S = 1``.
    """
    shift = check_schedule(schedule)
    denominator = _half(d, odd_d) - shift
    if schedule == "tensor2tensor" and denominator <= 0:  # max(num_timescales - 1, 1)
        return 1.0
    if denominator <= 0:  # the smallest d with d // 2 > S
        least = 2 * (math.floor(shift) + 1)
        rule = f"must be at least {least} for the {schedule} schedule (d // 2 - S > 0)"
        if least > MAX_D:  # no d can: say so, in a number of a few digits (S up to 1e308)
            digits = str(least)  # (an int past float64's range: its leading digits by hand)
            shown = (
                digits if len(digits) <= 7 else f"{int(digits[:7]) / 1e6:.6g}e+{len(digits) - 1}"
            )
            rule = (
                f"must be at least {shown} for the {schedule} schedule "
                f"(d // 2 - S > 0): past the largest d, {MAX_D}, so no d holds it"
            )
        raise WidthBelowShift(rule, d, shift=shift, half=_half(d, odd_d))
    return denominator


def _exponents(d: int, schedule: object, odd_d: str = "zero") -> np.ndarray:
    """``j / (h - s)`` for each frequency ``j``, float64 (``2(i-1)/d`` for paper).

    For the paper schedule and an even ``d`` this is bit for bit ``2(i-1)/d``: both are the
    correctly rounded quotient of the same rational number (so is ``j/(d/2)`` for odd sines).
    """
    count = frequency_count(d, odd_d)
    return np.arange(count, dtype=np.float64) / _denominator(d, schedule, odd_d)


def angular_frequencies(
    d: int, *, base: float = DEFAULT_BASE, schedule: str | float = "paper"
) -> np.ndarray:
    """Angular frequency of each pair, in radians per position.

    ``ω_i = C^(-2(i-1)/d)`` for ``i = 1 … d/2``, so ``ω_1 = 1`` and ``ω_{d/2} ≈ 1/C`` (the
    paper schedule). The other schedules of docs/conventions.md are ``ω_j = C^(-j/(h-s))`` with
    ``h = d/2``, ``j = i - 1``: shift ``s = 1`` is tensor2tensor's (last frequency ``1/C``).

    Parameters
    ----------
    d : int
        Width of the encoding (``d_model``), even, 2 … 131072.
    base : float, keyword-only
        The base ``C``, from 1e-300 to 1e300 (10000 in the paper).
    schedule : {"paper", "tensor2tensor", "shift:S"} or float, keyword-only
        The frequency schedule; a number is the shift ``s`` itself.

    Returns
    -------
    numpy.ndarray
        Shape ``(d // 2,)``, float64; entry ``i - 1`` is ``ω_i``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) if ``d`` is odd or < 2, ``base`` is not finite and > 0, or the
        schedule is unknown or has ``d/2 - s <= 0``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> angular_frequencies(4)
    array([1.  , 0.01])
    >>> angular_frequencies(4, schedule="tensor2tensor")
    array([1.e+00, 1.e-04])

    """
    return _frequencies(check_width(d, pad_odd_d=False), base, schedule)


def _frequencies(d: int, base: float, schedule: object, odd_d: str = "zero") -> np.ndarray:
    """``ω_j`` for each frequency of the table (``d`` already checked; may be odd)."""
    base = check_base(base)
    with np.errstate(over="ignore", under="ignore"):
        omega: np.ndarray = np.power(base, -_exponents(d, schedule, odd_d))
    if not np.all(np.isfinite(omega) & (omega < 1e300)):  # C < 1 with d/2 - S near 0
        rule = "must keep every frequency C^(-j/(d/2 - S)) below 1e300 (with this d and schedule)"
        raise ParameterError("base", rule, base)
    return omega


def frequencies_with_residuals(
    d: int,
    base: float,
    schedule: object,
    odd_d: str = "zero",
    angle_scale: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``ω_j`` in float64 and what float64 rounded off each (``d`` already checked).

    ``omega + residual`` is ``k · C^(-j/(h-s))`` to about 1e-32 relative, for angles ``p·ω``
    carried as double-doubles (:mod:`pecli.core.angles`); ``k`` is the double-double
    ``angle_scale`` (diffusers' ``scale``, MLX's ``max_freq`` and ``2π``), 1 by default.
    """
    omega = _frequencies(d, base, schedule, odd_d)
    denominator = _denominator(d, schedule, odd_d)
    residual = frequency_residuals(omega, base=check_base(base), denominator=denominator)
    if angle_scale is None:
        return omega, residual
    return angles.scaled(omega, residual, angle_scale)


def wavelengths(
    d: int, *, base: float = DEFAULT_BASE, schedule: str | float = "paper"
) -> np.ndarray:
    """Wavelength of each pair, in positions: ``λ_i = 2π / ω_i = 2π · C^(2(i-1)/d)``.

    The wavelengths form a geometric progression from ``2π`` to ``2π · C^((d-2)/d)``.

    Parameters
    ----------
    d : int
        Width of the encoding, even and >= 2.
    base : float, keyword-only
        The base ``C``, from 1e-300 to 1e300.
    schedule : str or float, keyword-only
        As in :func:`angular_frequencies`.

    Returns
    -------
    numpy.ndarray
        Shape ``(d // 2,)``, float64, in positions.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d`` or ``base``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> wavelengths(512)[[0, 9]].round(7)
    array([6.2831853, 8.6857009])

    """
    d = check_width(d, pad_odd_d=False)
    base = check_base(base)
    lam: np.ndarray = 2.0 * np.pi * np.power(base, _exponents(d, schedule))
    return lam
