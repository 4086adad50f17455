"""diff's causes, each check called on a pair built here: the whole sentence, by hand.

Oracles: the RoPE definitions (``θ^(-2i/d)``, ``rotate_half``'s half-split and the interleaved
``(2i, 2i + 1)`` pairs), Llama 4's query temperature ``1 + β·ln(1 + ⌊(p + 1)/s⌋)`` and
transformers' float32 arithmetic (``inv_freq`` and ``p·ω`` rounded once each), written out.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.ports.causes.tables import Pair

READING = {"kind": "cache", "rotary_dim": 64, "rope_type": "default"}


def _pair(ra: dict, rb: dict, a: np.ndarray | None = None, b: np.ndarray | None = None) -> Pair:
    a = np.zeros((4, 8)) if a is None else a
    b = a if b is None else b
    return Pair(a=a, b=b, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=b)


@pytest.mark.parametrize("smaller", ["A", "B"])
def test_the_exponent_reading_names_who_divides_by_what(smaller):
    """θ = 1.5e6 and θ' = θ^(2/3) over 64 rotated channels: ``θ'^(-2i/64) = θ^(-2i/96)``, so
    the side holding θ' divides by a 96-wide head, the other by the 64 rotated channels."""
    from pecli.analysis.ports.causes.readings import exponent_width

    big, small = {**READING, "theta": 1.5e6}, {**READING, "theta": 1.5e6 ** (2 / 3)}
    other = "B" if smaller == "A" else "A"
    words = exponent_width(_pair(small, big) if smaller == "A" else _pair(big, small))
    assert words == (
        f"exponent over head_dim instead of the rotated width: {smaller}'s θ' = "
        f"{1.5e6 ** (2 / 3):.6g} = 1.5e+06^(2/3), as θ^(-2i/96) reads over 64 rotated "
        f"channels ({smaller} divides by the head width 96, {other} by the rotated width 64)"
    )


@pytest.mark.parametrize(("small", "read"), [(1234.0, True), (12340.0, True), (1230.0, False)])
def test_a_base_of_four_significant_digits_is_no_round_base(small, read):
    """A round base (at most 3 significant digits) is a base someone chose: θ' = 1230 against
    1230^(3/2) is left to θ's sentence; 1234 or 12340 (4 digits) is read as θ^(2/3)."""
    from pecli.analysis.ports.causes.readings import exponent_width

    words = exponent_width(_pair({**READING, "theta": small**1.5}, {**READING, "theta": small}))
    assert (words is not None) == read, words
    if read:
        assert f"B's θ' = {small:g} = " in words and "θ^(-2i/96)" in words


def _halves(angles: np.ndarray, layout: str) -> np.ndarray:
    """``[cos | sin]`` with each pair's angle twice: ``rotate_half``'s or interleaved order."""
    twice = np.concatenate([angles, angles], 1) if layout == "half-split" else angles.repeat(2, 1)
    return np.concatenate([np.cos(twice), np.sin(twice)], 1)


@pytest.mark.parametrize("layout", ["half-split", "interleaved"])
def test_each_pair_value_twice_against_once_names_the_layout(layout):
    """Six positions, four pairs: ``(6, 16)`` with each angle twice against ``(6, 8)`` once."""
    from pecli.analysis.ports.causes.shapes import width

    angles = np.outer(np.arange(6.0), 1.0 / 10000.0 ** (np.arange(4) / 4))
    once = np.concatenate([np.cos(angles), np.sin(angles)], 1)
    assert width(_pair({}, {}, _halves(angles, layout), once)) == (
        f"half width against full width: A repeats each pair's value twice ({layout}, the "
        "whole head), B holds it once per pair"
    )
    assert width(_pair({}, {}, once, _halves(angles, layout))).startswith("half width")


@pytest.mark.parametrize(
    "held", [np.s_[:, 0::2], np.s_[:, 1::2], np.s_[:, [0, 1, 2, 3, 8, 9, 10, 11]]]
)
def test_a_table_holding_the_values_in_one_copy_only_repeats_nothing(held):
    """The narrow table's values in the even columns ``2i``, the odd ones ``2i + 1`` or the
    first half of each of cos and sin, the other columns half the angle: no pair's value is
    there twice, in either order (the sentence said so when the copy checked was the right
    one, whatever the other columns held)."""
    from pecli.analysis.ports.causes.shapes import width

    angles = np.outer(np.arange(6.0), 1.0 / 10000.0 ** (np.arange(4) / 4))
    once = np.concatenate([np.cos(angles), np.sin(angles)], 1)
    wide = np.tile(np.concatenate([np.cos(angles / 2), np.sin(angles / 2)], 1), 2)
    wide[held] = once
    assert width(_pair({}, {}, wide, once)) is None
    assert width(_pair({}, {}, once, wide)) is None


def test_a_temperature_is_read_on_queries_of_small_magnitude():
    """Queries whose entries are all below 0.25 (one head, six positions) against the same
    times Llama 4's ``1 + 0.1·ln(1 + ⌊(p + 1)/2⌋)``: every row has large entries of its own."""
    from pecli.analysis.ports.causes.values import temperature

    q = 0.2 * np.random.default_rng(5).uniform(0.5, 1.0, (6, 8))
    factors = 1 + 0.1 * np.log1p(np.floor((np.arange(6.0) + 1) / 2))
    words = temperature(_pair({}, {}, q * factors[:, None], q))
    assert words is not None
    assert words.startswith("query temperature missing: A = B × 1 + β·ln(1 + ⌊(p + 1)/s⌋), s = 2")
    assert ", β = 0.1 (" in words


