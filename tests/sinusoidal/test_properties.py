"""Properties of the encoding, with hypothesis."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pecli import angular_frequencies, encoding_table, positional_encoding

widths = st.integers(1, 64).map(lambda h: 2 * h)
bases = st.floats(1.5, 1e6)
positions = st.floats(-1e4, 1e4, allow_nan=False)


@given(d=widths, n=st.integers(1, 50), start=st.integers(-1000, 10**6), base=bases)
def test_shape_dtype_and_range(d, n, start, base):
    table = encoding_table(d=d, n=n, start=start, base=base)
    assert table.shape == (n, d) and table.dtype == np.float32
    assert np.all(np.abs(table) <= 1.0)


@given(d=widths, pos=st.lists(positions, min_size=1, max_size=20), base=bases)
def test_each_pair_lies_on_the_unit_circle(d, pos, base):
    table = positional_encoding(pos, d=d, base=base, dtype="float64")
    np.testing.assert_allclose(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, 1.0, atol=1e-15)


@settings(max_examples=200)
@given(d=widths, pos=positions, k=st.integers(-500, 500), base=bases)
def test_shift_by_k_is_a_fixed_rotation_per_pair(d, pos, k, base):
    # (sin, cos)(ω(p + k)) = R(kω) (sin, cos)(ωp): the rotation depends on k, not on p
    omega = angular_frequencies(d, base=base)
    here = positional_encoding(pos, d=d, base=base, dtype="float64")[0]
    there = positional_encoding(pos + k, d=d, base=base, dtype="float64")[0]
    s, c = here[0::2], here[1::2]
    sk, ck = np.sin(k * omega), np.cos(k * omega)
    np.testing.assert_allclose(there[0::2], s * ck + c * sk, atol=1e-9)
    np.testing.assert_allclose(there[1::2], c * ck - s * sk, atol=1e-9)
