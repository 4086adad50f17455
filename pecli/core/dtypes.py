"""The float dtypes pecli computes, stores and emulates, in one table, and rounding into them.

Tables are written in any of :data:`TABLE_DTYPES` (float64, float32, float16, bfloat16);
:mod:`pecli.analysis.sinusoidal.precision` and :mod:`pecli.analysis.sinusoidal.identify` also
round to float16 and bfloat16, the storage of models. bfloat16 comes from ``ml_dtypes``,
imported only when it is asked for (start-up time counts). :func:`round_once` rounds float64
values to any of them in one correctly rounded step: ml_dtypes' own float64 → bfloat16 cast
goes through float32 and rounds twice (``1 + 2^-8 + 2^-30`` becomes 1, not ``1 + 2^-7``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "FLOAT_DTYPES",
    "MIN_EXPONENT",
    "OUTPUT_DTYPES",
    "SIGNIFICAND_BITS",
    "TABLE_DTYPES",
    "exact_in",
    "float32_order",
    "float32_steps",
    "float_dtype",
    "float_info",
    "largest_exact_integer",
    "round_once",
    "rounded_values",
    "storage_precision",
    "through_float32",
    "ulps32",
    "ulps32_between",
    "unit_roundoff",
]

#: Every float dtype by name, finest first.
FLOAT_DTYPES = ("float64", "float32", "float16", "bfloat16")
#: The dtypes ``add`` and ``fourier`` write, by name.
OUTPUT_DTYPES = {"float32": np.dtype(np.float32), "float64": np.dtype(np.float64)}
#: The dtypes encoding tables are written in, by name (bfloat16 only to .safetensors).
TABLE_DTYPES = FLOAT_DTYPES
#: Significand bits p (the implicit one included) of each of :data:`FLOAT_DTYPES`: the unit
#: roundoff is 2^-p, integers up to 2^p are exact (IEEE 754-2008 Table 3.5; bfloat16: 8).
SIGNIFICAND_BITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}
#: The exponent of the smallest normal number, ``emin``, of each of :data:`FLOAT_DTYPES`
#: (IEEE 754-2008 Table 3.5; bfloat16 has float32's exponent range): below ``2^emin`` the
#: spacing stays ``2^(emin − p + 1)``, the subnormals'.
MIN_EXPONENT = {"float64": -1022, "float32": -126, "float16": -14, "bfloat16": -126}
#: The dtypes rounded from a float64 computation rather than computed in their own width.
HALF_DTYPES = ("float16", "bfloat16")


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


def float_info(dtype: np.dtype | str) -> np.finfo[Any]:
    """Machine limits (``eps``, ``nmant``, ``smallest_normal``, ``max``) of a float dtype.

    ``numpy.finfo`` for NumPy's own floats; ``ml_dtypes.finfo`` only for bfloat16, so a float32
    or float16 path never imports ``ml_dtypes`` (0.5 s with ml_dtypes 0.7).

    >>> float_info("float16").nmant, float_info("bfloat16").nmant
    (10, 7)

    """
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name != "bfloat16":
        return np.finfo(np.dtype(name))
    import ml_dtypes

    info: np.finfo[Any] = ml_dtypes.finfo(float_dtype(name))  # type: ignore[no-untyped-call]
    return info


def exact_in(values: np.ndarray, name: str) -> bool:
    """Whether every float64 value is exactly a value of dtype ``name`` (no rounding).

    bfloat16 is float32's upper 16 bits (same exponent range, subnormals included), so a value
    is bfloat16 exactly when it is float32 exactly with the lower 16 bits zero: checked on the
    bits, so ``ml_dtypes`` is not imported to find that a table is not bfloat16.

    >>> exact_in(np.array([1.0, 1 + 2**-7]), "bfloat16")
    True
    >>> exact_in(np.array([1 + 2**-8]), "bfloat16")
    False

    """
    values = np.asarray(values, dtype=np.float64)
    if SIGNIFICAND_BITS[name] == 53:  # KeyError for a name not in FLOAT_DTYPES
        return True
    with np.errstate(over="ignore"):
        back = values.astype(np.float16 if name == "float16" else np.float32)
    exact = bool(np.array_equal(back.astype(np.float64), values))
    if name == "bfloat16":
        return exact and not np.any(back.view(np.uint32) & 0xFFFF)
    return exact


def round_once(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round float64 ``values`` to ``dtype`` once, to nearest, ties to even.

    NumPy's casts from float64 to float32 and float16 round once already. For bfloat16 the
    value is first rounded to float32 *to odd* (truncated, the last bit set when anything was
    cut off), which keeps the information a tie needs: float32 has 16 more significand bits
    than bfloat16 over the same exponent range, so rounding that float32 to nearest bfloat16
    gives the correctly rounded bfloat16 of ``values`` (Boldo & Melquiond, "Emulation of FMA
    and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008).

    Parameters
    ----------
    values : numpy.ndarray
        float64, any shape, finite.
    dtype : numpy.dtype
        One of :data:`TABLE_DTYPES`.

    Returns
    -------
    numpy.ndarray
        Same shape, of ``dtype``.

    Examples
    --------
    >>> x = np.array([1 + 2**-8 + 2**-30])  # just above a bfloat16 tie: rounds up
    >>> float(round_once(x, float_dtype("bfloat16"))[0]) == 1 + 2**-7
    True

    """
    values = np.asarray(values, dtype=np.float64)
    if np.dtype(dtype).name != "bfloat16":  # by name: comparing dtypes imports ml_dtypes
        return values.astype(dtype)
    return _to_odd_float32(values).astype(dtype)


