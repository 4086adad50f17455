"""Powers exactly on a rounding boundary: ``(a/b)^(p/γ)`` rational, rounded in integers.

Ziv's loop cannot decide a value that *is* a midpoint of the output dtype. xPos at
``d = 128`` has one: pair 15's base ``ζ = (10·15 + 2·128)/(7·128) = 406/896 = 29/64`` at
position ``p = 5γ`` is ``29^5/2^30 = 20,511,149/2^30``, a 25-bit odd numerator, halfway between
the float32 numbers ``10,255,574·2^-29`` (even significand) and ``10,255,575·2^-29``;
``pecli xpos --head-dim 128 --n 65536`` stopped there ("undecided at 256 bits"). Expected
values come from the integers by hand and from mpmath (``planted.rounded``: its own rounding
to the dtype's significand, ties to even), never from pecli.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from planted import rounded

from pecli.core.certificate import power_exact
from pecli.core.certificate.rational import exact_power, integer_root, rounded_fraction
from pecli.core.zoo.xpos import xpos_positions, xpos_scales

#: The float32 number the tie rounds to: ties to even, by hand.
TIE_EVEN = 10_255_574 * 2.0**-29


def test_the_tie_is_a_float32_midpoint_by_hand():
    assert 29**5 == 20_511_149 and 2**24 <= 29**5 < 2**25 and 29**5 % 2 == 1
    assert Fraction(10 * 15 + 2 * 128, 7 * 128) == Fraction(29, 64)
    low, high = np.float32(TIE_EVEN), np.nextafter(np.float32(TIE_EVEN), np.float32(1))
    assert Fraction(float(low)) + Fraction(float(high)) == 2 * Fraction(29**5, 2**30)
    with mpmath.workprec(300):  # mpmath agrees: the exact power is the midpoint
        x = (mpmath.mpf(406) / 896) ** (mpmath.mpf(2560) / 512)
        assert x == mpmath.mpf(29**5) / 2**30
        assert rounded(x, "float32") == TIE_EVEN


def test_xpos_table_with_the_tie_matches_mpmath():
    """The same cause at γ = 1 (position 5): 12 rows × 64 pairs, every value to mpmath."""
    table = xpos_scales(12, 128, scale_base=1.0, dtype="float32")
    positions = xpos_positions(12)
    assert positions[11] == 5
    assert table[11, 30] == table[11, 31] == TIE_EVEN
    with mpmath.workprec(300):
        for r, p in enumerate(positions):
            expected = [
                rounded((mpmath.mpf(10 * i + 256) / 896) ** int(p), "float32") for i in range(64)
            ]
            assert table[r, ::2].tolist() == expected


def test_the_reported_command_succeeds(run_cli, tmp_path):
    out = tmp_path / "x.npy"
    done = run_cli("xpos", "--head-dim", "128", "--n", "65536", "-o", str(out))
    assert done.exit_code == 0, done.stderr
    assert done.stderr.splitlines()[-1].startswith("pecli: every value correctly rounded")
    table = np.load(out)
    assert table[32768 + 2560, 30] == TIE_EVEN  # torchscale: rows are positions −32768 …


@pytest.mark.parametrize(
    ("d", "i", "p", "numerator", "denominator"),
    [  # found by enumerating d ≤ 256, γ = 512, |p| ≤ 32768: 32 float32 midpoints
        (32, 9, 3584, 11**7, 2**28),
        (110, 6, -3584, 11**7, 2**14),
        (64, 11, 3072, 17**6, 2**30),
        (134, 18, -2048, 67**4, 2**20),
    ],
)
def test_other_xpos_midpoints(d, i, p, numerator, denominator):
    assert Fraction(10 * i + 2 * d, 7 * d) ** (p // 512) == Fraction(numerator, denominator)
    assert numerator.bit_length() == 25 and numerator % 2
    got = power_exact((np.array([10 * i + 2 * d]), np.array([7 * d])), (np.array([p]), 512.0), "f4")
    with mpmath.workprec(300):
        assert got.tolist() == [rounded(mpmath.mpf(numerator) / denominator, "float32")]


@pytest.mark.parametrize(
    ("x", "dtype", "expected"),
    [
        (Fraction(3, 2**150), np.float32, 2.0**-148),  # 1.5 subnormal quanta: to 2
        (Fraction(5, 2**150), np.float32, 2.0**-148),  # 2.5 quanta: to 2, not 3
        (Fraction(2401, 16), np.float16, 150.0),  # 1200.5 eighths: to 1200
        (Fraction(-2401, 16), np.float16, -150.0),
        (Fraction(343, 8), "bfloat16", 43.0),  # 171.5 quarters: to 172
        (Fraction(1, 3), np.float32, 11184811 * 2.0**-25),  # 0.333…: 11184810.67 → 11184811
        (Fraction(1, 2**25), np.float16, 0.0),  # half the least subnormal 2^-24: to 0
        (Fraction(3, 2**25), np.float16, 2.0**-23),  # 1.5 least subnormals: to 2
    ],
)
def test_rounded_fraction_by_hand(x, dtype, expected):
    if dtype == "bfloat16":
        import ml_dtypes

        dtype = ml_dtypes.bfloat16
    assert rounded_fraction(x, dtype) == expected


def test_exact_power_finds_rational_values_only():
    assert exact_power(406, 896, 2560, 512.0) == Fraction(29**5, 2**30)
    assert exact_power(1, 4, -1, 2.0) == 2  # (1/4)^(-1/2)
    assert exact_power(9, 4, 3, 2.0) == Fraction(27, 8)
    assert exact_power(5, 7, 0, 512.0) == 1
    assert exact_power(2, 7, 1, 2.0) is None  # sqrt(2/7): irrational
    assert exact_power(4, 7, 1, 2.0) is None  # 2/sqrt(7): the numerator's root alone is whole
    assert exact_power(7, 4, 3, 2.0) is None  # 7^(3/2)/8: the denominator's root alone is whole
    assert exact_power(3, 2, 1, 0.1) is None  # fl(0.1) = m/2^55: 1/fl(0.1) has denominator m
    assert exact_power(3, 2, 10**6, 1.0) is None  # 3^(10^6): too large to be on a boundary


def test_integer_roots_by_hand():
    assert [integer_root(n, k) for n, k in [(1, 5), (8, 3), (9, 3), (2**60, 20), (3**40, 8)]] == [
        1,
        2,
        None,
        8,
        243,
    ]


@pytest.mark.parametrize(
    ("dtype", "factor", "f"),
    [
        # (1, 2^-53): the exact sum is the float64 midpoint above 1, rounded to even: 1
        (np.float64, (1.0, 2.0**-53), 1.0),
        # (1, 2^-24 + 2^-54): just above the float32 midpoint 1 + 2^-24, so 1 + 2^-23 (summed
        # in float64 first it would be the midpoint itself and round to 1: twice rounded)
        (np.float32, (1.0, 2.0**-24 + 2.0**-54), 1.0 + 2.0**-23),
    ],
)
def test_fill_turns_writes_the_factor_rounded_once_at_quarter_turns(dtype, factor, f):
    """At ``π·(1/5)·p`` with ``p = 0, 2.5, 5, 7.5`` (0 … 3 quarter turns) sin and cos are
    exactly 0 or ±f, ``f = hi + lo`` rounded once to the output's dtype (by hand above)."""
    from pecli.core.turns import fill_turns

    sin, cos = np.full(4, np.nan, dtype), np.full(4, np.nan, dtype)
    fill_turns((sin, cos), np.array([0.0, 2.5, 5.0, 7.5]), Fraction(1, 5), (0.6, 0.0), factor)
    assert sin.tolist() == [0.0, f, 0.0, -f]
    assert cos.tolist() == [f, 0.0, -f, 0.0]


