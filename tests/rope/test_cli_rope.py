"""``pecli rope``: the subcommands' output, against the core and hand-derived values."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
import rope_reference as ref

from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, rope_cache
from pecli.core.rope.permute import permute_rows, qk_permutation

LLAMA31 = [
    *("--rope-type", "llama3", "--theta", "500000", "--factor", "8"),
    *("--low-freq-factor", "1", "--high-freq-factor", "4"),
    *("--original-max-position-embeddings", "8192"),
]
V5_CONFIG = {
    "model_type": "llama",
    "head_dim": 64,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "max_position_embeddings": 131072,
    "rope_theta": 10000.0,
    "rope_parameters": {
        "rope_type": "yarn",
        "rope_theta": 150000.0,
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "truncate": False,
    },
}


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_freqs_csv_counts_llama31_pairs(run_cli):
    result = run_cli("rope", "freqs", *LLAMA31, "--format", "csv")
    assert result.exit_code == 0, result.output
    kinds = [row["scaling"] for row in _rows(result.stdout)]
    assert kinds == ["unchanged"] * 29 + ["smoothed"] * 6 + ["interpolated"] * 29
    ratios = [float(row["ratio"]) for row in _rows(result.stdout)]
    assert ratios[0] == 1.0 and ratios[-1] == pytest.approx(1 / 8, rel=1e-15)


def test_freqs_json_gives_yarn_attention_factor(run_cli):
    args = [
        "--rope-type",
        "yarn",
        "--theta",
        "1e6",
        "--factor",
        "4",
        "--original-max-position-embeddings",
        "32768",
        "--format",
        "json",
    ]
    rows = json.loads(run_cli("rope", "freqs", *args).stdout)
    assert len(rows) == 64 and rows[0]["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1)


def test_config_v5_is_read_from_rope_parameters_with_findings(run_cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(V5_CONFIG), encoding="utf-8")
    report = json.loads(run_cli("rope", "config", str(tmp_path), "--format", "json").stdout)
    assert report["theta"] == 150000.0 and report["truncate"] is False
    assert round(report["ramp_low"], 4) == 8.0928 and round(report["ramp_high"], 4) == 17.398
    findings = " ".join(report["findings"])
    assert "rope_theta differs" in findings and "truncate False" in findings


def test_freqs_options_override_the_config(run_cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(V5_CONFIG), encoding="utf-8")
    rows = _rows(
        run_cli("rope", "freqs", "--config", str(path), "--truncate", "--format", "csv").stdout
    )
    # truncated range 8 … 18: pairs 0-8 unchanged, 18-31 interpolated
    assert [r["scaling"] for r in rows].count("unchanged") == 9
    assert [r["scaling"] for r in rows].count("interpolated") == 14


@pytest.mark.parametrize(("layout", "written"), [("neox", "half-split"), ("gptj", "interleaved")])
def test_cache_npy_is_the_llama3_cache_correctly_rounded(run_cli, tmp_path, layout, written):
    """Meta's apply_scaling and cos/sin of positions 1000 … 1049 in mpmath (40 digits), each
    rounded once to float32: the file holds exactly those, [cos | sin]."""
    out = tmp_path / "c.npy"
    args = ["--n", "50", "--start", "1000", "--layout", layout, "-o", str(out), "-q"]
    assert run_cli("rope", "cache", *LLAMA31, "--head-dim", "16", *args).exit_code == 0
    inv = ref.llama3(500000.0, 16, 8.0, 1.0, 4.0, 8192)
    rows = [ref.cache_row(1000 + r, inv, 1, written) for r in range(50)]
    exact = np.array([[float(v) for v in cos + sin] for cos, sin in rows])
    got = np.load(out)
    assert got.dtype == np.float32 and np.array_equal(got, exact.astype(np.float32))


def test_cache_csv_part_sin_is_sin_of_the_angle(run_cli):
    result = run_cli(
        "rope", "cache", "--head-dim", "4", "--n", "3", "--part", "sin", "--dtype", "float64"
    )
    rows = _rows(result.stdout)
    assert list(rows[0]) == ["sin_0", "sin_1", "sin_2", "sin_3"]
    assert float(rows[2]["sin_1"]) == pytest.approx(math.sin(2 / 100), rel=1e-15)


def test_permute_prints_and_inverts():
    assert qk_permutation(1, 8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    perm, back = qk_permutation(4, 16), qk_permutation(4, 16, "hf-to-meta")
    assert np.array_equal(perm[back], np.arange(64))


def test_permute_matches_the_converter_and_keeps_attention_scores():
    rng = np.random.default_rng(0)
    heads, d = 2, 8
    w = rng.standard_normal((heads * d, 5))
    # transformers' permute: w.view(n_heads, d // 2, 2, dim2).transpose(1, 2).reshape(...)
    converter = w.reshape(heads, d // 2, 2, 5).transpose(0, 2, 1, 3).reshape(heads * d, 5)
    assert np.array_equal(permute_rows(w, heads), converter)
    freqs = rope_frequencies(RopeSpec(head_dim=d))
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    perm = qk_permutation(1, d)
    ci, si = rope_cache(CacheSpec(freqs, 1, start=37, layout="interleaved", dtype="float64"))
    ch, sh = rope_cache(CacheSpec(freqs, 1, start=37, layout="half-split", dtype="float64"))

    def interleaved(x):
        y = np.empty_like(x)
        y[0::2], y[1::2] = -x[1::2], x[0::2]
        return x * ci[0] + y * si[0]

    def half(x):
        return x * ch[0] + np.concatenate([-x[d // 2 :], x[: d // 2]]) * sh[0]

    assert np.allclose(half(q[perm]), interleaved(q)[perm], atol=1e-15)
    assert half(q[perm]) @ half(k[perm]) == pytest.approx(interleaved(q) @ interleaved(k))


def test_permute_command(run_cli):
    assert run_cli("rope", "permute", "--heads", "2", "--head-dim", "4").stdout == (
        "head 0: 0 2 1 3\nhead 1: 4 6 5 7\n"
    )
    data = json.loads(
        run_cli(
            "rope", "permute", "--head-dim", "4", "--direction", "hf-to-meta", "--format", "json"
        ).stdout
    )
    assert data["perm"] == [0, 2, 1, 3]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["freqs", "--head-dim", "63"], "--head-dim"),
        (["freqs", "--rope-type", "ntk"], "--rope-type"),
        (["freqs", "--rope-type", "linear", "--factor", "0.5"], "--factor"),
        (["freqs", "--rope-type", "llama3", "--factor", "8"], "--low-freq-factor"),
        (["cache", "--layout", "sideways"], "--layout"),
        (["cache", "--rope-type", "longrope", "--short-factor", "1,x"], "--short-factor"),
        (["permute", "--head-dim", "7"], "--head-dim"),
    ],
)
def test_bad_input_is_one_line_status_2_no_file(run_cli, tmp_path, args, option):
    out = tmp_path / ("x.json" if args[0] == "permute" else "x.csv")
    result = run_cli("rope", *args, "-o", str(out))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_config_without_a_needed_field_names_it(run_cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"head_dim": 128, "rope_scaling": {"rope_type": "yarn", "factor": 4}}')
    result = run_cli("rope", "config", str(path))
    assert result.exit_code == 2
    assert "original_max_position_embeddings is required by rope_type 'yarn'" in result.stderr


def test_precision_csv_has_a_row_per_scenario_and_decade(run_cli):
    rows = _rows(run_cli("rope", "precision", "--n", "5000", "--format", "csv").stdout)
    assert [(r["scenario"], r["first"], r["last"]) for r in rows[:4]] == [
        ("fp32", "0", "9"),
        ("fp32", "10", "99"),
        ("fp32", "100", "999"),
        ("fp32", "1000", "4999"),
    ]
    assert len(rows) == 24 and float(rows[6]["max_phase_error"]) > 1.0  # 6 scenarios


def test_permute_safetensors_rows_of_q_only_into_a_new_file(run_cli, tmp_path):
    import ml_dtypes

    from pecli.io.tensors import read_safetensors, write_safetensors

    rng = np.random.default_rng(1)
    q = rng.standard_normal((2 * 8, 3)).astype(ml_dtypes.bfloat16)
    other = rng.standard_normal(5).astype(np.float32)
    source, out = tmp_path / "meta.safetensors", tmp_path / "hf.safetensors"
    write_safetensors({"wq": q, "norm": other}, output=source, metadata={"format": "pt"})
    args = ["--heads", "2", "--input", str(source), "--tensor", "wq", "-o", str(out), "-q"]
    assert run_cli("rope", "permute", *args).exit_code == 0
    tensors, metadata = read_safetensors(out)
    converter = q.reshape(2, 4, 2, 3).transpose(0, 2, 1, 3).reshape(16, 3)  # transformers' permute
    assert tensors["wq"].dtype == q.dtype and np.array_equal(tensors["wq"], converter)
    assert np.array_equal(tensors["norm"], other) and metadata == {"format": "pt"}
    assert np.array_equal(read_safetensors(source)[0]["wq"], q)  # the input is untouched
    back = tmp_path / "back.safetensors"
    args = ["--heads", "2", "--direction", "hf-to-meta", "--input", str(out), "--tensor", "wq"]
    assert run_cli("rope", "permute", *args, "-o", str(back)).exit_code == 0
    assert np.array_equal(read_safetensors(back)[0]["wq"], q)


def test_permute_safetensors_unknown_tensor_is_a_usage_error(run_cli, tmp_path):
    from pecli.io.tensors import write_safetensors

    source = tmp_path / "m.safetensors"
    write_safetensors({"wq": np.zeros((8, 2), np.float32)}, output=source)
    args = ["--input", str(source), "--tensor", "wk", "-o", str(tmp_path / "o.safetensors")]
    result = run_cli("rope", "permute", *args)
    assert result.exit_code == 2 and "--tensor" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.safetensors"]


def test_identify_a_safetensors_buffer(run_cli, tmp_path):
    from pecli.io.tensors import write_safetensors

    inv = np.load("tests/fixtures/libraries/rope/qwen_yarn_inv_freq.npy")
    path = tmp_path / "model.safetensors"
    write_safetensors({"model.layers.0.self_attn.rotary_emb.inv_freq": inv}, output=path)
    args = ["--tensor", "model.layers.0.self_attn.rotary_emb.inv_freq", "--format", "json"]
    report = json.loads(run_cli("rope", "identify", str(path), *args).stdout)
    assert (report["rope_type"], report["theta"], report["factor"]) == ("yarn", 1e6, 4.0)
    assert (report["ramp_low"], report["ramp_high"], report["rotary_dim"]) == (23.0, 40.0, 128)


@pytest.mark.parametrize(
    ("args", "prefix"),
    [
        (
            ("rope", "cache", "--head-dim", "3"),
            "pecli rope cache: error: Invalid value for '--head-dim'",
        ),
        (("rope", "freqs", "--factor", "0.5", "--rope-type", "linear"), "pecli rope freqs: error:"),
        (
            ("rope", "identify", "missing.npy"),
            "pecli rope identify: error: Invalid value for 'FILE'",
        ),
        (("rope", "permute", "--head-dim", "3"), "pecli rope permute: error:"),
        (("rope", "nonsense"), "pecli rope: error: No such command 'nonsense'"),
        (("compute", "--d", "3"), "pecli compute: error: Invalid value for '--d'"),
        (("nonsense",), "pecli: error: No such command 'nonsense'"),
    ],
)
def test_error_prefix_names_the_subcommand(run_cli, args, prefix):
    result = run_cli(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), lines


def test_plot_spectrum_without_rope_options_draws_the_encoding(run_cli, tmp_path):
    """plot-spectrum takes the RoPE options optionally: none given, the encoding's own curve is
    drawn (λ_i = 2π·10000^(2(i-1)/8) at d = 8: 2π, 20π, 200π, 2000π)."""
    out, data = tmp_path / "s.svg", tmp_path / "s.csv"
    result = run_cli(
        "plot-spectrum", "--d", "8", "--base", "10000", "-o", str(out), "--data", str(data)
    )
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0
    rows = np.loadtxt(data, delimiter=",", skiprows=1)
    np.testing.assert_allclose(rows[:, 1], [2 * math.pi * 10.0**k for k in range(4)], rtol=1e-15)


@pytest.mark.parametrize(("rows", "heads"), [(6, 2), (12, 4), (5, 1)])
def test_permute_rows_refuses_heads_of_odd_height(rows, heads):
    """6 rows in 2 heads, 12 in 4 (3 rows a head), 5 in 1: a head's rows are pairs,
    so its height must be even; each is refused, naming ``heads``."""
    with pytest.raises(ParameterError) as error:
        permute_rows(np.arange(float(rows))[:, None], heads)
    assert error.value.parameter == "heads" and f"the {rows} rows" in str(error.value)


def test_identify_a_cache_with_one_factor_on_every_row_names_no_row_factor(run_cli, tmp_path):
    """YaRN's attention factor ``0.1·ln(4) + 1`` on every row of a θ 10^4 cache (64 dims).

    The factor is the same on each row, so it is the attention factor (reported as such);
    the row-by-row causes ("why (A these values, B each row's factor divided out)") are for
    factors that change from row to row (a query temperature), and name nothing here.
    """
    scale = 0.1 * math.log(4) + 1
    angles = np.arange(300.0)[:, None] * 1e4 ** (-np.arange(32) / 32)
    half = np.concatenate([np.cos(angles), np.cos(angles), np.sin(angles), np.sin(angles)], 1)
    path = tmp_path / "yarn.npy"
    np.save(path, (scale * half).astype(np.float32))
    result = run_cli("rope", "identify", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["attention_factor"] == pytest.approx(scale, rel=1e-6)
    assert not [f for f in found["findings"] if f.startswith("why")], found["findings"]


def test_identify_reads_a_query_temperature_from_three_rows(run_cli, tmp_path):
    """Llama 4's ``1 + β·ln(1 + ⌊(p + 1)/s⌋)`` with s = 1, β = 0.1 on the 3 rows of a θ 10^4
    cache (factors 1 + 0.1·ln 2, ln 3, ln 4): 3 rows are the fewest whose factors are read,
    and the causes name the form with s = 1 and β = 0.1."""
    p = np.arange(3.0)
    angles = p[:, None] * 1e4 ** (-np.arange(32) / 32)
    factor = (1 + 0.1 * np.log1p(np.floor(p + 1)))[:, None]
    half = np.concatenate([np.cos(angles), np.cos(angles), np.sin(angles), np.sin(angles)], 1)
    path = tmp_path / "tempered.npy"
    np.save(path, (factor * half).astype(np.float32))
    result = run_cli("rope", "identify", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    why = [f for f in json.loads(result.stdout)["findings"] if f.startswith("why")]
    assert len(why) == 1 and "s = 1, β = 0.1 " in why[0], why


def test_rope_layers_to_a_file_is_announced_unless_quiet(run_cli, tmp_path):
    """``rope layers -o FILE``: one CSV row per layer (num_hidden_layers 3, θ 10^4 as given),
    and ``pecli: wrote FILE`` on stderr unless -q (the house rule of every command that
    writes a file)."""
    config, out = tmp_path / "config.json", tmp_path / "layers.csv"
    config.write_text(json.dumps({"num_hidden_layers": 3, "head_dim": 64, "rope_theta": 1e4}))
    result = run_cli("rope", "layers", str(config), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert f"pecli: wrote {out}" in result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 3 and {float(r["theta"]) for r in rows} == {1e4}
    quiet = run_cli("rope", "layers", str(config), "-o", str(out), "-q")
    assert quiet.exit_code == 0 and "wrote" not in quiet.stderr, quiet.stderr


def test_a_first_pair_at_one_plus_its_tolerance_still_reads_the_ramp():
    """transformers' Llama 3.1 inv_freq (tests/fixtures/libraries/rope, factor 8, original
    8192, high_freq_factor 4), as float64 with tolerance 4e-6, pair 0 raised from 1 to
    1 + 4e-6: within its tolerance, still llama3; one float64 step more is past it, and the
    ratios are listed as per-pair factors (unknown)."""
    from library_fixtures import load

    from pecli.analysis.rope.inv_freq import identify_inv_freq

    (fixture,) = (f for f in load("rope") if f.name == "llama31_inv_freq")
    w, tol = fixture.table.astype(np.float64), np.full(fixture.table.size, 4e-6)
    w[0] = 1 + 4e-6
    guess = identify_inv_freq(w, tolerance=tol)
    assert guess.rope_type == "llama3" and guess.parameters["factor"] == 8.0
    assert guess.parameters["original_max_position_embeddings"] == 8192.0
    w[0] = np.nextafter(w[0], 2.0)
    assert identify_inv_freq(w, tolerance=tol).rope_type == "unknown"
