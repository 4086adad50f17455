"""Applying the encoding to data: ``x_pos ↦ x_pos + pe(pos)``, pure NumPy.

Row ``r`` (1-based) of an ``(n, d)`` data matrix gets ``pe(start + r - 1)`` added to it
(docs/encoding.md). The sum is evaluated in float64 and rounded to the output dtype once.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only: numpy.typing costs start-up time
    from numpy.typing import ArrayLike, DTypeLike

from .encoding import DEFAULT_BASE, encoding_table
from .errors import ParameterError, check_dtype, check_position

__all__ = ["add", "add_encoding", "check_data_dtype", "check_data_shape", "first_non_finite"]

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


def first_non_finite(block: np.ndarray) -> tuple[int, int] | None:
    """0-based ``(row, column)`` of the first NaN or infinity in a 2-D block, or None."""
    bad = ~np.isfinite(block)
    if not bad.any():
        return None
    row, column = np.argwhere(bad)[0]
    return int(row), int(column)


def add_encoding(
    x: ArrayLike, *, start: float = 1, base: float = DEFAULT_BASE, dtype: DTypeLike = np.float32
) -> np.ndarray:
    """Add the positional encoding to data: row ``r`` becomes ``x[r] + pe(start + r)``.

    With 1-based rows this is ``x_pos + pe(pos)`` for ``pos = start … start + n - 1``; the
    width ``d`` of the encoding is the number of columns of ``x``.

    Parameters
    ----------
    x : array_like
        Data of shape ``(n, d)``, ``n >= 1``, ``d`` even; integers or floats, all finite.
    start : float, keyword-only
        Position of the first row (1 as in the article; 0 for the frameworks).
    base : float, keyword-only
        The base ``C``, from 1e-300 to 1e300.
    dtype : {float32, float64}, keyword-only
        Output dtype; the sum is computed in float64 and rounded once.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``, C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``, parameter ``"x"``) if ``x`` is not 2-D, has an odd number of
        columns, no rows, a non-real dtype or a NaN / infinity (the message gives the first
        one's row and column, 1-based); for an invalid ``start``, ``base`` or ``dtype``, or a
        sum beyond the range of a float32 ``dtype``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5 ("we add positional
    encodings to the input embeddings").

    Examples
    --------
    >>> add_encoding([[0.0, 0.0], [1.0, -1.0]], start=0, dtype="float64").round(6)
    array([[ 0.      ,  1.      ],
           [ 1.841471, -0.459698]])

    """
    data = np.asarray(x)
    check_data_dtype(data.dtype)
    d = check_data_shape(data.shape)
    first = check_position("start", start)
    out_dtype = check_dtype(dtype)
    values = np.asarray(data, dtype=np.float64)
    bad = first_non_finite(values)
    if bad is not None:
        row, column = bad
        where = f"{values[row, column]} at row {row + 1}, column {column + 1}"
        raise ParameterError("x", "must hold finite numbers only", where)
    table = encoding_table(d=d, n=values.shape[0], start=first, base=base, dtype=np.float64)
    with np.errstate(over="ignore"):
        result = np.ascontiguousarray(values + table, dtype=out_dtype)
    if not np.all(np.isfinite(result)):  # finite float64 sums beyond float32's ±3.4e38
        largest = float(np.max(np.abs(values + table)))
        raise ParameterError("dtype", "must be float64 for values beyond ±3.4e38", f"{largest:g}")
    return result


#: The name used by the command line (``pecli add``): :func:`add_encoding`.
add = add_encoding
