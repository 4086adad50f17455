"""``rope probe``'s one-sentence verdict in the cases the other tests leave out.

Each layer is made by hand (RoPE as transformers applies it: half-split or interleaved pairs,
ω_j = θ^(−j/pairs)), so which channels turn, which id turns which pair, and whether a gain
grows with the position is known before the probe reads it.
"""

from __future__ import annotations

import numpy as np
from probe_rotations import half_split, interleaved, turned_by_axes

from pecli.analysis.rope.probe import probe_rope
from pecli.analysis.rope.probe.reading import ProbeReading
from pecli.analysis.rope.probe.verdict import verdict


def unexplained(findings):
    return ProbeReading(None, "float32", (6, 2, 8), np.zeros((6, 1)), findings=findings)


def test_an_unexplained_reading_gives_its_first_finding_or_points_to_the_notes():
    """The verdict quotes the first finding only; with none it says to see the notes."""
    first = verdict(unexplained(["norms change", "second"]))
    assert first == "not explained by any rotation: norms change"
    assert verdict(unexplained([])) == "not explained by any rotation: see the notes"


def test_ids_turning_pairs_out_of_t_h_w_order_are_listed_by_axis_not_as_mrope_sections():
    """Pairs 0–3 turned by the h id, 4–9 by t, 10–15 by w: not Qwen-VL's chunked t, h, w
    order, so no mrope_section; the runs are counted in pairs: h 4, t 6, w 6."""
    q, post, ids = turned_by_axes(np.repeat([1, 0, 2], [4, 6, 6]).tolist())
    words = verdict(probe_rope(q, post, ids))
    assert "pairs by axis: h 4, t 6, w 6" in words and "M-RoPE" not in words


def test_an_interleaved_slice_of_unsure_width_names_the_still_channels_as_maybe_pass_through():
    """Interleaved RoPE (θ 100) over channels 0–7 of 16, positions 1–5: channels 8–15 are
    unchanged, but pairs this slow may only not have turned yet: said so."""
    q = np.random.default_rng(8).standard_normal((5, 2, 16))
    p = np.arange(5.0)
    w = 100.0 ** (-np.arange(4) / 4)
    post = interleaved(q, p[:, None] * w, 8)
    words = verdict(probe_rope(q, post, (p + 1)[:, None]))
    tail = "channels 8–15 unchanged (pass-through, or pairs too slow to turn by these positions)"
    assert words.endswith("; " + tail)


def test_a_gain_that_grows_with_the_position_in_no_known_form_is_said_to_be_of_no_form():
    """A gain 1 at positions below 50 and 1.5, 3 past them grows but fits no temperature form."""
    q = np.random.default_rng(5).standard_normal((6, 2, 32))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = half_split(q, p[:, None] * 1e4 ** (-np.arange(16) / 16))
    post *= np.array([1, 1, 1, 1, 1.5, 3.0])[:, None, None]
    words = verdict(probe_rope(q, post, p[:, None]))
    assert "a factor that grows with the position, of no known form (see the gains)" in words
