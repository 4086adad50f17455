"""Sinusoidal tables under the certificate: half dtypes, an amplitude, whole half turns.

Expected values: mpmath at 200 bits (``ω_j = 10000^(-j/4)``, d = 8, by hand), rounded by
mpmath to the dtype's significand (tests/planted.py); exact zeros and ±1 by hand.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from planted import rounded

from pecli.core import direct, kernels
from pecli.core.certificate import ErrorBound, counting
from pecli.core.sinusoidal.encoding import encoding_table, positional_encoding
from pecli.core.turns import quarter_turns, rational_power


def _row(p: float, dtype: str, amplitude=1, turns=False) -> list[float]:
    """Interleaved [sin, cos] of d = 8 at position ``p`` (ω_j = 10^-j exactly)."""
    out = []
    with mpmath.workprec(200):
        for j in range(4):
            if turns:  # the angle 2π·p·10^-j: sinpi / cospi of the exact rational t = 2p/10^j
                t = 2 * Fraction(p) / 10**j
                t_mp = mpmath.mpf(t.numerator) / t.denominator
                s, c = mpmath.sinpi(t_mp), mpmath.cospi(t_mp)
                if (2 * t).denominator == 1:  # whole quarter turns: 0 and ±1 by hand
                    s, c = [(0, 1), (1, 0), (0, -1), (-1, 0)][int(2 * t) % 4]
            else:
                a = mpmath.mpf(p) / mpmath.mpf(10) ** j
                s, c = mpmath.sin(a), mpmath.cos(a)
            out += [
                rounded(amplitude * mpmath.mpf(s), dtype),
                rounded(amplitude * mpmath.mpf(c), dtype),
            ]
    return out


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_half_dtypes_and_an_amplitude_through_the_fallback_match_mpmath(monkeypatch, dtype):
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=0.05))  # all undecided
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=0.05))  # float32
    with counting() as tally:
        table = encoding_table(d=8, n=4, start=1, dtype=dtype, amplitude="sqrt(2/d)")
    assert tally.recomputed == tally.checked == table.size
    with mpmath.workprec(200):
        amplitude = mpmath.sqrt(mpmath.mpf(2) / 8)
    for r, row in enumerate(np.asarray(table, dtype=np.float64)):
        assert row.tolist() == _row(1 + r, dtype, amplitude)


@pytest.mark.parametrize("layout", ["interleaved", "sin-cos"])
def test_an_irrational_amplitude_on_the_consecutive_kernel_matches_mpmath(layout):
    """float32, ``sqrt(2/6)`` (a double-double), from position 0, under the real bounds."""
    d, n = 6, 40
    with counting() as tally:
        table = encoding_table(d=d, n=n, start=0, amplitude="sqrt(2/d)", layout=layout)
    assert tally.checked == table.size and tally.recomputed >= d // 2  # the sines at 0
    with mpmath.workprec(200):
        amplitude = mpmath.sqrt(mpmath.mpf(2) / d)
        omega = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * j) / d) for j in range(d // 2)]
        for p in range(n):
            sin = [rounded(amplitude * mpmath.sin(p * w), "float32") for w in omega]
            cos = [rounded(amplitude * mpmath.cos(p * w), "float32") for w in omega]
            row = [v for pair in zip(sin, cos, strict=True) for v in pair]
            assert table[p].tolist() == (row if layout == "interleaved" else sin + cos)


def test_full_turns_are_exact_at_quarter_turns_and_certified_elsewhere(monkeypatch):
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=1e-3))
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=1e-3))
    with counting() as tally:  # p = 5: 2π·0.1·5 = π, sine exactly 0 (no fallback can say)
        table = encoding_table(d=8, n=6, start=0, full_turns=True)
    assert tally.checked == table.size
    for p, row in enumerate(table):
        assert row.tolist() == _row(p, "float32", turns=True)
    assert table[5, 2] == 0 and table[5, 3] == -1 and table[3, 0] == 0
    where = np.array([0.5, 0.25, 2.5, 1 / 3])  # fractional: π, π/2, 5π and 2π/3 on column 0
    with counting() as tally:
        rows = positional_encoding(where, d=8, full_turns=True, dtype="float32")
    for p, row in zip(where, rows, strict=True):
        assert row.tolist() == _row(p, "float32", turns=True)


def test_rational_frequencies_and_quarter_turns_by_hand():
    assert rational_power(10000.0, Fraction(-1, 4)) == Fraction(1, 10)
    assert rational_power(10000.0, Fraction(-3, 4)) == Fraction(1, 1000)
    assert rational_power(10000.0, Fraction(-1, 3)) is None
    assert rational_power(0.25, Fraction(1, 2)) == Fraction(1, 2)
    mask, q = quarter_turns(np.array([-5.0, 0.0, 1.0, 2.5, 5.0, 10.0]), Fraction(1, 5))
    assert mask.tolist() == [True, True, False, True, True, True]
    assert q.tolist() == [2, 0, 1, 2, 0]  # 2·p/5 mod 4: -2, 0, 1, 2, 4


@pytest.mark.parametrize(
    ("rate", "quarters"),
    [
        (Fraction(5, 2), [0, 1, 2, 3, 0, 1]),  # 2·rate·p = 5p quarter turns, mod 4
        (Fraction(3), [0, 2, 0, 2, 0, 2]),  # 6p mod 4
        (Fraction(7, 3), [0, 2, 0, 2]),  # p = 0, 3, 6, 9 (14/3·p whole iff 3 | p): 14p/3 mod 4
    ],
)
def test_quarter_turns_of_a_rate_of_five_quarters_or_more(rate, quarters):
    """A rate whose 2·rate numerator is 5, 6 or 14 (above one full turn per position): the
    quarter turns are 2·rate·p mod 4, by hand, for p = 0, 1, 2, … (multiples of 3 for 7/3)."""
    step = 3 if rate.denominator == 3 else 1
    positions = np.arange(0.0, step * len(quarters), 1.0)
    mask, q = quarter_turns(positions, rate)
    assert mask.tolist() == [p % step == 0 for p in range(step * len(quarters))]
    assert q.tolist() == quarters


def test_full_turns_at_five_quarters_scale_land_on_their_quarter_turns():
    """MLX's full turns with angle_scale 5/4, d = 2 (ω = 1): the angle 2π·(5/4)·p = 5p·π/2,
    so sin is 0, 1, 0, −1, … and cos 1, 0, −1, 0, … (by hand), exactly, in float32."""
    t = encoding_table(d=2, n=8, start=0, full_turns=True, angle_scale=1.25, dtype="float32")
    assert t[:, 0].tolist() == [0.0, 1.0, 0.0, -1.0] * 2
    assert t[:, 1].tolist() == [1.0, 0.0, -1.0, 0.0] * 2


def test_the_fallback_refuses_a_value_it_cannot_decide():
    from pecli.core.certificate import sin_cos_exact
    from pecli.core.errors import RuntimeFailure

    with mpmath.workprec(200):  # π as a double-double: its sine is ~1e-33, not 0
        pi = float(mpmath.pi)
        tail = float(mpmath.pi - pi)
    terms = (np.array([1.0]), np.zeros(1), np.array([pi]), np.array([tail]))
    with pytest.raises(RuntimeFailure):  # within 2^-100 of π: no longer given as 0
        sin_cos_exact(terms, np.array([False]), np.float32)


def test_rational_power_of_a_base_whose_denominator_has_no_root_is_none():
    # 4.5 = 9/2 (by hand): √9 = 3 but √2 is irrational, so 4.5^(±1/2) is not rational
    assert rational_power(4.5, Fraction(-1, 2)) is None
    assert rational_power(2.25, Fraction(-1, 2)) == Fraction(2, 3)  # 9/4: both roots whole


def test_fill_turns_gives_every_quarter_turn_its_sign():
    """Angles π/2·p for p = 0 … 7 (by hand): sin 0, 1, 0, −1, …; cos 1, 0, −1, 0, … (× 0.5)."""
    from pecli.core.turns import fill_turns

    sin, cos = np.empty(8, np.float32), np.empty(8, np.float32)
    fill_turns((sin, cos), np.arange(8.0), Fraction(1, 2), (math.pi / 2, 0.0), (0.5, 0.0))
    assert sin.tolist() == [0.0, 0.5, 0.0, -0.5] * 2
    assert cos.tolist() == [0.5, 0.0, -0.5, 0.0] * 2


def test_a_rate_whose_step_is_no_float64_finds_no_false_quarter_turn():
    """rate = 1/(2·(2^53 + 1)): 2·rate·p is a whole number only for p a multiple of 2^53 + 1
    (by hand), which float64 cannot hold (it rounds to 2^53). At p = 2^53 it is
    2^53/(2^53 + 1): no quarter turn, whatever the rounded step says."""
    mask, q = quarter_turns(np.array([2.0**53]), Fraction(1, 2 * (2**53 + 1)))
    assert mask.tolist() == [False] and q.size == 0