@pytest.mark.parametrize("start", [1000, 1099])
def test_float32_angles_without_a_theta_are_measured_by_b_s_step(start):
    """A cache at 16 positions from 1000 or 1099 (4 pairs, θ 1e4) exact against transformers'
    float32 angles (``inv_freq`` and ``p·ω`` rounded to float32), read with no θ: ω is B's
    step from row 0 to row 1 (the angle of ``z1·conj(z0)``), and the gaps (about 2^-24·p·ω)
    are float32 roundings."""
    from pecli.analysis.ports.causes.arithmetic import framework_arithmetic

    p = np.arange(start, start + 16.0)
    inv = 1.0 / 10000.0 ** (np.arange(4) / 4)
    exact = np.outer(p, inv)
    rounded = (p.astype(np.float32)[:, None] * inv.astype(np.float32)).astype(np.float64)
    assert np.abs(rounded - exact).max() > 8 * 2.0**-24  # beyond the floor of cos/sin alone
    reading = {"kind": "cache", "layout": "half-split", "start": start}
    a, b = (_halves(x, "half-split").astype(np.float32) for x in (exact, rounded))
    words = framework_arithmetic(_pair(reading, reading, a, b))
    assert words is not None and words.startswith("framework float32 arithmetic"), words


def test_causes_are_read_on_the_first_8192_rows_only():
    """``named_causes`` tests the values on the first ``HEAD_ROWS`` = 8192 rows (its docstring):
    B is A with its cos and sin halves exchanged there, and zeros past them (8200 rows)."""
    from pecli.analysis.ports.causes import likely_causes

    angles = np.outer(np.arange(8200.0), 1.0 / 10000.0 ** (np.arange(4) / 4))
    a = np.concatenate([np.cos(angles), np.sin(angles)], 1).astype(np.float32)
    b = np.concatenate([a[:, 4:], a[:, :4]], 1)
    b[8192:] = 0.0
    swapped = "sin/cos swapped: A's cos half is B's sin half and the other way round"
    assert swapped in likely_causes(a, b, "float32")


def test_a_row_s_factor_is_read_on_entries_above_a_quarter_of_its_largest():
    """Rows of two entries 1 and six of exactly 1/4, times Llama 4's ``1 + 0.1·ln(1 +
    ⌊(p + 1)/2⌋)``, the quarter entries then off by 4e-7 (within the 4-ulp tolerance of the
    table's magnitude): read on the entries above a quarter, β is 0.1 to 6 digits."""
    from pecli.analysis.ports.causes.values import temperature

    q = np.tile([1.0, -1.0, 0.25, -0.25, 0.25, -0.25, 0.25, -0.25], (6, 1))
    factors = 1 + 0.1 * np.log1p(np.floor((np.arange(6.0) + 1) / 2))
    p = q * factors[:, None]
    p[:, 2:] += 4e-7 * np.sign(q[:, 2:])  # each quarter entry's p/q up by 1.6e-6
    words = temperature(_pair({}, {}, p, q))
    assert words is not None and ", s = 2, β = 0.1 (" in words, words


@pytest.mark.parametrize(("last", "fits"), [(1 + 0.1 * np.log(3) / np.log(2), True), (1.2, False)])
def test_the_temperature_is_named_llama_4s_only_when_every_row_fits(last, fits):
    """Rows B·1, B·1.1, B·1.1, B·r: the factor steps up at rows 1 and 3, so s = 2, and
    ``1 + β·ln(1 + ⌊(p + 1)/2⌋)`` through rows 1 and 2 gives β = 0.1/ln 2; row 3 must then
    be 1 + β·ln 3 = 1.158… With r = 1.2 (off by 0.04) the factor is only named by its span."""
    from pecli.analysis.ports.causes.values import temperature

    q = np.ones((4, 8))
    words = temperature(_pair({}, {}, q * np.array([1.0, 1.1, 1.1, last])[:, None], q))
    head = "query temperature missing: A = B × "
    if fits:
        assert words == (
            f"{head}1 + β·ln(1 + ⌊(p + 1)/s⌋), s = 2, β = {0.1 / np.log(2):.6g} (the query "
            "temperature of Llama 4 / Ministral: attn_temperature_tuning, floor_scale, attn_scale)"
        )
    else:
        assert (
            words
            == f"{head}a factor per position, 1 at row 0 to 1.2 at row 3 (a query temperature?)"
        )


def test_one_step_of_the_temperature_gives_s_as_its_row_plus_one():
    """Rows B·1, B·1, B·1.1, B·1.1: one step, at row 2, where ⌊(p + 1)/s⌋ first reaches 1,
    so s = 3; rows 2 and 3 give 1 + β·ln 2 = 1.1, β = 0.1/ln 2."""
    from pecli.analysis.ports.causes.values import temperature

    q = np.ones((4, 8))
    words = temperature(_pair({}, {}, q * np.array([1.0, 1.0, 1.1, 1.1])[:, None], q))
    assert words is not None and f"s = 3, β = {0.1 / np.log(2):.6g} (the query" in words, words