def _to_odd_float32(values: np.ndarray) -> np.ndarray:
    """Float64 ``values`` rounded to float32 *to odd*: truncated, the last bit set if inexact."""
    nearest = values.astype(np.float32)
    bits = nearest.view(np.uint32)
    inexact = nearest.astype(np.float64) != values
    overshot = inexact & (np.abs(nearest.astype(np.float64)) > np.abs(values))
    bits -= overshot.astype(np.uint32)  # toward zero: the truncation (same sign, |x| bigger)
    bits |= inexact.astype(np.uint32)  # and odd when something was cut off
    return nearest


def rounded_values(values: np.ndarray, name: str) -> np.ndarray:
    """The values :func:`round_once` gives, as float64, without importing ``ml_dtypes``.

    ``round_once(values, float_dtype(name)).astype(np.float64)``, bit for bit: for bfloat16
    the float32 rounded to odd is rounded to nearest bfloat16 on its bits (ties to even), so
    a report that only needs the values does not pay ml_dtypes' import (0.6 s with 0.7).

    >>> float(rounded_values(np.array([1 + 2**-8 + 2**-30]), "bfloat16")[0]) == 1 + 2**-7
    True

    """
    if name != "bfloat16":
        return round_once(values, float_dtype(name)).astype(np.float64)
    odd = _to_odd_float32(np.asarray(values, dtype=np.float64))
    return _bfloat16_bits(odd).astype(np.float64)


def through_float32(values: np.ndarray, name: str) -> np.ndarray:
    """``values`` cast to float32, then to ``name`` and back to float32, as NumPy casts them.

    ``values.astype(np.float32).astype(float_dtype(name)).astype(np.float32)`` for float32,
    float16 and bfloat16, the last without ``ml_dtypes``: a float32 → bfloat16 cast rounds
    to nearest on the upper 16 bits, ties to even (what ml_dtypes and torch do).

    >>> through_float32(np.array([257.0, 259.0]), "bfloat16").tolist()
    [256.0, 260.0]

    """
    single = np.asarray(values).astype(np.float32)
    if name == "bfloat16":
        return _bfloat16_bits(single)
    return single.astype(float_dtype(name)).astype(np.float32)


