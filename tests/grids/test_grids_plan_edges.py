"""Grid plans at the edges of their arguments: the widest and narrowest d, bad axis orders.

Expected values by hand from the libraries' rules (docs/grids.md), never from pecli.
"""

from __future__ import annotations

import pytest

from pecli import ParameterError
from pecli.core.grids import grid_plan


def test_widths_from_1_to_2_to_the_17_are_taken_and_one_more_is_refused():
    """d is checked as 1 … 131072 (2^17, pecli's widest): tatp22 at d = 1 is one pair per
    axis cut to its sine (positional-encodings: ceil(1/4) = 1 pair, [sin, cos] cut to 1
    column); mae at 2^17 has 2^15 pairs a block; 2^17 + 4 is out of range."""
    plan = grid_plan("tatp22", 1, 2)
    assert plan.sin_cols.tolist() == [[0], [-1]] and plan.cos_cols.tolist() == [[-1], [-1]]
    assert grid_plan("mae", 2**17, 2).block_pairs == (2**15, 2**15)
    with pytest.raises(ParameterError, match="d must be an integer from 1 to 131072"):
        grid_plan("mae", 2**17 + 4, 2)


@pytest.mark.parametrize(("order", "m"), [("0,1", 3), ("0,1,1", 3), ((2, 0), 2)])
def test_an_axis_order_that_is_no_permutation_names_the_axes_it_must_permute(order, m):
    """A permutation of the m axes 0 … m-1: on 3 axes, "0,1" and "0,1,1" are refused as not
    one of "the 3 axes 0 … 2"."""
    with pytest.raises(ParameterError, match=f"of the {m} axes 0 … {m - 1}"):
        grid_plan("t2t-nd", 16, m, order)
