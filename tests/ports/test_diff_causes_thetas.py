"""diff's θ cause on readings built here: which readings are bases, and how far apart is apart.

A θ is a base only above 1 (``θ^(-2i/d)`` of 1 is 1 at every i: no rotation to read a base
from); two readings of different kinds (a cos/sin cache against an inv_freq vector) are not
compared. Two bases differ when they are more than the storage's reading spread apart,
relatively: 2e-2 for bfloat16 tables (8 significand bits), 2e-3 for float16 (11), 1e-6 else.
"""

from __future__ import annotations

import pytest

from pecli.analysis.ports.causes.readings import theta
from pecli.analysis.ports.causes.tables import Pair

READING = {"kind": "cache", "rotary_dim": 64, "rope_type": "default"}


def _theta(ta, tb, **extra) -> str | None:
    import numpy as np

    a = np.zeros((4, 8))
    ra, rb = {**READING, "theta": ta, **extra}, {**READING, "theta": tb, **extra}
    return theta(Pair(a=a, b=a, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=a))


def test_two_bases_are_named_with_both_values():
    """10^4 against 5·10^5 (no power r/d of it: ln 10^4 / ln 5·10^5 = 0.702…, no fraction of
    denominator at most 16 within 10^-6)."""
    assert _theta(10000.0, 5e5) == (
        "θ (base, rope_theta) differs: A reads as θ = 10000, B as θ = 500000"
    )


@pytest.mark.parametrize("other", [1.0, 0.5, 0.0, None])
@pytest.mark.parametrize("first", [True, False])
def test_a_theta_of_1_or_less_or_none_is_no_base(other, first):
    assert (_theta(other, 1e4) if first else _theta(1e4, other)) is None


def test_readings_of_two_kinds_are_not_compared():
    import numpy as np

    a = np.zeros((4, 8))
    ra = {**READING, "theta": 1e4}
    rb = {**READING, "kind": "inv_freq", "theta": 1e6}
    assert theta(Pair(a=a, b=a, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=a)) is None


@pytest.mark.parametrize(
    ("storage", "within", "apart"),
    [("bfloat16", 1.01, 1.05), ("float16", 1.001, 1.01), (None, 1.0000005, 1.0001)],
)
def test_bases_differ_past_the_storages_spread(storage, within, apart):
    """θ_B = 10^4, θ_A = 10^4 · (1 + r): r of 1 %, 0.1 % or 5·10^-7 is within bfloat16's,
    float16's or float32's spread (2e-2, 2e-3, 1e-6); 5 %, 1 % or 10^-4 is apart. One
    reading's storage is enough."""
    extra = {"storage": storage} if storage else {}
    assert _theta(1e4 * within, 1e4, **extra) is None
    assert _theta(1e4 * apart, 1e4, **extra) is not None
    if storage:
        import numpy as np

        a = np.zeros((4, 8))
        ra = {**READING, "theta": 1e4 * within, "storage": storage}
        rb = {**READING, "theta": 1e4, "storage": "float32"}
        assert theta(Pair(a=a, b=a, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=a)) is None


def test_bases_exactly_the_spread_apart_agree():
    """10^6 + 1 against 10^6 is exactly 10^-6 apart relatively (1e-6 · 10^6 is 1.0 in float64):
    not more than the spread, so no θ difference; 10^6 + 2 is."""
    assert _theta(1e6 + 1, 1e6) is None
    assert _theta(1e6 + 2, 1e6) is not None


def _exponent(ra: dict, rb: dict) -> str | None:
    import numpy as np

    from pecli.analysis.ports.causes.readings import exponent_width

    a = np.zeros((4, 8))
    return exponent_width(Pair(a=a, b=a, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=a))


def test_the_exponent_reading_needs_one_rotated_width_and_one_rope_type():
    """θ = 1.5·10^6 against θ^(2/3) over 64 rotated channels reads as a 96-wide head; not when
    the two readings' rotated widths differ (64 against 128), nor their rope types (linear
    against none given, either side)."""
    big, small = {**READING, "theta": 1.5e6}, {**READING, "theta": 1.5e6 ** (2 / 3)}
    assert "θ^(-2i/96)" in _exponent(big, small)
    assert _exponent(big, {**small, "rotary_dim": 128}) is None
    assert _exponent({**big, "rotary_dim": None}, small) is None
    untyped = {k: v for k, v in small.items() if k != "rope_type"}
    assert _exponent({**big, "rope_type": "linear"}, untyped) is None
    assert _exponent(untyped, {**big, "rope_type": "linear"}) is None


@pytest.mark.parametrize(("power", "rotated"), [(3 / 5, 64), (2 / 3, 56)])
def test_the_exponent_reading_needs_a_whole_head_width_of_16s(power, rotated):
    """θ' = θ^(3/5) over 64 channels would be a head of 64 · 5/3 (not whole); θ^(2/3) over 56,
    a head of 84 (not a multiple of 16): neither is read as the exponent over head_dim."""
    big = {**READING, "theta": 1.5e6, "rotary_dim": rotated}
    assert _exponent(big, {**big, "theta": 1.5e6**power}) is None


def test_a_base_near_1_in_bfloat16_is_no_power_of_the_other():
    """θ' = 1.01 against 10^6, bfloat16: ln 1.01 / ln 10^6 = 7.2·10^-4 is within bfloat16's
    spread 2e-2 of 0, the fraction nearest it of denominator at most 16: no power θ^(p/q) of
    a head (it was a division by zero); the bases are named as they are."""
    assert _theta(1.01, 1e6, storage="bfloat16") == (
        "θ (base, rope_theta) differs: A reads as θ = 1.01, B as θ = 1000000"
    )


def test_a_local_theta_a_thousandth_below_the_global_one_is_no_layer_type():
    """The sliding layer's θ must be below the full layer's by more than 10^-3 relatively:
    999 against 1000 is exactly 10^-3 below (1000 · 0.999 is 999.0 in float64): no layer
    type named; 998 is."""
    import numpy as np

    from pecli.analysis.ports.causes.readings import layer_type

    a = np.zeros((4, 8))

    def named(local: float) -> bool:
        ra, rb = {**READING, "theta": local}, {**READING, "theta": 1000.0, "rope_type": "linear"}
        pair = Pair(a=a, b=a, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=a)
        return layer_type(pair) is not None

    assert (named(999.0), named(998.0)) == (False, True)


@pytest.mark.parametrize(("gamma_b", "named"), [(512.0, True), (9999.0, False), (9998.0, True)])
def test_two_xpos_readings_name_gamma_only_past_its_spread(gamma_b, named):
    """γ 10^4 in A: B's γ of 512 differs (named); 9999 is exactly the float32 reading spread
    10^-4 of the larger γ away (10^-4 · 10^4 is 1.0): not named; 9998 is. The sides differ
    throughout, so the sentence is never empty."""
    import numpy as np

    from pecli.analysis.ports.causes.readings import xpos

    a = np.zeros((4, 8))
    ra = {"kind": "xpos", "storage": "float32", "scale_base": 10000.0, "side": "queries"}
    ra |= {"first_position": 0, "centre": "floor"}
    rb = {**ra, "side": "keys", "scale_base": gamma_b}
    words = xpos(Pair(a=a, b=a, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=a))
    side = "A holds the queries' scales, B the keys' (keys: ζ_i^(−p/γ), the queries' inverse)"
    gamma = f"γ (scale_base) 10000 in A, {gamma_b:g} in B; "
    assert words == "xPos: " + (gamma if named else "") + side
