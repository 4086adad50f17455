"""identify-axes at its limits: an axis of one pair, the float32 arithmetic's 2-ulp bound,
an interleaved map's pairs, and ids 25 apart (the fast pairs turn by many half turns).

Every cache here is built by hand from the models' rule (ω_j = θ^(-2j/D), the pair's angle
its axis's position times ω_j), with mpmath for the values a float32 cache holds.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

from pecli.analysis.multiaxis.compare import _same32, compare_to_plan
from pecli.analysis.multiaxis.reading import read_axes
from pecli.core.errors import ParameterError
from pecli.core.multiaxis.mrope import mrope_plan


def _exact_pairs(ids: np.ndarray, axis: list[int], theta: int) -> tuple[np.ndarray, ...]:
    """Per-pair cos and sin of a shared schedule (mpmath, rounded once to float64)."""
    h = len(axis)
    with mpmath.workdps(40):
        omega = [mpmath.mpf(theta) ** (-mpmath.mpf(2 * j) / (2 * h)) for j in range(h)]
        angles = [[mpmath.mpf(int(row[a])) * omega[j] for j, a in enumerate(axis)] for row in ids]
        return tuple(
            np.array([[float(f(x)) for x in row] for row in angles])
            for f in (mpmath.cos, mpmath.sin)
        )


def _float32_pairs(ids: np.ndarray, axis: list[int], theta: int) -> tuple[np.ndarray, ...]:
    """:func:`_exact_pairs` rounded to float32 (twice: a tie this near is not met here)."""
    return tuple(p.astype(np.float32) for p in _exact_pairs(ids, axis, theta))


# M-RoPE section [2, 1, 1], θ 100, head 8: pairs t t h w, ω = 1, 0.316, 0.1, 0.0316
PLAN = mrope_plan([2, 1, 1], theta=100.0, head_dim=8)
IDS = np.array(list(itertools.product(range(2), range(2), range(2))), dtype=np.float64)


def test_a_shared_schedule_with_one_pair_axes_matches_its_preset():
    """h and w hold one pair each: their θ (read from the shared sequence) is that pair's."""
    c, s = _float32_pairs(IDS, [0, 0, 1, 2], 100)
    reading = read_axes(c, s, IDS, layout="half-split")
    assert reading.schedule == "shared"
    verdict = compare_to_plan(reading, PLAN, IDS, (c, s), "float32")
    assert (verdict.matches, verdict.arithmetic, verdict.differences) == (True, "exact", [])


def _nudged(c: np.ndarray, steps: int) -> np.ndarray:
    """``c`` with its first value (cos 0 = 1) moved ``steps`` float32 values down."""
    out = c.copy()
    for _ in range(steps):
        out[0, 0] = np.nextafter(out[0, 0], np.float32(0))
    return out


def test_the_float32_arithmetic_is_allowed_two_ulps_not_three():
    """cos 0 = 1 in every arithmetic, for any ω: 1 float32 step below it is still the exact
    arithmetic (within 1 ulp), 2 steps the float32 arithmetic's bound, 3 steps none."""
    c, s = _float32_pairs(IDS, [0, 0, 1, 2], 100)
    reading = read_axes(c, s, IDS, layout="half-split")
    one = compare_to_plan(reading, PLAN, IDS, (_nudged(c, 1), s), "float32")
    assert (one.matches, one.arithmetic) == (True, "exact")
    two = compare_to_plan(reading, PLAN, IDS, (_nudged(c, 2), s), "float32")
    assert (two.matches, two.arithmetic) == (True, "float32")
    three = compare_to_plan(reading, PLAN, IDS, (_nudged(c, 3), s), "float32")
    assert (three.matches, three.arithmetic) == (False, "none")


