"""``np.median`` and ``np.unique`` without importing ``numpy.ma`` (tens of ms of start-up).

NumPy 2's ``np.median`` asks ``np.ma.isMaskedArray`` of its NaN check and ``np.unique``
``np.ma.is_masked`` of its input (so do ``np.setdiff1d``, ``np.union1d``, ``np.percentile``):
the first call imports the masked-array package, about as long as the rest of a reader
command's start-up. :func:`median` and :func:`unique` give the same values by the same steps
(a partition and ``np.mean`` of the middle one or two; a sort and a comparison with the
neighbour) on plain arrays. Pure NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["median", "unique"]


def median(values: ArrayLike, axis: int | None = None) -> Any:
    """``np.median(values, axis=axis)``, the same value and type, without ``numpy.ma``.

    Parameters
    ----------
    values : array_like
        Any shape; integers, floats (float16 … float64) or complex.
    axis : int or None
        The axis to reduce; None: the flattened values.

    Returns
    -------
    numpy scalar or ndarray
        ``np.mean`` of the middle value (odd count) or the two middle values (even count)
        after a partition, as NumPy computes it (float32 in, float32 out); NaN where the
        values hold a NaN. No values: NaN, with NumPy's "Mean of empty slice" warning.

    Raises
    ------
    numpy.exceptions.AxisError
        ``axis`` out of range.

    Source: ``numpy/lib/_function_base_impl.py``, ``_median`` (NumPy 2), without the
    masked-array branch of its NaN check.

    Examples
    --------
    >>> float(median([3.0, 1.0, 2.0, 10.0])), median(np.float32([1, 2, 4])).dtype
    (2.5, dtype('float32'))
    >>> median(np.array([[1.0, np.nan], [5.0, 3.0]]), axis=1).tolist()
    [nan, 4.0]

    """
    a = np.asanyarray(values)
    size = a.size if axis is None else a.shape[axis]
    middle = [size // 2 - 1, size // 2] if size % 2 == 0 else [(size - 1) // 2]
    inexact = np.issubdtype(a.dtype, np.inexact)
    part = np.partition(a, [*middle, -1] if inexact else middle, axis=axis)
    along = 0 if axis is None else axis
    index = part.shape[along] // 2
    keep = slice(index, index + 1) if part.shape[along] % 2 else slice(index - 1, index + 1)
    result = np.mean(part[(slice(None),) * (along % part.ndim) + (keep,)], axis=along)
    if not inexact or size == 0:
        return result
    last = part.take(-1, axis=along)  # a NaN sorts last: it is there if anywhere
    nan = np.isnan(last)
    if not nan.any():
        return result
    if isinstance(result, np.generic):
        return last
    np.copyto(result, last, where=nan)
    return result


def unique(values: ArrayLike) -> np.ndarray:
    """``np.unique(values)``: the distinct values, flattened and ascending, without ``numpy.ma``.

    Parameters
    ----------
    values : array_like
        Any shape and dtype that sorts.

    Returns
    -------
    ndarray
        1-D, ``values``' dtype; NaNs count as one value, placed last (``equal_nan=True``).

    Source: ``numpy/lib/_arraysetops_impl.py``, ``_unique1d`` (its sorting path).

    Examples
    --------
    >>> unique(np.array([[3, 1], [3, 2]])).tolist()
    [1, 2, 3]
    >>> unique([2.0, np.nan, 1.0, np.nan]).tolist()
    [1.0, 2.0, nan]

    """
    ordered = np.sort(np.asanyarray(values), axis=None)
    keep = np.empty(ordered.shape, dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    if ordered.size and ordered.dtype.kind in "fc" and np.isnan(ordered[-1]):
        if ordered.dtype.kind == "c":  # every complex NaN is one value
            first = int(np.searchsorted(np.isnan(ordered), True, side="left"))
        else:
            first = int(np.searchsorted(ordered, ordered[-1], side="left"))
        keep[first] = True
        keep[first + 1 :] = False
    kept: np.ndarray = ordered[keep]
    return kept
