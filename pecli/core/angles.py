"""Angles ``p·ω`` beyond float64 precision: double-double products and exact frequencies.

A float64 angle ``fl(p·ω)`` near ``p·ω = 10^7`` is off by up to ``ulp(10^7)/2 ≈ 9.3e-10``,
and a float64 frequency ``ω`` by up to ``2^-53·ω``, which at ``p = 10^7`` moves the angle by
another ``1.1e-9``: enough to round a float32 table entry the wrong way now and then. Here an
angle is an unevaluated sum ``hi + lo`` of two float64 (a double-double): ``p·omega`` exactly,
by Dekker's splitting, plus ``p·residual`` for the part of ``ω`` that float64 rounded off.

Pure NumPy and :mod:`decimal`; no I/O.

References
----------
.. [1] T. J. Dekker, "A floating-point technique for extending the available precision",
   Numerische Mathematik 18 (1971), 224-242.
.. [2] D. E. Knuth, The Art of Computer Programming, vol. 2, §4.2.2 (two-sum).

"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import decimal

from .errors import ParameterError

__all__ = [
    "MAX_ANGLE",
    "DoubleDouble",
    "add",
    "check_reach",
    "frequency_residuals",
    "product",
    "scaled",
    "sin_cos",
]

#: An unevaluated sum ``hi + lo`` of two float64 arrays of one shape.
DoubleDouble = tuple[np.ndarray, np.ndarray]
#: Largest angle ``p·ω`` (radians, the angle scale and full turns in it) a table may reach:
#: 2π times the largest position, 2^53. Past it the angles' double-double product leaves
#: values the certificate cannot decide at 256 bits (angles of 1e18 did, at random entries;
#: a scale of 1e300 with full turns overflowed the product).
MAX_ANGLE = 2.0**56


def check_reach(reach: float, name: str, value: object) -> None:
    """Refuse, before any row, a table whose largest angle ``reach`` is past :data:`MAX_ANGLE`.

    Raises
    ------
    ParameterError
        Under ``name`` (the knob that made the angles large: ``base``, ``angle_scale``),
        echoing ``value``; ``reach`` NaN or infinite too.

    Examples
    --------
    >>> check_reach(2.0**56, "base", 1e-30)
    >>> check_reach(1e20, "base", 1e-40)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: base gives angles p·ω up to 1e+20 radians here: ...

    """
    if not reach <= MAX_ANGLE:
        size = f"up to {reach:.3g} radians" if np.isfinite(reach) else "too large to multiply"
        rule = f"gives angles p·ω {size} here: at most 2^56 (7.2e16) radians"
        raise ParameterError(name, rule, value)


_VELTKAMP = 134217729.0  # 2**27 + 1: splits a float64 into two halves of <= 26 bits


def _split(a: np.ndarray) -> DoubleDouble:
    t = a * _VELTKAMP
    hi = t - (t - a)
    return hi, a - hi


def product(x: np.ndarray, omega: np.ndarray, residual: np.ndarray) -> DoubleDouble:
    """``x · (omega + residual)`` as a double-double; ``x·omega`` is exact (Dekker).

    Parameters
    ----------
    x, omega, residual : numpy.ndarray
        float64, broadcastable; ``residual`` is small beside ``omega`` (a few ulps at most).

    Returns
    -------
    DoubleDouble
        ``(hi, lo)`` of the broadcast shape; ``hi = fl(x·omega)``.

    Examples
    --------
    >>> hi, lo = product(np.array(3.0), np.array(0.1), np.array(0.0))
    >>> float(hi), float(lo)  # 3·fl(0.1) = 0.30000000000000001665... exactly
    (0.30000000000000004, -2.7755575615628914e-17)

    """
    p = x * omega
    x_hi, x_lo = _split(x)
    w_hi, w_lo = _split(omega)
    err = x_hi * w_hi  # in place below: these are the table's largest temporaries
    err -= p  # never -0 (a - a is +0), so a term of zeros below changes no bit: skipped
    low = np.any(w_lo)  # zero for frequencies of at most 26 bits (integers, powers of 2)
    if low:
        err += x_hi * w_lo
    if np.any(x_lo):  # zero for integers below 2^27: the two terms would add nothing
        err += x_lo * w_hi
        if low:
            err += x_lo * w_lo
    return p, err + x * residual if np.any(residual) else err


def scaled(omega: np.ndarray, residual: np.ndarray, factor: tuple[float, float]) -> DoubleDouble:
    """``(omega + residual) · (k_hi + k_lo)`` as a new ``(omega, residual)`` pair.

    The head ``fl(omega·k_hi)`` and its rounding error are exact (Dekker), so a factor such as
    diffusers' ``scale = 1000`` or MLX's ``2π`` keeps the frequencies good to about 1e-32.

    >>> w, r = scaled(np.array([0.1]), np.array([0.0]), (10.0, 0.0))
    >>> float(w[0]), float(r[0])  # 10·fl(0.1) = 1.0000000000000000555... exactly
    (1.0, 5.551115123125783e-17)

    """
    k_hi, k_lo = np.float64(factor[0]), np.float64(factor[1])
    head, tail = product(omega, np.full_like(omega, k_hi), np.zeros_like(omega))
    tail = tail + residual * k_hi + omega * k_lo
    total = head + tail  # renormalised: the residual stays below half an ulp of omega
    return total, (head - total) + tail


def add(a: DoubleDouble, b: DoubleDouble) -> DoubleDouble:
    """Sum of two double-doubles (Knuth's two-sum on the heads, tails added)."""
    s = a[0] + b[0]
    v = s - a[0]
    err = (a[0] - (s - v)) + (b[0] - v)
    return s, err + (a[1] + b[1])


#: Below 2^-27 a tail's sine rounds to itself and its cosine to 1 in float64 (lo² < ulp(1)/2).
TINY_TAIL = 2.0**-27


def sin_cos(
    angle: DoubleDouble, out: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` of ``hi + lo`` in float64, within about 1.5 ulps of 1.

    Uses ``sin(hi + lo) = sin hi · cos lo + cos hi · sin lo`` (and the same for cos); NumPy's
    sin and cos reduce large ``hi`` exactly. ``out``: arrays (of any float dtype) the
    results are written to, rounded once; ``angle`` is then overwritten.
    """
    hi, lo = angle
    s, c = np.sin(hi), np.cos(hi)
    if np.all(np.abs(lo) < TINY_TAIL):  # sin lo = lo, cos lo = 1 exactly: same bits, half the work
        if out is None:
            return s + c * lo, c - s * lo
        np.multiply(c, lo, out=hi)
        np.multiply(s, lo, out=lo)
        return np.add(s, hi, out=out[0]), np.subtract(c, lo, out=out[1])
    sl, cl = np.sin(lo), np.cos(lo)
    sin, cos = s * cl + c * sl, c * cl - s * sl
    if out is not None:
        out[0][...], out[1][...] = sin, cos
    return sin, cos


@functools.lru_cache(maxsize=32)
def _exact_frequencies(base: float, denominator: float, count: int) -> tuple[decimal.Decimal, ...]:
    import decimal  # imported here: start-up time counts

    ctx = decimal.Context(prec=45)
    # ctx.minus, not unary minus: operators use the thread's context (28 digits by default)
    log_ratio = ctx.divide(ctx.minus(ctx.ln(decimal.Decimal(base))), decimal.Decimal(denominator))
    ratio = ctx.exp(log_ratio)
    values = [decimal.Decimal(1)]
    for _ in range(count - 1):
        values.append(ctx.multiply(values[-1], ratio))
    return tuple(values)


def frequency_residuals(omega: np.ndarray, *, base: float, denominator: float) -> np.ndarray:
    """What float64 rounding took off the frequencies ``ω_j = C^(-j/denominator)``.

    Parameters
    ----------
    omega : numpy.ndarray
        Shape ``(h,)``, float64: the frequencies as the caller computed them, ``j = 0 … h-1``.
    base : float, keyword-only
        The base ``C`` (> 0).
    denominator : float, keyword-only
        ``h = d/2`` for the paper's schedule (``ω_j = C^(-2j/d)``), ``h - 1`` for
        tensor2tensor, ``h - s`` for diffusers' shift ``s``.

    Returns
    -------
    numpy.ndarray
        Shape ``(h,)``, float64: ``C^(-j/denominator) - omega[j]``, from 45-digit decimal
        arithmetic (relative error of ``ω`` below 1e-40 after adding it back).

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> omega = np.power(10000.0, -np.arange(4) / 4)
    >>> bool(np.all(np.abs(frequency_residuals(omega, base=10000.0, denominator=4)) < 1e-16))
    True

    """
    values = np.asarray(omega, dtype=np.float64)
    found = _residuals(float(base), float(denominator), values.tobytes())
    return np.array(found, dtype=np.float64).reshape(values.shape)


@functools.lru_cache(maxsize=32)
def _residuals(base: float, denominator: float, omega: bytes) -> tuple[float, ...]:
    """:func:`frequency_residuals`, kept: identify and its rebuilds ask for the same ones."""
    import decimal

    values = np.frombuffer(omega, dtype=np.float64)
    exact = _exact_frequencies(base, denominator, values.size)
    ctx = decimal.Context(prec=45)
    return tuple(
        float(ctx.subtract(e, decimal.Decimal(float(w))))
        for e, w in zip(exact, values, strict=True)
    )
