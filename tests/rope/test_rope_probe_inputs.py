"""``rope probe``'s argument checks (analysis/rope/probe/inputs.py) on hand-made shapes.

The rules are the module's own docstrings: a hidden axis ``f`` holds ``heads × head_dim``
(so ``heads`` alone must divide it), a head needs at least 2 channels (one pair), and a
position past 2^53 is reported by its value, the first such one in row order.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.rope.probe.inputs import as_rows, check_pair, token_positions
from pecli.core.errors import ParameterError


def test_heads_alone_split_a_hidden_axis_into_hidden_over_heads_channels():
    """32 hidden channels over 4 heads: 32 / 4 = 8 channels a head, in order (head 1 holds
    channels 8 … 15 of the hidden axis)."""
    x = np.arange(5 * 32, dtype=np.float64).reshape(5, 32)
    rows, batch = as_rows(x, None, heads=4)
    assert rows.shape == (5, 4, 8) and batch == 1
    assert rows[0, 1].tolist() == [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert rows.dtype == np.float64


@pytest.mark.parametrize("heads", [5, 3, 64])
def test_heads_that_do_not_divide_the_hidden_width_are_refused_as_heads(heads):
    """32 = 2^5 has no divisor 3 or 5, and 64 heads would leave half a channel each."""
    with pytest.raises(ParameterError) as caught:
        as_rows(np.zeros((5, 32)), None, heads=heads)
    assert caught.value.parameter == "heads"
    assert caught.value.rule == "must divide the hidden width 32"
    assert caught.value.value == heads


def test_a_head_of_two_channels_is_one_pair_and_is_taken_one_channel_is_not():
    """RoPE turns pairs of channels: 2 channels are the smallest head, 1 is refused."""
    two = np.ones((3, 1, 2))
    assert check_pair(two, two) is None
    one = np.ones((3, 1, 1))
    with pytest.raises(ParameterError) as caught:
        check_pair(one, one)
    assert (caught.value.parameter, caught.value.value) == ("pre", 1)


def test_the_first_position_past_2_to_the_53_in_row_order_is_the_one_reported():
    """2^53 itself is allowed, so [2^53, 2^54, 2^55] reports 2^54 (the first past it)."""
    with pytest.raises(ParameterError) as caught:
        token_positions(np.array([2.0**53, 2.0**54, 2.0**55]), 3, 1)
    assert caught.value.value == 2.0**54


def test_a_non_finite_position_is_reported_before_a_later_large_one():
    """[1, inf, 2^60]: inf is the first bad value in row order."""
    with pytest.raises(ParameterError) as caught:
        token_positions(np.array([1.0, np.inf, 2.0**60]), 3, 1)
    assert caught.value.value == np.inf


def test_ids_of_8_axes_are_taken_and_9_are_refused():
    """docs/cli.md (rope probe, --ids): one column per id axis, at most 8 axes."""
    ids = np.arange(1.0, 10.0)[None, :] * np.ones((3, 1))  # 3 tokens, 9 axes
    assert token_positions(ids[:, :8], 3, 1).shape == (3, 8)
    with pytest.raises(ParameterError) as caught:
        token_positions(ids, 3, 1)
    assert caught.value.parameter == "positions" and "at most 8 axes" in caught.value.rule
