"""ALiBi identification pinned on hand-built tensors (mutation survivors of issue 33)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.zoo.alibi import (
    BiasFit,
    SlopeFit,
    _is_bfloat16,
    identify_alibi_bias,
    identify_alibi_slopes,
)
from pecli.core.errors import ParameterError


def test_one_head_causal_tail_queries_read_as_one_head():
    """One head (P = 1, e = 1, max_bias 8: m = 2^-8, by hand), the last 3 of 5 queries.

    Its (1, 3, 5) tensor is one head of 3 query rows, not 3 key-only heads: -m·(i-j) below
    the diagonal, -inf above.
    """
    m = 2.0**-8
    i, j = np.arange(2, 5)[:, None], np.arange(5)[None, :]
    t = np.where(j <= i, -m * (i - j), -np.inf)[None]
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched) == ("causal", True)
    assert fit.slopes.tolist() == [m]
    assert (fit.slope_fit.heads, fit.slope_fit.max_bias) == (1, 8.0)


def test_a_fit_made_without_padding_reports_none():
    """BiasFit's left_padding defaults to 0 padded keys, batch to one sequence."""
    slope_fit = SlopeFit(1, 8.0, "press", 0.0, 1e-5, False)
    fit = BiasFit("bloom", (1, 1, 2), np.array([2.0**-8]), 0.0, 1e-5, slope_fit)
    report = fit.report()
    assert report["left_padding"] == 0
    assert "batch" not in report


def test_a_tensor_without_a_finite_value_is_not_bfloat16():
    """Nothing finite to be a bfloat16 number: all -inf is not read as bfloat16."""
    assert not _is_bfloat16(np.full((2, 3, 4), -np.inf))
    assert _is_bfloat16(np.array([[[-np.inf, 0.5, 0.25]]]))


def test_shapes_that_are_no_bias_are_refused_by_their_shape():
    """One key shows no slope (keys >= 2); a 1-D or 4-D tensor is no (heads, q, k) bias."""
    rule = r"\(heads, queries, keys\)"
    for shape in [(2, 3, 1), (2,), (2, 2, 3, 4)]:
        with pytest.raises(ParameterError, match=rule):
            identify_alibi_bias(np.zeros(shape))


@pytest.mark.parametrize("sixty_fourths", [21, 13, 4])
def test_max_bias_snaps_to_the_coarsest_power_of_two_grid_only(sixty_fourths):
    """Exact slopes 2^(-b·e) of 8 heads (e = 1/8 … 1, the paper's), read at bfloat16's tolerance.

    b = 21/64, 13/64, 4/64 are read back as themselves: the grids tried are halves, quarters …
    64ths, so b is never snapped to a nearby 1/3, 1/5, 3/17, … (21/64 is within 2^-8 relative
    of 1/3 at e = 1: 2^(1/192) - 1 = 0.0036 < 2^-8 = tolerance / 2).
    """
    b = sixty_fourths / 64
    slopes = [2.0 ** (-b * (h + 1) / 8) for h in range(8)]
    fit = identify_alibi_slopes(slopes, bfloat16=True)
    assert (fit.variant, fit.max_bias, fit.matched) == ("press", b, True)


def test_a_slope_off_by_exactly_half_the_tolerance_still_snaps():
    """One head (e = 1) of slope 2^-8 + 2^-16 = 2^-8·(1 + 2^-8): b = 8 rebuilds it off by
    2^-8 exactly, half bfloat16's tolerance 2^-7, which still snaps b to 8."""
    fit = identify_alibi_slopes([2.0**-8 + 2.0**-16], bfloat16=True)
    assert (fit.max_bias, fit.error) == (8.0, 2.0**-8)


def test_a_key_only_row_broadcast_over_two_queries_is_read_as_one_row():
    """BLOOM's rows m·j (m = 1/2, 1/4, by hand) on two equal query rows: read as one row."""
    row = np.array([0.5, 0.25])[:, None] * np.arange(6.0)[None, :]
    fit = identify_alibi_bias(np.repeat(row[:, None, :], 2, axis=1))
    assert (fit.convention, fit.matched) == ("bloom", True)
    assert fit.slopes.tolist() == [0.5, 0.25]


