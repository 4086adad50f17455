"""The similarity of pe(p) and pe(p + k) (core/sinusoidal/similarity.py): mpmath, pecli's rows."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from pecli import encoding_table
from pecli.core.errors import ParameterError
from pecli.core.sinusoidal.similarity import first_offset_below, offset_similarity


def mp_similarity(k: float, d: int, base: float = 10000.0, shift: float = 0.0) -> float:
    """(1/h) Σ_j cos(k C^(-j/(h-s))) at 40 digits, straight from the formula."""
    h = d // 2
    omegas = [mpmath.power(mpmath.mpf(base), -mpmath.mpf(j) / (h - shift)) for j in range(h)]
    return float(mpmath.fsum(mpmath.cos(mpmath.mpf(k) * w) for w in omegas) / h)


def test_the_issues_values_at_d_512():
    got = offset_similarity([1, 10, 100], 512)
    assert [round(float(v), 4) for v in got] == [0.9731, 0.6789, 0.4373]


@pytest.mark.parametrize("k", [0, 1, 10, 53, 54, 100, 1000, 12345.5, -7])
def test_against_mpmath_paper_schedule(k):
    assert math.isclose(offset_similarity([k], 512)[0], mp_similarity(k, 512), abs_tol=1e-13)


@pytest.mark.parametrize(
    ("schedule", "shift", "base", "d"),
    [
        ("tensor2tensor", 1.0, 10000.0, 64),
        ("shift:0.5", 0.5, 500000.0, 128),
        ("paper", 0.0, 100.0, 8),
    ],
)
def test_against_mpmath_other_schedules(schedule, shift, base, d):
    ks = [1, 5, 77, 4096]
    got = offset_similarity(ks, d, base=base, schedule=schedule)
    want = [mp_similarity(k, d, base, shift) for k in ks]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_first_offset_below_one_half_is_54():
    assert mp_similarity(53, 512) >= 0.5 > mp_similarity(54, 512)  # the reference agrees
    assert first_offset_below(0.5, 512) == 54
    assert first_offset_below(0.5, 512, most=53) is None
    assert first_offset_below(-2.0, 8, most=5000) is None  # a similarity is never below -1


def test_equals_the_normalised_dot_product_of_pecli_s_own_rows():
    table = encoding_table(d=512, n=1200, start=0, dtype="float64")
    for p in (0, 7, 500):
        rows = table[p : p + 101]
        dots = rows @ rows[0] / (np.linalg.norm(rows, axis=1) * np.linalg.norm(rows[0]))
        np.testing.assert_allclose(dots, offset_similarity(np.arange(101), 512), atol=1e-12)


def test_does_not_depend_on_the_layout_or_the_first_position():
    table = encoding_table(
        d=64, n=40, start=3, layout="sin-cos", schedule="tensor2tensor", dtype="float64"
    )
    dots = table[5:] @ table[5] / 32  # |pe(p)|^2 = d/2
    want = offset_similarity(np.arange(35), 64, schedule="tensor2tensor")
    np.testing.assert_allclose(dots, want, atol=1e-12)


@pytest.mark.parametrize("offsets", [[math.nan], [math.inf], [2.0**54], [[1.0, 2.0]]])
def test_bad_offsets_are_named(offsets):
    with pytest.raises(ParameterError) as caught:
        offset_similarity(offsets, 8)
    assert caught.value.parameter == "offsets"


def test_many_offsets_at_a_large_width_in_blocks():
    k = np.arange(5000.0)  # 5000 × 8192 cosines: several blocks
    got = offset_similarity(k, 16384)
    assert got.shape == (5000,) and got[0] == 1.0
    assert math.isclose(got[4321], mp_similarity(4321, 16384), abs_tol=1e-12)
