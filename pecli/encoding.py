"""The sinusoidal positional encoding of Transformers: pure NumPy, arrays in and out.

Conventions (SPEC §1, the article's): width ``d`` is even, components are numbered from 1,
pair ``i = 1 … d/2`` has the angular frequency ``ω_i = C^(-2(i-1)/d)`` and owns components
``2i-1`` (sine) and ``2i`` (cosine), interleaved. Angles and sin/cos are evaluated in float64;
the result is rounded to the output dtype once, at the end.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .errors import ParameterError, check_base, check_d, check_dtype, check_n, check_position

__all__ = [
    "DEFAULT_BASE",
    "angular_frequencies",
    "component_names",
    "encoding_table",
    "positional_encoding",
    "table_blocks",
    "wavelengths",
]

#: The base ``C`` of Vaswani et al. (2017).
DEFAULT_BASE = 10000.0


def _exponents(d: int) -> np.ndarray:
    """``2(i-1)/d`` for the pairs ``i = 1 … d/2``, float64."""
    return 2.0 * np.arange(d // 2, dtype=np.float64) / d


def angular_frequencies(d: int, *, base: float = DEFAULT_BASE) -> np.ndarray:
    """Angular frequency of each pair, in radians per position.

    ``ω_i = C^(-2(i-1)/d)`` for ``i = 1 … d/2``, so ``ω_1 = 1`` and ``ω_{d/2} ≈ 1/C``.

    Parameters
    ----------
    d : int
        Width of the encoding (``d_model``), even and >= 2.
    base : float, keyword-only
        The base ``C``, finite and > 0 (10000 in the paper).

    Returns
    -------
    numpy.ndarray
        Shape ``(d // 2,)``, float64; entry ``i - 1`` is ``ω_i``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) if ``d`` is odd or < 2, or ``base`` is not finite and > 0.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> angular_frequencies(4)
    array([1.  , 0.01])

    """
    d = check_d(d)
    base = check_base(base)
    omega: np.ndarray = np.power(base, -_exponents(d))
    return omega


def wavelengths(d: int, *, base: float = DEFAULT_BASE) -> np.ndarray:
    """Wavelength of each pair, in positions: ``λ_i = 2π / ω_i = 2π · C^(2(i-1)/d)``.

    The wavelengths form a geometric progression from ``2π`` to ``2π · C^((d-2)/d)``.

    Parameters
    ----------
    d : int
        Width of the encoding, even and >= 2.
    base : float, keyword-only
        The base ``C``, finite and > 0.

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
    d = check_d(d)
    base = check_base(base)
    lam: np.ndarray = 2.0 * np.pi * np.power(base, _exponents(d))
    return lam


def positional_encoding(
    positions: ArrayLike, *, d: int, base: float = DEFAULT_BASE, dtype: DTypeLike = np.float32
) -> np.ndarray:
    """Encode arbitrary real positions: one row ``pe(pos)`` per position.

    ``pe(pos)[2i-1] = sin(pos · ω_i)`` and ``pe(pos)[2i] = cos(pos · ω_i)`` (1-based
    components), i.e. sines in the even 0-based columns and cosines in the odd ones.

    Parameters
    ----------
    positions : array_like
        Real positions, scalar or 1-D, finite.
    d : int, keyword-only
        Width of the encoding, even and >= 2.
    base : float, keyword-only
        The base ``C``, finite and > 0.
    dtype : {float32, float64}, keyword-only
        Output dtype; the computation is float64 whatever this is.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(positions), d)`` (``(1, d)`` for a scalar), C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``base`` or ``dtype``, a non-finite
        position, or positions that are not 0-D or 1-D.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> positional_encoding([0, 1], d=4, dtype="float64").round(6)
    array([[0.      , 1.      , 0.      , 1.      ],
           [0.841471, 0.540302, 0.01    , 0.99995 ]])

    """
    omega = angular_frequencies(d, base=base)
    out_dtype = check_dtype(dtype)
    pos = np.asarray(positions, dtype=np.float64)
    if pos.ndim > 1:
        raise ParameterError("positions", "must be a scalar or a 1-D array", pos.shape)
    pos = pos.reshape(-1)
    if not np.all(np.isfinite(pos)):
        raise ParameterError("positions", "must all be finite", "non-finite values")
    table = np.empty((pos.size, omega.size * 2), dtype=out_dtype)
    _fill_sin_cos(table[:, 0::2], table[:, 1::2], pos, omega)
    return table


def _fill_sin_cos(
    sin_out: np.ndarray, cos_out: np.ndarray, positions: np.ndarray, omega: np.ndarray
) -> None:
    """Write ``sin(pos·ω)`` and ``cos(pos·ω)``, evaluated in float64, into two ``(m, h)`` views.

    The views may be strided (interleaved layout) and of any float dtype: each value is
    rounded once, on assignment.
    """
    angles = positions[:, None] * omega[None, :]
    sin_out[...] = np.sin(angles)
    cos_out[...] = np.cos(angles)


def encoding_table(
    *,
    d: int,
    n: int,
    start: float = 1,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
) -> np.ndarray:
    """The table ``pe(start), pe(start + 1), …, pe(start + n - 1)``, one row per position.

    Positions start at 1 by default, as in the article; ``start=0`` gives the 0-based
    tables of PyTorch and the other frameworks.

    Parameters
    ----------
    d : int, keyword-only
        Width of the encoding, even and >= 2.
    n : int, keyword-only
        Number of positions (rows), >= 1.
    start : float, keyword-only
        First position, finite.
    base : float, keyword-only
        The base ``C``, finite and > 0.
    dtype : {float32, float64}, keyword-only
        Output dtype.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``, C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``n``, ``start``, ``base`` or ``dtype``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> encoding_table(d=4, n=2, dtype="float64").round(6)
    array([[ 0.841471,  0.540302,  0.01    ,  0.99995 ],
           [ 0.909297, -0.416147,  0.019999,  0.9998  ]])

    """
    return np.concatenate(list(table_blocks(d=d, n=n, start=start, base=base, dtype=dtype, rows=n)))


def table_blocks(
    *,
    d: int,
    n: int,
    start: float = 1,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
    rows: int = 4096,
) -> Iterator[np.ndarray]:
    """The table of :func:`encoding_table` as an iterator of row blocks, for streaming.

    All arguments are checked when this is called, before any block is computed, so a
    caller can validate everything before it opens an output file.

    Parameters
    ----------
    d, n, start, base, dtype : keyword-only
        As in :func:`encoding_table`.
    rows : int, keyword-only
        Largest block height, >= 1.

    Returns
    -------
    iterator of numpy.ndarray
        Blocks of shape ``(r, d)`` with ``r <= rows``; their concatenation is the table.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid argument, raised by the call itself.

    """
    d = check_d(d)
    n = check_n(n)
    first = check_position("start", start)
    base = check_base(base)
    out_dtype = check_dtype(dtype)
    return _blocks(d, n, first, base, out_dtype, check_n(rows, "rows"))


def _blocks(
    d: int, n: int, first: float, base: float, dtype: np.dtype, rows: int
) -> Iterator[np.ndarray]:
    for row in range(0, n, rows):
        offsets = np.arange(row, min(row + rows, n), dtype=np.float64)
        yield positional_encoding(first + offsets, d=d, base=base, dtype=dtype)


def component_names(d: int) -> list[str]:
    """Column names of a table: ``sin_1, cos_1, sin_2, cos_2, …`` (suffix = pair index ``i``).

    Parameters
    ----------
    d : int
        Width of the encoding, even and >= 2.

    Returns
    -------
    list of str
        ``d`` names; 1-based component ``2i-1`` is ``sin_i`` and ``2i`` is ``cos_i``.

    Examples
    --------
    >>> component_names(4)
    ['sin_1', 'cos_1', 'sin_2', 'cos_2']

    """
    d = check_d(d)
    return [f"{kind}_{i}" for i in range(1, d // 2 + 1) for kind in ("sin", "cos")]