def test_a_double_double_exactly_on_a_midpoint_stays_undecided_at_the_last_precision():
    """Why rational ties need integers: a double-double sum is known to 2^-100 only, so the
    float32 midpoint 1 + 2^-24 (tail 0) is undecided at 128 bits, 256 and the last, 640
    (the module's documented working precisions); the error names the last one."""
    from pecli.core.certificate import rounded_sum
    from pecli.core.errors import RuntimeFailure

    out = np.empty(1, np.float32)
    with pytest.raises(RuntimeFailure, match=r"undecided at 640 bits"):
        rounded_sum(np.array([1 + 2.0**-24]), np.array([0.0]), out)


def test_the_power_margin_holds_the_working_precisions_roundings(monkeypatch):
    """Run first at 40 bits (patched), mpmath's base ``a/b`` and exponent ``q = p/γ`` are each
    rounded by 2^-40: ``(a/b)^q`` moves by about ``q·2^-40`` relative, 2^-30 at ``q`` near
    1000, more than the 2^-32 slack kept for mpmath's own error. The margin must hold it (the
    documented ``|q|·2^-prec``): every value still equals mpmath's at 300 bits, rounded."""
    from pecli.core.certificate import fallback

    monkeypatch.setattr(fallback, "PRECISIONS", (40, 256))
    rng = np.random.default_rng(7)
    b = rng.integers(5_000, 20_000, 400)
    a, p, gamma = b + rng.integers(1, 9, 400), rng.integers(50, 300, 400), 0.1
    got = power_exact((a, b), (p, gamma), np.float32)
    with mpmath.workprec(300):
        want = [
            rounded(
                (mpmath.mpf(int(x)) / int(y)) ** (mpmath.mpf(int(k)) / mpmath.mpf(gamma)), "float32"
            )
            for x, y, k in zip(a, b, p, strict=True)
        ]
    assert got.tolist() == want


