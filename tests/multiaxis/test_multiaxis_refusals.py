"""Multi-axis refusals whose words carry numbers: each number derived by hand.

LTX splits the inner dimension over its axes in pairs (``dim // (2·axes)`` frequencies per
axis, at least 2), so 3 axes need ``dim >= 4·3 = 12``; learned frequencies hold one row per
position axis.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.multiaxis import axis_preset
from pecli.core.multiaxis.ladder import ladder_plan
from pecli.core.multiaxis.learned import learned_angles


@pytest.mark.parametrize(("dim", "axes"), [(10, ("t", "h", "w")), (7, ("t", "h"))])
def test_ltx_refuses_a_dim_below_four_per_axis_and_says_the_least(dim, axes):
    """10 < 12 with 3 axes (1 frequency each); 7 is odd (2 axes would need 8)."""
    with pytest.raises(ParameterError) as caught:
        ladder_plan(dim, axes)
    least = 4 * len(axes)
    assert caught.value.parameter == "head_dim" and caught.value.value == dim
    assert caught.value.rule == f"must be even and >= {least} for LTX ({len(axes)} axes)"


def test_ltx_takes_twelve_channels_for_three_axes():
    """dim 12, 3 axes: 12 // 6 = 2 frequencies per axis, 6 pairs."""
    assert ladder_plan(12).pairs == 6


def test_learned_frequencies_with_a_row_too_few_name_the_position_axes():
    """Positions of 3 axes for 2 tokens, frequencies of 2 axes: the rule names 3 (the
    positions' axes), not the 2 tokens."""
    with pytest.raises(ParameterError) as caught:
        learned_angles(np.zeros((2, 3)), np.ones((2, 1, 4)))
    assert caught.value.rule == "must be finite frequencies (axes 3, heads >= 1, pairs >= 1)"
    assert caught.value.value == (2, 1, 4)


def test_wan_takes_a_side_of_1024_and_refuses_1025_naming_1024():
    """docs/cli.md: Wan's sizes at most 1024 (diffusers' WanRotaryPosEmbed max_seq_len, ids 0
    to 1023), so 1024 itself is taken: 1·1·1024 tokens, the last at (0, 0, 1023)."""
    ids = axis_preset("wan").ids([1, 1, 1024])
    assert ids.shape == (1024, 3) and ids[-1].tolist() == [0, 0, 1023]
    with pytest.raises(ParameterError) as caught:
        axis_preset("wan").ids([1, 1, 1025])
    assert caught.value.rule == "sizes must be <= 1024 for this preset"


def test_an_empty_layout_is_refused_as_a_misspelt_one_is(run_cli):
    """``--layout ""`` gave the preset's own layout, status 0; " " and "x" were refused."""
    for args in (("--preset", "flux"), ("--widths", "8,8", "--theta", "100")):
        result = run_cli("rope", "axes", *args, "--grid", "2x2", "--layout", "")
        assert result.exit_code == 2 and "'--layout': must be one of" in result.stderr
