"""``pecli rope``: inputs a tester found slipping through, each a one-line usage error."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.config import spec_from_config


def _one_line_status_2(result, tmp_path, keep=()):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and "internal" not in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(keep)
    return lines[0]


def _weights(tmp_path):
    from pecli.io.tensors import write_safetensors

    source = tmp_path / "w.safetensors"
    write_safetensors({"q": np.arange(32.0, dtype=np.float32).reshape(16, 2)}, output=source)
    return str(source), str(tmp_path / "p.safetensors")


def test_permute_refuses_a_tensor_named_twice(run_cli, tmp_path):
    source, out = _weights(tmp_path)
    args = ["--input", source, "--tensor", "q", "--tensor", "q", "--heads", "2", "-o", out]
    line = _one_line_status_2(run_cli("rope", "permute", *args), tmp_path, ["w.safetensors"])
    assert "--tensor" in line and "once" in line and "(got q)" in line


def test_permute_refuses_a_head_dim_other_than_rows_over_heads(run_cli, tmp_path):
    source, out = _weights(tmp_path)
    args = ["--input", source, "--tensor", "q", "--heads", "2", "-o", out]
    line = _one_line_status_2(
        run_cli("rope", "permute", *args, "--head-dim", "4"), tmp_path, ["w.safetensors"]
    )
    assert "--head-dim" in line and "16 / 2" in line and "(got 4)" in line
    assert run_cli("rope", "permute", *args, "--head-dim", "8").exit_code == 0


LLAMA3_ZERO_LOW = [
    *("--rope-type", "llama3", "--factor", "8", "--head-dim", "8"),
    *("--original-max-position-embeddings", "8192", "--high-freq-factor", "4"),
]


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["freqs", *LLAMA3_ZERO_LOW, "--low-freq-factor", "0"], "--low-freq-factor", "> 0"),
        (["freqs", *LLAMA3_ZERO_LOW, "--low-freq-factor", "-1"], "--low-freq-factor", "> 0"),
        (["freqs", "--head-dim", "10000000"], "--head-dim", "131072"),
        # 0 and -2 had "an integer >= 1", a rule 1 does not meet either (new-user helper)
        (["cache", "--head-dim", "0"], "--head-dim", "even (rotary pairs), from 2 to 131072"),
        (["cache", "--head-dim", "-2"], "--head-dim", "even (rotary pairs), from 2 to 131072"),
        (["cache", "--head-dim", "1"], "--head-dim", "even (rotary pairs), from 2 to 131072"),
        (["freqs", "--head-dim", "12", "--partial-rotary-factor", "0.25"], "--partial", "= 3"),
        (["cache", "--head-dim", "12", "--partial-rotary-factor", "0.25"], "--partial", "= 3"),
    ],
)
def test_bad_rope_options_are_one_line_usage_errors(run_cli, tmp_path, args, option, words):
    line = _one_line_status_2(run_cli("rope", *args, "-o", str(tmp_path / "x.csv")), tmp_path)
    assert option in line and words in line and line.count("(got") == 1


def test_plot_spectrum_refuses_a_zero_low_freq_factor(run_cli, tmp_path):
    args = ["plot-spectrum", "--d", "8", *LLAMA3_ZERO_LOW, "--low-freq-factor", "0"]
    line = _one_line_status_2(run_cli(*args, "-o", str(tmp_path / "x.png")), tmp_path)
    assert "--low-freq-factor" in line


H8 = {"head_dim": 8}
YARN = {"type": "yarn", "factor": 2, "original_max_position_embeddings": 4}
LONG = {**YARN, "type": "longrope", "short_factor": "1,1", "long_factor": [1, 1]}
OBJECT = "must be a JSON object (got"
NUMBER = "must be a finite number"
INTEGER = "must be an integer >= 1 (got"


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({**H8, "rope_scaling": "yes"}, f"field rope_scaling {OBJECT} the string 'yes')"),
        ({**H8, "rope_scaling": [1, 2]}, f"field rope_scaling {OBJECT} [1, 2])"),
        ({**H8, "rope_parameters": 3}, f"field rope_parameters {OBJECT} 3)"),
        (
            {**H8, "rope_scaling": {"type": "linear", "factor": "2"}},
            f"field factor {NUMBER} > 0 (got the string '2')",
        ),
        ({**H8, "rope_theta": "1e4"}, f"field rope_theta {NUMBER} > 1 (got the string '1e4')"),
        ({"head_dim": "8"}, f"field head_dim {INTEGER} the string '8')"),
        ({**H8, "partial_rotary_factor": "0.5"}, "(got the string '0.5')"),
        ({**H8, "rope_scaling": {"type": ["yarn"]}}, "field rope_type must be a string"),
        (
            {**H8, "max_position_embeddings": "9", "rope_scaling": {"type": "yarn", "factor": 2}},
            f"field original_max_position_embeddings {INTEGER} the string '9')",
        ),
        ({**H8, "rope_scaling": {**YARN, "truncate": "no"}}, "field truncate must be true or"),
        ({**H8, "rope_scaling": LONG}, "field short_factor must be a JSON list of numbers"),
        (
            {"hidden_size": 250, "num_attention_heads": 3},
            "field hidden_size must be a multiple of num_attention_heads = 3 (got 250)",
        ),
        ({"hidden_size": 256.5, "num_attention_heads": 2}, f"field hidden_size {INTEGER} 256.5)"),
        ({"hidden_size": 256, "num_attention_heads": True}, "field num_attention_heads must be"),
    ],
)
def test_config_fields_of_the_wrong_json_type_are_named(run_cli, tmp_path, config, words):
    with pytest.raises(ParameterError) as caught:
        spec_from_config(config)
    assert words in str(caught.value)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    for command in ("freqs", "config"):
        line = _one_line_status_2(
            run_cli(
                "rope",
                command,
                "--config" if command == "freqs" else str(path),
                *([str(path)] if command == "freqs" else []),
            ),
            tmp_path,
            ["config.json"],
        )
        assert words in line and line.count("(got") <= 1


@pytest.mark.parametrize("theta", ["1.0000000001", "500000", "1e+20", "10000.5"])
def test_freqs_prints_theta_with_the_digits_that_read_back(run_cli, theta):
    result = run_cli("rope", "freqs", "--theta", theta, "--head-dim", "4")
    assert result.exit_code == 0
    shown = result.stdout.split("θ = ")[1].split(",")[0]
    assert float(shown) == float(theta) and shown == theta


def test_a_huge_csv_cache_ends_when_its_reader_goes_away(pecli_cmd):
    import subprocess

    args = ["rope", "cache", "--head-dim", "4", "--n", str(10**12), "--format", "csv", "-q"]
    with subprocess.Popen([*pecli_cmd, *args], stdout=subprocess.PIPE) as proc:
        assert proc.stdout.readline().startswith(b"cos_0,")  # what head -1 reads
        assert proc.stdout.readline().startswith(b"1.0,")
        proc.stdout.close()  # head exits
        try:  # 10^12 rows never end by themselves: the run must stop at the closed pipe
            ended = proc.wait(timeout=60) is not None
        except subprocess.TimeoutExpired:
            proc.kill()
            ended = False
    assert ended


INV_FREQ = 1 / 10000.0 ** (np.arange(0, 64, 2) / 64)  # 1/θ^(2i/dim), dim 64


@pytest.mark.parametrize(
    ("vector", "words"),
    [
        (INV_FREQ[::-1].copy(), "increase with the pair index"),  # θ = 1e-4 < 1
        (np.sort(np.random.default_rng(0).random(32))[::-1].copy(), "ratios"),
    ],
)
def test_identify_says_a_vector_that_is_no_rope_inv_freq_with_status_1(
    run_cli, tmp_path, vector, words
):
    path = tmp_path / "v.npy"
    np.save(path, vector)
    result = run_cli("rope", "identify", str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["rope_type"] == "unknown" and report["theta"] is None
    assert any(words in finding for finding in report["findings"])
    assert "matches no rope_type" in result.stderr and "default, linear" in result.stderr


def test_identify_still_reads_a_true_vector_with_status_0(run_cli, tmp_path):
    np.save(tmp_path / "v.npy", INV_FREQ)
    result = run_cli("rope", "identify", str(tmp_path / "v.npy"), "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["theta"] == 10000.0


@pytest.mark.parametrize("dtype", [[], ["--dtype", "bfloat16"]])
def test_identify_checks_a_short_cache_against_its_metadata_by_rebuilding_it(
    run_cli, tmp_path, dtype
):
    from safetensors.numpy import load_file, save_file

    from pecli.io.tensors import read_safetensors

    out = tmp_path / "c.safetensors"
    args = ["rope", "cache", "--head-dim", "4", "--n", "3", *dtype, "-o", str(out), "-q"]
    assert run_cli(*args).exit_code == 0
    result = run_cli("rope", "identify", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    findings = json.loads(result.stdout)["findings"]
    assert any(f.startswith("pecli's metadata agrees") for f in findings), findings
    assert not any("disagrees" in f for f in findings)
    meta = read_safetensors(out)[1]
    if not dtype:  # one value changed by one ulp: the values differ from what pecli wrote
        raw = load_file(out)
        raw["sin"][2, 1::2] = np.nextafter(raw["sin"][2, 1], np.float32(2))  # both copies
        save_file(raw, out, metadata=meta)
        findings = json.loads(run_cli("rope", "identify", str(out), "--format", "json").stdout)
        assert any("disagrees" in f for f in findings["findings"])


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        (RopeSpec(rope_type="linear", factor=1e307, head_dim=4), "factor"),  # ω_1 = 10^-309
        (RopeSpec(theta=1.7e308, head_dim=2048), "theta"),  # ω_1023 = θ^(-2046/2048) ≈ 1e-308
        (RopeSpec(rope_type="linear", factor=1.0, theta=1.7e308, head_dim=2048), "theta"),
    ],
)
def test_an_infinite_wavelength_names_the_number_that_made_it(spec, named):
    with pytest.raises(ParameterError, match="wavelength") as caught:
        rope_frequencies(spec)
    assert caught.value.parameter == named


def test_a_count_of_one_is_an_integer_at_least_one():
    from pecli.core.rope.number_rules import count

    assert count("n", 1) == 1 and count("n", np.int64(7)) == 7
    for bad in (0, True, 1.0):
        with pytest.raises(ParameterError, match="must be an integer >= 1"):
            count("n", bad)


def test_refusals_show_the_bad_value_not_a_count_or_shape():
    """A new user saw '(got 1 values)', '(got (1,))' and '(got neither)' for given values."""
    from pecli.core.multiaxis.resolve import resolve_plan
    from pecli.core.rope.cache_spec import check_positions_list
    from pecli.core.zoo.timesteps import model_inputs

    with pytest.raises(ParameterError) as refused:
        check_positions_list(np.array([1.0, np.inf]), 2)
    assert refused.value.value == np.inf
    with pytest.raises(ParameterError) as refused:
        resolve_plan(None, widths=(2, 2), theta=None)
    assert refused.value.value == "`widths` without `theta`"  # --widths … on the command line
    with pytest.raises(ParameterError) as refused:
        model_inputs([1.0, float("nan")], "flux")
    assert math.isnan(refused.value.value)


@pytest.mark.parametrize(
    ("make", "parameter", "words"),
    [
        (
            lambda: RopeSpec(head_dim=8, partial_rotary_factor=1.5),
            "partial_rotary_factor",
            "must be in (0, 1]",
        ),
        (
            lambda: RopeSpec(
                rope_type="llama3",
                factor=8.0,
                low_freq_factor=math.nan,
                high_freq_factor=4.0,
                original_max_position_embeddings=8192,
            ),
            "low_freq_factor",
            "must be a finite number",
        ),
    ],
)
def test_a_spec_outside_its_rules_names_the_field(make, parameter, words):
    with pytest.raises(ParameterError) as caught:
        rope_frequencies(make())
    assert caught.value.parameter == parameter and words in str(caught.value)


def test_a_huge_integer_in_a_config_is_shown_by_its_length():
    config = {"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 10**400}}
    with pytest.raises(ParameterError) as caught:
        spec_from_config(config)
    assert str(caught.value).endswith("(got an integer of 401 digits)")  # not 401 digits


def test_permutation_arguments_and_defaults_are_refused_by_name():
    from pecli.core.rope.permute import qk_permutation
    from pecli.core.rope.registry import default_of

    with pytest.raises(ParameterError, match="heads must be an integer >= 1"):
        qk_permutation(0, 8)
    with pytest.raises(ParameterError, match="direction must be one of"):
        qk_permutation(1, 8, "sideways")
    with pytest.raises(KeyError):
        default_of("mscale")  # no rope type has a default for it


def test_a_cache_at_listed_positions_is_cos_and_sin_of_each_position():
    """Positions in any order, negative included: cos(p·ω), sin(p·ω) with ω = 1, 10^-2."""
    from pecli.core.rope.cache import CacheSpec, cache_blocks

    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=4))
    p = np.array([5.0, 0.0, -2.0])
    (block,) = cache_blocks(CacheSpec(freqs, 3, positions=p, dtype="float64"))
    angles = np.outer(p, [1.0, 0.01])  # [cos | sin], each pair on channels j and j + 2
    expected = np.hstack([np.tile(np.cos(angles), 2), np.tile(np.sin(angles), 2)])
    assert np.allclose(block, expected, rtol=0, atol=1e-15)
    with pytest.raises(ParameterError, match="part must be one of"):
        next(cache_blocks(CacheSpec(freqs, 3, part="tan")))


@pytest.mark.parametrize(
    ("factor", "shown"),
    [(-(10**20), "an integer of 21 digits"), (1 - 10**20, str(1 - 10**20))],
)
def test_an_integer_is_shortened_from_10_to_the_20(factor, shown):
    """A refused factor of 21 digits is named by its length; of 20, written out."""
    config = {"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": factor}}
    with pytest.raises(ParameterError) as caught:
        spec_from_config(config)
    assert str(caught.value).endswith(f"(got {shown})")


def test_a_wavelength_of_exactly_the_largest_float64_is_finite_and_taken():
    """head_dim 2, linear: ω_0 = 1/factor; with factor 2.861117485757028e307 the float64
    2π/ω_0 is 1.7976931348623157e308, the largest finite float64 (not inf): allowed."""
    factor = 2.861117485757028e307
    omega = 1 / factor
    assert 2 * math.pi / omega == 1.7976931348623157e308  # the edge, by plain float64
    freqs = rope_frequencies(RopeSpec(rope_type="linear", factor=factor, head_dim=2))
    assert freqs.inv_freq.tolist() == [omega]


@pytest.mark.parametrize(
    ("keys", "said"), [(False, "queries' ζ_i^(p/γ)"), (True, "keys' ζ_i^(−p/γ)")]
)
def test_rope_identify_refuses_an_xpos_table_and_says_what_it_is(run_cli, tmp_path, keys, said):
    """ζ_i^(±p/γ) in both channels of a pair: positive everywhere, so no cos/sin cache; it was
    read as one, with an attention factor and a query temperature made up."""
    table = tmp_path / "x.npy"
    args = ["xpos", "--n", "17", "--head-dim", "8", "--scale-base", "256", "-q", "-o", str(table)]
    assert run_cli(*args, *(["--keys"] if keys else [])).exit_code == 0
    result = run_cli("rope", "identify", str(table))
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"not an xPos scale table (the {said}, γ 256, first centred position -9" in result.output


@pytest.mark.parametrize(
    ("args", "named", "takers"),
    [
        (["--factor", "2"], "--factor", "linear, dynamic, yarn, longrope, llama3, proportional"),
        (["--no-truncate"], "--no-truncate", "yarn"),
        (["--beta-fast", "16"], "--beta-fast", "yarn"),
        (["--seq-len", "9000"], "--seq-len", "dynamic, longrope"),
        (
            ["--rope-type", "linear", "--factor", "2", "--max-position-embeddings", "9"],
            "--max-position-embeddings",
            "dynamic, yarn, longrope",
        ),
        (
            [
                "--rope-type",
                "yarn",
                "--factor",
                "2",
                "--original-max-position-embeddings",
                "64",
                "--low-freq-factor",
                "1",
            ],
            "--low-freq-factor",
            "llama3",
        ),
    ],
)
def test_an_option_the_rope_type_does_not_take_is_refused(run_cli, tmp_path, args, named, takers):
    """``--factor 2`` without ``--rope-type`` was a default cache, silently unscaled.

    transformers' rope types read only their own fields of ``rope_parameters`` (its
    ``_validate_*_rope_parameters`` warn of the others): ``factor`` is no field of the
    default type, ``truncate`` and ``beta_fast`` only yarn's, ``low_freq_factor`` llama3's.
    """
    out = str(tmp_path / "c.npy")
    result = run_cli("rope", "cache", "--head-dim", "8", "--n", "2", *args, "-o", out)
    line = _one_line_status_2(result, tmp_path)
    assert f"'{named}'" in line and f"rope_type {takers} only" in line


def test_the_options_a_rope_type_takes_are_accepted(run_cli, tmp_path):
    out = str(tmp_path / "c.npy")
    yarn = ["--rope-type", "yarn", "--factor", "4", "--original-max-position-embeddings", "64"]
    more = ["--beta-fast", "16", "--no-truncate", "--max-position-embeddings", "256"]
    result = run_cli("rope", "cache", "--head-dim", "8", "--n", "2", *yarn, *more, "-o", out)
    assert result.exit_code == 0, result.output
    dynamic = ["--rope-type", "dynamic", "--factor", "2", "--max-position-embeddings", "64"]
    result = run_cli("rope", "cache", "--head-dim", "8", "--n", "2", *dynamic, "--seq-len", "9")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("args", "said", "advice"),
    [
        (
            ["--factor", "2"],
            "the rope_type is default (no --rope-type given)",
            "give a --rope-type",
        ),
        (
            ["--rope-type", "linear", "--factor", "2", "--beta-fast", "16"],
            "--rope-type is linear",
            "leave the option out",
        ),
        (["--config", "CONFIG", "--beta-fast", "16"], "the config's rope_type is llama3", "give"),
    ],
)
def test_the_refusal_of_an_option_says_where_the_rope_type_came_from(
    run_cli, tmp_path, args, said, advice
):
    """ "give --rope-type" was said to a user who had given --rope-type llama3."""
    config = tmp_path / "config.json"
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0}
    llama3 |= {"high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    config.write_text(json.dumps({"rope_theta": 500000.0, "head_dim": 8, "rope_scaling": llama3}))
    args = [str(config) if a == "CONFIG" else a for a in args]
    out = str(tmp_path / "c.npy")
    result = run_cli("rope", "cache", "--head-dim", "8", "--n", "2", *args, "-o", out)
    line = _one_line_status_2(result, tmp_path, keep=["config.json"])
    assert f"only, and {said}: {advice}" in line, line
    if "--rope-type" in args:
        assert "give" not in line, line