def test_a_batch_whose_second_sequence_differs_is_not_read_as_batches():
    """BLOOM rows m·j of 4 rows: the first two the paper's 2 heads (2^-4, 2^-8, by hand), the
    last two slopes 0.3 and 0.7 that no series makes: neither one sequence nor two alike."""
    slopes = [2.0**-4, 2.0**-8, 0.3, 0.7]
    t = np.array(slopes)[:, None, None] * np.arange(6.0)[None, None, :]
    fit = identify_alibi_bias(t)
    assert (fit.batch, fit.matched) == (1, False)
    assert "batch" not in fit.report()


def test_a_slope_fit_exactly_at_its_tolerance_is_matched():
    """Within the tolerance includes the tolerance itself."""
    assert SlopeFit(1, 8.0, "press", 1e-5, 1e-5, False).matched
    assert not SlopeFit(1, 8.0, "press", 2e-5, 1e-5, False).matched


@pytest.mark.parametrize(("series", "wrong"), [("press", False), ("next-power-of-two", True)])
def test_the_report_says_whether_the_series_is_a_wrong_one(series, wrong):
    """12 heads of max_bias 8, by hand: the paper's 2^-(h+1) for h < 8, then 2^-(h-8+0.5);
    next-power-of-two's 2^-(h+1)/2 (the first 12 of 16 heads'), one of the wrong series."""
    if series == "press":
        slopes = [2.0 ** -(h + 1) for h in range(8)] + [2.0 ** -(h + 0.5) for h in range(4)]
    else:
        slopes = [2.0 ** (-(h + 1) / 2) for h in range(12)]
    report = identify_alibi_slopes(slopes).report()
    assert (report["series"], report["max_bias"], report["wrong"]) == (series, 8.0, wrong)


def test_a_lone_slope_of_one_is_zero_based_at_max_bias_zero():
    """One head of slope 1 = 2^(-b·0): zero-based's only head, whatever b; read as b = 0 (the
    paper's 2^-b needs b = 0, which no series is made with)."""
    fit = identify_alibi_slopes([1.0])
    assert (fit.variant, fit.max_bias, fit.matched) == ("zero-based", 0.0, True)
    assert fit.out_of_range == ("press", "next-power-of-two", "geometric-at-n")


def test_batched_rows_report_the_first_sequence_and_the_worst_error():
    """BLOOM's (batch·heads, 1, keys), by hand: 2 heads (2^-4, 2^-8), sequence 0 unpadded
    (m·j, j = 0 … 5), sequence 1 padded by 2 keys (m·(0, 0, 0, 1, 2, 3)), its head 0's last key
    off by 2^-24: relative error 2^-24 / (3·2^-4), the worst of the two sequences'."""
    m = np.array([2.0**-4, 2.0**-8])
    first = m[:, None] * np.arange(6.0)
    second = m[:, None] * np.array([0.0, 0.0, 0.0, 1.0, 2.0, 3.0])
    second[0, 5] += 2.0**-24
    fit = identify_alibi_bias(np.concatenate([first, second])[:, None, :])
    assert (fit.convention, fit.batch, fit.batch_padding, fit.matched) == ("bloom", 2, (0, 2), True)
    assert fit.left_padding == 0  # the first sequence's
    assert fit.error == 2.0**-24 / (3 / 16)
    assert (fit.slope_fit.variant, fit.slope_fit.max_bias) == ("press", 8.0)


def test_a_tensor_whose_later_head_is_no_bfloat16_is_read_at_float_tolerance():
    """BLOOM rows m·j: head 0's (m = 1/2) are bfloat16 numbers, head 1's (m = 0.1) are not."""
    t = np.array([0.5, 0.1])[:, None, None] * np.arange(4.0)[None, None, :]
    assert not _is_bfloat16(t)
    assert identify_alibi_bias(t).tolerance == 1e-5


