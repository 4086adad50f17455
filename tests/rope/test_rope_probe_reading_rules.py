"""``probe_rope``'s reading at the values that tell its rules apart: what a reading says when
nothing was found, and the thresholds of its findings.

Every expected value is worked out by hand in the test's docstring.
"""

from __future__ import annotations

import numpy as np
from probe_rotations import half_split, interleaved

from pecli.analysis.rope.probe import probe_rope
from pecli.analysis.rope.probe.reading import UNDETERMINED
from pecli.analysis.rope.probe.verdict import report


def test_a_reading_of_zero_vectors_claims_no_factor_no_head_gain_and_no_doubtful_width():
    """Vectors of zeros read as neither RoPE nor NoPE: nothing rotated, so no attention
    factor (1), no gain that differs between heads, no slice whose width is in doubt; the
    report says so, and its only finding is why nothing was determined."""
    zeros = np.zeros((3, 2, 8), np.float32)
    data = report(probe_rope(zeros, zeros, np.array([[0.0], [1.0], [5.0]])))
    assert (data["rope"], data["attention_factor"], data["gain_per_head"]) == (None, 1.0, False)
    assert data["rotated_width_sure"] is True and data["findings"] == [UNDETERMINED]


def test_a_pairing_whose_score_is_exactly_1_fits(monkeypatch):
    """The rule: a pairing fits when its largest miss is at most 1 rounding (the score);
    every row is checked again at the end. A 2-channel head (both layouts pair channels 0
    and 1) scored exactly 1 everywhere is chosen; scored just over 1, none is."""
    from pecli.analysis.rope.probe import structure
    from pecli.analysis.rope.probe.reading import _pairing

    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    args = (x, x, np.ones(2), np.array([[1.0], [2.0]]), 1, (0, 2))
    monkeypatch.setattr(structure, "score", lambda *a: 1.0)
    best, tried = _pairing(*args)
    assert best is not None and (best.start, best.stop) == (0, 2)
    assert [s for _, s in tried] == [1.0] * len(tried)
    monkeypatch.setattr(structure, "score", lambda *a: np.nextafter(1.0, 2.0))
    assert _pairing(*args)[0] is None


def test_the_next_pair_past_an_interleaved_slice_is_extrapolated_on_the_omega_ladder():
    """Interleaved over channels 0–3 of 6, ω 1/2 and 1/4: the next pair's ω is (1/4)²/(1/2)
    = 1/8, turning the largest position |−4| by 1/2 rad. Channels 4–5 of size 0.625 would
    move by 0.3125 = 10 roundings of 2^-5 (binary fractions, exact): just enough, the width
    is sure; of size 0.5 they would move by 0.25 only, and it is not. A ladder through ω 0
    extrapolates nothing: not sure."""
    from types import SimpleNamespace

    from pecli.analysis.rope.probe.reading import _width_sure
    from pecli.analysis.rope.probe.structure import make_pairing

    pairing = make_pairing("interleaved", 0, 4)
    positions, tol = np.array([[0.0], [1.0], [-4.0]]), np.full(3, 2.0**-5)
    for omega, size, sure in (([0.5, 0.25], 0.625, True), ([0.5, 0.25], 0.5, False)):
        freqs = SimpleNamespace(omega=np.array(omega))
        x = np.full((3, 6), size)
        assert _width_sure(pairing, freqs, positions, x, tol) is sure
    freqs = SimpleNamespace(omega=np.array([0.0, 0.5]))
    assert _width_sure(pairing, freqs, positions, np.full((3, 6), 0.625), tol) is False


def test_a_nope_layer_has_no_attention_factor():
    """POST = PRE scaled by 2 (a constant gain on every channel): NoPE, with nothing rotated
    beside pass-through channels, so the attention factor is 1 (none), the gain 2."""
    q = np.random.default_rng(3).standard_normal((4, 2, 8))
    reading = probe_rope(q, 2 * q, np.array([[0.0], [1.0], [2.0], [7.0]]))
    assert (reading.rope, reading.factor) == (False, 1.0)
    assert reading.gain.tolist() == [2.0] * 4


def test_a_factor_within_its_tolerance_of_1_inclusive_is_1():
    """One head of 2 pass-through channels in float32 (u = 2^-24): the tolerance is
    8u·√(2/(1·2)) + 4·2^-24 = 3·2^-22. A factor 1 + 3·2^-22 (exact) is within it and read as
    1; 1 + 4·2^-22 is not and stays."""
    from pecli.analysis.rope.probe.reading import ProbeReading, _with_gains

    base = ProbeReading(True, "float32", (2, 1, 4), np.array([[0.0], [1.0]]))
    gain = np.ones((2, 1))
    for factor, read in ((1 + 3 * 2.0**-22, 1.0), (1 + 4 * 2.0**-22, 1 + 4 * 2.0**-22)):
        assert _with_gains(base, gain, 2.0**-24, 2, factor=factor).factor == read


