"""``alibi_bias_blocks``: the tensor a block of heads at a time, the same bits as whole.

The expected values are written out per entry (``-m·(i-j)``, ``-inf`` above the diagonal,
``+0.0`` on it), independently of the library code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.zoo.alibi_blocks import alibi_bias_blocks

SLOPES = [2.0**-1, 2.0**-2, 2.0**-3, 0.3, 0.7]


def _by_hand(slopes, k, q, causal):
    out = np.empty((len(slopes), q, k))
    for h, m in enumerate(slopes):
        for r, i in enumerate(range(k - q, k)):
            for j in range(k):
                out[h, r, j] = -math.inf if causal and j > i else 0.0 - m * abs(i - j) + 0.0
    return out


@pytest.mark.parametrize("values", [1, 20, 45, 1 << 22])
@pytest.mark.parametrize("convention", ["causal", "symmetric"])
def test_blocks_are_the_whole_tensor(values, convention):
    shape, blocks = alibi_bias_blocks(SLOPES, 9, n_query=4, convention=convention, values=values)
    whole = np.concatenate(list(blocks))
    expected = _by_hand(SLOPES, 9, 4, convention == "causal")
    assert shape == (5, 4, 9) == whole.shape
    assert np.array_equal(whole, expected)
    assert not np.signbit(whole[np.isfinite(whole) & (whole == 0)]).any()  # no -0.0


def test_key_only_blocks():
    shape, blocks = alibi_bias_blocks(SLOPES, 6, convention="mpt", values=12)
    whole = np.concatenate(list(blocks))
    assert shape == (5, 1, 6) == whole.shape
    assert np.array_equal(whole[:, 0], np.array(SLOPES)[:, None] * (np.arange(6) - 5.0))


def test_refused_before_any_block():
    with pytest.raises(ParameterError, match="2\\^26"):
        alibi_bias_blocks([0.5] * 64, 8192)  # 2^32 values: refused for all heads, not per block
