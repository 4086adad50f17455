"""The dtype facts of pecli/core/dtypes.py against NumPy's and ml_dtypes' own finfo, and
storage_precision against values built by hand at each dtype's last bit."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pecli.core.dtypes import (
    FLOAT_DTYPES,
    MIN_EXPONENT,
    SIGNIFICAND_BITS,
    float_dtype,
    float_info,
    largest_exact_integer,
    storage_precision,
    ulps32,
    unit_roundoff,
)


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_significand_bits_are_the_libraries(name):
    info = ml_dtypes.finfo(float_dtype(name))  # NumPy's own finfo for the IEEE dtypes
    assert SIGNIFICAND_BITS[name] == int(info.nmant) + 1
    assert unit_roundoff(name) == float(info.eps) / 2
    n = largest_exact_integer(name)
    assert n == 2 ** (int(info.nmant) + 1)
    # n is exact, and n + 1 is the first integer the dtype cannot hold
    top = np.array([n - 1, n, n + 1], dtype=np.float64).astype(float_dtype(name))
    assert top.astype(np.float64).tolist()[:2] == [n - 1, n] and float(top[2]) != n + 1
    assert MIN_EXPONENT[name] == int(info.minexp)
    assert float(info.smallest_normal) == 2.0 ** MIN_EXPONENT[name]


@pytest.mark.parametrize(
    ("value", "storage"),
    [
        (1 + 2**-7, "bfloat16"),  # 8 significand bits
        (1 + 2**-8, "float16"),  # 9 bits: too many for bfloat16, within float16's 11
        (1 + 2**-10, "float16"),
        (1 + 2**-11, "float32"),  # 12 bits
        (1 + 2**-23, "float32"),
        (1 + 2**-24, "float64"),  # 25 bits
        (2.0**-140, "float32"),  # below float16's range, a float32 subnormal
        (70000.0, "float32"),
    ],  # above float16's largest, 65504
)
def test_storage_precision_is_the_coarsest_exact_dtype(value, storage):
    assert storage_precision(np.array([0.5, value])) == storage


def test_storage_precision_reads_past_the_first_values():
    values = np.full(5000, 0.5)
    values[-1] = 0.1  # only the last one needs float64
    assert storage_precision(values) == "float64"


@pytest.mark.parametrize("spelling", ["bfloat16", ml_dtypes.bfloat16, np.dtype(ml_dtypes.bfloat16)])
def test_float_info_takes_a_dtype_by_name_type_or_dtype(spelling):
    from pecli.core.dtypes import float_info

    # bfloat16: 7 stored significand bits, eps 2^-7, largest (2 − 2^-7)·2^127
    info = float_info(spelling)
    assert (int(info.nmant), float(info.eps), float(info.max)) == (
        7,
        2.0**-7,
        (2 - 2**-7) * 2.0**127,
    )
    assert float_info(np.float16).nmant == 10 and float_info(np.dtype("f4")).nmant == 23


TINY = 2.0**-149  # the smallest float32 subnormal
BINADE = 2**23  # float32 numbers in [2^k, 2^(k+1))


@pytest.mark.parametrize(
    ("a", "b", "apart"),
    [
        (1.0, 2.0, BINADE),
        (0.0, -0.0, 0),
        (TINY, -TINY, 2),  # -tiny, ±0, tiny
        (-3 * TINY, 5 * TINY, 8),
        (TINY, 0.0, 1),
        (2.0**-126 - TINY, 2.0**-126, 1),  # the largest subnormal to the smallest normal
        (-1.0, 1.0, 2 * 127 * BINADE),  # [0, 1): 2^23 subnormals and zero, then 126 binades
        (-np.inf, np.inf, 2 * 255 * BINADE),
        (1.0, 1.0 + 2.0**-30, 0),  # both round to float32's 1
        (np.nan, np.nan, 2**32),
        (np.inf, np.nan, 2**32),
    ],
)
def test_ulps32_counts_float32_numbers_across_signs_and_subnormals(a, b, apart):
    assert ulps32(np.array([a]), np.array([b])).tolist() == [apart]
    assert ulps32(np.float32(b), np.float64(a)).tolist() == apart  # symmetric, any dtype


def test_every_float64_value_is_exact_in_float64_and_other_names_are_key_errors():
    from pecli.core.dtypes import exact_in

    assert exact_in(np.array([0.1, np.pi, 5e-324]), "float64")  # not float32 or float16 values
    assert not exact_in(np.array([0.1]), "float32")
    for name in ("int8", "float8", "complex64"):
        with pytest.raises(KeyError):
            float_dtype(name)
        with pytest.raises(KeyError):
            exact_in(np.zeros(1), name)
    assert float_dtype("float16") == np.dtype(np.float16)


def _near_bfloat16_ties(rng: np.random.Generator) -> np.ndarray:
    """float32 values on, just above and just below bfloat16 ties, and random ones."""
    upper = rng.integers(0x0080, 0x7F00, 2000, dtype=np.uint32) << np.uint32(16)
    ties = upper | np.uint32(0x8000)
    bits = np.concatenate([ties, ties + np.uint32(1), ties - np.uint32(1), upper, upper + 1])
    signed = np.concatenate([bits, bits | np.uint32(0x80000000)])
    single = signed.view(np.float32)
    return np.concatenate([single, rng.standard_normal(4000).astype(np.float32) * 1e3])


def test_through_float32_is_ml_dtypes_cast_bit_for_bit():
    """bfloat16 rounded on the bits, against ml_dtypes' own cast (ties to even included)."""
    from pecli.core.dtypes import through_float32

    single = _near_bfloat16_ties(np.random.default_rng(7))
    want = single.astype(ml_dtypes.bfloat16).astype(np.float32)
    assert np.array_equal(through_float32(single, "bfloat16").view(np.uint32), want.view(np.uint32))
    positions = np.arange(16_777_000, 16_787_000, dtype=np.float64)  # float64 above 2^24
    want = positions.astype(ml_dtypes.bfloat16).astype(np.float32)
    assert np.array_equal(through_float32(positions, "bfloat16"), want)
    assert through_float32(np.array([257.0, 259.0, 2.0**-133]), "bfloat16").tolist() == [
        256.0,  # 257 is a tie between 256 and 258: to even
        260.0,  # 259 is a tie between 258 and 260: to even
        2.0**-133,  # a subnormal of float32 is one of bfloat16
    ]
    half = through_float32(np.array([1 + 2**-11]), "float16")
    assert half.dtype == np.float32 and half[0] == 1.0  # a tie: to even


def test_rounded_values_are_round_once_without_ml_dtypes():
    """rounded_values is round_once (correct rounding of float64) for every dtype, as float64."""
    from pecli.core.dtypes import round_once, rounded_values

    rng = np.random.default_rng(11)
    single = _near_bfloat16_ties(rng).astype(np.float64)
    values = np.concatenate([single * (1 + 2.0**-40), single * (1 - 2.0**-40), single])
    for name in ("bfloat16", "float16", "float32"):
        inside = values[np.abs(values) < float(float_info(name).max) / 2]  # no overflow
        want = round_once(inside, float_dtype(name)).astype(np.float64)
        assert np.array_equal(rounded_values(inside, name), want), name
    # 1 + 2^-8 + 2^-40 is above the tie 1 + 2^-8: up, where a cast through float32 rounds down
    assert rounded_values(np.array([1 + 2**-8 + 2**-40]), "bfloat16")[0] == 1 + 2**-7
