"""``rope probe`` on rotations built here with NumPy, adversarial inputs, and the command.

The synthetic activations are a random q rotated by a known RoPE in float64 (the formula
written out below, not pecli's), then stored as float32 or bfloat16: the probe must give back
the layout, the slice, θ and the temperature, or say it cannot tell.
"""

from __future__ import annotations

import json
import os

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.numpy import save_file

from pecli.analysis.rope.probe import probe_rope, token_positions
from pecli.analysis.rope.probe.verdict import explained, pass_through, report
from pecli.core.errors import ParameterError

TESTS = os.path.dirname(os.path.dirname(__file__))
FIXTURES = os.path.join(TESTS, "fixtures", "libraries", "probe")
THETAS = [100.0, 500.0, 10000.0, 500000.0, 1000000.0, 5000000.0, 10000000.0]


def rotated(q, positions, theta, layout, start, width, temperature=None):
    """q (tokens, heads, dim) rotated over channels start … start+width−1, in float64."""
    half = width // 2
    j = np.arange(half)
    omega = theta ** (-2.0 * j / width)
    if layout == "half-split":
        a, b = start + j, start + half + j
    else:
        a, b = start + 2 * j, start + 2 * j + 1
    angle = positions[:, None] * omega
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    out = q.copy()
    out[..., a] = q[..., a] * c - q[..., b] * s
    out[..., b] = q[..., b] * c + q[..., a] * s
    if temperature is not None:
        out *= temperature[:, None, None]
    return out


def stored(x, dtype):
    return x.astype(np.float32).astype(dtype) if dtype == "bfloat16" else x.astype(dtype)


BF16 = np.dtype(ml_dtypes.bfloat16)


@st.composite
def rotations(draw):
    dim = draw(st.sampled_from([32, 64, 128]))
    width = dim // draw(st.sampled_from([1, 2, 4]))
    start = draw(st.sampled_from([0, dim - width]))
    tokens = draw(st.integers(2, 24))
    far = draw(st.lists(st.integers(100, 200_000), min_size=1, max_size=4, unique=True))
    positions = np.unique(np.concatenate([np.arange(tokens), far])).astype(np.float64)
    return {
        "layout": draw(st.sampled_from(["half-split", "interleaved"])),
        "dim": dim,
        "width": width,
        "start": start,
        "theta": draw(st.sampled_from(THETAS)),
        "positions": positions,
        "heads": draw(st.integers(1, 4)),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=rotations())
def test_a_known_rotation_in_float32_is_read_back(case):
    rng = np.random.default_rng(case["seed"])
    q = rng.standard_normal((case["positions"].size, case["heads"], case["dim"]))
    post = rotated(
        q, case["positions"], case["theta"], case["layout"], case["start"], case["width"]
    )
    reading = probe_rope(
        stored(q, np.float32), stored(post, np.float32), case["positions"][:, None]
    )
    assert explained(reading)
    assert reading.pairing.layout == case["layout"]
    assert (reading.pairing.start, reading.pairing.stop) == (
        case["start"],
        case["start"] + case["width"],
    )
    theta = reading.frequencies.theta
    assert theta.theta == case["theta"]
    assert abs(theta.fitted / case["theta"] - 1) < 1e-5
    assert reading.frequencies.theta.guess.rope_type == "default"
    stop = case["start"] + case["width"]
    assert pass_through(reading) == [
        r for r in ((0, case["start"]), (stop, case["dim"])) if r[1] > r[0]
    ]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=rotations())
def test_bfloat16_storage_keeps_pairing_slice_and_theta_within_its_error(case):
    rng = np.random.default_rng(case["seed"])
    q = stored(rng.standard_normal((case["positions"].size, 4, case["dim"])), BF16)
    post = rotated(
        q.astype(np.float64),
        case["positions"],
        case["theta"],
        case["layout"],
        case["start"],
        case["width"],
    )
    reading = probe_rope(q, stored(post, BF16), case["positions"][:, None])
    assert reading.pairing.layout == case["layout"]
    assert reading.pairing.start == case["start"]
    assert reading.pairing.stop <= case["start"] + case["width"]
    theta = reading.frequencies.theta
    if not reading.width_sure:  # the slowest pairs did not turn: θ depends on the width
        assert any("may be wider" in f for f in reading.findings)
    elif np.isfinite(theta.fitted):
        assert reading.pairing.stop == case["start"] + case["width"]
        assert abs(theta.fitted / case["theta"] - 1) <= 3 * theta.error


