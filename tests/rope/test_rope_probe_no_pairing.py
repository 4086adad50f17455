"""``rope probe`` when no single pairing is chosen: several fit, or none covers the change.

RoPE turns pairs of channels; transformers pairs (2j, 2j+1) (interleaved) or (j, j+h)
(half-split), DeepSeek reads interleaved and writes half-split. A pairing "fits" when it keeps
every pair's norm up to one shared gain (score <= 1, in units of the storage's rounding).
"""

from __future__ import annotations

import numpy as np

from pecli.analysis.rope.probe import probe_rope
from pecli.analysis.rope.probe.reading import _no_rotation
from pecli.analysis.rope.probe.verdict import verdict

SEVERAL = "several pairings keep every pair's norm at these positions ("
CANNOT = "): the pairing cannot be told; give tokens at larger positions"


def test_a_two_channel_head_is_one_pair_whichever_layout_names_it():
    """With 2 channels the interleaved pair (0, 1), the half-split pair (0, 0+1) and
    DeepSeek's are the same pair, in and out: all three fit, and they are one pairing, so the
    probe reads it (a head of one pair: ω_0 = 1, θ undetermined) instead of asking for larger
    positions, which could never tell them apart."""
    q = np.random.default_rng(1).standard_normal((4, 1, 2))
    p = np.array([0.0, 1, 2, 3])
    c, s = np.cos(p)[:, None], np.sin(p)[:, None]
    post = np.stack([q[..., 0] * c - q[..., 1] * s, q[..., 1] * c + q[..., 0] * s], -1)
    reading = probe_rope(q, post, p[:, None])
    assert [s <= 1 for _, s in reading.tried] == [True, True, True]
    assert reading.pairing is not None and (reading.pairing.start, reading.pairing.stop) == (0, 2)
    assert reading.findings == []
    assert verdict(reading).startswith("interleaved over all 2 channels, θ not determined")


def test_pairings_of_other_channels_that_all_fit_are_still_not_told():
    """Channels 2 and 3 of 4 turn: interleaved (2, 3) and half-split over 2–3 are one pair,
    but a half-split over 0–3 pairs (0, 2), (1, 3): if several distinct pairings fit, the
    probe keeps asking (the rule is the pairs, not the layouts' names)."""
    from pecli.analysis.rope.probe.reading import _one_pairing
    from pecli.analysis.rope.probe.structure import make_pairing

    one = [make_pairing(layout, 2, 4) for layout in ("interleaved", "half-split", "interleaved-in")]
    assert _one_pairing(one)
    assert not _one_pairing([*one, make_pairing("half-split", 0, 4)])
    # DeepSeek's reads pairs (0, 1), (2, 3) as interleaved does, but writes them as (0, 2), (1, 3)
    assert not _one_pairing([make_pairing(k, 0, 4) for k in ("interleaved", "interleaved-in")])


def test_the_several_fitting_pairings_are_named_four_at_most():
    """Only channel 2 of 5 changes: pairs (1, 2) and (2, 3) in each of the 3 layouts fit
    (a one-pair slice keeps its norm up to the gain): 6 fit, the first 4 are named."""
    rng = np.random.default_rng(1)
    q = rng.standard_normal((4, 1, 5))
    post = q.copy()
    post[..., 2] = rng.standard_normal((4, 1))
    reading = probe_rope(q, post, np.arange(4.0)[:, None])
    assert len(reading.tried) == 6 and all(s <= 1 for _, s in reading.tried)
    (finding,) = reading.findings
    named = finding.removeprefix(SEVERAL).removesuffix(CANNOT).split("; ")
    assert named == [words for words, _ in reading.tried[:4]]


def test_two_pairings_each_exactly_at_the_tolerance_both_fit():
    """A score of exactly 1 (the storage's rounding, √2 per pair) still fits."""
    tried = [("interleaved over channels 0–3", 1.0), ("half-split over channels 0–3", 1.0)]
    words = "interleaved over channels 0–3; half-split over channels 0–3"
    assert _no_rotation(tried) == [SEVERAL + words + CANNOT]


def test_three_changed_channels_of_three_are_covered_by_no_pairing():
    """Pairs cover an even count of channels: a 3-channel head whose channels all change has
    no pairing inside it (interleaved would need channel 3, half-split h = 2 needs 4)."""
    rng = np.random.default_rng(4)
    q = rng.standard_normal((4, 1, 3))
    reading = probe_rope(q, rng.standard_normal((4, 1, 3)), np.arange(4.0)[:, None])
    assert reading.tried == []
    assert reading.findings == ["no channel pairing covers the changed channels"]


def test_one_fitting_pairing_alone_or_beside_a_miss_is_not_several():
    """Scores sorted best first: one pairing that fits (0.5), alone or before one that misses
    (3), is not "several"; the finding names the closest and its miss, 0.5."""
    alone = _no_rotation([("half-split over channels 0–3", 0.5)])
    assert alone == [
        "no pairing keeps every pair's norm: the closest, half-split over channels 0–3, "
        "misses by 0.5 times the storage's rounding (1 pairings tried): not a rotation of pairs"
    ]
    beside = _no_rotation([("half-split over channels 0–3", 0.5), ("interleaved", 3.0)])
    assert beside[0].startswith("no pairing keeps every pair's norm: the closest, half-split")
    assert "(2 pairings tried)" in beside[0]
