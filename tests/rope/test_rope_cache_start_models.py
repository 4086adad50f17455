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


def test_slopes_floor_an_exact_line_at_1e_15_and_give_four_standard_errors():
    """A constant phase (ω = 0) has no residual: the error is the floor 1e-15 alone. Phases
    0, 0.3, 0.4 at rows 0, 1, 2 (by hand): centred rows −1, 0, 1 (Σ = 2), slope 0.4/2 = 0.2,
    residuals −1/30, 2/30, −1/30, spread √(6/900 / 1); 4·spread/√2 = 4/√300 = 0.4/√3."""
    from pecli.analysis.rope.start import slopes

    omega, err = slopes(np.ones((5, 1), complex), np.arange(5))
    assert omega.tolist() == [0.0] and err.tolist() == [1e-15]
    omega, err = slopes(np.exp(1j * np.array([[0.0], [0.3], [0.4]])), np.arange(3))
    assert abs(omega[0] - 0.2) < 1e-15
    assert abs(err[0] - 0.4 / np.sqrt(3.0)) < 1e-14


def test_slopes_divide_the_squared_residuals_by_m_minus_2_and_at_least_1():
    """Rows 0 … 3 at phases 0, 0.1, 0.3, 0.3 (by hand): centred −1.5 … 1.5 (Σ = 5), mean
    0.175, slope 0.55/5 = 0.11, residuals −0.01, −0.02, 0.07, −0.04 (Σ² = 0.007), spread
    √(0.007/2); 4·spread/√5 = 4√0.0007. Two rows fit their line exactly: the floor 1e-15."""
    from pecli.analysis.rope.start import slopes

    omega, err = slopes(np.exp(1j * np.array([[0.0], [0.1], [0.3], [0.3]])), np.arange(4))
    assert abs(omega[0] - 0.11) < 1e-15
    assert abs(err[0] - 4 * np.sqrt(0.0007)) < 1e-14
    omega, err = slopes(np.exp(1j * np.array([[0.0], [0.5]])), np.arange(2))
    assert abs(omega[0] - 0.5) < 1e-15 and err.tolist() == [1e-15]
