"""``read_axes`` with no token at all: nothing is read, and each axis says why.

With 0 tokens there are no two tokens apart on any axis, so no pair's ω or axis is known
(axis −1, ω NaN), no schedule or θ, and one note per id axis.
"""

from __future__ import annotations

import math

import numpy as np

from pecli.analysis.multiaxis.reading import read_axes


def test_no_tokens_read_nothing_and_name_each_axis():
    reading = read_axes(np.zeros((0, 4)), np.zeros((0, 4)), np.zeros((0, 2)), layout="half-split")
    assert reading.axis == [-1, -1, -1, -1] and all(math.isnan(w) for w in reading.omega)
    assert (reading.schedule, reading.theta) == ("unknown", {})
    assert reading.notes == [
        "axis 0: no two tokens apart on it alone",
        "axis 1: no two tokens apart on it alone",
    ]
