"""ALiBi rebuilding pinned on hand-built tensors (mutation survivors of issue 33)."""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.zoo.alibi import identify_alibi_bias
from pecli.analysis.zoo.alibi_rebuild import MASKED, left_padding, mask_level
from pecli.core.errors import ParameterError


def _causal(m: float, keys: int, level: float, queries: int | None = None) -> np.ndarray:
    """One head of -m·(i - j) on and below the diagonal, ``level`` above, the last ``queries``
    (all by default) of ``keys`` query rows: the causal convention by its definition."""
    i = np.arange(keys - (keys if queries is None else queries), keys)[:, None]
    j = np.arange(keys)[None, :]
    return np.where(j <= i, -m * (i - j), level)[None]


def _symmetric(m: float, keys: int) -> np.ndarray:
    """One head of -m·|i - j| over ``keys`` queries and keys, by its definition."""
    i, j = np.arange(keys)[:, None], np.arange(keys)[None, :]
    return -m * np.abs(i - j)[None].astype(np.float64)


def test_gpt2s_minus_ten_thousand_is_a_causal_mask():
    """GPT-2's ``masked_bias`` is -1e4: one head (m = 2^-8) of 4 x 4, -m·(i - j) on and below
    the diagonal, -10000.0 above: the mask level is that constant, the tensor causal."""
    t = _causal(2.0**-8, 4, -1e4)
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
    t = _symmetric(0.5, 4)
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
    t = _causal(0.5, 4, -np.inf)
    t[0, 3, 0] = -1e30
    with pytest.raises(ParameterError, match="no ALiBi bias"):
        identify_alibi_bias(t)


def test_a_mask_at_exactly_minus_1e30_in_rows_compared_one_by_one():
    """Causal -m·(i - j) (m = 1/2, 4 x 4), -1e30 above; row 2's key 0 off by 10^-9, so its rows
    are no shifted copies: compared entry by entry, the -1e30 cells are still masked."""
    t = _causal(0.5, 4, -1e30)
    t[0, 2, 0] += 1e-9
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched) == ("causal", True)
    assert fit.error == abs((-1.0 + 1e-9) + 1.0) / 1.5


def test_a_small_slopes_error_is_relative_to_its_own_span():
    """Symmetric -m·|i - j| (m = 2^-8, 4 x 4), first diagonal value 10^-6 instead of 0: the
    error is 10^-6 / (m·(k - 1)) = 10^-6 / (3·2^-8), below 1 as the span m·3 is."""
    t = _symmetric(2.0**-8, 4)
    t[0, 0, 0] = 1e-6
    fit = identify_alibi_bias(t)
    assert fit.convention == "symmetric"
    assert fit.error == 1e-6 / (3 * 2.0**-8)


def test_a_constant_mask_over_more_rows_than_one_block():
    """Causal -m·(i - j) (m = 2^-8), 256 x 256 (65536 values: two blocks of rows), -1e9 above."""
    t = _causal(2.0**-8, 256, -1e9)
    assert mask_level(t) == -1e9
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [2.0**-8])


def test_a_causal_head_wider_than_a_row_block():
    """Causal -m·(i - j) (m = 2^-8), the last 2 queries of 32770 keys (a row is more than one
    block of 2^15 values), -inf above."""
    k = 32770
    t = _causal(2.0**-8, k, -np.inf, queries=2)
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [2.0**-8])
