"""``cache_sample``: the rows a CSV size estimate reads, spread over the cache's positions.

Expected rows written here from their definition: up to 64 positions ``round(linspace(first,
last, 64))`` over the cache (from ``start`` to ``start + n − 1``, or over the given
``positions``), each row ``[cos pω | sin pω]`` half-split with RoPE's ω_i = 10000^(−2i/4) =
1 and 1/100 for a head of 4, computed in float64 by NumPy and rounded once to float32.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.core.ports.arithmetic import CacheSpec, cache_sample
from pecli.core.rope import RopeSpec, rope_frequencies


def _rows(positions: np.ndarray) -> np.ndarray:
    angles = np.outer(positions, [1.0, 0.01, 1.0, 0.01])
    return np.concatenate([np.cos(angles), np.sin(angles)], axis=1)


@pytest.mark.parametrize("arithmetic", ["exact", "transformers", "llama.cpp"])
def test_the_sample_spreads_64_rows_from_start_to_the_last_position(arithmetic):
    """start 100, n 1000: positions 100, 116, …, 1099 (64 of them, the ends included)."""
    spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 1000, start=100)
    sample = cache_sample(spec, arithmetic)
    positions = np.linspace(100, 1099, 64).round()
    assert positions[:3].tolist() == [100, 116, 132] and positions[-1] == 1099
    assert sample.shape == (64, 8) and sample.dtype == np.float32
    np.testing.assert_allclose(sample, _rows(positions), rtol=0, atol=1e-5)


def test_the_sample_of_given_positions_takes_64_of_them_spread_over_the_list():
    """1000 positions 0.5·k: rows at k = round(linspace(0, 999, 64)), so p = 0, 8, 16, …"""
    given = 0.5 * np.arange(1000)
    spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 1000, positions=given)
    sample = cache_sample(spec)
    positions = 0.5 * np.linspace(0, 999, 64).round()
    np.testing.assert_allclose(sample, _rows(positions), rtol=0, atol=1e-6)


def test_a_wide_head_takes_fewer_rows_to_stay_within_2_to_the_20_values():
    """Head 10240: rows of 2·10240 values (cos and sin), so ⌊2^20 / 20480⌋ = 51 rows, not 64."""
    spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=10240)), 1000)
    sample = cache_sample(spec, "transformers")
    assert sample.shape == (51, 20480) and sample.size <= 1 << 20
    np.testing.assert_array_equal(sample[0], np.repeat([1.0, 0.0], 10240))  # position 0
