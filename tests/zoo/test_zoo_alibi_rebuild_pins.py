"""ALiBi rebuilding pinned on hand-built tensors (mutation survivors of issue 33)."""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.zoo.alibi import identify_alibi_bias
from pecli.analysis.zoo.alibi_rebuild import MASKED, left_padding, mask_level
from pecli.core.errors import ParameterError


def test_gpt2s_minus_ten_thousand_is_a_causal_mask():
    """GPT-2's ``masked_bias`` is -1e4: one head (m = 2^-8) of 4 x 4, -m·(i - j) on and below
    the diagonal, -10000.0 above: the mask level is that constant, the tensor causal."""
    i, j = np.arange(4)[:, None], np.arange(4)[None, :]
    t = np.where(j <= i, -(2.0**-8) * (i - j), -1e4)[None]
    assert mask_level(t) == -1e4
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [2.0**-8])


def test_no_mask_level_without_two_queries_or_with_more_queries_than_keys():
    """One query row has nothing above its diagonal; 3 queries over 2 keys are no causal
    rows (the last q of k positions): both read :data:`MASKED`, whatever the values."""
    assert mask_level(np.full((1, 1, 3), -1e9)) == MASKED
    t = np.array([[[-1e9, -1e9], [0.0, -1e9], [0.0, 0.0]]])
    assert mask_level(t) == MASKED


def test_a_row_of_zeros_has_no_left_padding():
    """No nonzero key: the row does not start as BLOOM's padded row does, -1."""
    assert left_padding(np.zeros((1, 1, 4))) == -1
    assert left_padding(np.array([[[0.0, 0.0, 0.5]]])) == 1


def test_a_head_larger_than_a_block_is_read_alone():
    """One head's BLOOM row 2^-8·j over 2^20 + 2 keys (more values than a block of heads)."""
    t = (2.0**-8 * np.arange(2.0**20 + 2))[None, None, :]
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("bloom", True, [2.0**-8])


def test_a_perturbed_first_query_row_counts():
    """Symmetric -m·|i - j| (m = 1/2, 4 x 4) with its first diagonal value 0.001 instead of 0:
    the largest error is 0.001 / (m·(k - 1)) = 0.001 / 1.5, by hand."""
    i, j = np.arange(4)[:, None], np.arange(4)[None, :]
    t = -0.5 * np.abs(i - j)[None].astype(np.float64)
    t[0, 0, 0] = 0.001
    fit = identify_alibi_bias(t)
    assert fit.convention == "symmetric"
    assert fit.error == 0.001 / 1.5


def test_an_unpadded_row_reads_its_slope_at_keys_0_and_1():
    """BLOOM's row m·j (m = 0.1, no bfloat16 number: not Falcon's) with key 1 at 0.1 + 10^-7:
    the slope is key 1 - key 0, 0.1 + 10^-7, not key 2 - key 1."""
    fit = identify_alibi_bias(np.array([[[0.0, 0.1 + 1e-7, 0.2, 0.3, 0.4]]]))
    assert fit.convention == "bloom"
    assert fit.slopes.tolist() == [0.1 + 1e-7]


def test_a_masked_value_below_the_diagonal_is_no_alibi():
    """Causal -m·(i - j) (m = 1/2, 4 x 4), -inf above, its corner (distance 3) at -1e30: a
    value at the mask level where ALiBi has -1.5; no convention rebuilds it."""
    i, j = np.arange(4)[:, None], np.arange(4)[None, :]
    t = np.where(j <= i, -0.5 * (i - j), -np.inf)[None]
    t[0, 3, 0] = -1e30
    with pytest.raises(ParameterError, match="no ALiBi bias"):
        identify_alibi_bias(t)


def test_a_mask_at_exactly_minus_1e30_in_rows_compared_one_by_one():
    """Causal -m·(i - j) (m = 1/2, 4 x 4), -1e30 above; row 2's key 0 off by 10^-9, so its rows
    are no shifted copies: compared entry by entry, the -1e30 cells are still masked."""
    i, j = np.arange(4)[:, None], np.arange(4)[None, :]
    t = np.where(j <= i, -0.5 * (i - j), -1e30)[None]
    t[0, 2, 0] += 1e-9
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched) == ("causal", True)
    assert fit.error == abs((-1.0 + 1e-9) + 1.0) / 1.5


def test_a_small_slopes_error_is_relative_to_its_own_span():
    """Symmetric -m·|i - j| (m = 2^-8, 4 x 4), first diagonal value 10^-6 instead of 0: the
    error is 10^-6 / (m·(k - 1)) = 10^-6 / (3·2^-8), below 1 as the span m·3 is."""
    i, j = np.arange(4)[:, None], np.arange(4)[None, :]
    t = -(2.0**-8) * np.abs(i - j)[None].astype(np.float64)
    t[0, 0, 0] = 1e-6
    fit = identify_alibi_bias(t)
    assert fit.convention == "symmetric"
    assert fit.error == 1e-6 / (3 * 2.0**-8)


def test_a_constant_mask_over_more_rows_than_one_block():
    """Causal -m·(i - j) (m = 2^-8), 256 x 256 (65536 values: two blocks of rows), -1e9 above."""
    i, j = np.arange(256)[:, None], np.arange(256)[None, :]
    t = np.where(j <= i, -(2.0**-8) * (i - j), -1e9)[None]
    assert mask_level(t) == -1e9
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [2.0**-8])


def test_a_causal_head_wider_than_a_row_block():
    """Causal -m·(i - j) (m = 2^-8), the last 2 queries of 32770 keys (a row is more than one
    block of 2^15 values), -inf above."""
    k = 32770
    i, j = np.arange(k - 2, k)[:, None], np.arange(k)[None, :]
    t = np.where(j <= i, -(2.0**-8) * (i - j), -np.inf)[None]
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [2.0**-8])