@pytest.mark.parametrize(
    ("interleaved", "axis"), [(True, [0, 1, 2, 0, 1, 2]), (False, [0, 0, 1, 1, 2, 2])]
)
def test_float32_pairs_are_the_same_values_by_either_map(interleaved, axis):
    """Section [2, 2, 2]: Qwen3-VL's interleaved map (pairs t h w t h w, each axis's pairs 3
    apart) or Qwen2-VL's chunks (t t h h w w). The exact arithmetic's float32 values equal
    the mpmath ones, all of them; one value a step off is not the same."""
    plan = mrope_plan([2, 2, 2], theta=10000.0, head_dim=12, interleaved=interleaved)
    ids = np.array([[0, 0, 0], [1, 2, 3], [5, 4, 2], [7, 0, 1]], dtype=np.float64)
    c, s = _float32_pairs(ids, axis, 10000)
    assert _same32(plan, ids, (c, s), "exact", True)
    off = s.copy()
    off[1, 4] = np.nextafter(off[1, 4], np.float32(2))
    assert not _same32(plan, ids, (c, off), "exact", True)
    # float32 values held in float64 (a float32 cache's storage told) are the same values too
    assert _same32(plan, ids, (c.astype(np.float64), s.astype(np.float64)), "exact", True)
    # pairs held in float64 (not float32 values) are compared rounded to float32, by default
    assert _same32(plan, ids, _exact_pairs(ids, axis, 10000), "exact")


def test_ids_25_apart_read_the_fast_pairs_through_their_aliases():
    """One axis at 0, 25, 50 (no unit step), θ 10000, 8 pairs: pair 0 turns 25 rad a step,
    8π − 0.133, an alias 4 whole turns up; each fast pair's ω is still read, and θ."""
    h, theta = 8, 10000.0
    omega = theta ** (-np.arange(h) / h)  # ω_j = θ^(-2j/D), D = 16
    ids = np.array([[0.0], [25.0], [50.0]])
    angles = ids * omega[None, :]
    reading = read_axes(np.cos(angles), np.sin(angles), ids, layout="half-split")
    np.testing.assert_allclose(reading.omega, omega, rtol=1e-9)
    assert reading.schedule == "shared"
    np.testing.assert_allclose(reading.theta["0"], theta, rtol=1e-6)


def _port_pairs(ids: np.ndarray, steps: int) -> tuple[np.ndarray, ...]:
    """θ 256, D 8: ω = 1, 1/4, 1/16, 1/64 exactly (pairs t t h w); each ω moved ``steps``
    float32 values, the angles float32 products, cos and sin rounded once to float32."""
    w = np.array([1, 2**-2, 2**-4, 2**-6], dtype=np.float32)
    for _ in range(abs(steps)):
        w = np.nextafter(w, np.float32(np.sign(steps) * np.inf))
    angles = (ids[:, [0, 0, 1, 2]].astype(np.float32) * w).astype(np.float64)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


@pytest.mark.parametrize(("steps", "arithmetic"), [(-4, "float32"), (4, "float32"), (5, "none")])
def test_a_float32_port_s_omega_may_be_four_float32_steps_off_not_five(steps, arithmetic):
    """A port's own float32 pow may land up to 4 steps either side of the model's ω (exact
    powers of 2 here); 5 steps off, at ids up to 299, is no arithmetic of the preset."""
    plan = mrope_plan([2, 1, 1], theta=256.0, head_dim=8)
    i = np.arange(300.0)
    ids = np.stack([i, i // 2, 299 - i], axis=1)  # each axis its own positions
    c, s = _port_pairs(ids, steps)
    verdict = compare_to_plan(read_axes(c, s, ids, layout="half-split"), plan, ids, (c, s))
    assert (verdict.matches, verdict.arithmetic) == (arithmetic == "float32", arithmetic)
    if steps == 4:  # one sin 3 float32 steps off the port's, on one row: past the 2-ulp bound
        for _ in range(3):
            s[7, 3] = np.nextafter(s[7, 3], np.float32(2))
        again = compare_to_plan(read_axes(c, s, ids, layout="half-split"), plan, ids, (c, s))
        assert again.arithmetic == "none"


@pytest.mark.parametrize(
    ("cos", "sin"),
    [
        (np.ones((2, 3)), np.zeros((2, 3))),  # an odd width: a channel without its pair
        (np.ones((2, 4)), np.zeros((3, 4))),  # rows of cos without their sin
        (np.ones(4), np.zeros(4)),  # not a table
    ],
)
def test_cos_and_sin_must_be_tables_of_one_even_width(cos, sin):
    """Channels pair two by two, and each row of cos goes with the same row of sin."""
    from pecli.analysis.multiaxis.reading import paired_layouts

    with pytest.raises(ParameterError, match="one even width"):
        paired_layouts(cos, sin)
