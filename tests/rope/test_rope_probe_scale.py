"""rope probe reads a rotation the same at any scale of the vectors.

q and its half-split rotation (θ = 100, 8 channels, ω_i = 100^(-i/4)) are built by hand in
float64, then both multiplied by one factor. Squares of values past 1e154 overflow and those
below 1e-154 underflow: at 1e160 the rotation "missed by nan", at 1e-160 it read as a
temperature. Every factor must give the reading of factor 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.rope.probe.reading import probe_rope
from pecli.analysis.rope.probe.verdict import explained


def _rotated() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q = np.random.default_rng(0).standard_normal((6, 2, 8))
    p = np.array([0.0, 1, 2, 3, 50, 700])
    w = 100.0 ** (-np.arange(4) / 4)
    c, s = np.cos(p[:, None] * w)[:, None], np.sin(p[:, None] * w)[:, None]
    k = np.concatenate([q[..., :4] * c - q[..., 4:] * s, q[..., 4:] * c + q[..., :4] * s], -1)
    return q, k, p[:, None]


@pytest.mark.parametrize("factor", [1.0, 1e160, 1e300, 1e-160, 1e-300, 2.0**-1000])
def test_a_rotation_reads_the_same_at_any_scale(factor):
    q, k, p = _rotated()
    reading = probe_rope(q * factor, k * factor, p)
    assert reading.pairing is not None
    assert reading.pairing.describe() == "half-split over channels 0–7"
    assert reading.frequencies.theta.theta == pytest.approx(100.0, rel=1e-9)
    assert explained(reading)
