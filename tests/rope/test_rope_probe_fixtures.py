"""``rope probe`` on the activations transformers' own attention modules made (11 cases).

Every expectation is the case's ``case.json`` ground truth, written by the generator from the
library (tools/library_fixtures/generate_probe.py), never by pecli: the pairing and rotated
channels, the module's own float32 ``inv_freq``, θ and the rope parameters, the M-RoPE
sections, NoPE and the temperature per position. Read with NumPy and safetensors here, so
that pecli's readers are not what is tested.
"""

from __future__ import annotations

import json

import library_fixtures
import ml_dtypes
import numpy as np
import pytest
from safetensors.numpy import load_file

from pecli.analysis.rope.probe import probe_rope
from pecli.analysis.rope.probe.verdict import (
    explained,
    pass_through,
    report,
    sections_of,
    verdict,
)

PROBE = library_fixtures.ROOT / "probe"
CASES = sorted(p.name for p in PROBE.iterdir() if p.is_dir())
PARTS = [(name, part) for name in CASES for part in ("q", "k")]
assert ml_dtypes  # bfloat16 for safetensors.numpy


def _case(name: str, part: str) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    folder = PROBE / name
    meta = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    arrays = []
    for key in (f"{part}_pre", f"{part}_post"):
        entry = meta["arrays"][key]
        if entry["file"].endswith(".safetensors"):
            arrays.append(load_file(folder / entry["file"])[entry["tensor"]])
        else:
            arrays.append(np.load(folder / entry["file"], allow_pickle=False))
    if "position_ids" in meta:
        ids = np.asarray(meta["position_ids"], dtype=np.float64).T  # (tokens, t h w)
    else:
        ids = np.asarray(meta["positions"], dtype=np.float64)[:, None]
    return meta, arrays[0], arrays[1], ids


def _truth(readings: dict, key: tuple[str, str]) -> tuple[dict, dict, object]:
    """The case's metadata, its ground truth and the probe's reading of it."""
    meta = _case(*key)[0]
    return meta, meta["truth"], readings[key]


@pytest.fixture(scope="module")
def readings():
    """Each case's reading, made once (the probe takes ~0.1 s a case)."""
    return {key: probe_rope(*_case(*key)[1:]) for key in PARTS}


def test_there_are_the_eleven_cases():
    assert len(CASES) == 11


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_rotation_or_nope_is_recovered(readings, key):
    meta, *_ = _case(*key)
    reading = readings[key]
    assert reading.rope is meta["truth"]["rope"]
    assert explained(reading)
    if not meta["truth"]["rope"]:
        assert reading.pairing is None and "NoPE" in report(reading)["verdict"]


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_pairing_slice_and_pass_through(readings, key):
    _meta, truth, reading = _truth(readings, key)
    if not truth["rope"]:
        return
    wanted = "interleaved" if truth["pairing"] == "interleaved" else "half-split"
    assert reading.pairing.layout == wanted
    assert [reading.pairing.start, reading.pairing.stop] == truth["rotated_channels"]
    assert reading.width_sure
    passing = [list(r) for r in pass_through(reading)]
    assert passing == (
        [truth["pass_through_channels"]] if truth.get("pass_through_channels") else []
    )
    first, second = reading.pairing.pre  # the truth's own pair list
    start, stop = truth["rotated_channels"]
    half = (stop - start) // 2
    if wanted == "half-split":
        assert first.tolist() == list(range(start, start + half))
        assert second.tolist() == list(range(start + half, stop))
    else:
        assert first.tolist() == list(range(start, stop, 2))


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_omega_is_the_modules_inv_freq(readings, key):
    meta, truth, reading = _truth(readings, key)
    if not truth["rope"]:
        return
    inv_freq = np.asarray(truth["inv_freq"], dtype=np.float64)
    freqs = reading.frequencies
    assert np.all(np.isfinite(freqs.omega))
    assert np.all(np.abs(freqs.omega - inv_freq) <= 4 * freqs.error)  # the stated uncertainty
    fast = inv_freq > 1e-3  # these are pinned to float32 precision by the positions
    rel = 2e-3 if meta["dtype"] == "bfloat16" else 1e-6
    assert np.all(np.abs(freqs.omega[fast] / inv_freq[fast] - 1) <= rel)


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_theta_to_one_part_in_a_million(readings, key):
    meta, truth, reading = _truth(readings, key)
    if not truth["rope"]:
        return
    theta = reading.frequencies.theta
    assert theta.theta == truth["theta"]
    if meta["dtype"] == "bfloat16":  # the module's inv_freq is bf16 itself: θ to its rounding
        assert theta.inv_freq_dtype == "bfloat16"
        assert abs(theta.fitted / truth["theta"] - 1) <= 3 * theta.error < 0.05
    else:
        assert theta.inv_freq_dtype is None
        assert abs(theta.fitted / truth["theta"] - 1) < 1e-6


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_scaling_is_the_configs(readings, key):
    meta, truth, reading = _truth(readings, key)
    if not truth["rope"] or meta["dtype"] == "bfloat16":
        return
    guess = reading.frequencies.theta.guess
    scaling = truth["scaling"]
    if scaling is None:
        assert guess.rope_type == "default"
    elif scaling["rope_type"] == "llama3":
        if scaling["low_freq_factor"] == scaling["high_freq_factor"]:  # Llama 4: a pure step
            assert guess.parameters["smoothed"] == 0
            assert _step_words(truth, scaling) in report(reading)["verdict"]
        else:
            assert guess.rope_type == "llama3"
            assert guess.parameters["high_freq_factor"] == scaling["high_freq_factor"]
            assert (
                guess.parameters["original_max_position_embeddings"]
                == scaling["original_max_position_embeddings"]
            )
        assert guess.parameters["factor"] == scaling["factor"]
    else:
        assert scaling["rope_type"] == "yarn" and guess.rope_type == "yarn"
        assert guess.parameters["factor"] == scaling["factor"]


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_mrope_sections(readings, key):
    _meta, truth, reading = _truth(readings, key)
    sections = sections_of(reading)
    if not truth.get("sections"):
        assert sections is None
        return
    assert sections["mrope_section"] == truth["sections"]["mrope_section"]
    assert [name for name, _, _ in sections["runs"]] == truth["sections"]["axes"]
    if truth["sections"]["mrope_section"] is not None:  # the verdict names Qwen-VL's sections
        assert f"M-RoPE sections {truth['sections']['mrope_section']} (" in verdict(reading)


