"""Edges of ``rope probe``'s readers that whole probes do not reach, by their documented rules.

A wholly proportional row (NoPE) keeps every channel at both ends; a number with no shorter
decimal form within the tolerance is kept as it is; and a pair whose one baseline allows more
than MAX_READINGS windings of its angle is called not determined.
"""

from __future__ import annotations

import numpy as np

from pecli.analysis.rope.probe.frequencies import _roundest
from pecli.analysis.rope.probe.omega import MAX_READINGS, fit_omega, measurements
from pecli.analysis.rope.probe.structure import unchanged_ends


def test_a_wholly_proportional_row_keeps_every_channel_at_both_ends():
    """post = 2·pre over all 8 channels: ``(channels, channels)``, as documented for NoPE."""
    x = np.arange(1.0, 9.0).reshape(1, 8)
    assert unchanged_ends(x, 2 * x, np.full(1, 1e-9)) == (8, 8)


def test_a_value_with_no_shorter_form_within_the_tolerance_is_kept():
    """0.1 + 0.2 is 0.30000000000000004 (17 significant digits): at a tolerance of 0 none of
    1 … 16 digits gives it back, so it is returned unchanged."""
    value = 0.1 + 0.2
    assert _roundest(value, 0.0) == 0.30000000000000004


def test_one_long_baseline_leaves_too_many_windings_and_omega_not_determined():
    """Angles read at positions 0 and 10^5 only: ω is known modulo 2π/10^5, so |ω| < π allows
    about 10^5 windings, more than MAX_READINGS (4096): each pair is dropped (readings
    MAX_READINGS + 1, ω NaN). With position 1 too, ω = 1 and 0.01 are read once each."""
    omega = np.array([1.0, 0.01])
    p = np.array([0.0, 1e5])
    angles = np.angle(np.exp(1j * p[:, None] * omega))
    fit = fit_omega(measurements(p, angles, np.full((2, 2), 1e-9)))
    assert fit.readings.tolist() == [MAX_READINGS + 1] * 2 and MAX_READINGS == 4096
    assert np.isnan(fit.omega).all()
    p = np.array([0.0, 1.0, 1e5])
    angles = np.angle(np.exp(1j * p[:, None] * omega))
    fit = fit_omega(measurements(p, angles, np.full((3, 2), 1e-9)))
    assert fit.readings.tolist() == [1, 1]
    assert np.allclose(fit.omega, omega, rtol=1e-9)


def test_one_unit_baseline_reads_each_omega_once_inside_the_prior():
    """Angles at positions 0 and 1 only (baseline 1): ω is known modulo 2π, and the prior
    ``|ω| < π`` (ω = 0 ± π/2, doubled) keeps one winding. ω = 2, −2, 1, 3 are each read once,
    as themselves: their other windings 2 − 2π ≈ −4.28, −2 + 2π, 1 − 2π ≈ −5.28 and
    3 − 2π ≈ −3.28 all lie outside it."""
    omega = np.array([2.0, -2.0, 1.0, 3.0])
    p = np.array([0.0, 1.0])
    angles = np.angle(np.exp(1j * p[:, None] * omega))
    fit = fit_omega(measurements(p, angles, np.full((2, 4), 1e-9)))
    assert fit.readings.tolist() == [1, 1, 1, 1]
    assert np.allclose(fit.omega, omega, rtol=1e-9)


def test_a_noisy_baseline_of_2_keeps_the_windings_its_window_allows():
    """ω = 0.6 read at positions 0 and 2, angle noise 0.5 rad on each: the baseline 2 (the
    shortest) knows ω modulo π, and the window on ω·2 is twice the noise plus twice the
    baseline times the prior's π/2: ``|ω| <= (2·0.5 + 2·2·π/2)/2 ≈ 3.64``. Of the windings
    0.6 − π ≈ −2.54, 0.6 and 0.6 + π ≈ 3.74, two lie inside (both fit every angle exactly):
    read twice, so ω is not determined."""
    p = np.array([0.0, 2.0])
    angles = np.array([[0.0], [1.2]])
    fit = fit_omega(measurements(p, angles, np.full((2, 1), 0.5)))
    assert fit.readings.tolist() == [2]
    assert np.isnan(fit.omega).all()


def test_unchanged_vectors_tell_nope_only_where_rope_would_have_turned_them():
    """RoPE leaves a zero vector and any vector at position 0 unchanged (cos 0 = 1, sin 0 =
    0), so unchanged vectors there are not NoPE: not determined. One nonzero vector at
    position 5 that stays put is NoPE (a rotation by 5·ω_0 = 5 rad would have moved it)."""
    from pecli.analysis.rope.probe import probe_rope
    from pecli.analysis.rope.probe.verdict import explained, report, summary

    zeros, one = np.zeros((3, 2, 8)), np.zeros((3, 2, 8))
    one[0, 1, 3] = 1.0  # the only nonzero vector: at position 0
    for pre, positions in ((zeros, [[0.0], [1.0], [7.0]]), (one, [[0.0], [1.0], [7.0]])):
        reading = probe_rope(pre, pre.copy(), np.array(positions))
        assert reading.rope is None and not explained(reading)
        data = report(reading)
        assert data["verdict"].startswith("not determined") and "rope: not determined" in summary(
            data
        )
    one[2, 0, 0] = 1.0  # a nonzero vector at position 7
    reading = probe_rope(one, one.copy(), np.array([[0.0], [1.0], [7.0]]))
    assert reading.rope is False and report(reading)["verdict"].startswith("NoPE")


def test_vectors_scaled_by_zero_or_less_are_neither_rope_nor_nope():
    """A rotation keeps each pair's norm and NoPE each vector (up to a positive query
    temperature): POST = 0·PRE or −PRE is neither, so not explained (it read 'NoPE … only a
    factor 0', status 0)."""
    from pecli.analysis.rope.probe import probe_rope
    from pecli.analysis.rope.probe.verdict import explained, verdict

    pre = np.random.default_rng(0).standard_normal((4, 2, 8))
    positions = np.array([[0.0], [1.0], [7.0], [100.0]])
    for post in (np.zeros_like(pre), -pre):
        reading = probe_rope(pre, post, positions)
        assert reading.rope is None and not explained(reading)
        assert "scales some of PRE's vectors by 0 or less" in verdict(reading)
    assert probe_rope(pre, 2 * pre, positions).rope is False  # a positive gain: NoPE
