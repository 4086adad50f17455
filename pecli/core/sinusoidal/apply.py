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

from ..errors import ParameterError
from ..rules import check_data_dtype, check_data_shape, check_dtype, check_finite, check_position
from .encoding import DEFAULT_BASE, encoding_table

__all__ = ["add", "add_encoding"]


def add_encoding(
    x: ArrayLike,
    *,
    start: float = 1,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
    out: np.ndarray | None = None,
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
    out : numpy.ndarray, keyword-only, optional
        A C-ordered ``(n, d)`` array of ``dtype`` to write the result into (a writer's
        reused buffer); it is returned.

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
    check_finite(values, "x")
    total = encoding_table(d=d, n=values.shape[0], start=first, base=base, dtype=np.float64)
    total += values  # the sum in place: no third (n, d) float64 array
    if out is None:
        out = total if out_dtype == np.float64 else np.empty(total.shape, out_dtype)
    elif out.shape != total.shape or out.dtype != out_dtype or not out.flags.c_contiguous:
        raise ParameterError(
            "out", f"must be a C-ordered {total.shape} {out_dtype} array", out.shape
        )
    with np.errstate(over="ignore"):
        np.copyto(out, total, casting="same_kind") if out is not total else None
    if not np.all(np.isfinite(out)):  # finite float64 sums beyond float32's ±3.4e38
        largest = float(np.max(np.abs(total)))
        raise ParameterError("dtype", "must be float64 for values beyond ±3.4e38", f"{largest:g}")
    return out


#: The name used by the command line (``pecli add``): :func:`add_encoding`.
add = add_encoding
