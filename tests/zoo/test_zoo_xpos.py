"""xPos scales against torchscale and rotary-embedding-torch (applied to a basis) and mpmath."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from library_fixtures import ids, load

from pecli.core.errors import ParameterError
from pecli.core.zoo.xpos import xpos_pair_bases, xpos_positions, xpos_scales

XPOS = [f for f in load("zoo") if f.params["kind"] == "xpos"]


def _cos_sin(fixture):
    """``cos·scale`` and ``sin·scale`` of each (position, pair) of a library's output."""
    i = np.arange(fixture.params["head_dim"] // 2)
    y = fixture.table.astype(np.float64)
    return y[2 * i, :, 2 * i].T, y[2 * i, :, 2 * i + 1].T


def _kwargs(p):
    return {"scale_base": p["scale_base"], "offset": p["offset"], "centre": p["centre"]}


def test_golden_pair_bases():
    assert xpos_pair_bases(8).round(6).tolist() == [0.285714, 0.464286, 0.642857, 0.821429]
    assert xpos_pair_bases(8).tolist() == [(2 * i + 3.2) / 11.2 for i in range(4)]


@pytest.mark.parametrize("fixture", XPOS, ids=ids(XPOS))
def test_library_scales_and_rotations(fixture):
    """The library multiplies cos and sin of pair i by the scale: both match, in float32."""
    p = fixture.params
    scale = xpos_scales(p["n"], p["head_dim"], keys=p["keys"], **_kwargs(p))[:, ::2]
    cos_s, sin_s = _cos_sin(fixture)
    np.testing.assert_allclose(np.hypot(cos_s, sin_s), scale, rtol=4e-7)
    # the rotation: torchscale at offset … offset + L − 1, rotary-embedding-torch at 0 … L − 1
    positions = p["offset"] + np.arange(p["n"])
    angle = np.outer(positions, 10000.0 ** (-np.arange(0, p["head_dim"], 2) / p["head_dim"]))
    np.testing.assert_allclose(cos_s, np.cos(angle) * scale, atol=2e-6)
    np.testing.assert_allclose(sin_s, np.sin(angle) * scale, atol=2e-6)


ODD = [f for f in XPOS if f.params["n"] % 2 and not f.params["offset"]]


@pytest.mark.parametrize("fixture", ODD, ids=ids(ODD))
def test_odd_lengths_tell_the_two_centres_apart(fixture):
    p = fixture.params
    other = "lucidrains" if p["centre"] == "torchscale" else "torchscale"
    wrong = xpos_scales(
        p["n"], p["head_dim"], scale_base=p["scale_base"], centre=other, keys=p["keys"]
    )[:, ::2]
    cos_s, sin_s = _cos_sin(fixture)
    assert np.abs(np.hypot(cos_s, sin_s) / wrong - 1).max() > 1e-3


def test_even_lengths_centre_alike():
    """torchscale ``-(L + offset) // 2 …``, lucidrains ``t - L // 2``: at L = 6 both -3 … 2."""
    assert xpos_positions(6).tolist() == [-3, -2, -1, 0, 1, 2]
    assert xpos_positions(6, centre="lucidrains").tolist() == [-3, -2, -1, 0, 1, 2]
    assert xpos_positions(5, offset=3).tolist() == [-1, 0, 1, 2, 3]  # -(8)//2 = -4, last 5


def test_query_times_key_is_a_decay_in_the_distance():
    q = xpos_scales(9, 16, scale_base=16.0)
    k = xpos_scales(9, 16, scale_base=16.0, keys=True)
    zeta = np.repeat([(2 * i + 0.4 * 16) / (1.4 * 16) for i in range(8)], 2)  # the paper's ζ
    for tq, tk in ((8, 0), (3, 3), (2, 7)):
        np.testing.assert_allclose(q[tq] * k[tk], zeta ** ((tq - tk) / 16.0), rtol=1e-14)


def test_float32_scales_are_correctly_rounded():
    table = xpos_scales(41, 32, scale_base=8.0, offset=5)
    positions = xpos_positions(41, offset=5)
    with mpmath.workdps(40):
        for t in range(0, 41, 5):
            for c in range(0, 32, 3):
                zeta = (mpmath.mpf(2 * (c // 2)) + mpmath.mpf(32) * 4 / 10) / (
                    mpmath.mpf(32) * 14 / 10
                )
                exact = zeta ** (mpmath.mpf(int(positions[t])) / 8)
                got = np.float32(table[t, c])
                down, up = np.nextafter(got, np.float32(0)), np.nextafter(got, np.float32(np.inf))
                assert abs(mpmath.mpf(float(got)) - exact) <= min(
                    abs(mpmath.mpf(float(down)) - exact), abs(mpmath.mpf(float(up)) - exact)
                )


def test_half_split_is_rotary_embedding_torch_before_0_8():
    """0.2.0 … 0.7.0, written out: ``scale = (arange(0, d, 2) + 0.4·d) / (1.4·d)``, raised to
    ``power = t / scale_base`` (t the centred positions), then ``torch.cat((scale, scale), -1)``:
    channel c gets pair c mod d/2. At L = 5 torchscale's centre gives t = -3 … 1."""
    d, gamma = 8, 4.0
    zeta = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)
    t = np.arange(5) - 3  # -(5 + 0) // 2 = -3
    scale = zeta[None, :] ** (t[:, None] / gamma)
    half = xpos_scales(5, d, scale_base=gamma, layout="half-split")
    np.testing.assert_allclose(half, np.concatenate([scale, scale], axis=1), rtol=1e-15)
    inter = xpos_scales(5, d, scale_base=gamma)
    np.testing.assert_allclose(inter, np.repeat(scale, 2, axis=1), rtol=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"head_dim": 7}, "head_dim"),
        ({"n": 0}, "n"),
        ({"scale_base": 0.0}, "scale_base"),
        ({"offset": -1}, "offset"),
        ({"centre": "middle"}, "centre"),
        ({"centre": "lucidrains", "offset": 2}, "offset"),
        ({"layout": "blocked"}, "layout"),
        ({"n": 1 << 20, "head_dim": 128}, "n"),
    ],
)
def test_refusals(kwargs, parameter):
    args = {"n": 4, "head_dim": 8} | kwargs
    with pytest.raises(ParameterError) as error:
        xpos_scales(args.pop("n"), args.pop("head_dim"), **args)
    assert error.value.parameter == parameter


