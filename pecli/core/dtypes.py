"""The float dtypes pecli computes, stores and emulates, in one table.

Tables are written in float32 or float64 (:data:`OUTPUT_DTYPES`); :mod:`pecli.analysis.precision`
and :mod:`pecli.analysis.identify` also round to float16 and bfloat16, the storage of models.
bfloat16 comes from ``ml_dtypes``, imported only when it is asked for (start-up time counts).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLOAT_DTYPES", "OUTPUT_DTYPES", "float_dtype"]

#: Every float dtype by name, finest first.
FLOAT_DTYPES = ("float64", "float32", "float16", "bfloat16")
#: The dtypes tables are written in, by name.
OUTPUT_DTYPES = {"float32": np.dtype(np.float32), "float64": np.dtype(np.float64)}


def float_dtype(name: str) -> np.dtype:
    """The NumPy dtype of one of :data:`FLOAT_DTYPES`.

    Parameters
    ----------
    name : str
        ``"float64"``, ``"float32"``, ``"float16"`` or ``"bfloat16"``.

    Returns
    -------
    numpy.dtype
        For ``"bfloat16"``, ``ml_dtypes.bfloat16`` (8 significand bits, float32's range).

    Raises
    ------
    KeyError
        For any other name (callers check names against their own rule first).

    Examples
    --------
    >>> float_dtype("float16").itemsize, float_dtype("bfloat16").itemsize
    (2, 2)

    """
    if name not in FLOAT_DTYPES:
        raise KeyError(name)
    if name == "bfloat16":
        import ml_dtypes

        bfloat16: np.dtype = np.dtype(ml_dtypes.bfloat16)
        return bfloat16
    return np.dtype(name)