def test_a_snap_needs_half_the_tolerance_not_more():
    """One head (e = 1) of slope 2^-8·(1 + 2^-7): b = 8 - log2(1 + 2^-7) = 7.98877…; b = 8
    rebuilds it off by 2^-7, more than half bfloat16's tolerance (2^-8); the coarsest grid
    within 2^-8 is 64ths: 511/64 (off by 2^(b - 511/64) - 1 = 0.0031)."""
    b = 8 - math.log2(1 + 2.0**-7)
    assert 2 ** (b - 511 / 64) - 1 < 2.0**-8 < 2 ** (8 - b) - 1
    fit = identify_alibi_slopes([2.0**-8 + 2.0**-15], bfloat16=True)
    assert fit.max_bias == 511 / 64


def test_a_zero_slope_is_refused():
    with pytest.raises(ParameterError, match="positive finite"):
        identify_alibi_slopes([0.5, 0.0])


def test_batched_sequences_must_each_rebuild():
    """BLOOM rows m·j of 2 heads (2^-4, 2^-8) twice; the second copy's head 0 last key off by
    0.1: same slopes at distance 1, but that sequence is no ALiBi row: no batch reading."""
    m = np.array([2.0**-4, 2.0**-8])
    first = m[:, None] * np.arange(6.0)
    second = first.copy()
    second[0, 5] += 0.1
    fit = identify_alibi_bias(np.concatenate([first, second])[:, None, :])
    assert (fit.batch, fit.matched) == (1, False)


def test_a_bias_report_nests_its_slope_fit_without_a_kind():
    row = np.array([0.5, 0.25])[:, None] * np.arange(6.0)[None, :]
    report = identify_alibi_bias(row[:, None, :]).report()
    assert report["kind"] == "bias" and "kind" not in report["slope_fit"]


def test_two_dimensional_padded_key_rows_are_heads_not_a_square():
    """BLOOM's rows m·(0, 0, 1, 2, 3, 4) of 2 heads (2^-4, 2^-8; one padded key), as (heads,
    keys): their diagonal (0, 0) is zero, yet 2 x 6 is no square causal matrix."""
    m = np.array([2.0**-4, 2.0**-8])
    fit = identify_alibi_bias(m[:, None] * np.array([0.0, 0.0, 1.0, 2.0, 3.0, 4.0]))
    assert (fit.convention, fit.left_padding, fit.matched) == ("bloom", 1, True)
    assert fit.slopes.tolist() == m.tolist()


def test_a_snap_needs_twice_the_least_squares_error_at_most():
    """2 heads (e = 1/2, 1), log2 m = -8·e + (5u, 5u), u = 2·10^-6, by hand: least squares
    b = 8 - 6u, residuals (2u, -u) in log2 (relative error ~2u·ln 2 = 2.8e-6, within 1e-5);
    b = 8 leaves 5u·ln 2 = 6.9e-6: over half the tolerance and over twice the least-squares
    error, so b is not snapped to 8."""
    u = 2e-6
    slopes = [2.0 ** (-8 * e + 5 * u) for e in (0.5, 1.0)]
    fit = identify_alibi_slopes(slopes)
    assert fit.matched and fit.variant == "press"
    assert fit.max_bias == pytest.approx(8 - 6 * u, abs=1e-12)


def test_one_head_key_row_broadcast_over_queries_is_read_as_one_row():
    """One head's BLOOM row 2^-8·j (P = 1, e = 1, max_bias 8) on 3 equal query rows."""
    t = np.repeat((2.0**-8 * np.arange(5.0))[None, None, :], 3, axis=1)
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("bloom", True, [2.0**-8])


def test_a_two_dimensional_causal_square_is_one_head():
    """One head (m = 2^-8), 4 x 4: -m·(i - j) on and below the zero diagonal, -inf above."""
    i, j = np.arange(4)[:, None], np.arange(4)[None, :]
    fit = identify_alibi_bias(np.where(j <= i, -(2.0**-8) * (i - j), -np.inf))
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [2.0**-8])
