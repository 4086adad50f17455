"""ALiBi identification pinned on hand-built tensors (mutation survivors of issue 33)."""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.zoo.alibi import BiasFit, SlopeFit, _is_bfloat16, identify_alibi_bias
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