@pytest.mark.parametrize("key", PARTS, ids=lambda k: "-".join(k))
def test_temperature_per_position_and_form(readings, key):
    meta, *_ = _case(*key)
    temperature, reading = meta["truth"]["temperature"], readings[key]
    if temperature is None or key[1] == "k":
        assert reading.temperature.kind == "none"
        near = 2e-3 if meta["dtype"] == "bfloat16" else 1e-6  # bf16 norms: ~512 roundings
        assert np.all(np.abs(reading.gain - 1) < near)
        return
    wanted = np.asarray(temperature["per_position"])
    assert np.all(np.abs(reading.gain / wanted - 1) < 1e-6)
    name, beta, length = reading.temperature.forms[0]
    if "floor_scale" in temperature:  # Llama 4
        assert (name, beta, length) == (
            "llama4",
            temperature["attn_scale"],
            temperature["floor_scale"],
        )
    else:
        L = temperature["original_max_position_embeddings"]
        assert (name, beta, length) == ("mistral", temperature["beta"], L)


def test_positions_off_by_one_are_not_explained():
    _, pre, post, ids = _case("llama3", "q")
    reading = probe_rope(pre, post, ids + 1)
    assert reading.pairing is not None and reading.pairing.layout == "half-split"
    assert not explained(reading)
    assert any("no ω·p explains" in f for f in reading.findings)


def test_one_axis_for_an_mrope_layer_is_not_explained():
    _, pre, post, ids = _case("qwen2vl_mrope", "q")
    assert not explained(probe_rope(pre, post, ids[:, :1]))


def _step_words(truth: dict, scaling: dict) -> str:
    """Llama 3's rule with low = high factor: pair i is divided by ``factor`` where its
    wavelength 2π/ω_i (unscaled ω_i = θ^(−2i/d)) passes original_max / low_freq_factor;
    the step runs from the first such pair to the last, head_dim/2 − 1."""
    d = truth["head_dim"]
    unscaled = scaling["rope_theta"] ** (-np.arange(0, d, 2) / d)
    limit = scaling["original_max_position_embeddings"] / scaling["low_freq_factor"]
    first = int(np.argmax(2 * np.pi / unscaled > limit))
    return f"a step: pairs {first}–{d // 2 - 1} divided by {scaling['factor']:g}"
