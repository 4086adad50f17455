"""What a break-it campaign on the commands and options of the second wave found, each kept fixed.

Each case failed before its fix: a request the house caps built whole, an option the command
does not have named in an error, a NaN table written, a value the model cannot hold accepted.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess

import numpy as np
import pytest

_PRLIMIT = pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs util-linux prlimit")


def _capped(pecli_cmd, megabytes: int, *args: str, cwd) -> subprocess.CompletedProcess[bytes]:
    cmd = ["prlimit", f"--as={megabytes << 20}", *pecli_cmd, *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120, check=False)


@_PRLIMIT
def test_alibi_batch_is_held_to_the_tensor_cap_before_any_is_built(pecli_cmd, tmp_path):
    # one sequence of 65536 heads x 1024 keys is 2^26 values, the cap; two were built whole
    # (2^27 values, 2 GB resident, 4.6 s), 2000 ran out of time
    args = ("alibi", "bias", "--heads", "65536", "--n", "1024", "--convention", "bloom")
    result = _capped(pecli_cmd, 600, *args, "--left-padding", "0,3", "-o", "b.npy", cwd=tmp_path)
    assert result.returncode == 2, result.stderr[:300]  # was 1: out of memory
    assert result.stderr.count(b"\n") == 1 and b"'--left-padding'" in result.stderr
    assert b"2^26 values" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_alibi_batch_within_the_cap_is_still_built(run_cli, tmp_path):
    # BLOOM's build_alibi_tensor, heads 2 (slopes 1/16, 1/256), keys 4, masks [0,1,1,1],[1,1,1,1]:
    # positions (cumsum(mask) - 1)·mask = [0,0,1,2] and [0,1,2,3], times each head's slope
    out = tmp_path / "b.csv"
    args = ("alibi", "bias", "--heads", "2", "--n", "4", "--convention", "bloom")
    result = run_cli(*args, "--left-padding", "1,0", "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert out.read_text().splitlines()[1:] == [
        "0.0,0.0,0.0625,0.125",
        "0.0,0.0,0.00390625,0.0078125",
        "0.0,0.0625,0.125,0.1875",
        "0.0,0.00390625,0.0078125,0.01171875",
    ]


@pytest.mark.parametrize("base", ["nan", "0", "-5", "1e308"])
def test_timestep_network_dtype_checks_the_base_as_the_exact_table_does(run_cli, tmp_path, base):
    out = tmp_path / "t.csv"
    args = ("timestep", "--network-dtype", "bfloat16", "--d", "4", "--base", base, "0.5")
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 2, result.output  # was 0: a table of NaN (or cos 1, sin 0)
    assert result.stderr.count("\n") == 1 and "'--base'" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_timestep_network_dtype_refuses_a_t_whose_float32_cast_overflows(run_cli, dtype):
    # FLUX feeds t·1000 to get_timestep_embedding in float32: 1e36·1000 = 1e39 > 3.4e38 is inf
    # there, and cos(inf) is NaN; the exact table reduces the angle and is finite
    result = run_cli("timestep", "--network-dtype", dtype, "--d", "4", "1e36")
    assert result.exit_code == 2, result.output  # was 0: NaN,NaN,NaN,NaN
    assert result.stderr.count("\n") == 1 and "float32" in result.stderr
    assert "NaN" not in result.stdout


def test_timestep_inputs_never_write_an_inf(run_cli):
    result = run_cli("timestep", "--d", "4", "--inputs", "1e36")
    assert result.exit_code == 2, result.output  # was 0: 1e+36,inf
    assert result.stderr.count("\n") == 1 and "'--dtype'" in result.stderr
    wide = run_cli("timestep", "--d", "4", "--inputs", "--dtype", "float64", "1e36")
    assert wide.stdout.splitlines()[1] == f"1e+36,{1e36 * 1000!r}"  # the float64 product


@pytest.mark.parametrize("model", ["flux", "dit"])
def test_timestep_inputs_refuse_a_network_dtype_they_would_ignore(run_cli, tmp_path, model):
    # --network-dtype shapes the table only; with --inputs it was dropped without a word (and
    # with dit, which it does not apply to, too): status 0 and the file replaced
    out = tmp_path / "t.csv"
    out.write_bytes(b"kept\n")
    args = ("--model", model, "--inputs", "--network-dtype", "bfloat16", "0.5", "-o", str(out))
    result = run_cli("timestep", *args)
    assert result.exit_code == 2, result.output  # was 0
    assert result.stderr.count("\n") == 1 and "'--network-dtype'" in result.stderr
    assert "--inputs" in result.stderr and out.read_bytes() == b"kept\n"
    exact = run_cli("timestep", "--inputs", "--network-dtype", "exact", "0.5")
    assert exact.exit_code == 0 and exact.stdout.splitlines()[1] == "0.5,500.0"


@pytest.mark.parametrize("n", ["0", "-1", "9007199254740993"])
def test_compute_relative_names_n_not_an_option_compute_lacks(run_cli, n):
    result = run_cli("compute", "--relative", "--d", "8", "--n", n)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "'--n'" in result.stderr  # was '--positions'


@_PRLIMIT
def test_compute_relative_is_streamed_under_a_memory_cap(pecli_cmd, tmp_path):
    # 2·200000 − 1 rows of d = 512 are 819 MB of float64, built whole before; streamed, 300 MB
    # is room enough. Rows checked: p = 199999 at the top, 0 in the middle, −199999 at the end
    args = ("compute", "--relative", "--d", "512", "--n", "200000", "-q", "-o", "r.npy")
    result = _capped(pecli_cmd, 400, *args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[:300]  # was 1: out of memory
    table = np.load(tmp_path / "r.npy", mmap_mode="r")
    assert table.shape == (399999, 512)
    omega = 10000.0 ** (-np.arange(256) * 2 / 512)  # Vaswani's ω_i, pairs (sin, cos)
    for row, p in ((0, 199999), (199999, 0), (399998, -199999)):
        exact = np.stack([np.sin(p * omega), np.cos(p * omega)], axis=1).ravel()
        np.testing.assert_allclose(table[row], exact, rtol=0, atol=6e-8)  # half a float32 ulp


def test_compute_relative_refuses_a_table_the_disk_cannot_hold_before_work(run_cli, tmp_path):
    out = tmp_path / "r.npy"
    # n = 2^24 (the largest): 2^25 − 1 rows of 8192 float32, 1 TiB
    result = run_cli("compute", "--relative", "--d", "8192", "--n", str(2**24), "-o", str(out))
    assert result.exit_code == 1, result.output  # was an out-of-memory after allocating
    assert "not enough room" in result.stderr and not out.exists()


@pytest.mark.parametrize("tokens", ["audio:2", "text:3 audio:1", "video+audio:1,2,2,s=1,mel=2"])
def test_qwen25_omni_audio_of_no_token_is_one_line(run_cli, tokens):
    # Qwen2.5-Omni's audio tower: ((L − 1)//2 + 1 − 2)//2 + 1 tokens, 0 for L = 1 and 2
    result = run_cli("rope", "axes", "--preset", "qwen2.5-omni", "--tokens", tokens)
    assert result.exit_code == 2, result.output  # was internal error: zero-size array / IndexError
    assert result.stderr.count("\n") == 1 and "'--tokens'" in result.stderr
    assert "at least 3 mel frames" in result.stderr
    fine = run_cli("rope", "axes", "--preset", "qwen2.5-omni", "--tokens", "audio:3", "--no-header")
    assert fine.exit_code == 0 and fine.stdout.count("\n") == 3  # its start, one token, its end


@pytest.mark.parametrize("command", ["axes", "identify-axes"])
@pytest.mark.parametrize("preset", ["qwen2.5-omni", "qwen3-omni"])
def test_omni_seconds_whose_float32_frame_times_overflow_are_refused(
    run_cli, tmp_path, command, preset
):
    cache = tmp_path / "c.npy"
    np.save(cache, np.ones((32, 256), np.float32))
    tokens = "video+audio:2,4,4,s=1e300,mel=100"
    target = (str(cache),) if command == "identify-axes" else ()
    result = run_cli("rope", command, *target, "--preset", preset, "--tokens", tokens)
    assert result.exit_code == 2, result.output  # was internal error: float NaN to integer
    assert result.stderr.count("\n") == 1 and "'--tokens'" in result.stderr
    assert "finite in float32" in result.stderr


@pytest.mark.parametrize("scale", ["1e308,1,1", "1e-30,1,1", "1,1,1e-308"])
def test_cosmos_rope_scale_whose_theta_is_no_theta_names_rope_scale(run_cli, scale):
    # θ_t = 10000·s^(44/42) at head 128: 1e308 overflows (was internal error: OverflowError),
    # 1e-30 gives 3.7e-28 (was named '--theta', an option not given)
    args = ("rope", "axes", "--preset", "cosmos", "--grid", "2x4x4", "--rope-scale", scale)
    result = run_cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "'--rope-scale'" in result.stderr


def _two_layers(tmp_path, window: object) -> str:
    config = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 2,
        "layer_types": ["sliding_attention", "full_attention"],
        "sliding_window": window,
        "head_dim": 8,
        "rope_theta": 1e6,
        "rope_local_base_freq": 1e4,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))  # NaN written as the bare NaN Python's json reads back
    return str(path)


@pytest.mark.parametrize("window", [float("nan"), -1, 0, "4096", True, 4096.5])
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_rope_layers_refuses_a_sliding_window_no_model_can_have(run_cli, tmp_path, window, fmt):
    out = tmp_path / "layers.json"
    args = ("rope", "layers", _two_layers(tmp_path, window), "--format", fmt)
    result = run_cli(*args, *(["-o", str(out)] if fmt == "json" else []))
    assert result.exit_code == 2, result.output  # was 0: window 'nan' (JSON null), -1, '4096'
    assert result.stderr.count("\n") == 1 and "field sliding_window" in result.stderr
    assert not out.exists()


def test_rope_layers_still_shows_a_whole_window(run_cli, tmp_path):
    result = run_cli("rope", "layers", _two_layers(tmp_path, 512), "--format", "json")
    assert result.exit_code == 0, result.output
    assert [row["sliding_window"] for row in json.loads(result.stdout)] == [512, None]


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_rope_layers_never_writes_an_infinite_temperature(run_cli, tmp_path, fmt):
    # Ministral's 1 + β·ln(⌊p/16384⌋ + 1) with β = 1e308 at p = 2^53: ln(2^39) > 1, inf
    params = {"rope_type": "yarn", "rope_theta": 1e6, "factor": 16.0}
    params |= {"original_max_position_embeddings": 16384, "llama_4_scaling_beta": 1e308}
    config = {"model_type": "ministral3", "num_hidden_layers": 2, "head_dim": 8}
    config |= {"rope_parameters": params, "max_position_embeddings": 262144}
    (tmp_path / "config.json").write_text(json.dumps(config))
    args = ("rope", "layers", str(tmp_path / "config.json"), "--format", fmt)
    result = run_cli(*args, "--positions", "0,9007199254740992")
    assert result.exit_code == 2, result.output  # was 0: inf in CSV and the table, JSON null
    assert result.stderr.count("\n") == 1 and "'--positions'" in result.stderr
    fine = run_cli(*args, "--positions", "0,16383")  # ⌊16383/16384⌋ = 0: the factor is 1
    assert fine.exit_code == 0, fine.output


def _llama_gguf(path, extra: bytes = b"", extra_count: int = 0) -> str:
    """A GGUF v3 file of a llama with four layers, θ 10000, 8 rotated channels, and ``extra``."""

    def s(text: str) -> bytes:
        return struct.pack("<Q", len(text)) + text.encode()

    kvs = s("general.architecture") + struct.pack("<I", 8) + s("llama")
    kvs += s("llama.block_count") + struct.pack("<II", 4, 4)
    kvs += s("llama.rope.dimension_count") + struct.pack("<II", 4, 8)
    kvs += s("llama.rope.freq_base") + struct.pack("<If", 6, 10000.0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 4 + extra_count) + kvs + extra
    path.write_bytes(head + b"\0" * (-len(head) % 32))
    return str(path)


def _swa(value: float) -> bytes:
    return struct.pack("<Q", 24) + b"llama.rope.freq_base_swa" + struct.pack("<If", 6, value)


def test_gguf_check_notes_a_finite_rope_key_the_config_implies_none_of(run_cli, tmp_path):
    config = {"model_type": "llama", "rope_theta": 10000.0, "head_dim": 8}
    config |= {"num_hidden_layers": 4, "max_position_embeddings": 64}
    (tmp_path / "config.json").write_text(json.dumps(config))
    gguf = _llama_gguf(tmp_path / "m.gguf", _swa(500000.0), 1)
    result = run_cli("gguf", "check", gguf, "--config", str(tmp_path / "config.json"))
    assert result.exit_code == 0, result.output  # llama has no sliding layers: nothing differs
    notes = [line for line in result.stdout.splitlines() if "freq_base_swa" in line]
    assert notes == [  # was silent: the key was neither compared nor named
        "note: llama.rope.freq_base_swa = 500000 is in the file; the config implies no such key: "
        "llama.cpp uses it, in place of freq_base, on the layers its sliding-window pattern "
        "marks; the converter writes it only for sliding layers with their own θ"
    ]
    nan = _llama_gguf(tmp_path / "n.gguf", _swa(float("nan")), 1)  # a NaN still differs
    result = run_cli("gguf", "check", nan, "--config", str(tmp_path / "config.json"))
    assert result.exit_code == 1 and "freq_base_swa" in result.stderr


@_PRLIMIT
def test_learned_axes_is_streamed_under_a_memory_cap(pecli_cmd, tmp_path):
    # 2,000,000 tokens x 16 columns: the float64 angles, cos and sin were built whole (over
    # 400 MB); streamed in blocks, each row is still Σ_a pos[n, a]·freqs[a, h, f]
    from safetensors.numpy import save_file

    freqs = np.random.default_rng(7).standard_normal((3, 2, 4)).astype(np.float32)
    save_file({"pos_frequencies": freqs}, str(tmp_path / "m.safetensors"))
    args = ("rope", "learned-axes", "m.safetensors", "--grid", "20x250x400", "-q", "-o", "r.npy")
    result = _capped(pecli_cmd, 400, *args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[:300]  # was 1: out of memory
    table = np.load(tmp_path / "r.npy", mmap_mode="r")
    assert table.shape == (2_000_000, 16)
    scale = (192 * 192 / (250 * 400)) ** 0.5  # diffusers' MochiRoPE: centred cells, scaled
    for n in (0, 262_144, 1_999_999):  # the first row, the first of the second block, the last
        t, rest = divmod(n, 250 * 400)
        pos = np.array([t, (rest // 400 + 0.5 - 125) * scale, (rest % 400 + 0.5 - 200) * scale])
        angles = np.einsum("a,ahf->hf", pos, freqs.astype(np.float64)).ravel()
        exact = np.concatenate([np.cos(angles), np.sin(angles)]).astype(np.float32)
        np.testing.assert_array_equal(table[n], exact)


def test_learned_axes_refuses_a_table_the_disk_cannot_hold_before_work(run_cli, tmp_path):
    from safetensors.numpy import save_file

    save_file({"pos_frequencies": np.ones((3, 2, 4), np.float32)}, str(tmp_path / "m.safetensors"))
    out = tmp_path / "r.npy"
    args = ("rope", "learned-axes", str(tmp_path / "m.safetensors"), "--grid", "10000x10000x10000")
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 1, (
        result.output
    )  # was an allocation of the whole grid (10^12 tokens: within 2^40)
    assert "not enough room" in result.stderr and not out.exists()


def test_diff_start_past_2_to_the_53_is_refused_like_compute_s(run_cli, tmp_path):
    np.save(tmp_path / "a.npy", np.ones((2, 4), np.float32))
    a = str(tmp_path / "a.npy")
    result = run_cli("diff", a, a, "--start", str(2**53 + 1))
    assert result.exit_code == 2 and "'--start'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_timestep_linspace_refusal_shows_the_bad_bounds(run_cli):
    result = run_cli("timestep", "--linspace", "0", "nan", "3")
    assert result.exit_code == 2 and "(got 0 nan 3)" in result.stderr