def test_unchanged_vectors_at_position_1_are_nope():
    """Unchanged nonzero vectors at positions 0 and 1: RoPE would have turned the row at 1
    (pair 0 by ω_0·1 = 1 rad), so this is NoPE, not undetermined. So with two id axes at
    (0, 1) and (0, 2): a row turns when any of its ids is not 0."""
    q = np.random.default_rng(4).standard_normal((2, 2, 8))
    for positions in ([[0.0], [1.0]], [[0.0, 1.0], [0.0, 2.0]]):
        reading = probe_rope(q, q.copy(), np.array(positions))
        assert reading.rope is False and reading.findings == []


def test_a_rotation_over_every_channel_has_no_attention_factor_and_no_outside_finding():
    """Half-split RoPE (θ 100) over all 8 channels: no pass-through channel to compare the
    gain with, so the attention factor is 1. Interleaved over channels 0–3 of 8, the rest
    unchanged: the outside channels stay, so no finding says they change."""
    q = np.random.default_rng(6).standard_normal((5, 2, 8))
    p = np.array([0.0, 1, 2, 7, 30])
    whole = probe_rope(q, half_split(q, p[:, None] * 100.0 ** (-np.arange(4) / 4)), p[:, None])
    assert (whole.pairing.width, whole.factor) == (8, 1.0)
    part = probe_rope(q, interleaved(q, p[:, None] * 100.0 ** (-np.arange(2) / 2), 4), p[:, None])
    assert (part.pairing.layout, part.pairing.stop) == ("interleaved", 4)
    assert not any("outside the slice" in f for f in part.findings)


def test_unchanged_ends_that_overlap_leave_the_channels_between_them_to_pair():
    """(1, 0, 0, 1) made (1, 0, 0, 2): channels 0–2 stay (gain 1, the zeros fit any) and so
    do 1–3 (gain 2): the two unchanged ends overlap on 1–2, which is what the pairings must
    cover. Those are interleaved 1–2 or 0–3 (starting one before), half-split and
    interleaved-in 1–2: the pairings tried, the closest first: interleaved 1–2 pairs the
    zeros, whose norms (0) it keeps exactly (score 0)."""
    pre = np.array([[[1.0, 0.0, 0.0, 1.0]]])
    post = np.array([[[1.0, 0.0, 0.0, 2.0]]])
    reading = probe_rope(pre, post, np.array([[1.0]]))
    assert reading.tried[0] == ("interleaved over channels 1–2", 0.0)
    assert sorted(words for words, _ in reading.tried) == [
        "half-split over channels 1–2",
        "interleaved over channels 0–3",
        "interleaved over channels 1–2",
        "interleaved-in over channels 1–2",
    ]


def test_the_norm_ratio_of_a_short_vector_is_its_own_and_a_zero_row_is_1():
    """‖(0, 1)‖ / ‖(0.5, 0)‖ = 2 (a vector shorter than 1 still has its ratio); ‖(3, 4)‖ /
    ‖(0, 2.5)‖ = 5 / 2.5 = 2; a row of zeros has no ratio and reads 1."""
    from pecli.analysis.rope.probe.reading import _norm_ratio

    x = np.array([[0.5, 0.0], [0.0, 2.5], [0.0, 0.0]])
    y = np.array([[0.0, 1.0], [3.0, 4.0], [0.0, 0.0]])
    assert _norm_ratio(x, y).tolist() == [2.0, 2.0, 1.0]


def test_an_attention_factor_is_the_rotated_gain_over_the_pass_through_gain():
    """Interleaved RoPE over channels 0–3 of 8 scaled by 3, channels 4–7 by 2 (a constant
    gain): the rotated channels' own factor beside the pass-through ones is 3/2 = 1.5, and
    the token's gain is the pass-through's 2."""
    q = np.random.default_rng(9).standard_normal((5, 2, 8))
    p = np.array([0.0, 1, 2, 7, 30])
    post = 2 * interleaved(q, p[:, None] * 100.0 ** (-np.arange(2) / 2), 4)
    post[..., :4] *= 1.5
    reading = probe_rope(q, post, p[:, None])
    assert abs(reading.factor - 1.5) < 1e-12
    np.testing.assert_allclose(reading.gain, 2.0, rtol=1e-12)


def test_heads_differ_when_a_gain_is_more_than_the_tolerance_times_root_heads_off():
    """4 heads of 8 pass-through channels in float32: tol = 8·2^-24·√(2/32) + 4·2^-24 =
    3·2^-23, allowed √4 = 2 times over the heads' mean. Gains 1 ± 3·2^-22 about their mean
    1 (exact) are exactly that far: the same gain; 1 ± 3.125·2^-22 and 1 ± 4·2^-22 differ."""
    from pecli.analysis.rope.probe.reading import ProbeReading, _with_gains

    base = ProbeReading(True, "float32", (1, 4, 8), np.array([[1.0]]))
    for d, differ in ((3 * 2.0**-22, False), (25 * 2.0**-25, True), (4 * 2.0**-22, True)):
        gain = np.array([[1 + d, 1 - d, 1 + d, 1 - d]])
        assert _with_gains(base, gain, 2.0**-24, 8).gain_per_head is differ