def _bfloat16_bits(single: np.ndarray) -> np.ndarray:
    """Finite float32 ``single`` rounded to nearest bfloat16 (ties to even), kept in float32."""
    bits = np.ascontiguousarray(single, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    return rounded.view(np.float32)


def unit_roundoff(dtype: str) -> float:
    """Half the gap between 1 and the next number, ``2^-p`` for ``p`` significand bits.

    >>> unit_roundoff("float16"), unit_roundoff("bfloat16")
    (0.00048828125, 0.00390625)

    """
    return 2.0 ** -SIGNIFICAND_BITS[dtype]


def largest_exact_integer(dtype: str) -> int:
    """The largest N such that every integer position 0 … N is exact in ``dtype``: ``2^p``.

    >>> largest_exact_integer("bfloat16"), largest_exact_integer("float16")
    (256, 2048)

    """
    return int(2 ** SIGNIFICAND_BITS[dtype])


def storage_precision(values: np.ndarray, stored: str | None = None) -> str:
    """The coarsest dtype in which every value is exact: bfloat16, float16, float32, float64.

    This is the rounding signature of a table that was stored in that dtype. A few first
    values are tried before all of them (most tables are told apart by their first entries).
    ``stored``: the dtype the values were read in, when they are a float64 copy of them (as
    their own dtype, it needs no pass to prove them exact in it).

    >>> storage_precision(np.array([0.5, 0.1]))
    'float64'
    >>> storage_precision(np.float16([0.1, 0.7]).astype(np.float64))
    'float16'
    >>> storage_precision(np.float32([0.1, 0.7]).astype(np.float64), stored="float32")
    'float32'

    """
    values = np.asarray(values)
    stored = stored or values.dtype.name  # values held in a dtype are exact in it: no pass
    name: str
    for name in reversed(FLOAT_DTYPES[1:]):  # coarsest first
        if name == stored or all(exact_in(part, name) for part in (values.flat[:4096], values)):
            return name
    return "float64"


def ulps32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many float32 numbers apart ``a`` and ``b`` are, once each is rounded to float32.

    Every float32 is counted once along the number line, so the count runs across zero
    (``+0`` and ``-0`` are 0 apart, the smallest subnormals ``±2^-149`` are 2 apart), through
    the subnormals and across powers of 2 (one step between neighbours is 1). A NaN on
    either side is ``2^32`` apart, more than any two numbers (``-inf`` to ``inf`` is
    ``2·0x7F800000``), so it never agrees within a bound.

    Parameters
    ----------
    a, b : array_like
        Values of any float dtype, broadcast against each other.

    Returns
    -------
    numpy.ndarray
        int64, the broadcast shape.

    Examples
    --------
    >>> ulps32(np.float32([1.0, 0.0, 2.0**-149]), np.float32([2.0, -0.0, -(2.0**-149)])).tolist()
    [8388608, 0, 2]

    """
    return ulps32_between(float32_order(a), float32_order(b))


def float32_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value rounded to float32, as its signed count along the float32 number line; NaNs.

    What :func:`ulps32` subtracts: computed once for values compared many times
    (:func:`ulps32_between`).

    >>> order, nan = float32_order(np.float32([-0.0, 0.0, 2.0**-149, np.nan]))
    >>> order[:3].tolist(), nan.tolist()
    ([0, 0, 1], [False, False, False, True])
    """
    values = np.asarray(x, dtype=np.float32)
    bits = values.view(np.int32)
    sign = bits >> 31  # -1 for a negative number, else 0
    # sign and magnitude to a signed count: -(bits & 0x7FFFFFFF) below zero, in int32
    return (bits ^ (sign & 0x7FFFFFFF)) - sign, np.isnan(values)


def ulps32_between(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """:func:`ulps32` of two :func:`float32_order` results (broadcast), int64.

    >>> ulps32_between(float32_order(np.float32([1.0])), float32_order(np.float32([2.0]))).tolist()
    [8388608]
    """
    (ia, nan_a), (ib, nan_b) = a, b
    distance = np.asarray(np.abs(np.subtract(ia, ib, dtype=np.int64)))
    distance[nan_a | nan_b] = 1 << 32
    return distance


def float32_steps(values: np.ndarray, k: int) -> np.ndarray:
    """Positive finite float32 ``values`` moved ``k`` float32 numbers up (down for ``k < 0``).

    What a port's own float32 ``pow`` may give instead of another's: each engine rounds to
    either neighbour of the exact value, or a step or two off it.

    >>> float32_steps(np.float32([1.0]), -1).tolist(), float32_steps(np.float32([1.0]), 2).tolist()
    ([0.9999999403953552], [1.000000238418579])
    """
    bits = np.asarray(values, dtype=np.float32).view(np.int32)
    moved: np.ndarray = (bits + np.int32(k)).view(np.float32)
    return moved
