"""pecli.core.median against NumPy's own np.median and np.unique (the oracle it stands in for).

Random arrays of every dtype the readers pass (integers, float16 … float64), NaNs and
infinities included, odd and even counts, each axis; the value, the dtype and the type
(NumPy scalar or array) must be NumPy's, bit for bit. Then that neither imports numpy.ma.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pecli.core.median import median, unique

DTYPES = st.sampled_from([np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8])


def arrays(min_side: int = 1) -> st.SearchStrategy[np.ndarray]:
    return DTYPES.flatmap(
        lambda dtype: hnp.arrays(
            dtype,
            hnp.array_shapes(min_dims=1, max_dims=3, min_side=min_side, max_side=7),
            elements=hnp.from_dtype(np.dtype(dtype), allow_subnormal=True),
        )
    )


def same(mine: object, theirs: object) -> None:
    assert type(mine) is type(theirs)
    m, t = np.asarray(mine), np.asarray(theirs)
    assert m.dtype == t.dtype and m.shape == t.shape
    assert m.tobytes() == t.tobytes() or np.array_equal(m, t, equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(arrays(), st.data())
def test_median_is_numpys(values, data):
    axis = data.draw(st.sampled_from([None, *range(-values.ndim, values.ndim)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inf − inf in the mean of two middles: NumPy's too
        same(median(values, axis=axis), np.median(values, axis=axis))


def test_median_edges_by_hand():
    assert median([5.0]) == 5.0 and median([1, 2]) == 1.5 and median([1, 3, 2]) == 2.0
    assert np.isnan(median([1.0, np.nan, 3.0])) and median([-np.inf, 1.0, np.inf]) == 1.0
    same(median(np.float32([1, 2])), np.float32(1.5))  # float32 in, float32 out
    same(median(np.array([[1.0, 2.0], [np.nan, 4.0]]), axis=1), np.array([1.5, np.nan]))
    same(median(np.array(7.0)), np.float64(7.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(median(np.array([])), np.median(np.array([])))


@settings(max_examples=300, deadline=None)
@given(arrays(min_side=0))
def test_unique_is_numpys(values):
    same(unique(values), np.unique(values))


def test_unique_edges_by_hand():
    assert unique([3, 1, 3, 2, 1]).tolist() == [1, 2, 3]
    got = unique(np.array([np.nan, 2.0, -0.0, 0.0, np.nan, np.inf]))
    assert got[:3].tolist() == [-0.0, 2.0, np.inf] and np.isnan(got[3]) and got.size == 4
    assert unique(np.array([], np.int64)).dtype == np.int64
    nan = complex(np.nan, 0)
    assert unique(np.array([1j, nan, complex(1, np.nan)])).size == 2  # complex NaNs: one


def test_neither_imports_numpy_ma():
    code = (
        "import sys, numpy as np\nfrom pecli.core.median import median, unique\n"
        "median(np.arange(6.0)); median(np.ones((3, 4)), axis=1); median([1.0, np.nan])\n"
        "unique(np.arange(5.0)); unique([np.nan, 1.0])\n"
        "print('numpy.ma' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
