"""``pecli rope cache -o NAME.safetensors`` and ``pecli rope identify`` on cos/sin caches."""

from __future__ import annotations

import json
import math

import ml_dtypes
import mpmath
import numpy as np
import pytest
import rope_reference as ref
from library_fixtures import load
from safetensors import safe_open

import pecli
from pecli.analysis.rope.cache import identify_cache, split_cache
from pecli.analysis.rope.identify import identify_rope
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, rope_cache

LLAMA31 = [
    *("--rope-type", "llama3", "--theta", "500000", "--factor", "8"),
    *("--low-freq-factor", "1", "--high-freq-factor", "4"),
    *("--original-max-position-embeddings", "8192"),
]
YARN = [
    *("--rope-type", "yarn", "--theta", "150000", "--head-dim", "64", "--factor", "32"),
    *("--original-max-position-embeddings", "4096", "--no-truncate"),
]


def _read(path):
    with safe_open(path, framework="numpy") as handle:
        return {k: handle.get_tensor(k) for k in handle.keys()}, handle.metadata()  # noqa: SIM118


def _nearest_bf16(stored: np.ndarray, exact: list[mpmath.mpf]) -> bool:
    """Whether each stored bfloat16 is the nearest to the exact value (its neighbours are not)."""
    bits = stored.astype(ml_dtypes.bfloat16).view(np.uint16)
    for bit, want in zip(bits, exact, strict=True):
        here = mpmath.mpf(float(np.array(bit).view(ml_dtypes.bfloat16)))
        for step in (-1, 1):
            other = np.array((int(bit) + step) & 0xFFFF, np.uint16).view(ml_dtypes.bfloat16)
            if abs(mpmath.mpf(float(other)) - want) < abs(here - want):
                return False
    return True


def test_safetensors_cache_holds_cos_and_sin_rounded_once_to_bf16(run_cli, tmp_path):
    out = tmp_path / "cache.safetensors"
    args = [*YARN, "--n", "40", "--start", "4090", "--dtype", "bfloat16", "--layout", "gptj"]
    result = run_cli("rope", "cache", *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    tensors, meta = _read(out)
    assert sorted(tensors) == ["cos", "sin"]
    assert all(t.dtype == ml_dtypes.bfloat16 and t.shape == (40, 64) for t in tensors.values())
    exact = ref.yarn(150000.0, 64, 32, 4096, truncate=False)
    scale = 0.1 * mpmath.log(32) + 1
    for row in (0, 6, 39):
        want_cos, want_sin = ref.cache_row(4090 + row, exact, scale, "interleaved")
        assert _nearest_bf16(tensors["cos"][row], want_cos)
        assert _nearest_bf16(tensors["sin"][row], want_sin)
    assert meta["attention_factor"] == repr(float(0.1 * mpmath.log(32) + 1))
    fields = {k: meta[k] for k in ("kind", "rope_type", "theta", "head_dim", "rotary_dim")}
    assert fields == {
        "kind": "rope_cache",
        "rope_type": "yarn",
        "theta": "150000.0",
        "head_dim": "64",
        "rotary_dim": "64",
    }
    assert (meta["layout"], meta["start"], meta["n"], meta["dtype"]) == (
        "interleaved",
        "4090",
        "40",
        "bfloat16",
    )
    assert meta["pecli_version"] == pecli.__version__
    params = json.loads(meta["rope_parameters"])
    assert params["factor"] == 32.0 and params["truncate"] is False


def test_safetensors_cache_agrees_with_the_npy_cache_and_part_picks_a_tensor(run_cli, tmp_path):
    for name in ("c.safetensors", "c.npy", "sin.safetensors"):
        part = ["--part", "sin"] if name.startswith("sin") else []
        result = run_cli("rope", "cache", *LLAMA31, "--n", "9", *part, "-o", str(tmp_path / name))
        assert result.exit_code == 0, result.output
    tensors, meta = _read(tmp_path / "c.safetensors")
    table = np.load(tmp_path / "c.npy")
    assert np.array_equal(np.concatenate([tensors["cos"], tensors["sin"]], axis=1), table)
    assert list(_read(tmp_path / "sin.safetensors")[0]) == ["sin"]
    assert meta["rope_type"] == "llama3" and meta["layout"] == "half-split"


@pytest.mark.parametrize("name", ["c.npy", "c.csv", "-"])
def test_bf16_is_refused_for_npy_and_csv(run_cli, tmp_path, name):
    output = name if name == "-" else str(tmp_path / name)
    result = run_cli("rope", "cache", "--head-dim", "8", "--dtype", "bfloat16", "-o", output)
    assert result.exit_code == 2
    assert result.stderr.startswith("pecli rope cache: error: Invalid value for '--dtype'")
    assert ".safetensors" in result.stderr and list(tmp_path.iterdir()) == []


def test_float16_cache_goes_to_npy_rounded_once_from_float64(run_cli, tmp_path):
    for dtype in ("float16", "float64"):
        out = str(tmp_path / f"{dtype}.npy")
        result = run_cli("rope", "cache", *LLAMA31, "--n", "5", "--dtype", dtype, "-o", out)
        assert result.exit_code == 0, result.output
    half, wide = np.load(tmp_path / "float16.npy"), np.load(tmp_path / "float64.npy")
    assert half.dtype == np.float16 and np.array_equal(half, wide.astype(np.float16))


def test_no_room_for_a_safetensors_cache_is_refused_before_writing(run_cli, tmp_path, monkeypatch):
    import shutil

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=100_000))
    out = tmp_path / "c.safetensors"
    result = run_cli("rope", "cache", "--n", "1000", "-o", str(out))  # 2 × 1000 × 128 × 4 bytes
    assert result.exit_code == 1 and "100000 bytes" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_safetensors_cache_over_1_gib_is_refused(run_cli, tmp_path):
    result = run_cli("rope", "cache", "--n", "2000000", "-o", str(tmp_path / "c.safetensors"))
    assert result.exit_code == 2 and "within 1 GiB" in result.stderr
    assert list(tmp_path.iterdir()) == []


