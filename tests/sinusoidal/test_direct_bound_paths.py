"""The direct kernel's certificate takes the bound of the path ``angles.sin_cos`` took.

``sin_cos`` evaluates ``s + c·lo`` when every tail ``|lo|`` of the call is below 2^-27, and
``s·cos lo + c·sin lo`` otherwise (an angle past about 2^24). The second path's error is
``(4k + 2)·u`` relative and ``(8k + 2)·u·|lo|`` absolute, not the first's ``(2k + 2)·u`` and
``(4k + 2)·u·|lo|`` (docs/exactness.md): the table writers of any positions (half dtypes,
``--positions``) and the consecutive kernel's second tier used the first path's bound for both.
The values are checked against mpmath's sin and cos of the exact angle, rounded to float32.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pecli.core import direct, kernels
from pecli.core.direct import DIRECT_BOUND, GENERAL_BOUND, fill_sin_cos_direct


def _float32(value: mpmath.mpf) -> float:
    with mpmath.workprec(24):  # float32's significand, rounded to nearest once
        return float(+value)


def _spy(monkeypatch, module, name):
    seen = []
    original = getattr(module, name)

    def spying(values, bound, *args, **kwargs):
        seen.append(bound.relative)
        return original(values, bound, *args, **kwargs)

    monkeypatch.setattr(module, name, spying)
    return seen


@pytest.mark.parametrize(
    ("first", "relative"), [(1.0, DIRECT_BOUND.relative), (1e9 + 0.5, GENERAL_BOUND.relative)]
)
def test_positions_of_any_size_are_rounded_under_their_paths_bound(monkeypatch, first, relative):
    """Positions 1e9 + 0.5 … at ω = 0.7: tails near 2^-24 send the call down the general path,
    whose bound is GENERAL_BOUND's 20u; positions 1 … stay on the small-tail path (10u)."""
    seen = _spy(monkeypatch, direct, "round_scaled")
    positions = first + np.arange(4.0)
    omega, residual = np.array([0.7, 1e-3]), np.zeros(2)
    sin, cos = np.empty((4, 2), np.float32), np.empty((4, 2), np.float32)
    fill_sin_cos_direct(sin, cos, positions, omega, residual, workers=1)
    assert seen == [relative, relative]
    with mpmath.workprec(300):
        for (row, column), value in np.ndenumerate(sin):
            angle = mpmath.mpf(positions[row]) * mpmath.mpf(omega[column])
            assert value == _float32(mpmath.sin(angle))
            assert cos[row, column] == _float32(mpmath.cos(angle))


def test_the_consecutive_kernels_second_tier_takes_the_general_bound_past_2_24(monkeypatch):
    """The consecutive kernel's undecided values at exact positions are evaluated directly:
    at position 2^40 + 1 and ω = 0.7 the product's tail is about 2^-14, the general path."""
    seen = _spy(monkeypatch, kernels, "round_certified")
    terms = (np.array([2.0**40 + 1]), np.zeros(1), np.array([0.7]), np.zeros(1))
    found = kernels._recomputed(terms, np.array([False]), np.dtype(np.float32))
    assert seen == [GENERAL_BOUND.relative]
    with mpmath.workprec(300):
        assert found[0] == _float32(mpmath.sin(mpmath.mpf(2**40 + 1) * mpmath.mpf(0.7)))


@pytest.mark.parametrize(
    ("sin_shape", "cos_shape"), [((3, 4), (3, 5)), ((3, 5), (3, 5)), ((3, 4), (2, 4))]
)
def test_two_dimensional_views_of_the_wrong_shape_are_refused(sin_shape, cos_shape):
    """Views with two axes still must match each other and ``h = omega.size = 4``: each of
    the three conditions alone refuses them, not only all three together."""
    omega = np.ones(4)
    with pytest.raises(ValueError, match=r"must both have shape \(m, 4\)"):
        direct.check_shapes(np.empty(sin_shape), np.empty(cos_shape), omega, omega, 0.0)
    assert direct.check_shapes(np.empty((3, 4)), np.empty((3, 4)), omega, omega, 0.0) == (3, 4)
