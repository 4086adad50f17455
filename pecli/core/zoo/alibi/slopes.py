"""ALiBi's slopes: the exponents of each series and each exact slope rounded once.

Every slope is ``m_h = 2^(-b·e_h)`` with ``e_h = k_h / Q`` (integers ``k_h``, one ``Q`` per
series and head count): :class:`ExactSlopes` keeps ``b``, ``Q`` and the ``k_h``, the exact
numbers every certified value is made of; :func:`alibi_slopes` rounds them once
(:mod:`.powers`). Pure NumPy and integers; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .powers import rounded_slopes
from .records import alibi_series
from .rules import check_heads, check_max_bias

__all__ = ["ExactSlopes", "alibi_exponents", "alibi_slopes", "exact_slopes"]


@dataclass(frozen=True)
class ExactSlopes:
    """The exact slopes ``μ_h = 2^(-max_bias·k_h/unit)`` of some heads, in order.

    ``max_bias`` is a float, exact as a binary fraction; ``unit`` and ``powers`` (the ``k_h``)
    are integers, so each slope is known exactly, not as a rounded number.

    Examples
    --------
    >>> s = exact_slopes(4)
    >>> s.unit, s.powers, s.rounded("float32").tolist()
    (8, (2, 4, 6, 8), [0.25, 0.0625, 0.015625, 0.00390625])

    """

    max_bias: float
    unit: int
    powers: tuple[int, ...]

    @property
    def step(self) -> Fraction:
        """``max_bias / unit``: the slope ``μ_h`` is ``2^(-step·k_h)``."""
        return Fraction(self.max_bias) / self.unit

    def rounded(self, dtype: str = "float64") -> np.ndarray:
        """Each slope rounded once to ``dtype``; ParameterError for one below its normal range."""
        return rounded_slopes(self.max_bias, self.unit, self.powers, dtype)

    def pick(self, start: int, stop: int) -> ExactSlopes:
        """The heads ``start … stop - 1``."""
        return ExactSlopes(self.max_bias, self.unit, self.powers[start:stop])


def alibi_exponents(n_heads: int, variant: str = "press") -> np.ndarray:
    """The exponents ``e_h`` of the slopes ``m_h = 2^(-b·e_h)``, head by head.

    Parameters
    ----------
    n_heads : int
        Number of heads ``n``, 1 to :data:`~.rules.MAX_HEADS`.
    variant : str
        ``press``: the paper's rule (= MPT, ggml, BLOOM): ``(h+1)/P`` for ``h < P = 2^floor(log2
        n)``, then ``(2(h-P)+1)/(2P)``. The wrong ones: ``next-power-of-two`` (the first ``n``
        slopes of ``2^ceil(log2 n)`` heads: ``(h+1)/2^ceil(log2 n)``), ``geometric-at-n`` (the
        power-of-two formula at any ``n``: ``(h+1)/n``) and ``zero-based`` (the ``+ 1``
        dropped: head 0 has slope 1; ``h/P``, then ``(h-P)/P``).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n,)``; exact for every ``n`` (``P`` is a power of two).

    Raises
    ------
    ParameterError
        A head count out of range or an unknown variant.

    Examples
    --------
    >>> alibi_exponents(12).tolist()  # 8 heads' series, then every other of 16 heads'
    [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 0.0625, 0.1875, 0.3125, 0.4375]

    """
    n = check_heads(n_heads)
    series = alibi_series(variant)
    h = np.arange(n, dtype=np.float64)
    p = float(1 << (n.bit_length() - 1))  # 2^floor(log2 n)
    exponents: np.ndarray = series.exponents(h, p, n)
    return exponents


def exact_slopes(n_heads: int, *, max_bias: float = 8.0, variant: str = "press") -> ExactSlopes:
    """The exact slopes of a series (:func:`alibi_exponents`, ``b = max_bias``), not rounded.

    Raises
    ------
    ParameterError
        A head count, ``max_bias`` or variant out of range.

    Examples
    --------
    >>> exact_slopes(12).powers[-4:]  # e_h = k_h / 16
    (1, 3, 5, 7)

    """
    n, b = check_heads(n_heads), check_max_bias(max_bias)
    exponents = alibi_exponents(n, variant)
    unit = alibi_series(variant).unit(1 << (n.bit_length() - 1), n)  # e_h = k_h / unit
    return ExactSlopes(b, unit, tuple(np.rint(exponents * unit).astype(np.int64).tolist()))


def alibi_slopes(
    n_heads: int, *, max_bias: float = 8.0, variant: str = "press", dtype: str = "float64"
) -> np.ndarray:
    """The ALiBi slope of each head, ``m_h = 2^(-max_bias·e_h)`` (:func:`alibi_exponents`).

    Parameters
    ----------
    n_heads : int
        Number of heads, 1 to :data:`~.rules.MAX_HEADS`.
    max_bias : float, keyword-only
        ``b``: ggml's ``max_bias``, MPT's ``alibi_bias_max``; 8 in the paper. ``> 0``, ``<= 1024``.
    variant : str, keyword-only
        The series (:data:`~.records.VARIANTS`); ``press`` is the paper's, MPT's, ggml's and
        BLOOM's.
    dtype : str, keyword-only
        ``float64`` or ``float32``.

    Returns
    -------
    numpy.ndarray
        ``dtype``, shape ``(n_heads,)``: each exact slope rounded once, by an error bound
        (:mod:`.powers`; libraries compute them in float32, ``torch.pow(base, powers)``: up to
        11 ulps off).

    Raises
    ------
    ParameterError
        A slope below ``dtype``'s normal range (as ``max_bias``; 0 or a subnormal would lose it).

    Examples
    --------
    >>> np.log2(alibi_slopes(12)).round(12).tolist()
    [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -0.5, -1.5, -2.5, -3.5]
    >>> [round(float(m), 6) for m in alibi_slopes(32)[:3]]
    [0.840896, 0.707107, 0.594604]

    """
    return exact_slopes(n_heads, max_bias=max_bias, variant=variant).rounded(dtype)