# -- rope identify on caches ------------------------------------------------------------------

FIXTURES = {f.name: f for f in load("rope")}
#: What transformers' caches are (its config), and the pairs cos alone cannot pin at 8191.
CACHES = {
    "default": ("default", 500000.0, {}, 128),
    "linear": ("linear", 10000.0, {"factor": 4.0}, 64),
    "llama31": (
        "llama3",
        500000.0,
        {
            "factor": 8.0,
            "unchanged": 29,
            "smoothed": 6,
            "interpolated": 29,
            "original_max_position_embeddings": 8192.0,
            "high_freq_factor": 4.0,
        },
        128,
    ),
    "qwen_yarn": ("yarn", 1e6, {"factor": 4.0, "ramp_low": 23.0, "ramp_high": 40.0}, 128),
    "gptoss_yarn": ("yarn", 150000.0, {"factor": 32.0}, 64),
    "deepseek_yarn": ("yarn", 10000.0, {"factor": 40.0, "ramp_low": 10.0, "ramp_high": 23.0}, 64),
    "yarn_mscale": ("yarn", 10000.0, {"factor": 16.0}, 64),
    "proportional": ("proportional", 1e6, {"rope_angles": 16, "factor": 8.0}, 128),
    "partial_05": ("default", 10000.0, {}, 64),
    "partial_025": ("default", 10000.0, {}, 32),
    "dynamic_4096": ("default", 10000.0, {}, 128),
    "dynamic_8192": ("default", 30527.7, {}, 128),
    "phi3_longrope": ("unknown", math.nan, {}, 96),
}
SLOW_FOR_COS = {"llama31", "qwen_yarn", "gptoss_yarn"}  # cos ≈ 1 there: arccos is blunt


