"""Issue 34, items 1-6 and 8-10: a silent wrong answer and hostile inputs, each refused or right.

Expected values are hand-derived (Qwen2.5-VL's get_rope_index rule written out below), mpmath's,
or the rule a command already applies elsewhere; none is pecli's own output.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

LAYOUT = "text:5 image:1,4,6 text:3 video:4,4,6,s=1.0 text:4"


def _t_ids(stdout: str) -> list[int]:
    rows = [line.split(",") for line in stdout.strip().splitlines()[1:]]
    return [int(r[0]) for r in rows]


# -- item 1: a knob only one model reads, given with another model ----------------------------


def test_seconds_with_qwen25_give_its_times(run_cli):
    # By hand: text 0-4; the image (1x4x6 merged by 2: 1x2x3) at 5, text goes on at 5 + 3 = 8;
    # text 8-10; the video at 11 with t = 11 + k·s·tokens_per_second = 11 + 2k, k = 0..3.
    result = run_cli("rope", "mrope-ids", "--model", "qwen2.5-vl", "--tokens", LAYOUT)
    assert result.exit_code == 0, result.output
    t = _t_ids(result.stdout)
    assert sorted(set(t[14:38])) == [11, 13, 15, 17]


@pytest.mark.parametrize(
    ("args", "option", "reader"),
    [
        (["--tokens", LAYOUT], "--tokens", "qwen2.5-vl"),  # s=1.0, the value s= defaults to
        (["--tokens", "text:2 video:2,4,4,s=1", "--model", "qwen3-vl"], "--tokens", "qwen2.5-vl"),
        (["--tokens", "text:2 video:2,4,4,gap=0"], "--tokens", "qwen3-vl"),
        (
            ["--tokens", "text:2 video:1,4,4", "--tokens-per-second", "2"],
            "--tokens-per-second",
            "qwen2.5-vl",
        ),
        (
            ["--tokens", "text:2 video:1,4,4", "--tokens-per-second", "4", "--model", "qwen3.5"],
            "--tokens-per-second",
            "qwen2.5-vl",
        ),
    ],
)
def test_a_knob_the_model_does_not_read_is_refused_naming_who_reads_it(
    run_cli, args, option, reader
):
    result = run_cli("rope", "mrope-ids", *args, "-o", "-")
    assert result.exit_code == 2, result.output
    assert option in result.output and reader in result.output
    assert "Traceback" not in result.output


def test_gap_names_every_model_that_reads_it(run_cli):
    result = run_cli("rope", "mrope-ids", "--tokens", "text:2 video:2,4,4,gap=1")
    assert result.exit_code == 2
    assert "qwen3-vl" in result.output and "qwen3.5" in result.output


def test_tokens_per_second_with_a_grid_preset_is_refused(run_cli, tmp_path):
    out = tmp_path / "c.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "flux",
        "--grid",
        "2x2",
        "--tokens-per-second",
        "4",
        "-o",
        str(out),
    )
    assert result.exit_code == 2 and "--tokens-per-second" in result.output
    assert not out.exists()


def test_tokens_per_second_reaches_qwen25_in_rope_axes(run_cli, tmp_path):
    # with 1 token per second and s=1 the video's frames sit at t = start + k, not + 2k
    one = run_cli(
        "rope",
        "mrope-ids",
        "--model",
        "qwen2.5-vl",
        "--tokens",
        "video:3,2,2,s=1",
        "--tokens-per-second",
        "1",
    )
    assert one.exit_code == 0, one.output
    assert _t_ids(one.stdout) == [0, 1, 2]


# -- item 2: ALiBi slopes a dtype cannot hold are refused, not written as 0 -------------------


@pytest.mark.parametrize(
    ("heads", "max_bias", "dtype"),
    [
        ("8", "1024", "float32"),  # heads 1-7 would underflow to 0.0
        ("2", "300", "float32"),  # 2^-150, 2^-300: 0.0 in float32
        ("8", "127", "float32"),  # head 7: 2^-127 is below float32's normal range (2^-126)
        ("8", "1024", "float64"),  # head 7: 2^-1024 is a float64 subnormal
    ],
)
def test_slopes_below_the_dtype_normal_range_are_refused(run_cli, tmp_path, heads, max_bias, dtype):
    out = tmp_path / "s.npy"
    result = run_cli(
        "alibi",
        "slopes",
        "--heads",
        heads,
        "--max-bias",
        max_bias,
        "--dtype",
        dtype,
        "-o",
        str(out),
    )
    assert result.exit_code == 2, result.output
    assert "--max-bias" in result.output and dtype in result.output
    assert not out.exists()


def test_slopes_at_the_edge_of_the_normal_range_are_written(run_cli, tmp_path):
    out = tmp_path / "s.npy"
    result = run_cli("alibi", "slopes", "--heads", "8", "--max-bias", "126", "-o", str(out))
    assert result.exit_code == 0, result.output
    # by hand: head h has slope 2^(-126·(h+1)/8); head 7's is 2^-126, float32's smallest normal
    assert np.load(out)[-1] == np.float32(2.0**-126)


# -- item 3: float64 (and float32) slopes are the exact slopes rounded once --------------------


def _mp_nearest(x, bits: int) -> float:
    """``x`` (mpmath, > 0, normal range) rounded to nearest-even at ``bits`` bits, by mpmath."""
    import mpmath

    with mpmath.workprec(bits):
        return float(mpmath.mpf(x))  # mpf(x) at `bits` bits rounds to nearest (half even)


def _exact_slopes(n: int, b: float, heads) -> list:
    import mpmath

    p = 1 << (n.bit_length() - 1)
    with mpmath.workprec(400):
        out = []
        for h in heads:
            e = mpmath.mpf(h + 1) / p if h < p else mpmath.mpf(2 * (h - p) + 1) / (2 * p)
            out.append(mpmath.power(2, -mpmath.mpf(b) * e))
        return out


@pytest.mark.parametrize(("n", "b", "heads"), [(65536, 8.0, [1562]), (100, 7.3, range(100))])
def test_known_misrounded_slopes_are_right(n, b, heads):
    from pecli.core.zoo.alibi import alibi_slopes

    ours = alibi_slopes(n, max_bias=b)
    exact = _exact_slopes(n, b, heads)
    assert [float(ours[h]) for h in heads] == [_mp_nearest(x, 53) for x in exact]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 1 << 16),
    b=st.floats(1e-3, 120.0),
    picks=st.lists(st.integers(0, (1 << 16) - 1), min_size=1, max_size=20),
)
def test_slopes_correctly_rounded_in_float64_and_float32(n, b, picks):
    from pecli.core.zoo.alibi import alibi_slopes

    heads = sorted({k % n for k in picks})
    exact = _exact_slopes(n, b, heads)
    for dtype, bits in ((np.float64, 53), (np.float32, 24)):
        ours = alibi_slopes(n, max_bias=b, dtype=dtype.__name__)
        assert ours.dtype == dtype
        assert [float(ours[h]) for h in heads] == [_mp_nearest(x, bits) for x in exact]


# -- item 4: a series alibi slopes refuses to make is no match ---------------------------------


@pytest.mark.parametrize(
    "slopes", [[2.0, 4.0], [1.0, 1.0], [2.0 ** (-265 * k) for k in (1, 2, 3, 4)]]
)
def test_identify_does_not_match_a_max_bias_out_of_range(run_cli, tmp_path, slopes):
    # [2, 4] = 2^(-b·e) with b = -2 (press); [1, 1]: b = 0; the last: b = 1060, past 1024
    path = tmp_path / "m.npy"
    np.save(path, np.array(slopes))
    result = run_cli("alibi", "identify", str(path))
    assert result.exit_code == 1, result.output
    assert "not determined" in result.output


def test_identify_one_head_of_slope_one_still_matches_zero_based(run_cli, tmp_path):
    # one head, slope 1: zero-based's exponent is 0, so any max_bias makes it
    path = tmp_path / "m.npy"
    np.save(path, np.array([1.0]))
    assert run_cli("alibi", "identify", str(path)).exit_code == 0


# -- item 5: identify-axes reads half-precision caches and refuses a NaN complex cache ---------


def _flux_cache_16(shape_rows: int = 19) -> tuple[np.ndarray, np.ndarray]:
    """FLUX.1's cache for a 4x4 grid after 3 text tokens, by its formula (diffusers
    FluxPosEmbed: axes_dim (16, 56, 56), θ 10000, interleaved pairs; text ids 0), float64."""
    rows, cols = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    ids = np.zeros((3 + 16, 3))
    ids[3:, 1], ids[3:, 2] = rows.ravel(), cols.ravel()
    angles = []
    for axis, width in enumerate((16, 56, 56)):
        omega = 10000.0 ** (-np.arange(0, width, 2) / width)
        angles.append(ids[:, axis : axis + 1] * omega)
    angle = np.repeat(np.concatenate(angles, axis=1), 2, axis=1)  # interleaved: c0 c0 c1 c1 …
    return np.cos(angle), np.sin(angle)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_identify_axes_matches_a_half_precision_flux_cache(run_cli, tmp_path, dtype):
    from safetensors.numpy import save_file

    from pecli.core.dtypes import float_dtype

    cos, sin = _flux_cache_16()
    held = float_dtype(dtype)
    path = tmp_path / "c.safetensors"
    save_file(
        {"cos": cos.astype(np.float32).astype(held), "sin": sin.astype(np.float32).astype(held)},
        str(path),
    )
    result = run_cli("rope", "identify-axes", str(path), "--grid", "4x4", "--text", "3")
    assert result.exit_code == 0, result.output
    assert "flux: matches" in result.output
    assert "θ h" in result.output or f"θ not fitted: {dtype}" in result.output


def test_identify_axes_matches_a_float16_npy_table(run_cli, tmp_path):
    cos, sin = _flux_cache_16()
    path = tmp_path / "c.npy"
    np.save(path, np.concatenate([cos, sin], axis=1).astype(np.float16))
    result = run_cli("rope", "identify-axes", str(path), "--grid", "4x4", "--text", "3")
    assert result.exit_code == 0, result.output
    assert "flux: matches" in result.output


@pytest.mark.parametrize("where", ["all", "one"])
def test_identify_axes_refuses_a_complex_cache_with_nan(run_cli, tmp_path, where):
    cos, sin = _flux_cache_16()
    table = (cos[:, ::2] + 1j * sin[:, ::2]).astype(np.complex64)
    if where == "all":
        table[:] = np.nan
    else:
        table[4, 7] = complex(np.nan, 0.0)
    path = tmp_path / "c.npy"
    np.save(path, table)
    result = run_cli("rope", "identify-axes", str(path), "--grid", "4x4", "--text", "3")
    assert result.exit_code == 2, result.output
    assert "finite" in result.output


# -- item 10: a run of no tokens is refused where the layout is read ---------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["rope", "mrope-ids", "--tokens", "text:0 image:1,4,4"],
        ["rope", "mrope-ids", "--tokens", "text:0"],
        ["rope", "mrope-ids", "--tokens", "text:1 image:1,4,4 text:0 image:1,4,4"],
        ["rope", "axes", "--preset", "qwen2-vl", "--tokens", "text:0"],
        ["rope", "identify-axes", "CACHE", "--tokens", "text:0 image:1,4,4"],
    ],
)
def test_text_of_no_tokens_is_refused(run_cli, tmp_path, args):
    cache = tmp_path / "c.npy"
    np.save(cache, np.ones((4, 512)))
    out = tmp_path / ("o.json" if "identify-axes" in args else "o.npy")
    result = run_cli(*[str(cache) if a == "CACHE" else a for a in args], "-o", str(out))
    assert result.exit_code == 2, result.output
    assert "--tokens" in result.output and "text:0" in result.output
    assert "internal error" not in result.output and not out.exists()


# -- item 9: a negative dimension in a .npy header is refused, naming the file -----------------


def _negative_npy(path, shape, descr="<f8") -> None:
    """A .npy file whose header declares ``shape`` (written by hand: NumPy would not)."""
    text = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode()
    text += b" " * ((-(10 + len(text) + 1)) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + bytes(128))


@pytest.mark.parametrize(
    ("args", "shape", "option"),
    [
        (["add", "F", "-o", "OUT.npy"], (-1, 8), "FILE"),
        (["add", "-i", "F", "-o", "OUT.npy"], (-1, 8), "--input"),
        (["identify", "F"], (-1, 8), "FILE"),
        (["diff", "F", "F"], (-1, 8), "'A'"),
        (
            ["rope", "cache", "--head-dim", "8", "--positions", "F", "-o", "OUT.npy"],
            (-4,),
            "--positions",
        ),
        (["rope", "identify", "F"], (-1, 8), "FILE"),
        (["rope", "identify-axes", "F", "--grid", "2x2"], (-1, 8), "FILE"),
        (["rope", "axes", "--preset", "flux", "--ids", "F", "-o", "OUT.npy"], (-1, 3), "--ids"),
        (["rope", "probe", "F", "F"], (-1, 8), "PRE"),
        (["alibi", "identify", "F"], (2, -1, 8), "FILE"),
        (["timestep", "-i", "F", "-o", "OUT.npy"], (-4,), "--input"),
        (["random-fourier", "RF", "-i", "F", "-o", "OUT.npy"], (-4,), "--input"),
    ],
)
def test_a_negative_npy_dimension_is_refused_naming_the_file(
    run_cli, tmp_path, args, shape, option
):
    bad = tmp_path / "neg.npy"
    _negative_npy(bad, shape)
    out, rf = tmp_path / "OUT.npy", tmp_path / "rf.npz"
    np.savez(rf, freqs=np.ones(4, np.float32), phases=np.zeros(4, np.float32))  # EDM2's pair
    named = {"F": str(bad), "OUT.npy": str(out), "RF": str(rf)}
    argv = [named.get(a, a) for a in args]
    result = run_cli(*argv)
    assert result.exit_code == 2, result.output
    assert "negative dimension" in result.output and "neg.npy" in result.output
    assert option in result.output and "internal error" not in result.output
    assert not out.exists()


def test_a_negative_dimension_in_an_npz_member_is_refused(run_cli, tmp_path):
    import zipfile

    member = tmp_path / "pe.npy"
    _negative_npy(member, (-1, 8))
    archive = tmp_path / "neg.npz"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(member, "pe.npy")
    result = run_cli("identify", str(archive))
    assert result.exit_code == 2 and "negative dimension" in result.output


# -- item 8: a frequency tensor that is no vector is refused by gguf show and check ------------


def _gguf_with_freqs(path, ne: list[int]) -> str:
    """A GGUF v3 file (llama, head 128) whose rope_freqs.weight has ggml sizes ``ne``, F32 1s."""
    import struct

    def s(text: str) -> bytes:
        return struct.pack("<Q", len(text)) + text.encode()

    kvs = s("general.architecture") + struct.pack("<I", 8) + s("llama")
    kvs += s("llama.rope.dimension_count") + struct.pack("<II", 4, 128)
    count = int(np.prod(ne)) if ne else 1
    info = s("rope_freqs.weight") + struct.pack("<I", len(ne))
    info += b"".join(struct.pack("<Q", n) for n in ne) + struct.pack("<IQ", 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 2) + kvs + info
    path.write_bytes(head + b"\0" * (-len(head) % 32) + struct.pack(f"<{count}f", *[1.0] * count))
    return str(path)


@pytest.mark.parametrize("ne", [[], [1, 64], [0, 64], [64, 0], [0]])
@pytest.mark.parametrize("command", ["show", "check"])
def test_gguf_frequency_tensor_that_is_no_vector_is_refused(run_cli, tmp_path, ne, command):
    gguf = _gguf_with_freqs(tmp_path / "m.gguf", ne)
    (tmp_path / "config.json").write_text('{"rope_theta": 10000.0, "head_dim": 128}')
    extra = ["--config", str(tmp_path / "config.json")] if command == "check" else []
    for fmt in ([], ["--format", "json"]) if command == "show" else ([],):
        result = run_cli("gguf", command, gguf, *extra, *fmt)
        assert result.exit_code == 2, result.output
        assert "rope_freqs.weight" in result.output and "internal error" not in result.output


def test_gguf_frequency_tensor_with_a_trailing_size_1_reads_as_a_vector(run_cli, tmp_path):
    # ggml's ne = [64, 1] is the vector [64] (llama.cpp's loader accepts it)
    result = run_cli("gguf", "show", _gguf_with_freqs(tmp_path / "m.gguf", [64, 1]))
    assert result.exit_code == 0, result.output
    assert "rope_freqs.weight (64 values)" in result.stdout


# -- item 6: gguf check refuses key types llama.cpp's loader refuses, and NaN in a stray key ---


def _typed_gguf(path, arch: str, keys: list[tuple[str, int, bytes]]) -> str:
    """A GGUF v3 file with ``general.architecture`` and typed keys ``(name, GGUF type, bytes)``.

    GGUF value types (ggml's gguf.h): 4 UINT32, 5 INT32, 6 FLOAT32, 9 ARRAY, 10 UINT64,
    12 FLOAT64; an array's bytes are its item type (uint32), its length (uint64), its items.
    """
    import struct

    def s(text: str) -> bytes:
        return struct.pack("<Q", len(text)) + text.encode()

    body = s("general.architecture") + struct.pack("<I", 8) + s(arch)
    body += b"".join(s(name) + struct.pack("<I", kind) + raw for name, kind, raw in keys)
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1 + len(keys)) + body
    path.write_bytes(head + b"\0" * (-len(head) % 32))
    return str(path)


def _f32(x: float) -> bytes:
    import struct

    return struct.pack("<f", x)


def _u32(n: int) -> bytes:
    import struct

    return struct.pack("<I", n)


def _check(run_cli, tmp_path, arch, keys, config):
    import json

    (tmp_path / "config.json").write_text(json.dumps(config))
    gguf = _typed_gguf(tmp_path / "m.gguf", arch, keys)
    return run_cli("gguf", "check", gguf, "--config", str(tmp_path / "config.json"))


LLAMA = {"rope_theta": 10000.0, "head_dim": 128}


def test_gguf_check_baseline_with_llama_cpp_types_agrees(run_cli, tmp_path):
    keys = [
        ("llama.rope.freq_base", 6, _f32(10000.0)),
        ("llama.rope.dimension_count", 4, _u32(128)),
    ]
    result = _check(run_cli, tmp_path, "llama", keys, LLAMA)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("keys", "bad", "wanted"),
    [
        (
            [
                ("llama.rope.freq_base", 12, __import__("struct").pack("<d", 10000.0)),
                ("llama.rope.dimension_count", 4, _u32(128)),
            ],
            "llama.rope.freq_base",
            "FLOAT32",
        ),
        (
            [
                ("llama.rope.freq_base", 6, _f32(10000.0)),
                ("llama.rope.dimension_count", 10, __import__("struct").pack("<Q", 128)),
            ],
            "llama.rope.dimension_count",
            "UINT32",
        ),
    ],
)
def test_gguf_check_refuses_a_key_of_the_wrong_type(run_cli, tmp_path, keys, bad, wanted):
    result = _check(run_cli, tmp_path, "llama", keys, LLAMA)
    assert result.exit_code == 1, result.output
    assert bad in result.output and wanted in result.output


def test_gguf_check_refuses_float_dimension_sections(run_cli, tmp_path):
    import struct

    config = {
        "rope_theta": 1e6,
        "head_dim": 128,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    }
    floats = struct.pack("<IQ", 6, 4) + struct.pack("<4f", 16.0, 24.0, 24.0, 0.0)
    ints = struct.pack("<IQ", 5, 4) + struct.pack("<4i", 16, 24, 24, 0)
    base = [
        ("qwen2vl.rope.freq_base", 6, _f32(1e6)),
        ("qwen2vl.rope.dimension_count", 4, _u32(128)),
    ]
    good = _check(
        run_cli, tmp_path, "qwen2vl", [*base, ("qwen2vl.rope.dimension_sections", 9, ints)], config
    )
    assert good.exit_code == 0, good.output
    bad = _check(
        run_cli,
        tmp_path,
        "qwen2vl",
        [*base, ("qwen2vl.rope.dimension_sections", 9, floats)],
        config,
    )
    assert bad.exit_code == 1, bad.output
    assert "dimension_sections" in bad.output and "INT32" in bad.output


def test_gguf_check_refuses_a_stray_rope_key_holding_nan(run_cli, tmp_path):
    keys = [
        ("gemma3.rope.freq_base", 6, _f32(10000.0)),
        ("gemma3.rope.dimension_count", 4, _u32(128)),
        ("gemma3.rope.freq_base_swa", 6, _f32(float("nan"))),
    ]
    result = _check(run_cli, tmp_path, "gemma3", keys, LLAMA)
    assert result.exit_code == 1, result.output
    assert "freq_base_swa" in result.output


def test_undecided_slopes_are_computed_again_at_twice_the_precision(monkeypatch):
    """From 48 bits no float64 rounding is decided (the mantissa is shorter than the format's):
    every slope takes the retry at 96 bits, and still equals mpmath's."""
    from pecli.core.zoo.alibi import alibi_slopes
    from pecli.core.zoo.alibi import powers as alibi_powers

    precisions = []
    base = alibi_powers._base
    monkeypatch.setattr(alibi_powers, "_PREC", 48)
    monkeypatch.setattr(
        alibi_powers, "_base", lambda step, prec: precisions.append(prec) or base(step, prec)
    )
    ours = alibi_slopes(100, max_bias=7.3)
    assert precisions[:2] == [48, 96]
    exact = _exact_slopes(100, 7.3, range(100))
    assert ours.tolist() == [_mp_nearest(x, 53) for x in exact]


@pytest.mark.parametrize(
    "args",
    [
        ["rope", "axes", "--preset", "flux", "--grid", "2x2", "--release", "4", "-o", "OUT"],
        ["rope", "axes", "--preset", "qwen2-vl", "--ids", "IDS", "--release", "4", "-o", "OUT"],
        ["rope", "identify-axes", "CACHE", "--grid", "2x2", "--release", "4"],
    ],
)
def test_release_without_a_token_layout_is_refused(run_cli, tmp_path, args):
    cache, ids, out = tmp_path / "c.npy", tmp_path / "ids.npy", tmp_path / "o.npy"
    np.save(cache, np.ones((4, 512)))
    np.save(ids, np.zeros((3, 3)))
    named = {"CACHE": str(cache), "IDS": str(ids), "OUT": str(out)}
    result = run_cli(*[named.get(a, a) for a in args])
    assert result.exit_code == 2, result.output
    assert "--release" in result.output and "--tokens" in result.output
    assert not out.exists()


def test_seconds_with_a_preset_that_does_not_read_them_is_refused_in_rope_axes(run_cli, tmp_path):
    out = tmp_path / "c.npy"
    args = ["rope", "axes", "--preset", "qwen2-vl", "--tokens", "text:2 video:2,4,4,s=1.0"]
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 2, result.output
    assert "qwen2.5-vl" in result.output and "--tokens" in result.output and not out.exists()
