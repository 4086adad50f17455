"""The verdict's and the report's words at the values that tell their rules apart.

Each layer is made by hand (RoPE as transformers applies it), or the reading's scaling guess
is given as plain values, so every expected word is known before the verdict is read.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from probe_rotations import half_split, interleaved

from pecli.analysis.rope.probe import probe_rope
from pecli.analysis.rope.probe.verdict import _scaling_words, report, summary


def test_the_one_position_axis_is_named_p():
    """One position per token: every pair's axis is named ``p`` in the report. The slice
    is all 8 channels: no pass-through channel (``none``); over 4 of 8 (0–3), channels 4–7;
    a slice 2–5 (4 channels) leaves 0–1 and 6–7."""
    q = np.random.default_rng(1).standard_normal((5, 1, 8))
    p = np.array([0.0, 1, 2, 7, 30])
    data = report(
        probe_rope(q, half_split(q, p[:, None] * 100.0 ** (-np.arange(4) / 4)), p[:, None])
    )
    assert [pair["axes"] for pair in data["pairs"]] == [["p"]] * 4
    assert "pass-through channels: none" in summary(data)
    post = interleaved(q, p[:, None] * 100.0 ** (-np.arange(2) / 2), 4)
    lines = summary(report(probe_rope(q, post, p[:, None])))
    assert "pass-through channels: 4–7" in lines and "rotated channels: 0–3 (4 of 8)" in lines
    data = report(probe_rope(q, post, p[:, None]))
    data |= {"rotated_channels": [2, 6], "pass_through_channels": [[0, 2], [6, 8]]}
    lines = summary(data)
    assert "rotated channels: 2–5 (4 of 8)" in lines and "pass-through channels: 0–1, 6–7" in lines


def _scaled(rope_type: str, parameters: dict) -> SimpleNamespace:
    guess = SimpleNamespace(rope_type=rope_type, parameters=parameters)
    theta = SimpleNamespace(guess=guess)
    return SimpleNamespace(frequencies=SimpleNamespace(theta=theta, omega=np.zeros(8)))


def test_a_step_is_named_only_for_an_unknown_unsmoothed_scaling_with_a_factor():
    """An unknown scaling with no smoothing (0) and a factor 8 from pair 2 on is Llama 4's
    step over pairs 2–7 of 8; smoothed (1), or without a factor, it is listed as read."""
    step = _scaling_words(_scaled("unknown", {"smoothed": 0, "factor": 8.0, "unchanged": 2}))
    assert step == (
        "a step: pairs 2–7 divided by 8 (llama3 with low_freq_factor = high_freq_factor, "
        "as Llama 4)"
    )
    smoothed = _scaling_words(_scaled("unknown", {"smoothed": 1, "factor": 8.0}))
    assert smoothed == "unknown scaling (smoothed 1, factor 8)"
    no_factor = _scaling_words(_scaled("unknown", {"smoothed": 0}))
    assert no_factor == "unknown scaling (smoothed 0)"


def test_two_id_axes_have_sections_named_a0_and_a1():
    """Two ids per token (the first two columns of Qwen-VL's t, h, w ids): half-split RoPE,
    pairs 0–7 turned by id 0 and pairs 8–15 by id 1, two chunks in axis order: sections
    a0 8, a1 8 (no t, h, w names for two axes)."""
    from probe_rotations import THW_IDS

    from pecli.analysis.rope.probe.verdict import sections_of

    ids = THW_IDS[:, :2].astype(np.float64)
    q = np.random.default_rng(2).standard_normal((6, 2, 32))
    axes = [0] * 8 + [1] * 8
    post = half_split(q, ids[:, axes] * 1e4 ** (-np.arange(16) / 16))
    sections = sections_of(probe_rope(q, post, ids))
    assert sections == {
        "axes": ["a0", "a1"],
        "runs": [("a0", 0, 7), ("a1", 8, 15)],
        "mrope_section": [8, 8],
    }


def test_theta_is_given_with_its_fit_and_its_error_in_percent():
    """θ 10000 fitted at 10000.5 with a relative error 0.005: ± 0.5 %, no scaling."""
    from pecli.analysis.rope.probe.verdict import _theta_words

    reading = _scaled("default", {})
    theta = reading.frequencies.theta
    theta.theta, theta.fitted, theta.error, theta.inv_freq_dtype = 1e4, 10000.5, 0.005, None
    assert _theta_words(reading) == "θ 10000 (fit 10000.5 ± 0.5 %), no scaling"


def test_zero_vectors_summarise_as_vectors_then_rope_not_determined():
    """Zeros at positions 0, 1, 5: the summary's first line is the vectors', the second
    says RoPE is not determined (not 'not explained')."""
    zeros = np.zeros((3, 2, 8), np.float32)
    lines = summary(report(probe_rope(zeros, zeros, np.array([[0.0], [1.0], [5.0]]))))
    assert lines[:2] == ["vectors: 3 rows × 2 heads × 8 channels, float32", "rope: not determined"]


def test_theta_lines_name_the_last_pair_of_the_fit():
    """θ read from 8 leading pairs: pairs 0–7; no inv_freq dtype line, no scaling listed;
    linear scaling by 8 lists its factor."""
    from pecli.analysis.rope.probe.verdict import _theta_lines

    data = {"theta": 1e4, "theta_fit": 10000.5, "theta_error": 0.005, "theta_pairs": 8}
    data |= {"inv_freq_dtype": None, "scaling": None, "rope_type": "default"}
    assert _theta_lines(data) == [
        "theta: 10000 (fit 10000.5 ± 0.005 relative, on pairs 0–7)",
        "rope_type: default",
    ]
    data |= {"scaling": {"factor": 8.0}, "rope_type": "linear"}
    assert _theta_lines(data)[-1] == "rope_type: linear (factor 8)"


def test_a_temperature_form_is_reported_with_its_documented_formula():
    """docs/cli.md names Mistral's query temperature 1 + β·ln(1 + floor(p/L)): the report's
    form carries that formula, β and L."""
    from pecli.analysis.rope.probe.temperature import Temperature
    from pecli.analysis.rope.probe.verdict import _temperature_report

    form = _temperature_report(Temperature("stepped", 1.0, [("mistral", 0.1, 8000)]))["forms"][0]
    assert (form["form"], form["beta"], form["L"]) == ("mistral", 0.1, 8000)
    assert form["formula"].endswith("1 + β·ln(1 + floor(p/L))")
