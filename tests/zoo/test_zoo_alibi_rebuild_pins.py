"""ALiBi rebuilding pinned on hand-built tensors (mutation survivors of issue 33)."""

from __future__ import annotations

import numpy as np

from pecli.analysis.zoo.alibi import identify_alibi_bias
from pecli.analysis.zoo.alibi_rebuild import MASKED, left_padding, mask_level


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
