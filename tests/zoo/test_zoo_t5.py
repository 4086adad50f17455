"""T5 relative-position buckets against transformers' own code, the golden table and mpmath."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from library_fixtures import ids, load

from pecli.core.errors import ParameterError
from pecli.core.zoo.t5_buckets import bucket_grid, relative_position_bucket

FIXTURES = load("zoo")
LINES = [f for f in FIXTURES if f.params["kind"] == "t5"]
GRIDS = [f for f in FIXTURES if f.params["kind"] == "t5-grid"]

GOLDEN = {-200: 15, -128: 15, -20: 10, -8: 8, -1: 1, 0: 0, 1: 17, 8: 24, 20: 26, 128: 31, 200: 31}


def exact_bucket(rp: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """The bucket in exact arithmetic (mpmath), from the formula of Raffel et al. / Mesh TF."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        offset = num_buckets if rp > 0 else 0
        n = abs(rp)
    else:
        n = max(-rp, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return offset + n
    with mpmath.workdps(50):
        x = mpmath.log(mpmath.mpf(n) / max_exact) / mpmath.log(mpmath.mpf(max_distance) / max_exact)
        large = max_exact + int(mpmath.floor(x * (num_buckets - max_exact)))
    return offset + min(large, num_buckets - 1)


def test_golden():
    assert relative_position_bucket(list(GOLDEN)).tolist() == list(GOLDEN.values())


@pytest.mark.parametrize("fixture", LINES, ids=ids(LINES))
def test_transformers_relative_position_bucket(fixture):
    p = fixture.params
    rp = np.arange(p["first"], p["first"] + fixture.table.size)
    ours = relative_position_bucket(
        rp,
        bidirectional=p["bidirectional"],
        num_buckets=p["num_buckets"],
        max_distance=p["max_distance"],
    )
    assert np.array_equal(ours, fixture.table)
    exact = [
        exact_bucket(int(r), p["bidirectional"], p["num_buckets"], p["max_distance"])
        for r in rp[::7]
    ]
    assert ours[::7].tolist() == exact


@pytest.mark.parametrize("fixture", GRIDS, ids=ids(GRIDS))
def test_transformers_compute_bias_grid(fixture):
    """The sign: T5 looks up memory − query (key − query), queries offset by the cache."""
    p = fixture.params
    ours = bucket_grid(
        p["queries"],
        p["keys"],
        past=p["past"],
        bidirectional=p["bidirectional"],
        num_buckets=p["num_buckets"],
        max_distance=p["max_distance"],
    )
    assert np.array_equal(ours, fixture.table)
    i = p["past"] + np.arange(p["queries"])[:, None]
    flipped = relative_position_bucket(
        i - np.arange(p["keys"])[None, :],  # query − memory
        bidirectional=p["bidirectional"],
    )
    assert not np.array_equal(flipped, fixture.table)


def test_keys_after_the_query_get_the_upper_half():
    grid = bucket_grid(3, 3)
    assert grid[0, 1] == 17 and grid[1, 0] == 1  # key after query: +16
    causal = bucket_grid(3, 3, bidirectional=False)
    assert causal[0, 1] == 0 and causal[1, 0] == 1


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"num_buckets": 2}, "num_buckets"),
        ({"num_buckets": 2.5}, "num_buckets"),
        ({"max_distance": 8}, "max_distance"),
        ({"bidirectional": False, "num_buckets": 1}, "num_buckets"),
    ],
)
def test_refusals(kwargs, parameter):
    with pytest.raises(ParameterError) as error:
        relative_position_bucket([1, 2], **kwargs)
    assert error.value.parameter == parameter


def test_refuses_floats_and_huge_grids():
    with pytest.raises(ParameterError, match="integers"):
        relative_position_bucket([1.5])
    with pytest.raises(ParameterError):
        bucket_grid(1 << 14, 1 << 14)
    with pytest.raises(ParameterError):
        bucket_grid(2, 2, past=-1)


def test_relative_positions_of_2_to_the_31_are_refused_and_one_less_is_not():
    """The rule is "integers below 2^31 in size": 2^31 - 1 (int32's max) is read, 2^31 is not."""
    assert relative_position_bucket([(1 << 31) - 1, -((1 << 31) - 1)]).tolist() == [31, 15]
    for rp in (1 << 31, -(1 << 31)):
        with pytest.raises(ParameterError, match="below 2\\^31"):
            relative_position_bucket(np.array([0, rp], dtype=np.int64))  # one too big suffices


@pytest.mark.parametrize(("n_query", "n_key", "parameter"), [(2, 0, "keys"), (0, 2, "queries")])
def test_a_grid_of_no_keys_or_no_queries_is_refused(n_query, n_key, parameter):
    with pytest.raises(ParameterError) as error:
        bucket_grid(n_query, n_key)
    assert error.value.parameter == parameter and "integer >= 1" in str(error.value)


def test_the_defaults_are_t5s_32_buckets_and_max_distance_128():
    """Without num_buckets / max_distance: T5's 32 and 128 (transformers' T5Attention), checked
    against the exact rule (mpmath) at every distance to 300, both sides, encoder and decoder.
    The decoder halves nothing: 32 buckets, max_exact 16 (a 33rd bucket would show past 127);
    the encoder's bucket 15 starts at 8·16^(7/8) = 90.5 (91), where 129 would move it to 92."""
    rp = np.arange(-300, 301)
    for bidirectional in (True, False):
        exact = [exact_bucket(int(r), bidirectional, 32, 128) for r in rp]
        assert relative_position_bucket(rp, bidirectional=bidirectional).tolist() == exact
        grid = bucket_grid(1, 601, past=300, bidirectional=bidirectional)  # j − 300 = rp
        assert grid[0].tolist() == exact
    assert exact_bucket(-91, True, 32, 128) == 15 and exact_bucket(-90, True, 32, 128) == 14
    assert exact_bucket(-200, False, 32, 128) == 31


def test_past_may_be_2_to_the_30_minus_1_and_no_more():
    """The documented range of ``past``: 0 to 2^30 - 1. At 2^30 - 1 a key at 0 is that far
    behind the one query, past max_distance: the last bucket of the near side, 15."""
    assert bucket_grid(1, 1, past=0).tolist() == [[0]]  # the key is the query: bucket 0
    assert bucket_grid(1, 1, past=(1 << 30) - 1).tolist() == [[15]]
    with pytest.raises(ParameterError) as error:
        bucket_grid(1, 1, past=1 << 30)
    assert error.value.parameter == "past"


def test_causal_buckets_may_be_2_and_bidirectional_4():
    """Causal T5 takes num_buckets from 2, bidirectional from 4: max_exact = 1 in both, so by
    the HF formula causal bucket 0 is any j >= i and every earlier key bucket 1; bidirectional
    halves 4 to 2 per side: 0 at j = i, 1 before it, 2 + 1 = 3 after it."""
    got = relative_position_bucket(
        [-100, -5, -1, 0, 3], bidirectional=False, num_buckets=2, max_distance=8
    )
    assert got.tolist() == [1, 1, 1, 0, 0]
    both = relative_position_bucket([-9, -1, 0, 1, 9], num_buckets=4, max_distance=8)
    assert both.tolist() == [1, 1, 0, 3, 3]
    with pytest.raises(ParameterError):
        relative_position_bucket([0], bidirectional=False, num_buckets=1, max_distance=8)
    with pytest.raises(ParameterError):
        relative_position_bucket([0], num_buckets=3, max_distance=8)
