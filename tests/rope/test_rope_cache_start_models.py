"""The float32 ``inv_freq`` a framework cache's start is searched with (analysis/rope/start.py).

transformers' default RoPE: ``inv_freq = 1 / base ** (arange(0, dim, 2).float() / dim)`` in
float32; linear scaling divides it by ``factor`` in float32
(``_compute_linear_scaling_rope_parameters``: ``inv_freq = inv_freq / factor``).
"""

from __future__ import annotations

import numpy as np

from pecli.analysis.rope.start import _models


def test_a_linear_reading_gives_transformers_float32_inv_freq_over_the_factor():
    """ω_j = 10^4^(−2j/16) / 4 measured to 1e-9: read as linear, factor 4; the first model is
    transformers' float32 steps, computed here by hand in float32."""
    d = 16
    omega = 10000.0 ** (-np.arange(0, d, 2) / d) / 4
    exponent = np.arange(0, d, 2).astype(np.float32) / np.float32(d)
    by_hand = (np.float32(1.0) / np.float32(10000.0) ** exponent) / np.float32(4.0)
    models = _models(omega, 1e-9 * omega)
    assert models and models[0].dtype == np.float32
    assert np.array_equal(models[0], by_hand)


def test_an_omega_measured_only_to_ten_percent_gives_no_model():
    """A reading 10 % (or worse) uncertain names no rope type worth rebuilding: no model."""
    assert _models(np.array([1.0, 0.1, 0.01]), np.array([0.1, 0.1, 0.1])) == []