def test_the_largest_offset_is_2_to_the_30():
    """Offsets 0 … 2^30. By hand at 2^30 (torchscale, 2 rows): positions 2^30, 2^30 + 1 less
    c = ceil((2 + 2^30)/2) = 2^29 + 1 are 2^29 - 1 and 2^29; one more is refused."""
    assert xpos_positions(2, offset=1 << 30).tolist() == [(1 << 29) - 1, 1 << 29]
    with pytest.raises(ParameterError) as error:
        xpos_positions(2, offset=(1 << 30) + 1)
    assert error.value.parameter == "offset" and "2^30" in str(error.value)


@pytest.mark.parametrize(
    ("n", "head_dim", "knobs"),
    [
        (100, 8, {"scale_base": 0.5}),
        (7, 16, {"scale_base": 3.0, "keys": True}),
        (9, 4, {"offset": 5, "scale_base": 2.0}),
        (6, 8, {"centre": "lucidrains", "scale_base": 1.0, "keys": True}),
        (4000, 64, {"scale_base": 0.25}),  # past float64: inf
    ],
)
def test_the_largest_scale_from_the_end_rows_is_the_whole_table_s(n, head_dim, knobs):
    """The float64 table's own maximum, bit for bit (the slow way: every row)."""
    from pecli.core.zoo.xpos import xpos_largest_scale

    with np.errstate(over="ignore"):
        whole = xpos_scales(n, head_dim, **knobs).max()
    assert xpos_largest_scale(n, head_dim, **knobs) == whole


def test_xpos_bound_is_the_one_docs_exactness_derives():
    """docs/exactness.md, xPos: δy = 7u·|q| + 11u·|y| with y = ln v, the bound twice
    |v|·(8u + 1.01·δy) per value, plus 2^-1070; an overflowed (inf) scale is decided (0).
    Worked in mpmath for q = 1.5 and v = 2, 1/2 (|y| = ln 2); a scale that underflowed to 0
    keeps the 2^-1070 alone (y = 0 there, no log of 0)."""
    from pecli.core.zoo.xpos import xpos_bound

    bound = xpos_bound(np.array([[2.0, 0.5, np.inf, 0.0]]), np.array([1.5]))
    u = mpmath.mpf(2) ** -53
    dy = 7 * u * mpmath.mpf(1.5) + 11 * u * mpmath.log(2)
    exact = [2 * v * (8 * u + mpmath.mpf("1.01") * dy) + mpmath.mpf(2) ** -1070 for v in (2, 0.5)]
    assert bound.relative == 0.0 and bound.absolute.shape == (1, 4)
    np.testing.assert_allclose(bound.absolute[0, :2], [float(e) for e in exact], rtol=1e-12)
    assert bound.absolute[0, 2:].tolist() == [0.0, 2.0**-1070]
