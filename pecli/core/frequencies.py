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

from .angles import frequency_residuals
from .errors import ParameterError
from .rules import check_base, check_schedule, check_width

__all__ = ["DEFAULT_BASE", "angular_frequencies", "wavelengths"]

#: The base ``C`` of Vaswani et al. (2017).
DEFAULT_BASE = 10000.0


def _exponents(d: int, schedule: object) -> np.ndarray:
    """``j / (h - s)`` for ``j = 0 … h-1``, ``h = d // 2``, float64 (``2(i-1)/d`` for paper).

    For the paper schedule and an even ``d`` this is bit for bit ``2(i-1)/d``: both are the
    correctly rounded quotient of the same rational number.
    """
    shift = check_schedule(schedule)
    h = d // 2
    if h - shift <= 0:  # the smallest d with d // 2 > S
        least = 2 * (math.floor(shift) + 1)
        rule = f"must be at least {least} for the {schedule} schedule (d // 2 - S > 0)"
        raise ParameterError("d", rule, d)
    return np.arange(h, dtype=np.float64) / (h - shift)


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


def _frequencies(d: int, base: float, schedule: object) -> np.ndarray:
    """``ω_j`` for ``j = 0 … d//2 - 1`` (``d`` already checked; may be odd)."""
    base = check_base(base)
    with np.errstate(over="ignore", under="ignore"):
        omega: np.ndarray = np.power(base, -_exponents(d, schedule))
    if not np.all(np.isfinite(omega) & (omega < 1e300)):  # C < 1 with d/2 - S near 0
        rule = "must keep every frequency C^(-j/(d/2 - S)) below 1e300 (with this d and schedule)"
        raise ParameterError("base", rule, base)
    return omega


def frequencies_with_residuals(
    d: int, base: float, schedule: object
) -> tuple[np.ndarray, np.ndarray]:
    """``ω_j`` in float64 and what float64 rounded off each (``d`` already checked).

    ``omega + residual`` is ``C^(-j/(h-s))`` to about 1e-32 relative, for angles ``p·ω``
    carried as double-doubles (:mod:`pecli.core.angles`).
    """
    omega = _frequencies(d, base, schedule)
    denominator = d // 2 - check_schedule(schedule)
    residual = frequency_residuals(omega, base=check_base(base), denominator=denominator)
    return omega, residual


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
