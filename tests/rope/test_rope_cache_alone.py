"""A cos or a sin table alone, and the attention factor, read by ``identify_cache``.

Every table here is written with NumPy from transformers' default rule (inv_freq_i =
θ^(−2i/d), half-split [f(pω) | f(pω)] over positions 0, 1, …), not with pecli's cache.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli.analysis.rope.cache import identify_cache


def _half_split(f, n: int = 64, d: int = 16, theta: float = 10000.0) -> np.ndarray:
    inv = theta ** (-np.arange(0, d, 2) / d)
    angles = np.outer(np.arange(float(n)), inv)
    return np.concatenate([f(angles)] * 2, axis=1)


@pytest.mark.parametrize("part", ["cos", "sin"])
def test_a_table_alone_from_position_0_gives_theta_and_factor_1(part):
    """sin pω is arcsin's φ or π − φ (cos: ±arccos): pair 0 (ω = 1) passes π/2 at row 2, so
    the second branch is needed; θ = 10^4, d = 16, factor 1, start 0 are read back."""
    table = _half_split(np.sin if part == "sin" else np.cos)
    guess = identify_cache(**{part: table})
    assert (guess.start, guess.attention_factor, guess.rotary_dim) == (0, 1.0, 16)
    assert guess.rope is not None and guess.rope.rope_type == "default"
    assert guess.theta == pytest.approx(10000.0, rel=1e-9)
    inv = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    np.testing.assert_allclose(guess.inv_freq, inv, rtol=1e-9)


def test_a_sin_table_alone_takes_pi_minus_phi_past_a_quarter_turn():
    """sin of positions 0 … 2 (d = 8, θ = 10^4, float64, so ε = 2·2^-50): pair 0 (ω = 1) is
    pinned best by row 2, whose angle 2 > π/2 is arcsin's π − φ: its error is arcsin's
    ε / |cos 2| plus the float32 angle's 2·2^-23, over 2 positions (row 1 alone would leave
    ε / cos 1 + 2^-23; the two differ by 2·10^-15, far above float64's rounding)."""
    table = _half_split(np.sin, n=3, d=8)
    guess = identify_cache(sin=table)
    expected = (2.0**-49 / abs(math.cos(2)) + 2 * 2.0**-23) / 2
    assert guess.uncertainty[0] == pytest.approx(expected, rel=1e-9, abs=0)
    assert abs(guess.inv_freq[0] - 1) <= expected


@pytest.mark.parametrize("first", [5, "zeros"])
def test_a_cos_table_alone_off_position_0_gives_no_factor(first):
    """A cos table's attention factor is its first row when that row is one positive value
    (position 0: a·cos 0 = a). From position 5 the row differs pair to pair (cos 5ω_i); a
    row of zeros (a sin table given as cos) is no factor either, and not the all-zero cache
    the docstring refuses: both are read as not starting at position 0, without a factor."""
    table = _half_split(np.cos, n=69)[5:] if first == 5 else _half_split(np.sin)
    guess = identify_cache(cos=table)
    assert (guess.attention_factor, guess.start, guess.rope) == (None, None, None)
    assert "starts at position 0" in guess.findings[0]


@pytest.mark.parametrize(
    ("factor", "read"),
    [
        (1 + 2.0**-48, 1.0),
        (1 - 2.0**-48, 1.0),
        (1 + 3 * 2.0**-49, 1 + 3 * 2.0**-49),
        (1 - 2.0**-47, 1 - 2.0**-47),
    ],
)
def test_a_factor_within_two_float64_roundings_of_1_is_read_as_1(factor, read):
    """cos and sin in float64 (ε = 2·2^-50), times a factor a: a within 2ε = 2^-48 of 1,
    the boundary included, is 1; 1.5 or 2 times that far it is a. The pairs turn a quarter
    and a half turn a row, so every value is exactly ±a or 0: cos² + sin² is a² throughout."""
    quarter = np.array([[1.0, 0], [0, 1], [-1, 0], [0, -1]] * 2)
    half = np.array([[1.0, 0], [-1, 0]] * 4)
    cos, sin = (factor * np.stack([quarter[:, k], half[:, k]] * 2, axis=1) for k in (0, 1))
    assert identify_cache(cos, sin).attention_factor == read


@pytest.mark.parametrize(("part", "names"), [("both", ("cos", "sin")), ("cos", ("cos",))])
def test_a_spec_names_its_parts_cos_before_sin(part, names):
    """``--part both`` writes cos and sin side by side, cos first; one part is that part."""
    from pecli.core.rope import RopeSpec, rope_frequencies
    from pecli.core.rope.cache import CacheSpec

    spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 3, part=part)
    assert spec.names() == names