@pytest.mark.parametrize("tables", ["cos sin", "sin", "cos"])
@pytest.mark.parametrize("case", sorted(CACHES))
def test_identify_reads_transformers_caches(case, tables):
    kind, theta, params, dim = CACHES[case]
    cos, sin = FIXTURES[f"{case}_cos"], FIXTURES[f"{case}_sin"]
    given = {"cos": cos.table, "sin": sin.table}
    guess = identify_cache(
        **{k: given[k] for k in tables.split()}, positions=np.array(cos.params["positions"])
    )
    assert (guess.layout, guess.start, guess.storage, guess.rotary_dim) == (
        "half-split",
        0,
        "float32",
        dim,
    )
    assert guess.attention_factor == pytest.approx(cos.params["attention_scaling"], rel=1e-6)
    if tables == "cos" and case in SLOW_FOR_COS:
        assert guess.rope is None and guess.theta == theta
        assert any("not determined" in finding for finding in guess.findings)
        return
    assert guess.rope.rope_type == kind
    assert guess.theta == theta or (math.isnan(theta) and math.isnan(guess.theta))
    assert {k: guess.rope.parameters[k] for k in params} == params
    if case == "gptoss_yarn":  # truncate: false, the exact correction range 8.0928 … 17.3980
        assert guess.rope.parameters["ramp_low"] == pytest.approx(8.0928, abs=1e-4)
        assert guess.rope.parameters["ramp_high"] == pytest.approx(17.3980, abs=1e-4)


def test_identify_reads_gptj_interleaved_values():
    fixture = FIXTURES["gptj_table"]  # GPT-J's [sin | cos] per pair, 32 pairs
    sin, cos = np.split(fixture.table, 2, axis=1)
    interleaved = {"cos": np.repeat(cos, 2, axis=1), "sin": np.repeat(sin, 2, axis=1)}
    guess = identify_cache(**interleaved, positions=np.array(fixture.params["positions"]))
    assert (guess.layout, guess.rotary_dim, guess.rope.rope_type, guess.theta) == (
        "interleaved",
        64,
        "default",
        10000.0,
    )


@pytest.mark.parametrize(
    ("spec", "n", "start", "layout", "dtype"),
    [
        (
            RopeSpec(
                rope_type="llama3",
                theta=500000.0,
                factor=8.0,
                low_freq_factor=1.0,
                high_freq_factor=4.0,
                original_max_position_embeddings=8192,
            ),
            8192,
            0,
            "half-split",
            "float32",
        ),
        (
            RopeSpec(
                rope_type="yarn",
                theta=150000.0,
                head_dim=64,
                factor=32.0,
                original_max_position_embeddings=4096,
                truncate=False,
            ),
            40,
            4090,
            "gptj",
            "float32",
        ),
        (RopeSpec(theta=1e6, head_dim=64, partial_rotary_factor=0.5), 3000, 123, "meta", "float64"),
    ],
)
def test_identify_reads_pecli_caches_from_any_first_position(spec, n, start, layout, dtype):
    freqs = rope_frequencies(spec)
    cos, sin = rope_cache(CacheSpec(freqs, n, start=start, layout=layout, dtype=dtype))
    guess = identify_cache(cos, sin)
    assert guess.start == start and guess.rotary_dim == spec.rotary_dim
    assert guess.layout == ("half-split" if layout == "half-split" else "interleaved")
    assert guess.attention_factor == pytest.approx(freqs.attention_factor, rel=1e-7)
    assert (guess.rope.rope_type, guess.theta) == (spec.rope_type, spec.theta)
    assert np.allclose(guess.inv_freq, freqs.inv_freq, rtol=8 * guess.uncertainty + 1e-9)
    assert guess.rope.parameters.get("factor", 1.0) == (spec.factor or 1.0)


def test_a_short_bf16_cache_gives_theta_but_not_the_slow_pairs():
    spec = RopeSpec(rope_type="linear", theta=500000.0, factor=4.0)
    cos, sin = rope_cache(CacheSpec(rope_frequencies(spec), 1000, dtype="bfloat16"))
    guess = identify_cache(cos, sin)
    assert guess.storage == "bfloat16" and guess.rope is None and guess.theta == 500000.0
    assert any(f.startswith("pairs ") and "not determined" in f for f in guess.findings)


def test_a_cos_table_alone_must_start_at_position_0():
    cos, _ = rope_cache(CacheSpec(rope_frequencies(RopeSpec(head_dim=16)), 50, start=5))
    guess = identify_cache(cos)
    assert guess.rope is None and guess.start is None
    assert "starts at position 0" in guess.findings[0]


def test_split_cache_tells_cos_sin_and_both_apart():
    cos, sin = rope_cache(CacheSpec(rope_frequencies(RopeSpec(head_dim=8)), 6, dtype="float64"))
    both = split_cache(np.concatenate([cos, sin], axis=1))
    assert np.array_equal(both[0], cos) and np.array_equal(both[1], sin)
    assert split_cache(sin)[0] is None and split_cache(cos)[1] is None


