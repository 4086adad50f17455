"""``probe_rope``'s reading at the values that tell its rules apart: what a reading says when
nothing was found, and the thresholds of its findings.

Every expected value is worked out by hand in the test's docstring.
"""

from __future__ import annotations

import numpy as np

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
