"""identify_cache's documented refusals and findings (analysis/rope/cache.py), case by case.

Every table here is written with NumPy from the RoPE formula ``cos(p·ω_j)``, ``sin(p·ω_j)``,
``ω_j = θ^(−2j/d)``; the expected outcomes are the docstring's rules.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.rope.cache import identify_cache
from pecli.core.errors import ParameterError


def tables(theta: float, dim: int, positions, dtype=np.float64):
    """Half-split cos and sin of ``positions``, each value rounded once to ``dtype``."""
    angle = np.outer(np.asarray(positions, np.float64), theta ** (-np.arange(0, dim, 2) / dim))
    cos, sin = np.cos(angle), np.sin(angle)
    return np.hstack([cos, cos]).astype(dtype), np.hstack([sin, sin]).astype(dtype)


@pytest.mark.parametrize(
    "positions",
    [np.array([0, 1, 2, 2, 4, 5]), np.array([0, 1, 2, 3, 4]), np.array([5, 4, 3, 2, 1, 0])],
    ids=["repeated", "one-short", "decreasing"],
)
def test_positions_that_are_not_n_increasing_ones_are_refused(positions):
    """Positions are "shape (n,), increasing": a repeat, one too few, or decreasing is refused."""
    cos, sin = tables(10000.0, 8, range(6))
    with pytest.raises(ParameterError, match="must be 6 increasing positions"):
        identify_cache(cos, sin, positions=positions)


def test_a_short_float16_cache_exchanged_is_not_said_to_be_swapped():
    """cos and sin exchanged, θ 5·10^5, d 128, positions 5 … 68 in float16: read either way
    round the slow pairs turn by less than float16 tells apart, so the swapped reading does
    not determine every pair and the finding (which says it does) is not given."""
    cos, sin = tables(500000.0, 128, range(5, 69), np.float16)
    guess = identify_cache(sin, cos)
    assert guess.start is None and guess.rope is None
    assert not any("exchanged" in finding for finding in guess.findings), guess.findings


def test_random_tables_are_not_said_to_be_swapped():
    """cos and sin of random values (the same in both halves): neither reading starts at a
    position, so nothing is said about an exchange."""
    rng = np.random.default_rng(1)
    cos, sin = rng.uniform(-1, 1, (8, 4)), rng.uniform(-1, 1, (8, 4))
    guess = identify_cache(np.hstack([cos, cos]), np.hstack([sin, sin]))
    assert guess.start is None
    assert not any("exchanged" in finding for finding in guess.findings), guess.findings


def test_a_cache_of_one_pair_is_read_and_said_too_narrow():
    """cos and sin of one pair (2 columns, θ any, ω_0 = 1) at positions 0 … 5: the width is
    even and >= 2, so it is read; one pair is too few to fit θ."""
    cos, sin = tables(10000.0, 2, range(6))
    guess = identify_cache(cos, sin)
    assert guess.rotary_dim == 2 and guess.start == 0 and guess.rope is None
    assert abs(guess.inv_freq[0] - 1.0) < 1e-12
    assert "1 pairs: too few to fit θ and tell the rope type (3 needed)" in guess.findings


def test_positions_given_are_the_rows_positions_where_the_phases_pin_none():
    """A cache of positions ½ … 63½ (between whole positions): its phases pin no first
    position; given positions 0 … 63, the rows are those positions, and their relative
    phases still give θ 10^4."""
    cos, sin = tables(10000.0, 8, np.arange(64) + 0.5)
    assert identify_cache(cos, sin).start is None
    guess = identify_cache(cos, sin, positions=np.arange(64))
    assert guess.start == 0 and guess.theta == 10000.0


def test_theta_of_a_cache_whose_three_leading_pairs_alone_are_determined():
    """θ 10^8, d 8 (ω = 1, 10^-2, 10^-4, 10^-6) at positions 0 … 63 in float32: pair 3 turns
    by 6.3·10^-5 rad, too little to pin; the three leading pairs are the fewest that fit θ."""
    cos, sin = tables(1e8, 8, range(64), np.float32)
    guess = identify_cache(cos, sin)
    assert guess.rope is None and guess.theta == 1e8
    said = "pair 3 is not determined by these positions: a longer cache (more positions) pins it"
    assert said in guess.findings, guess.findings


def test_no_theta_from_leading_pairs_when_pair_0_does_not_turn():
    """The same cache with pair 0 held at cos 1, sin 0 (ω_0 = 0): no ratio to fit θ from."""
    cos, sin = tables(1e8, 8, range(64), np.float32)
    for table, still in ((cos, 1.0), (sin, 0.0)):
        table[:, [0, 4]] = still
    guess = identify_cache(cos, sin)
    assert guess.inv_freq[0] == 0 and guess.rope is None and np.isnan(guess.theta)


def test_an_attention_factor_with_the_default_type_is_a_finding():
    """A default cache (θ 10^4, d 16) times 0.5: transformers' default type has factor 1."""
    cos, sin = tables(10000.0, 16, range(64))
    guess = identify_cache(0.5 * cos, 0.5 * sin)
    assert guess.attention_factor == 0.5 and guess.rope.rope_type == "default"
    assert "attention factor 0.5 with rope type default" in guess.findings


def test_a_cache_of_three_rows_is_the_shortest_read():
    """Caches of "fewer than 3 rows" are refused; 3 rows (θ 10^4, d 8, positions 0 … 2) are."""
    cos, sin = tables(10000.0, 8, range(3))
    guess = identify_cache(cos, sin)
    assert guess.start == 0 and abs(guess.inv_freq[0] - 1.0) < 1e-12
    with pytest.raises(ParameterError, match="at least 3 rows"):
        identify_cache(cos[:2], sin[:2])


def test_positions_given_far_out_pin_omega_by_the_absolute_phases():
    """An exact float64 cache (θ 10^4, d 8) of positions 1000 … 1063, given: the last row's
    absolute phase pins each ω_j to (ε + η·p·ω_j)/p at p = 1063 (ε = 2^-49 for float64
    values, η = 2^-23 a float32 angle's rounding): relative 2^-23 + 2^-49/(1063·ω_j). The
    phases relative to the first row alone leave about 32 times that."""
    cos, sin = tables(10000.0, 8, range(1000, 1064))
    guess = identify_cache(cos, sin, positions=np.arange(1000, 1064))
    omega = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    assert guess.start == 1000 and guess.theta == 10000.0
    assert guess.uncertainty == pytest.approx(2.0**-23 + 2.0**-49 / (1063 * omega), rel=1e-9)