def test_a_faint_cos_table_alone_is_not_split_as_cos_and_sin():
    """A half-split cos table alone, [a·cos pω | a·cos pω] (d = 16, θ = 10^4, positions
    0 … 63, written with NumPy), of amplitude a = 10^-3: its halves' cos² + sin² root,
    √2·a·|cos pω|, spreads over ~1.4·10^-3 in a row, far more than 1 % of that row's largest;
    it is one cos table, read with attention factor 10^-3 (split against a floor of 1 instead
    of the row's own scale, its halves were refused as columns that pair in neither layout)."""
    inv = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    cos = 1e-3 * np.cos(np.outer(np.arange(64.0), inv))
    table = np.concatenate([cos, cos], axis=1)
    whole, sin = split_cache(table)
    assert sin is None and whole is table
    report, _ = identify_rope({"table": table}, {})
    assert (report["cache"], report["attention_factor"]) == ("cos", 1e-3)
    assert (report["theta"], report["rotary_dim"], report["start"]) == (10000.0, 16, 0)


@pytest.mark.parametrize(
    "table",
    [np.ones((1, 8)), np.ones((2, 8)), np.arange(24.0).reshape(3, 8), np.ones((4, 7))],
    ids=["one-row", "two-rows", "no-pairs", "odd-width"],
)
def test_tables_that_are_no_cache_are_usage_errors(table):
    """Fewer than 3 rows (one row as well as two), columns that pair in neither layout, an
    odd width: usage errors naming the file, not a crash."""
    from pecli.core.errors import ParameterError

    with pytest.raises(ParameterError, match="file"):
        identify_cache(table)


def test_identify_says_the_context_length_it_reads_as_an_integer(run_cli, tmp_path):
    """L is a number of positions: 8192, as in a config.json, not the fit's float 8192.0."""
    out = tmp_path / "cache.npy"
    made = run_cli("rope", "cache", *LLAMA31, "--head-dim", "128", "--n", "4096", "-o", str(out))
    assert made.exit_code == 0, made.output
    table = run_cli("rope", "identify", str(out)).stdout
    assert "original_max_position_embeddings: 8192\n" in table, table
    text = run_cli("rope", "identify", str(out), "--format", "json").stdout
    assert '"original_max_position_embeddings": 8192,' in text, text
    assert type(json.loads(text)["original_max_position_embeddings"]) is int


def test_cli_identifies_rope_cache_files_and_checks_the_metadata(run_cli, tmp_path):
    out = tmp_path / "cache.safetensors"
    assert run_cli("rope", "cache", *LLAMA31, "--n", "8192", "-o", str(out)).exit_code == 0
    report = json.loads(run_cli("rope", "identify", str(out), "--format", "json").stdout)
    assert report["cache"] == "cos and sin" and report["rope_type"] == "llama3"
    assert (report["theta"], report["start"], report["layout"]) == (500000.0, 0, "half-split")
    assert report["original_max_position_embeddings"] == 8192.0
    agrees = [f for f in report["findings"] if f.startswith("pecli's metadata agrees")]
    assert agrees and "arithmetic" not in agrees[0]  # exact arithmetic goes without saying
    tensors, meta = _read(out)
    from safetensors.numpy import save_file

    save_file(tensors, out, metadata={**meta, "theta": "10000.0"})
    report = json.loads(run_cli("rope", "identify", str(out), "--format", "json").stdout)
    assert any("disagrees" in f and "theta 10000.0" in f for f in report["findings"])


@pytest.mark.parametrize("part", ["both", "cos", "sin"])
def test_cli_identifies_npy_and_csv_caches(run_cli, tmp_path, part):
    for name in ("c.npy", "c.csv"):
        args = ["--theta", "10000", "--head-dim", "64", "--n", "500", "--layout", "gptj"]
        result = run_cli("rope", "cache", *args, "--part", part, "-o", str(tmp_path / name))
        assert result.exit_code == 0, result.output
        found = run_cli("rope", "identify", str(tmp_path / name), "--format", "json")
        report = json.loads(found.stdout)
        assert report["cache"] == ("cos and sin" if part == "both" else part)
        assert (report["layout"], report["rope_type"], report["theta"]) == (
            "interleaved",
            "default",
            10000.0,
        )
        assert report["findings"] == []


