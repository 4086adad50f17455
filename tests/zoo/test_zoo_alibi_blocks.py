"""``alibi_bias_blocks``: the tensor a block of heads at a time, certified in float32.

The expected values are written out per entry from the exact slope (mpmath at 300 bits,
``-μ·(i-j)``, ``-inf`` above the diagonal, ``+0.0`` on it) and rounded to float32 by mpmath
at 24 bits (ties to even), independently of the library code.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from test_zoo_alibi import exact_slope

from pecli.core import certificate
from pecli.core.errors import ParameterError
from pecli.core.zoo.alibi import ExactSlopes, exact_slopes
from pecli.core.zoo.alibi.blocks import alibi_bias_blocks
from pecli.core.zoo.alibi.certified import distance_rows

#: 5 heads of the 5-head series at b = 8 (P = 4): 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1 (head 4).
N, B = 5, 8.0


def _float32(x: mpmath.mpf) -> float:
    """``x`` rounded once to float32 (24 significant bits, ties to even; normal range)."""
    with mpmath.workprec(24):
        return float(+x)


def _by_hand(n, b, k, q, causal, signed=True):
    out = np.empty((n, q, k), dtype=np.float32)
    with mpmath.workprec(300):
        slopes = [exact_slope(n, h, b) for h in range(n)]
    for h, m in enumerate(slopes):
        for r, i in enumerate(range(k - q, k)):
            for j in range(k):
                value = _float32(m * abs(i - j))
                out[h, r, j] = -math.inf if causal and j > i else (-value if value else 0.0)
    return out


@pytest.mark.parametrize("values", [1, 20, 45, 1 << 20])
@pytest.mark.parametrize("convention", ["causal", "symmetric"])
def test_blocks_are_the_whole_tensor(values, convention):
    slopes = exact_slopes(N, max_bias=B, variant="geometric-at-n")  # 2^(-8(h+1)/5): irrational
    shape, blocks = alibi_bias_blocks(slopes, 9, n_query=4, convention=convention, values=values)
    whole = np.concatenate([b.copy() for b in blocks])
    expected = np.empty((N, 4, 9), dtype=np.float32)
    with mpmath.workprec(300):
        for h in range(N):
            m = mpmath.power(2, -mpmath.mpf(8) * (h + 1) / 5)
            for r, i in enumerate(range(5, 9)):
                for j in range(9):
                    v = -_float32(m * abs(i - j)) + 0.0
                    expected[h, r, j] = -math.inf if convention == "causal" and j > i else v
    assert shape == (N, 4, 9) == whole.shape and whole.dtype == np.float32
    assert np.array_equal(whole, expected)
    assert not np.signbit(whole[np.isfinite(whole) & (whole == 0)]).any()  # no -0.0


def test_press_blocks_match_mpmath_entry_by_entry():
    whole = np.concatenate([b.copy() for b in alibi_bias_blocks(exact_slopes(12), 7)[1]])
    assert np.array_equal(whole, _by_hand(12, 8.0, 7, 7, causal=True))


def test_key_only_blocks():
    slopes = exact_slopes(N, max_bias=B, variant="geometric-at-n")
    shape, blocks = alibi_bias_blocks(slopes, 6, convention="mpt", values=12)
    whole = np.concatenate([b.copy() for b in blocks])
    assert shape == (5, 1, 6) == whole.shape
    with mpmath.workprec(300):
        expected = [
            [
                -_float32(mpmath.power(2, -mpmath.mpf(8) * (h + 1) / 5) * (5 - j)) + 0.0
                for j in range(6)
            ]
            for h in range(N)
        ]
    assert np.array_equal(whole[:, 0], np.array(expected, dtype=np.float32))
    assert not np.signbit(whole[:, 0, -1]).any()  # 0, not -0.0, on the last key


def test_bloom_blocks_restart_after_the_padding():
    slopes = exact_slopes(3, max_bias=B)
    mask = [0, 0, 1, 1, 1, 1]
    whole = np.concatenate(
        list(alibi_bias_blocks(slopes, 6, convention="bloom", attention_mask=mask)[1])
    )
    m = slopes.rounded("float32")
    assert np.array_equal(whole[:, 0], m[:, None] * np.array([0, 0, 0, 1, 2, 3], np.float32))


def test_float64_blocks_are_the_float64_tensor():
    slopes = exact_slopes(N, max_bias=B, variant="geometric-at-n")
    whole = np.concatenate(list(alibi_bias_blocks(slopes, 5, dtype=np.float64)[1]))
    assert whole.dtype == np.float64
    with mpmath.workprec(300):
        m = [mpmath.power(2, -mpmath.mpf(8) * (h + 1) / 5) for h in range(N)]
    rel = [abs(-m[h] * 4 - whole[h, 4, 0]) / (m[h] * 4) for h in range(N)]
    assert max(rel) <= 2 * 2.0**-53


def test_refused_before_any_block():
    with pytest.raises(ParameterError, match="2\\^26"):
        alibi_bias_blocks(exact_slopes(64), 8192)  # 2^32 values: refused for all heads
    with pytest.raises(ParameterError, match="queries"):
        alibi_bias_blocks(exact_slopes(4), 8, n_query=2, convention="bloom")


# --- the certificate: a planted near-tie ----------------------------------------------------

#: 64 heads at b = 6, head 48 (μ = 2^(-6·49/64), irrational), distance 4,442,237:
#: fl(m·d) = 183969.2265625 is exactly a float32 midpoint (an odd multiple of 2^-7 between
#: 2^17 and 2^18, where float32's spacing is 2^-6). The float64 product cannot decide the
#: rounding; the exact product lies just off the midpoint.
TIE = (64, 6.0, 48, 4_442_237)


def test_a_float64_product_on_a_float32_midpoint_is_recomputed():
    n, b, h, d = TIE
    slopes = exact_slopes(n, max_bias=b).pick(h, h + 1)
    m = slopes.rounded("float64")
    assert float(m[0] * d) == 183969.2265625  # the planted tie, in float64
    with mpmath.workprec(300):
        exact = exact_slope(n, h, b) * d
    assert abs(exact - mpmath.mpf("183969.2265625")) < mpmath.mpf(2) ** -30  # a near-tie
    with certificate.counting() as tally:
        row = distance_rows(slopes, m, d + 1, np.float32)
    assert tally.checked == d + 1 and tally.recomputed >= 1
    assert float(row[0, d]) == _float32(exact)


def test_the_tie_through_the_mpt_tensor():
    n, b, h, d = TIE
    slopes = exact_slopes(n, max_bias=b).pick(h, h + 1)
    with mpmath.workprec(300):
        exact = exact_slope(n, h, b) * d
    with certificate.counting() as tally:
        (block,) = alibi_bias_blocks(slopes, d + 1, convention="mpt")[1]
        assert float(block[0, 0, 0]) == -_float32(exact)  # the first key: distance d
    assert tally.recomputed >= 1


def test_a_value_undecided_at_the_last_precision_stops_the_command(monkeypatch):
    from pecli.core.errors import RuntimeFailure
    from pecli.core.zoo.alibi import certified

    monkeypatch.setattr(certified, "PRECISIONS", (8,))  # 8 bits decide no float32 rounding
    with pytest.raises(RuntimeFailure, match="undecided at 8 bits"):
        certified.exact_products(
            ExactSlopes(8.0, 8, (1,)), np.array([0]), np.array([3]), np.float32
        )


def test_a_symmetric_matrix_wider_than_a_chunk_is_compared_entry_by_entry():
    """k = 40000 keys (more than the 2^15 values a chunk of rows holds): one query row a chunk.

    Symmetric ALiBi, slope 1/2 (by hand: −|i − j|/2, exact in float64, query i = k − 2 + r);
    one entry moved by 2^-10 is no window of the head's own values, so every entry is
    compared: the error is 2^-10 / (m·(k − 1)), relative to the head's largest distance.
    """
    from pecli.analysis.zoo.alibi_rebuild import rebuild_error

    q, k = 2, 40000
    i, j = np.arange(q)[:, None] + k - q, np.arange(k)[None, :]
    t = (-(0.5 * np.abs(j - i)) + 0.0)[None]
    assert rebuild_error(t, "symmetric") == 0.0
    t[0, 0, 0] += 2.0**-10
    assert rebuild_error(t, "symmetric") == 2.0**-10 / (0.5 * (k - 1))


def test_a_head_of_one_value_read_in_chunks_is_compared_on_its_own_values():
    """A head of 4 × 16384 entries all −1/2 (slope 1/2 at distance 1), read two query rows a
    chunk (2^15 values), is a window of its own values: it is compared on those k + q − 1
    values at j − i = 1 − k … 3. By hand: symmetric −|i − j|/2 is −(k − 1)/2 at j − i = 1 − k,
    off by (k − 2)/2, relative to the head's largest distance m·(k − 1): (k − 2)/(k − 1).
    Causal masks j − i = 1 … 3, which hold −1/2: inf.
    """
    from pecli.analysis.zoo.alibi_rebuild import CHUNK_VALUES, rebuild_error

    q, k = 4, 16384
    assert CHUNK_VALUES // k == 2  # two chunks of rows, each compared with its windows
    t = np.full((1, q, k), -0.5)
    assert rebuild_error(t, "symmetric") == (k - 2) / (k - 1)
    assert rebuild_error(t, "causal") == float("inf")


def test_a_key_only_row_of_one_key_has_no_slope_to_rebuild_from():
    """BLOOM reads its slope as the step between two keys: one key gives none (``inf``)."""
    from pecli.analysis.zoo.alibi_rebuild import rebuild_error

    assert rebuild_error(np.zeros((2, 1, 1)), "bloom") == float("inf")


def test_the_product_bound_covers_every_rounded_slope_times_a_distance():
    """``|fl(m·d) − μd| <= PRODUCT_BOUND.relative·|fl(m·d)|``, μ and μd by mpmath at 200 bits.

    12 heads (irrational slopes 2^-(2h+1)/2 among them), d up to 4095: the worst product is
    off by more than 2^-54 of itself (so a bound of a few 2^-64 would not hold), never by more
    than the module note's 2u·(1 + 2^-50).
    """
    from pecli.core.zoo.alibi.certified import PRODUCT_BOUND

    m = exact_slopes(12).rounded("float64")
    d = np.arange(1, 4096, dtype=np.float64)
    worst = mpmath.mpf(0)
    with mpmath.workprec(200):
        for h in range(12):
            mu = exact_slope(12, h, 8.0)
            for v, dist in zip((m[h] * d)[::97].tolist(), d[::97].tolist(), strict=True):
                worst = max(worst, abs(mpmath.mpf(v) - mu * dist) / v)
    assert 2.0**-54 < worst <= PRODUCT_BOUND.relative


def test_float32_blocks_reuse_four_buffers_in_turn():
    """The float32 blocks are ``AHEAD + 2 = 4`` buffers taken in turn (pecli.core.threads: the
    npy writer holds at most ``AHEAD + 1 = 3`` blocks): block b is overwritten by block b + 4
    and by no block before it, so 12 heads one at a time use 4 buffers, whatever the heads."""
    shape, blocks = alibi_bias_blocks(exact_slopes(12), 3, values=9)  # one 3 × 3 head a block
    taken = list(blocks)
    assert shape == (12, 3, 3) and len(taken) == 12
    for b, block in enumerate(taken):
        shared = [c for c in range(12) if np.shares_memory(block, taken[c])]
        assert shared == list(range(b % 4, 12, 4))


def test_default_blocks_hold_whole_heads_of_at_most_2_to_the_20_values():
    """The documented bound: a block is whole heads of at most 2^20 values (4 MB of float32).
    BLOOM's key-only rows of 2^18 keys: 4 heads a block, 8 heads in 2; head 0's m = 2^-1."""
    shape, blocks = alibi_bias_blocks(exact_slopes(8), 1 << 18, convention="bloom")
    first = next(blocks)
    assert shape == (8, 1, 1 << 18) and first.shape == (4, 1, 1 << 18)
    assert first[0, 0, :5].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_the_product_bound_is_the_module_notes_two_u_times_one_plus_2_to_the_minus_50():
    """2u·(1 + 2^-50) with u = 2^-53 is 2^-52 + 2^-102 exactly (53 bits apart: one float64),
    not 2u: the factor the note adds for the rounded slope's own error is kept."""
    from fractions import Fraction

    from pecli.core.zoo.alibi.certified import PRODUCT_BOUND

    assert Fraction(PRODUCT_BOUND.relative) == Fraction(1, 2**52) + Fraction(1, 2**102)


def test_a_short_significand_is_widened_to_the_asked_bits_at_the_same_value():
    """3·2^5 = 96 to 4 bits is 12·2^3 (two bits shifted in, exponent 2 lower), and 5·2^-1 to
    3 bits is itself: the value ``a·2^e`` is unchanged whichever way the shift goes."""
    from pecli.core.zoo.alibi.powers import _round

    assert _round(3, 5, 4) == (12, 3)
    assert _round(5, -1, 3) == (5, -1)