def test_positions_at_zero_only_are_refused():
    with pytest.raises(ParameterError, match="position other than 0"):
        token_positions(np.zeros(5), 5, 1)


def test_one_token_cannot_tell_theta():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((1, 2, 64))
    p = np.array([5.0])
    reading = probe_rope(q, rotated(q, p, 10000.0, "half-split", 0, 64), p[:, None])
    assert reading.pairing.layout == "half-split"
    assert np.isnan(reading.frequencies.theta.theta)
    assert "θ not determined" in report(reading)["verdict"]


def test_tiny_angles_cannot_tell_the_pairing():
    rng = np.random.default_rng(2)
    q = rng.standard_normal((3, 2, 16))
    p = np.array([0.0, 1e-9, 2e-9])  # every pair turns by far less than float32's rounding
    post = rotated(q, p, 10000.0, "half-split", 0, 16)
    reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert reading.rope is False or not explained(reading)


def test_huge_positions_beside_small_ones():
    rng = np.random.default_rng(3)
    q = rng.standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 2, 3, 1_000_000, 16_000_000])
    post = rotated(q, p, 500000.0, "interleaved", 0, 64)
    reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert explained(reading) and reading.frequencies.theta.theta == 500000.0


def test_a_uniform_factor_on_q_is_no_temperature():
    rng = np.random.default_rng(4)
    q = rng.standard_normal((5, 2, 32))
    p = np.arange(5.0)
    post = rotated(q, p, 10000.0, "half-split", 0, 32, temperature=np.full(5, 1.25))
    reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert reading.temperature.kind == "constant" and abs(reading.temperature.factor - 1.25) < 1e-6
    assert "a factor 1.25 at every position (no temperature)" in report(reading)["verdict"]


def test_a_factor_on_the_rotated_slice_only_is_an_attention_factor():
    rng = np.random.default_rng(5)
    q = rng.standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = rotated(q, p, 10000.0, "half-split", 0, 32)
    post[..., :32] *= 1.1
    reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert abs(reading.factor - 1.1) < 1e-5 and reading.temperature.kind == "none"
    assert "attention factor 1.1" in report(reading)["verdict"]
    assert report(reading)["verdict"].split("; ")[0].endswith(", no temperature")


def test_mistral_temperature_on_noise_free_data():
    rng = np.random.default_rng(6)
    p = np.array([0.0, 1, 4095, 4096, 9000, 40000])
    q = rng.standard_normal((6, 2, 32))
    scale = 1 + 0.2 * np.log(1 + np.floor(p / 4096))
    post = rotated(q, p, 10000.0, "half-split", 0, 32, temperature=scale)
    reading = probe_rope(q, post, p[:, None])
    assert reading.temperature.forms[0] == ("mistral", 0.2, 4096)


def test_positions_wrong_for_every_pair_are_reported_not_raised():
    rng = np.random.default_rng(8)
    q = rng.standard_normal((5, 2, 32))
    p = np.array([0.0, 1, 2, 3, 4])
    post = rotated(q, p, 10000.0, "interleaved", 0, 32)
    reading = probe_rope(q, post, (p + 1)[:, None])  # exact data: no pair fits these
    assert reading.pairing.layout == "interleaved" and not explained(reading)
    assert np.isnan(reading.frequencies.omega).all()


def test_a_permutation_is_no_rotation():
    rng = np.random.default_rng(7)
    q = rng.standard_normal((4, 2, 16))
    post = q[..., ::-1].copy()
    reading = probe_rope(q, post, np.arange(1.0, 5.0)[:, None])
    assert not explained(reading) and reading.rope is None


def test_one_pairing_fitting_the_searched_rows_only_is_not_several():
    """Half-split RoPE (θ 100, 8 channels) at positions 0–519, float64, with channel 1 of the
    p = 0 row doubled: that row keeps no norm. The pairing is searched on the 512 rows turned
    most (p ≥ 8), where half-split alone keeps the norms (the interleaved pairings mix
    channels a rotation does not pair), then fails on row 0: no pairing is chosen, and the
    finding names half-split as the closest, not "several pairings"."""
    rng = np.random.default_rng(3)
    q = rng.standard_normal((520, 1, 8))
    p = np.arange(520.0)
    post = rotated(q, p, 100.0, "half-split", 0, 8)
    post[0, 0, 1] *= 2.0
    reading = probe_rope(q, post, p[:, None])
    assert reading.pairing is None and not explained(reading)
    assert reading.tried[0][0] == "half-split over channels 0–7"
    assert all(score > 1 for _, score in reading.tried[1:])
    assert len(reading.findings) == 1
    assert reading.findings[0].startswith(
        "no pairing keeps every pair's norm: the closest, half-split over channels 0–7,"
    )


