"""diff's causes at their documented bounds, on tables written here in NumPy (not by pecli).

* ``arithmetic``: at position 0 every arithmetic's angle ``p·ω`` is exactly 0, so the
  angles of the two tables may differ only by the rounding of cos and sin to float32 on each
  side, the floor of 8·2^-24 rad (issue 32's float32 arithmetic; the causes table of
  porting.md: "the same angles within float32 roundings"). A gap of 7.5·2^-24 rad at row 0
  is float32 arithmetic, one of 8.5·2^-24 rad is not.
* ``start``: an offset is a row k > 0 of one table that is row 0 of the other: a table of no
  rows has no row 0, so no offset is found in it.
"""

from __future__ import annotations

import numpy as np
import pytest

U = 2.0**-24


def _cache_pair(gap: float):
    """Two rows of a half-split cache (θ 10^4, d 8) at positions 0 and 1 written in float64;
    B's pair 0 at row 0 turned by ``gap`` rad (cos 1, sin ``gap``: |z| stays 1 within 10^-13)."""
    from pecli.analysis.ports.causes.tables import Pair

    inv = 1.0 / 10000.0 ** (np.arange(0, 8, 2) / 8)
    emb = np.concatenate([np.outer([0.0, 1.0], inv)] * 2, 1)
    a = np.concatenate([np.cos(emb), np.sin(emb)], 1)
    b = a.copy()
    b[0, 8] = b[0, 12] = gap  # the sin columns of pair 0 (half-split: i and i + 4)
    reading = {"kind": "cache", "layout": "half-split", "start": 0}
    return Pair(a, b, "float64", reading, reading, a, b)


@pytest.mark.parametrize(("gap", "named"), [(7.5 * U, True), (8.5 * U, False)])
def test_at_position_0_float32_arithmetic_allows_8_roundings_of_cos_and_sin(gap, named):
    from pecli.analysis.ports.causes.arithmetic import framework_arithmetic

    words = framework_arithmetic(_cache_pair(gap))
    assert (words is not None) == named, words
    if named:
        assert words.startswith("framework float32 arithmetic: the same RoPE"), words


def test_a_table_of_no_rows_holds_no_offset():
    """Row k of a 20-row table cannot be row 0 of a table of no rows, either way round."""
    from pecli.analysis.ports.causes.shapes import shift

    table = np.cos(np.arange(20.0)[:, None] * np.array([1.0, 0.1, 0.01, 0.001]))
    assert shift(table, table[:0], "float64") is None
    assert shift(table[:0], table, "float64") is None
    assert shift(table[:1], table, "float64") is None  # one row: no k > 0 in it


@pytest.mark.parametrize(("extra", "named"), [(13.5, "ggml's"), (14.5, None)])
def test_ggml_allows_2i_plus_8_roundings_of_the_angle_at_pair_i(extra, named):
    """ggml multiplies θ by base^(-2/d) once per pair: at pair i the angle p·ω carries
    (2i + 8)·2^-24 of itself past the 8·2^-24 floor (porting.md's causes table: "2i + 8 at
    pair i"). Pair 3 of a default cache (θ 10^4, d 8: ω = 10^-3) at position 10^6, angle 1000
    rad: a gap of 8·2^-24 + 13.5·2^-24·1000 is ggml's (over transformers' 4), 14.5 is none."""
    from pecli.analysis.ports.causes.arithmetic import framework_arithmetic
    from pecli.analysis.ports.causes.tables import Pair

    p = np.array([1e6, 1e6 + 1])
    angles = np.outer(p, 10000.0 ** (-np.arange(0, 8, 2) / 8))
    moved = angles.copy()
    moved[0, 3] += 8 * U + extra * U * angles[0, 3]
    a, b = (
        np.concatenate([np.cos(t), np.cos(t), np.sin(t), np.sin(t)], 1) for t in (angles, moved)
    )
    reading = {"kind": "cache", "layout": "half-split", "start": 10**6}
    reading |= {"rope_type": "default", "theta": 10000.0, "rotary_dim": 8}
    words = framework_arithmetic(Pair(a, b, "float64", reading, reading, a, b))
    assert (words if words is None else words.split(" ")[0]) == named, words


def test_a_table_cut_into_two_blocks_needs_an_even_width_in_each():
    """``[cos | sin]`` blocks each hold pairs: 8 columns cut into 2 blocks of 4; 6 columns
    would leave blocks of 3, an odd width, so they are not cut."""
    from pecli.analysis.ports.causes.tables import parts

    cut = parts(np.arange(16.0).reshape(2, 8), 2)
    assert cut is not None and [p.tolist() for p in cut] == [
        [[0, 1, 2, 3], [8, 9, 10, 11]],
        [[4, 5, 6, 7], [12, 13, 14, 15]],
    ]
    assert parts(np.zeros((2, 6)), 2) is None


@pytest.mark.parametrize(("cos", "named"), [(1 - 8 * U, True), (1 - 9 * U, False)])
def test_the_magnitudes_may_differ_by_8_roundings_and_no_more(cos, named):
    """B's pair 1 at row 0 (angle 0: cos 1, sin 0) with cos 1 - 8·2^-24, exact in float64:
    |z| differs from A's 1 by exactly the 8·2^-24 of two float32 roundings, still float32
    arithmetic; by 9·2^-24 it is a factor on one side (values.factor's), not arithmetic."""
    from pecli.analysis.ports.causes.arithmetic import framework_arithmetic

    pair = _cache_pair(7.5 * U)
    pair.b[0, 1] = pair.b[0, 5] = cos  # the cos columns of pair 1 (half-split: i and i + 4)
    words = framework_arithmetic(pair)
    assert (words is not None and words.startswith("framework float32")) == named, words
