"""xPos scales pinned on the paper's formula in mpmath (mutation survivors of issue 33)."""

from __future__ import annotations

import mpmath
import pytest

from pecli.core.zoo.xpos import xpos_largest_scale, xpos_scales


def zeta_power(i: int, d: int, p: int, gamma: int) -> float:
    """ζ_i^(p/γ), ζ_i = (2i + 0.4·d)/(1.4·d) (Sun et al. §3), in mpmath."""
    with mpmath.workdps(40):
        zeta = (2 * mpmath.mpf(i) + mpmath.mpf(2) * d / 5) / (mpmath.mpf(7) * d / 5)
        return float(mpmath.power(zeta, mpmath.mpf(p) / gamma))


def test_the_default_scale_base_is_512():
    """Two rows of head width 4 (torchscale centre: positions -1, 0), γ = 512 by default."""
    table = xpos_scales(2, 4)
    assert table[0].tolist() == pytest.approx(
        [zeta_power(i, 4, -1, 512) for i in (0, 0, 1, 1)], rel=1e-15
    )
    assert xpos_largest_scale(2, 4) == pytest.approx(zeta_power(0, 4, -1, 512), rel=1e-15)


def test_the_narrowest_head_has_one_pair():
    """d = 2: one pair, ζ_0 = 0.4·2/(1.4·2) = 2/7."""
    from pecli.core.zoo.xpos import xpos_pair_bases

    assert xpos_pair_bases(2).tolist() == pytest.approx([2 / 7], rel=1e-15)


def test_an_infinite_scale_base_is_refused():
    from pecli.core.errors import ParameterError

    with pytest.raises(ParameterError, match="scale_base"):
        xpos_scales(2, 4, scale_base=float("inf"))


def test_the_size_limits_are_the_documented_ones():
    """head_dim at most 65536, rows at most 2^24, a table at most 2^26 values (2^20 rows of
    head width 128 are 2^27)."""
    from pecli.core.errors import ParameterError
    from pecli.core.zoo.xpos import xpos_pair_bases, xpos_positions

    assert xpos_pair_bases(1 << 16).size == 1 << 15
    with pytest.raises(ParameterError, match="head_dim"):
        xpos_pair_bases((1 << 16) + 2)
    with pytest.raises(ParameterError, match="2\\^24"):
        xpos_positions((1 << 24) + 1)
    with pytest.raises(ParameterError, match="times head_dim 128 must be at most 2\\^26"):
        xpos_scales(1 << 20, 128)


def test_one_row_is_centred_by_each_library_s_rule():
    """n = 1: torchscale's c = ceil(1/2) = 1 gives position 0 - 1 = -1; lucidrains' c =
    floor(1/2) = 0 gives 0."""
    from pecli.core.zoo.xpos import xpos_positions

    assert xpos_positions(1).tolist() == [-1]
    assert xpos_positions(1, centre="lucidrains").tolist() == [0]