# --- the command ---------------------------------------------------------------------------


def _llama3(name: str) -> str:
    return os.path.join(FIXTURES, "llama3", f"{name}.npy")


LLAMA3_POSITIONS = "0,1,7,100,4095,30000"


def test_command_table_and_json(run_cli, tmp_path):
    result = run_cli(
        "rope", "probe", _llama3("q_pre"), _llama3("q_post"), "--positions", LLAMA3_POSITIONS
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("verdict: half-split over all 128 channels, θ 500000")
    out = tmp_path / "probe.json"
    result = run_cli(
        "rope",
        "probe",
        _llama3("k_pre"),
        _llama3("k_post"),
        "--positions",
        LLAMA3_POSITIONS,
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert (
        data["pairing"] == "half-split"
        and data["theta"] == 500000.0
        and data["rope_type"] == "llama3"
    )
    assert len(data["pairs"]) == 64 and data["explained"] is True


def test_command_mrope_ids_and_safetensors(run_cli, tmp_path):
    with open(os.path.join(FIXTURES, "qwen2vl_mrope", "case.json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    ids = tmp_path / "ids.npy"
    np.save(ids, np.asarray(meta["position_ids"], np.int64))  # (3, tokens): rows per axis
    folder = os.path.join(FIXTURES, "qwen2vl_mrope")
    result = run_cli(
        "rope",
        "probe",
        f"{folder}/q_pre.npy",
        f"{folder}/q_post.npy",
        "--ids",
        str(ids),
        "--format",
        "json",
    )
    assert json.loads(result.output)["sections"]["mrope_section"] == [16, 24, 24]
    both = os.path.join(FIXTURES, "llama3_bf16", "tensors.safetensors")
    result = run_cli(
        "rope",
        "probe",
        both,
        both,
        "--tensor-pre",
        "k_pre",
        "--tensor-post",
        "k_post",
        "--positions",
        LLAMA3_POSITIONS,
    )
    assert result.exit_code == 0 and "cast to bfloat16" in result.output


def test_command_axes_of_a_transformers_dump(run_cli, tmp_path):
    pre, post = np.load(_llama3("q_pre")), np.load(_llama3("q_post"))
    np.save(tmp_path / "pre.npy", pre.reshape(1, 6, 512))  # q_proj's output (batch, tokens, hidden)
    np.save(tmp_path / "post.npy", post.transpose(1, 0, 2)[None])  # (batch, heads, tokens, d)
    result = run_cli(
        "rope",
        "probe",
        str(tmp_path / "pre.npy"),
        str(tmp_path / "post.npy"),
        "--axes",
        "btf,bhtd",
        "--head-dim",
        "128",
        "--positions",
        LLAMA3_POSITIONS,
    )
    assert result.exit_code == 0 and "θ 500000" in result.output


def test_wrong_positions_exit_1_after_the_report(run_cli):
    result = run_cli(
        "rope", "probe", _llama3("q_pre"), _llama3("q_post"), "--positions", "1,2,8,101,4096,30001"
    )
    assert result.exit_code == 1
    assert "no ω·p explains" in result.output


def test_zero_vectors_are_not_determined_with_status_1_after_the_report(run_cli, tmp_path):
    """Zeros cannot tell RoPE from NoPE (the new user got a confident 'NoPE', status 0)."""
    np.save(tmp_path / "z.npy", np.zeros((6, 4, 8), np.float32))
    dump = str(tmp_path / "z.npy")
    result = run_cli("rope", "probe", dump, dump, "--positions", "0,1,7,100,4095,30000")
    assert result.exit_code == 1 and "rope: not determined" in result.stdout
    assert result.stderr.strip().endswith(
        "as RoPE would leave vectors of zeros or at position 0 (see the notes)"
    )


def _bad_inputs(tmp_path):
    pre = _llama3("q_pre")
    nan = np.load(pre)
    nan[2, 1, 5] = np.nan
    np.save(tmp_path / "nan.npy", nan)
    np.save(tmp_path / "ints.npy", np.ones((6, 4, 128), np.int32))
    (tmp_path / "text.npy").write_text("not an array\n")
    np.save(tmp_path / "short.npy", np.load(pre)[:5])
    two = {"q": np.load(pre), "k": np.load(pre)}
    save_file(two, str(tmp_path / "two.safetensors"))
    return {
        "shape": ([pre, str(tmp_path / "short.npy")], "POST"),
        "count": ([pre, _llama3("q_post"), "--positions", "0,1,2"], "--positions"),
        "zero": ([pre, _llama3("q_post"), "--positions", "0,0,0,0,0,0"], "--positions"),
        "nan": ([str(tmp_path / "nan.npy"), _llama3("q_post")], "PRE"),
        "ints": ([str(tmp_path / "ints.npy"), _llama3("q_post")], "PRE"),
        "text": ([str(tmp_path / "text.npy"), _llama3("q_post")], "PRE"),
        "missing": ([str(tmp_path / "none.npy"), _llama3("q_post")], "PRE"),
        "folder": ([str(tmp_path), _llama3("q_post")], "PRE"),
        "axes": ([pre, _llama3("q_post"), "--axes", "thx"], "--axes"),
        "three": ([pre, _llama3("q_post"), "--axes", "thd,thd,thd"], "two specs PRE,POST"),
        "rank": ([pre, _llama3("q_post"), "--axes", "bthd"], "PRE"),
        "tensor": ([pre, _llama3("q_post"), "--tensor-pre", "q"], "--tensor-pre"),
        "unnamed": ([str(tmp_path / "two.safetensors"), _llama3("q_post")], "'--tensor-pre'"),
        "range": ([pre, _llama3("q_post"), "--positions", "5:2"], "--positions"),
    }


@pytest.mark.parametrize(
    "name",
    [
        "shape",
        "count",
        "zero",
        "nan",
        "ints",
        "text",
        "missing",
        "folder",
        "axes",
        "three",
        "rank",
        "tensor",
        "unnamed",
        "range",
    ],
)
def test_bad_input_is_one_line_status_2_and_no_file(run_cli, tmp_path, name):
    args, option = _bad_inputs(tmp_path)[name]
    out = tmp_path / "out.json"
    result = run_cli("rope", "probe", *args, "-o", str(out))
    assert result.exit_code == 2, (name, result.output)
    assert option in result.output, result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_deepseek_interleaved_in_half_split_out():
    rng = np.random.default_rng(9)
    q = rng.standard_normal((6, 2, 96))  # 32 pass-through channels, then the 64 rotated (MLA)
    p = np.array([0.0, 1, 2, 50, 900, 7000])
    post = rotated(q, p, 10000.0, "interleaved", 32, 64)
    post[..., 32:] = np.concatenate([post[..., 32:96:2], post[..., 33:96:2]], axis=-1)
    reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert (reading.pairing.layout, reading.pairing.start) == ("interleaved-in", 32)
    assert explained(reading) and reading.frequencies.theta.theta == 10000.0


def test_theta_is_written_in_full_up_to_15_digits_then_with_an_exponent():
    """500000 and 999999999999999 (15 digits) in full; 1e15 (16 digits) as 1e+15."""
    from pecli.analysis.rope.probe.verdict import _theta

    assert _theta(500000.0) == "500000"
    assert _theta(999999999999999.0) == "999999999999999"
    assert _theta(1e15) == "1e+15"
    assert _theta(1.5) == "1.5"


def test_command_a_wrong_count_of_positions_names_the_tokens_as_an_integer(run_cli):
    """The llama3 dump has 6 tokens: 3 positions are refused, naming the count 6 (not 6.0)."""
    result = run_cli("rope", "probe", _llama3("q_pre"), _llama3("q_post"), "--positions", "0,1,7")
    assert result.exit_code == 2
    assert "must hold one position per token (6)," in " ".join(result.stderr.split())


@pytest.mark.parametrize("shape", [(6,), (1, 1, 2, 3, 8)])
def test_a_dump_of_1_or_5_axes_without_axes_is_refused_by_its_count(shape):
    """No --axes: (tokens, hidden), (tokens, heads, head_dim) or with a batch, 2 to 4 axes."""
    from pecli.analysis.rope.probe.inputs import as_rows

    with pytest.raises(ParameterError, match="must have 2 to 4 axes") as caught:
        as_rows(np.zeros(shape, np.float32), None, head_dim=8)
    assert caught.value.parameter == "pre"


def test_pairs_of_no_known_omega_are_named_by_their_range():
    """8 pairs, ω of pairs 5, 6, 7 unknown (NaN): the finding names 5–7, θ from 0–4."""
    from pecli.analysis.rope.probe.frequencies import _theta

    omega = 10000.0 ** (-np.arange(8) / 8)
    omega[5:] = np.nan
    findings: list[str] = []
    theta = _theta(omega, np.full(8, 1e-9), findings)
    assert "ω of pairs 5–7 are not determined: θ comes from pairs 0–4" in findings[0], findings
    assert abs(theta.theta / 10000 - 1) < 1e-6, theta


def test_one_channel_is_proportional_unless_a_zero_turns_into_a_non_zero():
    """By hand: one channel, one gain per row, fits any row but 0 -> 2 (no g·0 is 2)."""
    from pecli.analysis.rope.probe.structure import proportional

    tol = np.full(2, 1e-12)
    assert proportional(np.array([[1.0], [3.0]]), np.array([[2.0], [-1.0]]), tol)
    assert not proportional(np.array([[0.0], [1.0]]), np.array([[2.0], [3.0]]), tol)
    assert proportional(np.zeros((2, 0)), np.zeros((2, 0)), tol)  # no channel: nothing to move


def test_one_row_at_position_one_reads_each_angle_as_its_omega():
    """At position 1 the angle is ω itself (|ω| < π, by hand): one reading per pair."""
    from pecli.analysis.rope.probe.omega import fit_omega, measurements

    angles = np.array([[0.5, -0.25, 3.0]])
    fit = fit_omega(measurements(np.array([1.0]), angles, np.full((1, 3), 1e-9)))
    assert fit.omega.tolist() == [0.5, -0.25, 3.0] and fit.readings.tolist() == [1, 1, 1]


@pytest.mark.parametrize(
    ("positions", "absolute"), [([0.0, 0.0], True), ([5.0], False)], ids=["at-0", "one-token"]
)
def test_no_baseline_is_more_readings_than_are_followed(positions, absolute):
    """Tokens at position 0 only (their angle must be 0), or one token read by differences:
    no baseline, so every ω in (−π, π) fits every angle (by hand): more readings than the
    MAX_READINGS followed, the count of a pair not determined, and no ω."""
    from pecli.analysis.rope.probe.omega import MAX_READINGS, fit_omega, measurements

    p = np.array(positions)
    angles, sigma = np.zeros((p.size, 3)), np.full((p.size, 3), 1e-9)
    fit = fit_omega(measurements(p, angles, sigma, absolute=absolute))
    assert (fit.readings > MAX_READINGS).all() and np.isnan(fit.omega).all()


def test_a_pairing_names_its_last_channel():
    from pecli.analysis.rope.probe.structure import make_pairing

    assert make_pairing("half-split", 0, 64).describe() == "half-split over channels 0–63"
    assert make_pairing("interleaved-in", 4, 8).describe() == "interleaved-in over channels 4–7"


def test_omegas_measured_coarsely_name_no_half_dtype():
    """Four bfloat16 numbers (1, 0.81640625, 0.6640625, 0.5390625) measured to ±10^-3 only:
    above 1/64 of bfloat16's spacing at each (at most 2^-8/32 ≈ 1.2·10^-4, by hand), so no
    pair counts and no dtype is named; measured to ±10^-9 they read as bfloat16."""
    from pecli.analysis.rope.probe.frequencies import inv_freq_dtype

    w = np.array([1.0, 0.81640625, 0.6640625, 0.5390625])
    assert inv_freq_dtype(w, np.full(4, 1e-3)) is None
    assert inv_freq_dtype(w, np.full(4, 1e-9)) == "bfloat16"


def test_float16_numbers_that_are_no_bfloat16_read_as_float16():
    """ω = k/2048 with k odd in [1024, 2048): float16 numbers (11 significant bits, spacing
    2^-11 on [1/2, 1)) but no bfloat16 ones (8 bits, spacing 2^-8: k would be a multiple of 8),
    so the nearest bfloat16 misses each by at least 2^-11 ≫ 3·10^-9, all by hand: an inv_freq
    buffer cast to float16, not to bfloat16 (rounding them as float16 in the bfloat16 pass
    would keep them and name bfloat16)."""
    from pecli.analysis.rope.probe.frequencies import inv_freq_dtype

    w = np.array([2047.0, 1677.0, 1373.0, 1125.0]) / 2048
    assert inv_freq_dtype(w, np.full(4, 1e-9)) == "float16"


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_a_partial_slice_with_no_factor_reads_a_factor_of_exactly_1(seed):
    """Half-split RoPE over the first 32 of 64 channels (the formula above), nothing scaled,
    stored in float32: the slice's gain over the passed-through channels is 1 within float32's
    rounding, and is reported as 1 exactly (no attention factor)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = rotated(q, p, 10000.0, "half-split", 0, 32)
    reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert reading.factor == 1.0
    assert "attention factor" not in report(reading)["verdict"]
    assert "half-split over the first " in report(reading)["verdict"]  # channels 0 … 31


def test_a_slice_at_the_end_of_the_head_is_the_last_channels():
    rng = np.random.default_rng(5)
    q = rng.standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = rotated(q, p, 10000.0, "half-split", 32, 32)  # channels 32 … 63 rotated
    verdict = report(probe_rope(q, post, p[:, None]))["verdict"]
    assert "half-split over the last " in verdict and "of 64 channels" in verdict


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_head_scaled_by_4e_6_is_a_per_head_gain(seed):
    """Full half-split RoPE (the formula above) on 2 heads of 64 channels in float32; head 1
    then scaled by 1 + 4·10^-6, 2·10^-6 off the heads' mean: about 34 float32 steps u = 2^-24,
    five times what rounding may move a head's mean gain over 2 heads × 64 channels
    ((8u·√(2/128) + 4u)·√2 ≈ 0.42·10^-6), so the heads differ; unscaled, they do not."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = rotated(q, p, 10000.0, "half-split", 0, 64)
    plain = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    post[:, 1, :] *= 1 + 4e-6
    scaled = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
    assert not plain.gain_per_head and scaled.gain_per_head
    assert any("differs between the heads" in f for f in scaled.findings)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_interleaved_slice_of_two_pairs_says_when_a_next_pair_would_not_show(seed):
    """Interleaved RoPE over channels 0–3 of 8 (two pairs, ω = 1 and θ^-1/2; the formula
    above) in float32, positions 0–3. The ladder's next pair would turn by θ^-1·3: with
    θ = 10^8, 3·10^-8 rad, moving channels of size ~1 by far less than 10 float32 roundings
    (10·2^-24 ≈ 6·10^-7), so the slice may be wider than its 4 channels; with θ = 10^4,
    3·10^-4 rad, which would show, so the width is sure."""
    rng = np.random.default_rng(seed)
    p = np.array([0.0, 1, 2, 3])
    for theta, sure in ((1e8, False), (1e4, True)):
        q = rng.standard_normal((4, 2, 8))
        post = rotated(q, p, theta, "interleaved", 0, 4)
        reading = probe_rope(q.astype(np.float32), post.astype(np.float32), p[:, None])
        assert (reading.pairing.layout, reading.pairing.start, reading.pairing.stop) == (
            "interleaved",
            0,
            4,
        )
        assert reading.width_sure == sure
        assert any("may be wider than 4 channels" in f for f in reading.findings) == (not sure)


@pytest.mark.parametrize("known", [2, 3])
def test_theta_needs_3_leading_pairs_with_a_known_omega(known):
    """8 pairs whose first ``known`` have ω_i = 10^4^(−2i/16), the rest unknown (NaN): 3
    pairs fit θ = 10^4 (pairs 3–7 said not determined), 2 do not."""
    from pecli.analysis.rope.probe.frequencies import read_frequencies
    from pecli.analysis.rope.probe.omega import OmegaFit

    omega = np.full(8, np.nan)
    omega[:known] = 10000.0 ** (-np.arange(0, 2 * known, 2) / 16)
    fit = OmegaFit(omega, 1e-12 * omega, np.ones(8, dtype=int), np.zeros(8))
    frequencies = read_frequencies([fit])
    if known == 2:
        assert frequencies.theta.theta != frequencies.theta.theta  # NaN: not determined
        assert frequencies.findings == [
            "fewer than 3 leading pairs have a known ω: θ is not determined"
        ]
        return
    assert frequencies.theta.theta == 10000.0 and frequencies.theta.run == 3
    assert frequencies.findings == [
        "ω of pairs 3–7 are not determined: θ comes from pairs 0–2, and the scaling is not read"
    ]


def test_the_first_non_finite_value_of_a_dump_is_located():
    """Two bad values, row 2 head 0 channel 3 first (C order): it is the one named."""
    from pecli.analysis.rope.probe.inputs import check_pair
    from pecli.core.errors import ParameterError

    pre = np.ones((4, 2, 8))
    post = pre.copy()
    post[2, 0, 3], post[3, 1, 0] = np.nan, np.inf
    with pytest.raises(ParameterError) as caught:
        check_pair(pre, post)
    assert caught.value.parameter == "post"
    assert caught.value.value == "token row 2, head 0, channel 3"