@pytest.mark.parametrize("x", [0.0, 1.0, -0.75, 2.0**-149, 2.0**-126, 2.0**127, 3 * 2.0**-140])
def test_correctly_rounded_keeps_a_value_the_dtype_holds(x):
    """0, 1 and float32 numbers (normal, subnormal, powers of two) round to themselves."""
    from pecli.core.certificate import correctly_rounded

    assert np.float32(x) == x  # held by float32, by construction
    with mpmath.workprec(200):
        assert correctly_rounded(mpmath.mpf(x), np.float32) == x


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (1.5 * 2.0**-149, 2.0**-148),  # subnormal tie on the fixed quantum 2^-149: to even, 2
        (2.5 * 2.0**-149, 2.0**-148),  # 2.5 quanta: to even, 2
        (2.0**-150, 0.0),  # half the smallest subnormal: to even, 0
        (640.25 * 2.0**-149, 640 * 2.0**-149),  # a quarter quantum above 640 (2^9 + 2^7): down
        (1 + 3 * 2.0**-24, 1 + 2.0**-22),  # 1.5 steps of 2^-23 above 1: to even, 2 steps
    ],
)
def test_correctly_rounded_ties_to_even_on_the_subnormal_quantum(x, expected):
    """By hand: float32's subnormals are multiples of 2^-149; normal numbers in [1, 2) of
    2^-23. A value halfway between two goes to the one with an even count."""
    from pecli.core.certificate import correctly_rounded

    with mpmath.workprec(200):
        assert correctly_rounded(mpmath.mpf(x), np.float32) == expected


def test_quarter_turns_of_integer_positions_by_hand():
    """2·rate·p quarter turns, by hand: rate 1/4 makes p/2 (p = 2 is one quarter turn, 6 is
    three); rate 1/400 makes p/200 (a step of 200, decided exactly too)."""
    from pecli.core.turns import quarter_turns

    mask, q = quarter_turns(np.array([0.0, 1.0, 2.0, 4.0, 6.0]), Fraction(1, 4))
    assert mask.tolist() == [True, False, True, True, True] and q.tolist() == [0, 1, 2, 3]
    mask, q = quarter_turns(np.array([0.0, 200.0, 300.0, 400.0]), Fraction(1, 400))
    assert mask.tolist() == [True, True, False, True] and q.tolist() == [0, 1, 2]


def test_fill_turns_writes_sin_and_cos_of_whole_quarter_turns_with_factor_1():
    """rate 1/2: p quarter turns; sin = 0, 1, 0, -1 and cos = 1, 0, -1, 0 (unit factor)."""
    import math

    from pecli.core.turns import fill_turns

    sin, cos = np.full(4, np.nan), np.full(4, np.nan)
    fill_turns((sin, cos), np.arange(4.0), Fraction(1, 2), (math.pi / 2, 0.0))
    assert sin.tolist() == [0.0, 1.0, 0.0, -1.0] and cos.tolist() == [1.0, 0.0, -1.0, 0.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_step_of_2_to_the_53_is_still_a_whole_quarter_turn(dtype):
    """Rate 2^-54 at p = 2^53: π/2 exactly, sin 1 and cos 0. It was sent to the direct kernel,
    whose float32 certificate could not decide the exact zero ("undecided at 256 bits")."""
    from pecli.core.turns import fill_turns

    with mpmath.workprec(200):
        omega = mpmath.pi / 2**54  # the double-double π·rate of the other rows
        frequency = (float(omega), float(omega - float(omega)))
    sin, cos = np.full(1, np.nan, dtype), np.full(1, np.nan, dtype)
    fill_turns((sin, cos), np.array([2.0**53]), Fraction(1, 2**54), frequency)
    assert sin.tolist() == [1.0] and cos.tolist() == [0.0]


def test_a_double_double_whose_own_error_reaches_a_midpoint_is_recomputed():
    """The bound of ``hi`` alone is ``|lo|`` plus the pair's own 2^-100·|hi|, not minus it.

    ``hi = 1 + 2^-24 + 2^-51`` lies two float64 steps above the float32 midpoint ``T = 1 +
    2^-24``; with ``|lo| = 2^-53 - 2^-76`` the widened bound is ``e = 3·2^-53 + 2^-103 +
    2^-104 ± 2^-100`` (by hand, from :meth:`ErrorBound.at`): ``hi - e`` is at most the float64
    tie ``T + 2^-53`` (so ``fl(hi - e) = T``, which float32 rounds down) exactly when the 2^-100
    term is added. Then the sum is sent to mpmath: 1 recomputed, and ``hi + lo`` (above ``T``)
    rounds up to ``1 + 2^-23``."""
    from pecli.core.certificate import rounded_sum

    out = np.empty(1, np.float32)
    hi, lo = np.array([1 + 2.0**-24 + 2.0**-51]), np.array([-(2.0**-53 - 2.0**-76)])
    assert rounded_sum(hi, lo, out) == 1
    assert out.tolist() == [1 + 2.0**-23]
