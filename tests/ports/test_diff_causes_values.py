"""diff's causes that change the values (values.py): where a temperature starts to count.

Tables written here: B all ones, A's rows B times a factor of their own. A query temperature
(``1 + β·ln(1 + ⌊(p + 1)/s⌋)``, Llama 4) makes the rows' factors spread; a spread below
``max(1e-4, 64·u)`` (``u = 2^-p`` the unit roundoff of the dtype, 2^-24 for float32 and 2^-8
for bfloat16, IEEE 754 and bfloat16's 8 significand bits) is rounding wobble or one factor,
named by no temperature.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.ports.causes.tables import Pair
from pecli.analysis.ports.causes.values import temperature


def _scaled(factors: list[float], dtype: str, swap: bool = False) -> Pair:
    q = np.ones((len(factors), 8))
    p = q * np.array(factors)[:, None]
    p, q = (q, p) if swap else (p, q)
    return Pair(a=p, b=q, dtype=dtype, ra={}, rb={}, whole_a=p, whole_b=q)


@pytest.mark.parametrize(
    ("dtype", "spread", "named"),
    [
        ("float32", 6e-5, False),  # below the 1e-4 floor (64·2^-24 = 3.8e-6 is smaller)
        ("float32", 3e-4, True),
        ("bfloat16", 0.2, False),  # below 64·2^-8 = 0.25 (the floor 1e-4 is smaller)
        ("bfloat16", 0.4, True),  # swapped: 1/1.4 spreads 0.29, also past 0.25
    ],
)
def test_a_temperature_needs_the_rows_factors_to_spread_past_the_floor(dtype, spread, named):
    """Four rows with factors 1, 1 + s/3, 1 + 2s/3, 1 + s (growing, so temperature-shaped);
    the same tables swapped put the temperature on B, read with the same words. Linear growth
    is no ``1 + β·ln(…)`` (at rtol 1e-4), so the words give the span of the factors."""
    factors = [1 + spread * k / 3 for k in range(4)]
    words = temperature(_scaled(factors, dtype))
    swapped = temperature(_scaled(factors, dtype, swap=True))
    assert (words is not None) == (swapped is not None) == named, (words, swapped)
    if named:
        span = f"a factor per position, 1 at row 0 to {1 + spread:.6g} at row 3"
        assert words == f"query temperature missing: A = B × {span} (a query temperature?)"
        assert swapped == words.replace("A = B", "B = A"), swapped


def test_a_spread_of_exactly_the_floor_is_named():
    """bfloat16's floor 64·2^-8 = 0.25 is exact, and so is 1.25 - 1: a spread at the floor is
    not below it (swapped, 1/1.25 = 0.8 spreads 0.2: below)."""
    words = temperature(_scaled([1 + 0.25 * k / 3 for k in range(4)], "bfloat16"))
    span = "a factor per position, 1 at row 0 to 1.25 at row 3"
    assert words == f"query temperature missing: A = B × {span} (a query temperature?)"


@pytest.mark.parametrize(("last", "named"), [(1.25, True), (1.25 - 2**-7, False)])
def test_a_factor_may_step_back_by_the_wobble_and_no_more(last, named):
    """bfloat16 rows' factors 1, 1.25, 1.5, then back by exactly 64·2^-8 = 0.25 (rounding
    wobble: still a growing temperature) or by 2^-7 more (it shrinks: none)."""
    words = temperature(_scaled([1, 1.25, 1.5, last], "bfloat16"))
    span = "a factor per position, 1 at row 0 to 1.25 at row 3"
    assert words == (
        f"query temperature missing: A = B × {span} (a query temperature?)" if named else None
    )
