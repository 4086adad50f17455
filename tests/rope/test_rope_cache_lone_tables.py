"""A cos or sin table alone (analysis/rope/cache.py), and tables that are not 2-D.

identify_cache's documented rule: "a ``cos`` or ``sin`` table alone must start at position 0"
(there the cos row is all 1 and the sin row all 0, which pins the phase). A lone table whose
positions start elsewhere is not read: θ NaN, the finding says why.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.rope.cache import identify_cache, split_cache


def cos_table(positions):
    """Half-split cos of RoPE θ 10^4 over 16 channels: cos(p·ω_j), ω_j = 10^4^(−2j/16)."""
    omega = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    angle = np.asarray(positions, np.float64)[:, None] * omega
    return np.cos(np.concatenate([angle, angle], axis=1))


def test_a_lone_cos_table_from_position_0_is_read():
    """Positions 0 … 63: read, θ 10^4."""
    guess = identify_cache(cos_table(np.arange(64)))
    assert guess.theta == 10000.0


@pytest.mark.parametrize("given", [5, 1])
def test_a_lone_cos_table_given_positions_from_other_than_0_is_not_read(given):
    """Positions 5 … 68, or the rows of position 0 … 63 said to be 1 … 64 (the first row all
    1 as at position 0): the positions given rule, and they do not start at 0: not read."""
    p = np.arange(given, given + 64)
    guess = identify_cache(cos_table(p - (given == 1)), positions=p)
    assert math.isnan(guess.theta) and guess.rope is None and guess.start is None
    assert "a cos or sin table alone is read when it starts at position 0" in guess.findings


def test_a_table_that_is_not_2_d_is_returned_as_it_is_with_no_sin():
    """split_cache reads only a (rows, channels) table; a 1-D one is returned as the cos, no sin."""
    row = np.array([1.0, 1.0, 0.0, 0.0])
    cos, sin = split_cache(row)
    assert sin is None and cos.tolist() == [1.0, 1.0, 0.0, 0.0]