def test_cli_identify_still_reads_inv_freq_and_names_a_missing_tensor(run_cli, tmp_path):
    np.save(tmp_path / "inv.npy", FIXTURES["llama31_inv_freq"].table)
    report = json.loads(
        run_cli("rope", "identify", str(tmp_path / "inv.npy"), "--format", "json").stdout
    )
    assert report["rope_type"] == "llama3" and "cache" not in report
    from safetensors.numpy import save_file

    save_file(
        {"a": np.ones(4, np.float32), "b": np.ones(4, np.float32)}, tmp_path / "m.safetensors"
    )
    result = run_cli("rope", "identify", str(tmp_path / "m.safetensors"))
    assert result.exit_code == 2 and "'--tensor'" in result.stderr


def test_a_table_that_does_not_rotate_is_said_not_blamed_on_inv_freq():
    guess = identify_cache(np.ones((5, 8)), np.zeros((5, 8)))
    assert guess.rope is None and "pair 0 does not rotate" in guess.findings[-1]


def test_a_cos_table_alone_reads_its_negative_values_too():
    """cos of positions 0 … 3 (d = 8, θ = 10^4, float32), written with NumPy: pair 0 (ω = 1)
    is pinned best by row 2, where cos 2 = −0.42 < 0: arccos's error 2^-23 / sin 2 plus the
    float32 angle's 2·2^-23, over 2 positions (row 1 alone: 2^-23 / sin 1 + 2^-23)."""
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    cos = np.cos(np.outer(np.arange(4), inv)).astype(np.float32)
    guess = identify_cache(cos=np.concatenate([cos, cos], axis=1))
    expected = (2.0**-23 / math.sin(2) + 2 * 2.0**-23) / 2
    assert guess.uncertainty[0] == pytest.approx(expected, rel=1e-6)
    assert abs(guess.inv_freq[0] - 1) <= expected


def test_a_cache_in_llama_cpp_s_arithmetic_says_so_in_the_metadata_finding(run_cli, tmp_path):
    """The metadata this test writes says ``arithmetic llama.cpp``; the finding repeats it."""
    out = tmp_path / "c.safetensors"
    made = ["--theta", "500000", "--head-dim", "64", "--n", "64", "--arithmetic", "llama.cpp"]
    assert run_cli("rope", "cache", *made, "-o", str(out), "-q").exit_code == 0
    assert _read(out)[1]["arithmetic"] == "llama.cpp"
    report = json.loads(run_cli("rope", "identify", str(out), "--format", "json").stdout)
    agrees = [f for f in report["findings"] if f.startswith("pecli's metadata agrees")]
    assert agrees and "arithmetic llama.cpp" in agrees[0], report["findings"]


def test_a_cache_of_two_pairs_is_read_as_4_channels_too_few_for_theta():
    """head_dim 4, θ 10000: ω = 1 and 0.01, half-split [f(pω) | f(pω)] over 4096 positions
    written here in float64; its width is 2 × 2 channels, θ is not fitted."""
    p = np.arange(4096.0)[:, None]
    angles = p * np.array([1.0, 0.01])
    cos, sin = (np.concatenate([f(angles)] * 2, axis=1) for f in (np.cos, np.sin))
    guess = identify_cache(cos, sin)
    assert guess.rotary_dim == 4 and math.isnan(guess.theta)
    assert any("2 pairs: too few to fit θ" in f for f in guess.findings), guess.findings


@pytest.mark.parametrize("form", ["one table", "cos and sin"])
def test_a_cache_of_zeros_is_refused_as_no_angle_to_read(run_cli, tmp_path, form):
    """It read as "attention_factor 0.0, storage bfloat16", status 0: cos² + sin² = 0 holds no
    angle (identify refuses an all-zero table too)."""
    from safetensors.numpy import save_file

    zeros = np.zeros((16, 8), np.float32)
    if form == "one table":
        path = tmp_path / "z.npy"
        np.save(path, zeros)
    else:
        path = tmp_path / "z.safetensors"
        save_file({"cos": zeros, "sin": zeros}, str(path))
    result = run_cli("rope", "identify", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "'FILE'" in line and "cos² + sin² is not 0 (got a median of 0)" in line, line
