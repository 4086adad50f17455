"""A cos or sin table alone (analysis/rope/cache.py), and tables that are not 2-D.

identify_cache's documented rule: "a ``cos`` or ``sin`` table alone must start at position 0"
(there the cos row is all 1 and the sin row all 0, which pins the phase). A lone table whose
positions start elsewhere is not read: θ NaN, the finding says why.
"""

from __future__ import annotations

import math
import warnings

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


def test_a_lone_sin_table_from_position_1_gives_no_attention_factor():
    """sin(p·ω_j) of positions 1 … 64 (θ 10^4, 16 channels): its first row is not all 0, so
    the factor is not read from the rows at positions 1, 2 (it would be, from sin(2) > 0)."""
    p = np.arange(1, 65)
    omega = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    angle = p[:, None] * omega
    guess = identify_cache(sin=np.sin(np.concatenate([angle, angle], axis=1)))
    assert guess.attention_factor is None and guess.start is None
    assert guess.rotary_dim == 16 and guess.inv_freq.shape == (8,)
    assert np.all(np.isnan(guess.inv_freq)) and np.all(np.isnan(guess.uncertainty))
    assert "a cos or sin table alone is read when it starts at position 0" in guess.findings


def test_a_one_row_table_side_by_side_is_split():
    """[cos | sin] at position 0 alone (1, 1 | 0, 0): one row is a table, cos² + sin² = 1."""
    cos, sin = split_cache(np.array([[1.0, 1.0, 0.0, 0.0]]))
    assert cos.tolist() == [[1.0, 1.0]] and sin.tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize(
    "column",
    [np.zeros(64), np.arange(64.0)],
    ids=["zeros", "linear"],
)
def test_a_lone_sin_table_that_does_not_turn_gives_no_attention_factor(column):
    """The factor of a sin table alone is ``sin ω / sin(acos(sin 2ω / (2 sin ω)))``: rows at
    positions 1, 2 of 0, 0 (nothing turns) or 1, 2 (sin 2ω = 2 sin ω: cos ω = 1, ω = 0) give
    none. The linear column gave an attention factor of inf (a division by sin 0)."""
    table = np.outer(column, [1.0, 0.5, 0.25, 0.125] * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        guess = identify_cache(sin=table)
    assert guess.attention_factor is None and guess.rope is None


@pytest.mark.parametrize("width", [4, 3])
def test_a_table_of_no_rows_is_returned_as_it_is_with_no_sin(width):
    """No rows: no cos² + sin² to compare, no first row to be all 0: returned as the cos."""
    cos, sin = split_cache(np.empty((0, width)))
    assert sin is None and cos.shape == (0, width)
