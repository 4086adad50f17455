"""``pecli rope layers`` and the per-layer plans of issue 31 (values from the issue, derived by
hand: Gemma 3's (i+1) % 6 pattern, SmolLM3's (i+1) % 4 NoPE layers, Ministral 3's
1 + 0.1·ln(1 + ⌊p/16384⌋), mpmath-free closed forms)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from cli_runner import CliRunner
from gguf_files import header_only_gguf

from pecli.cli import app
from pecli.core.errors import ParameterError
from pecli.core.rope.config.plans import Temperature, layer_maps, layer_plan, runs

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "libraries" / "model_zoo"


def hub(name: str) -> dict:
    return json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))["given_config"]


@pytest.mark.parametrize("name", ["hub__gemma3_4b_v5", "hub__gemma3_4b_v4"])
def test_gemma3_4b_map_and_layers(name):
    rows, _ = layer_plan(hub(name))
    assert layer_maps(rows) == ("R" * 34, "sssssGsssssGsssssGsssssGsssssGssss")
    full, local = rows[5], rows[0]
    assert (full.theta, full.rope_type, full.factor) == (1e6, "linear", 8.0)
    assert (local.theta, local.rope_type, local.window) == (1e4, "default", 1024)


def test_smollm3_nope_every_fourth_layer_and_no_temperature():
    rows, _ = layer_plan(hub("hub__smollm3_3b"))
    assert layer_maps(rows)[0] == "RRRN" * 9
    assert all(row.temperature is None for row in rows)


def test_cohere2_and_exaone4_rotate_their_sliding_layers_only():
    for name in ("hub__command_a", "hub__exaone4_32b"):
        rows, _ = layer_plan(hub(name))
        assert all(row.rope == (row.kind == "sliding_attention") for row in rows), name


def test_deepseek_v4_compress_ratio_zero_is_unscaled_theta_1e4():
    rows, _ = layer_plan(hub("hub__deepseek_v4_flash"))
    assert [(r.theta, r.rope_type) for r in (rows[0], rows[1], rows[42])] == [(1e4, "default")] * 3
    assert {(r.theta, r.rope_type, r.factor) for r in rows[2:42]} == {(160000.0, "yarn", 16)}


def test_qwen3_next_linear_layers_do_not_rotate():
    config = {"num_hidden_layers": 8, "head_dim": 256, "partial_rotary_factor": 0.25}
    rows, _ = layer_plan({**config, "full_attention_interval": 4})
    assert layer_maps(rows) == ("NNNRNNNR", "LLLGLLLG")
    assert rows[3].rotated == 64


def test_ministral3_temperature_values():
    rows, _ = layer_plan(hub("hub__ministral3_8b"))
    p = np.array([16383, 16384, 65535, 262143])
    got = rows[0].temperature.at(p)
    assert got == pytest.approx([1.0, 1.06931472, 1.13862944, 1.27725887], abs=5e-9)
    assert got[1] == pytest.approx(1 + 0.1 * math.log(2), rel=1e-15)
    assert Temperature(0.1, 8192, 0).at(np.array([16384]))[0] == pytest.approx(1.10986123, 1e-8)


def test_llama4_temperature_is_on_nope_layers_only():
    config = {"text_config": {"model_type": "llama4_text", "num_hidden_layers": 8, "head_dim": 128}}
    rows, _ = layer_plan({**config["text_config"], "no_rope_layer_interval": 4})
    assert [r.temperature is not None for r in rows] == [not r.rope for r in rows]
    assert rows[3].temperature.at(np.array([8191]))[0] == pytest.approx(1 + 0.1 * math.log(2))


def test_a_short_no_rope_layers_is_refused_naming_the_count():
    config = {"text_config": {"no_rope_layers": [1, 0], "num_hidden_layers": 48, "head_dim": 64}}
    with pytest.raises(ParameterError, match=r"one entry per layer \(num_hidden_layers = 48\)"):
        layer_plan(config)


def test_irope_refuses_a_short_no_rope_layers(tmp_path):
    """Issue 34 item 7: it printed "2 layers", ignoring num_hidden_layers 48."""
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps({"text_config": {"no_rope_layers": [1, 0], "num_hidden_layers": 48}})
    )
    result = CliRunner().invoke(app, ["rope", "irope", "--config", str(path)])
    assert result.exit_code == 2 and "num_hidden_layers = 48" in result.output
    assert "2 layers" not in result.output


def test_rope_layers_command_table_csv_and_bad_config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(hub("hub__deepseek_v3")))
    table = CliRunner().invoke(app, ["rope", "layers", str(path)])
    assert table.exit_code == 0 and "128…191 of 192" in table.output and "0-60" in table.output
    csv = CliRunner().invoke(app, ["rope", "layers", str(path), "--format", "csv"])
    assert csv.exit_code == 0 and len(csv.output.strip().splitlines()) == 62
    path.write_text(json.dumps({"num_hidden_layers": 2, "head_dim": 64, "rope_theta": -1.0}))
    bad = CliRunner().invoke(app, ["rope", "layers", str(path)])
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1


@pytest.mark.parametrize(("layer", "k1"), [(5, 0.112210892), (0, 0.930572041)])
def test_freqs_and_cache_take_a_layer_of_a_per_layer_config(tmp_path, layer, k1):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(hub("hub__gemma3_4b_v5")))
    freqs = CliRunner().invoke(
        app, ["rope", "freqs", "--config", str(path), "--layer", str(layer), "--format", "json"]
    )
    assert freqs.exit_code == 0, freqs.output
    rows = json.loads(freqs.stdout)
    assert rows[1]["inv_freq"] == pytest.approx(k1, abs=1e-9)
    out = tmp_path / "cache.csv"
    args = [
        "rope",
        "cache",
        "--config",
        str(path),
        "--layer",
        str(layer),
        "--n",
        "2",
        "-o",
        str(out),
    ]
    assert CliRunner().invoke(app, args).exit_code == 0
    row = np.loadtxt(out, delimiter=",", skiprows=1, dtype=np.float64)[1]
    assert row[1] == pytest.approx(math.cos(k1), abs=1e-7)


def test_layer_needs_a_config_and_a_rope_layer(tmp_path):
    alone = CliRunner().invoke(app, ["rope", "freqs", "--layer", "3"])
    assert alone.exit_code == 2 and "--layer" in alone.output
    path = tmp_path / "config.json"
    path.write_text(json.dumps(hub("hub__smollm3_3b")))
    nope = CliRunner().invoke(app, ["rope", "freqs", "--config", str(path), "--layer", "3"])
    assert nope.exit_code == 2 and "NoPE layer" in nope.output
    per_layer = tmp_path / "gemma.json"
    per_layer.write_text(json.dumps(hub("hub__gemma3_4b_v5")))
    without = CliRunner().invoke(app, ["rope", "freqs", "--config", str(per_layer)])
    assert without.exit_code == 2 and "pass --layer" in without.output


def test_a_null_layer_type_is_nope():
    """Ergo and Beam write ``"full_attention": null``: transformers builds no rope for it."""
    doc = json.loads((FOLDER / "default__ergo.json").read_text(encoding="utf-8"))
    rows, _ = layer_plan(doc["config_json"])
    assert layer_maps(rows) == ("RRRN" * 16, "sssG" * 16)


def test_mistral_small_4_temperature_through_the_plan():
    """Issue 31: L = 8192, 1.10986123 at 16384 (1 + 0.1·ln 3)."""
    doc = json.loads((FOLDER / "hub__mistral_small_4.json").read_text(encoding="utf-8"))
    rows, _ = layer_plan(doc["config_json"])
    got = rows[0].temperature.at(np.array([8191, 16384]))
    assert got[0] == 1.0 and got[1] == pytest.approx(1 + 0.1 * math.log(3), rel=1e-15)
    assert got[1] == pytest.approx(1.10986123, abs=5e-9)


def test_positions_give_the_temperature_per_layer(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(hub("hub__ministral3_8b")))
    args = ["rope", "layers", str(path), "--positions", "16383,16384,262143", "--format", "json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    first = json.loads(result.stdout)[0]
    assert first["temperature_at_16383"] == 1.0
    assert first["temperature_at_262143"] == pytest.approx(1.27725887, abs=5e-9)
    table = CliRunner().invoke(app, ["rope", "layers", str(path), "--positions", "65535"])
    assert "1.13862944" in table.stdout
    bad = CliRunner().invoke(app, ["rope", "layers", str(path), "--positions", "-1"])
    assert bad.exit_code == 2 and "--positions" in bad.output


def test_llama4_rope_layers_attend_in_chunks():
    config = {"model_type": "llama4_text", "num_hidden_layers": 4, "head_dim": 128}
    rows, _ = layer_plan({**config, "no_rope_layer_interval": 4, "attention_chunk_size": 8192})
    assert layer_maps(rows) == ("RRRN", "cccG") and rows[0].window == 8192


def test_only_llama4_with_a_chunk_attends_in_chunks():
    """Llama4TextConfig: attention_chunk_size null means full attention (no chunks); another
    family's config carrying the key (LlamaConfig has no such field) keeps its full layers."""
    config = {"model_type": "llama4_text", "num_hidden_layers": 4, "head_dim": 128}
    rows, _ = layer_plan({**config, "no_rope_layer_interval": 4, "attention_chunk_size": None})
    assert layer_maps(rows) == ("RRRN", "GGGG")
    llama = {**config, "model_type": "llama", "attention_chunk_size": 4096}
    assert layer_maps(layer_plan(llama)[0]) == ("RRRR", "GGGG")


def test_a_gguf_plan_takes_llama_cpp_s_hard_coded_facts(tmp_path):
    """llama.cpp: Gemma 3 period 6 and θ_swa 10000, SmolLM3 NoPE step 4, no GGUF key for them."""
    gemma = header_only_gguf(
        tmp_path / "gemma3.gguf",
        "gemma3",
        {
            "block_count": 34,
            "attention.key_length": 256,
            "rope.freq_base": 1e6,
            "attention.sliding_window": 1024,
            "rope.scaling.type": "linear",
            "rope.scaling.factor": 8.0,
        },
    )
    result = CliRunner().invoke(app, ["rope", "layers", gemma])
    assert result.exit_code == 0, result.output
    assert "sssssGsssssGsssssGsssssGsssssGssss" in result.stdout
    assert "hard-codes the sliding-window period 6" in result.stdout
    smol = header_only_gguf(
        tmp_path / "s.gguf", "smollm3", {"block_count": 36, "attention.key_length": 128}
    )
    result = CliRunner().invoke(app, ["rope", "layers", smol, "--format", "json"])
    assert [row["rope"] for row in json.loads(result.stdout)] == [True, True, True, False] * 9
    bare = header_only_gguf(tmp_path / "b.gguf", "llama", {"attention.key_length": 128})
    result = CliRunner().invoke(app, ["rope", "layers", bare])
    assert result.exit_code == 2 and "llama.block_count" in result.output


def test_gguf_check_compares_the_nope_layers_llama_cpp_hard_codes(tmp_path):
    """SmolLM3: llama.cpp's NoPE step 4 has no GGUF key; a config whose no_rope_layers reads
    the other way round (transformers #43756's naming, 1 = NoPE) converts and runs wrong."""
    gguf = header_only_gguf(
        tmp_path / "s.gguf",
        "smollm3",
        {
            "block_count": 36,
            "attention.key_length": 128,
            "rope.freq_base": 5e6,
            "rope.dimension_count": 128,
        },
    )
    good = tmp_path / "good.json"
    good.write_text(json.dumps(hub("hub__smollm3_3b")))
    result = CliRunner().invoke(app, ["gguf", "check", gguf, "--config", str(good)])
    assert result.exit_code == 0, result.output
    assert "3 7 11 15 19 23 27 31 35: llama.cpp's NoPE pattern" in result.stdout
    flipped = {**hub("constructed__smollm3_no_rope_layers_43756"), "head_dim": 128}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(flipped))
    result = CliRunner().invoke(app, ["gguf", "check", gguf, "--config", str(bad)])
    assert result.exit_code == 1 and "NoPE layers" in result.output


def test_engines_take_a_layer_and_name_the_other_ropes_and_temperature(tmp_path):
    path = tmp_path / "gemma.json"
    path.write_text(json.dumps(hub("hub__gemma3_4b_v4")))
    whole = CliRunner().invoke(app, ["rope", "engines", str(path)])
    assert whole.exit_code == 0 and "rotate with 2 ropes" in whole.stdout
    assert "θ = 1e+06" in whole.stdout
    sliding = CliRunner().invoke(app, ["rope", "engines", str(path), "--layer", "0"])
    assert sliding.exit_code == 0 and "rope_type default, θ = 10000" in sliding.stdout
    path.write_text(json.dumps(hub("hub__ministral3_8b")))
    scaled = CliRunner().invoke(app, ["rope", "engines", str(path)])
    assert "1 + 0.1·ln(⌊p/16384⌋ + 1)" in scaled.stdout


def test_rope_config_reads_one_layer(tmp_path):
    path = tmp_path / "gemma.json"
    path.write_text(json.dumps(hub("hub__gemma3_4b_v5")))
    result = CliRunner().invoke(
        app, ["rope", "config", str(path), "--layer", "5", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["rope_type"], report["theta"], report["factor"]) == ("linear", 1e6, 8.0)
    refused = CliRunner().invoke(app, ["rope", "config", str(path)])
    assert refused.exit_code == 2 and "pass --layer" in refused.output


def test_a_plan_with_a_layer_type_without_parameters_is_one_line():
    config = {
        "num_hidden_layers": 2,
        "head_dim": 64,
        "layer_types": ["full_attention", "chunked_attention"],
        "rope_parameters": {
            "full_attention": {"rope_theta": 1e4},
            "sliding_attention": {"rope_theta": 1e4},
        },
    }
    with pytest.raises(
        ParameterError, match="no rope parameters for layer type 'chunked_attention'"
    ):
        layer_plan(config)


def test_deepseek_v3_checkpoint_pairs_are_interleaved_unless_the_config_says_not():
    """DeepseekV3Config's rope_interleave defaults to true (apply_rotary_pos_emb_interleave)."""
    config = hub("hub__deepseek_v3")
    assert layer_plan({**config, "model_type": "deepseek_v3"})[0][0].layout == "interleaved"
    plain = {**config, "model_type": "deepseek_v3", "rope_interleave": False}
    assert layer_plan(plain)[0][0].layout == "half-split"


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (
            {"rope_parameters": {"rope_theta": 1e4, "llama_4_scaling_beta": "x"}},
            "field llama_4_scaling_beta must be a finite number",
        ),
        (
            {
                "rope_parameters": {
                    "rope_theta": 1e4,
                    "llama_4_scaling_beta": 0.1,
                    "original_max_position_embeddings": 0,
                }
            },
            "field original_max_position_embeddings must be a number > 0",
        ),
        (
            {"model_type": "llama4_text", "no_rope_layer_interval": 4, "floor_scale": 0},
            "field floor_scale must be a number > 0",
        ),
        ({"layer_types": "full"}, "field layer_types must have one entry per layer"),
    ],
    ids=["beta-text", "zero-length", "zero-floor", "layer-types-text"],
)
def test_hostile_plan_fields_are_one_line(extra, words):
    with pytest.raises(ParameterError) as caught:
        layer_plan({"num_hidden_layers": 4, "head_dim": 64, **extra})
    assert caught.value.parameter == "config" and words in str(caught.value)


def test_layers_without_attention_are_nope_and_layer_count_aliases_are_read():
    """LFM 3's ``conv`` layers have no attention (transformers builds no rotary use there);
    GPT-J writes the number of layers as ``n_layer``."""
    doc = json.loads((FOLDER / "default__lfm3.json").read_text(encoding="utf-8"))
    rows, notes = layer_plan(doc["config_json"])
    conv = [r for r in rows if r.kind == "conv"]
    assert conv and not any(r.rope for r in conv) and "-" in layer_maps(rows)[1]
    assert "layer type conv: no attention, no RoPE" in notes
    rows, _ = layer_plan({"n_layer": 28, "n_embd": 4096, "n_head": 16, "rotary_dim": 64})
    assert len(rows) == 28 and rows[0].rotated == 64


def test_a_layer_past_the_last_is_refused_naming_the_range():
    """6 layers (Gemma 3's rule: every 6th global, θ 1e6; the rest local, θ 1e4) are 0 … 5:
    layer 5 is the global one, 6 and -1 are no layer of the model (-1 is refused before the
    file is read: a config without num_hidden_layers had it reported as the config's fault)."""
    from pecli.core.rope.config.plans import layer_rope

    config = {"num_hidden_layers": 6, "head_dim": 256, "rope_theta": 1e6}
    config["rope_local_base_freq"] = 1e4
    assert layer_rope(config, 5).spec.theta == 1e6
    with pytest.raises(ParameterError) as error:
        layer_rope(config, 6)
    assert error.value.parameter == "layer" and "0 to 5" in str(error.value)
    del config["num_hidden_layers"]  # -1 is refused before the file: not as a bad config
    with pytest.raises(ParameterError) as error:
        layer_rope(config, -1)
    assert (error.value.parameter, error.value.rule) == (
        "layer",
        "must be a layer's index: an integer, in digits, 0 or more",
    )


def test_a_window_that_is_no_integer_is_shown_in_its_first_40_characters():
    """A sliding window of 100 letters is refused naming the field; the value is shown as the
    first 40 characters of its repr: the quote and 39 letters."""
    config = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 2,
        "head_dim": 64,
        "layer_types": ["sliding_attention", "full_attention"],
        "sliding_window": "w" * 100,
    }
    with pytest.raises(ParameterError, match="field sliding_window must be an integer >= 1") as e:
        layer_plan(config)
    assert e.value.value == "'" + "w" * 39


def test_a_no_rope_layers_of_other_values_is_shown_in_its_first_40_characters():
    """The refused list's repr, cut: 40 characters of 30 flags of 2."""
    from pecli.core.errors import ParameterError
    from pecli.core.rope.config.layer_types import rope_flags

    config = {"text_config": {"no_rope_layers": [2] * 30}}
    with pytest.raises(ParameterError) as refused:
        rope_flags(config, {"num_hidden_layers": 30})
    shown = "[" + "2, " * 13  # 1 + 13 × 3 = 40 characters, then quoted
    assert str(refused.value).endswith(f"(got '{shown}')"), str(refused.value)


def test_a_sliding_window_pattern_of_1_makes_every_layer_full_attention():
    """transformers' Gemma 3: layer i slides when (i + 1) % sliding_window_pattern != 0, so a
    pattern of 1 makes every layer full attention (by hand)."""
    from pecli.core.rope.config.layer_types import rope_flags

    kinds, rotates = rope_flags({"sliding_window_pattern": 1, "num_hidden_layers": 3})
    assert kinds == ["full_attention"] * 3 and rotates == [True] * 3


def test_dory_s_attention_and_mlp_blocks_are_halved_into_layers():
    """Dory's files list attention and mlp blocks apart; DoryConfig keeps every other entry
    of layer_types and half of num_hidden_layers: 6 blocks are 3 layers."""
    from pecli.core.rope.config.layer_types import rope_flags

    blocks = ["full_attention", "mlp", "sliding_attention", "mlp", "full_attention", "mlp"]
    kinds, _ = rope_flags({"layer_types": blocks, "num_hidden_layers": 6})
    assert kinds == ["full_attention", "sliding_attention", "full_attention"]


def test_a_sliding_window_of_one_token_is_a_window(run_cli, tmp_path):
    """sliding_window 1 (each token sees itself) is the smallest window there is, not an error."""
    config = {
        "layer_types": ["sliding_attention", "full_attention"],
        "num_hidden_layers": 2,
        "sliding_window": 1,
        "head_dim": 8,
    }
    (tmp_path / "c.json").write_text(json.dumps(config), encoding="utf-8")
    result = run_cli("rope", "layers", str(tmp_path / "c.json"))
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if line.startswith("0 "))
    assert row.split()[-2:] == ["1", "-"]  # window 1, no temperature


def test_runs_join_equal_neighbours_only():
    """``rope layers`` lists runs of equal consecutive layers: a RoPE layer and a NoPE layer
    of the same kind are two runs (RRRN: 0-2, 3), one sliding layer between two global ones
    keeps the three apart (sGs is not 0-2, 1 although layers 0 and 2 are alike)."""
    base = {"head_dim": 64, "rope_theta": 1e4}
    nope = layer_plan({**base, "num_hidden_layers": 4, "no_rope_layer_interval": 4})[0]
    assert [(a, b) for a, b, _ in runs(nope)] == [(0, 2), (3, 3)]
    pattern = {**base, "num_hidden_layers": 3, "sliding_window_pattern": 2, "sliding_window": 512}
    sgs = layer_plan(pattern)[0]
    assert layer_maps(sgs) == ("RRR", "sGs")
    assert [(a, b) for a, b, _ in runs(sgs)] == [(0, 0), (1, 1), (2, 2)]
    two = layer_plan({**base, "num_hidden_layers": 3, "no_rope_layers": [1, 0, 0]})[0]
    assert [(a, b, row.rope) for a, b, row in runs(two)] == [(0, 0, True), (1, 2, False)]


def test_a_model_of_two_ropes_asks_for_a_layer_in_a_sentence(run_cli, tmp_path):
    """A bare Gemma 3 text config (sliding θ 10^4, global 10^6) read without --layer: the
    refusal had no subject ("Invalid value for 'FILE': gives its layer types …"); --layer 5
    (a global layer) is read."""
    config = tmp_path / "config.json"
    config.write_text('{"model_type": "gemma3_text"}', encoding="utf-8")
    refused = run_cli("rope", "config", str(config))
    assert refused.exit_code == 2
    assert "Invalid value for 'FILE': is a model whose layer types have different RoPEs: " in (
        refused.stderr
    )
    assert "pass --layer N (pecli rope layers shows each layer's)" in refused.stderr
    read = run_cli("rope", "config", str(config), "--layer", "5")
    assert read.exit_code == 0, read.output
    assert "rope_type default, θ = 1000000, head_dim 256" in read.stdout


QWEN3 = {"model_type": "qwen3", "num_hidden_layers": 4, "head_dim": 16, "sliding_window": 64}


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("max_window_layers", "28", "max_window_layers must be an integer"),
        ("max_window_layers", 2.5, "max_window_layers must be an integer"),
        ("max_window_layers", True, "max_window_layers must be an integer"),
        ("use_sliding_window", "yes", "use_sliding_window must be true or false"),
        ("use_sliding_window", 1, "use_sliding_window must be true or false"),
    ],
)
def test_qwen_window_fields_of_the_wrong_kind_are_refused(field, value, rule):
    """A string ``max_window_layers`` crashed five commands with a TypeError; 2.5, true,
    "yes" or 1 were read silently. transformers' strict fields refuse each (checked with
    Qwen2Config 5.25); pecli refuses them under ``config``, naming the field."""
    config = {**QWEN3, "use_sliding_window": True, "max_window_layers": 2, field: value}
    with pytest.raises(ParameterError) as refused:
        layer_plan(config)
    assert refused.value.rule == f"field {rule}"


def test_a_negative_max_window_layers_slides_every_layer_as_transformers_does():
    """Qwen2Config(max_window_layers=-1): every layer slides (``i >= -1``), window 64."""
    config = {**QWEN3, "use_sliding_window": True, "max_window_layers": -1}
    rows, _ = layer_plan(config)
    assert [(r.kind, r.window) for r in rows] == [("sliding_attention", 64)] * 4


def test_dots1_ignores_use_sliding_window_of_any_kind():
    """Dots1's class slides without the flag, and takes 1 there without complaint."""
    config = {**QWEN3, "model_type": "dots1", "use_sliding_window": 1, "max_window_layers": 2}
    assert layer_maps(layer_plan(config)[0])[1] == "GGss"


@pytest.mark.parametrize("value", [0, "4", 4.0, False])
@pytest.mark.parametrize(
    ("field", "model_type"),
    [("no_rope_layer_interval", "smollm3"), ("full_attention_interval", "qwen3_next")],
)
def test_a_layer_interval_that_is_no_period_is_refused(field, model_type, value):
    """SmolLM3 with ``no_rope_layer_interval`` 0, "4" or 4.0 was planned with no NoPE layer
    at all (RRRRRRRR against the class's RRRNRRRN), status 0, no note; transformers divides
    by 0 and its strict fields refuse the others."""
    config = {"model_type": model_type, "num_hidden_layers": 8, "head_dim": 16, field: value}
    with pytest.raises(ParameterError) as refused:
        layer_plan(config)
    assert refused.value.rule == f"field {field} must be a nonzero integer"


def test_a_layer_interval_of_4_or_minus_4_makes_every_fourth_layer_nope():
    """transformers takes ``(i + 1) % N``: -4 gives the NoPE layers 4 gives."""
    config = {"model_type": "smollm3", "num_hidden_layers": 8, "head_dim": 16}
    for interval in ({}, {"no_rope_layer_interval": 4}, {"no_rope_layer_interval": None}):
        assert layer_maps(layer_plan({**config, **interval})[0])[0] == "RRRN" * 2
    assert layer_maps(layer_plan({**config, "no_rope_layer_interval": -4})[0])[0] == "RRRN" * 2


@pytest.mark.parametrize("value", [0, 2, "4", 4.0])
def test_llama_ignores_the_intervals_of_other_classes(value):
    """LlamaConfig reads neither interval: every layer rotates, full attention (pecli had
    made Llama's every N-th layer NoPE, or linear attention)."""
    config = {"model_type": "llama", "num_hidden_layers": 8, "head_dim": 16}
    for field in ("no_rope_layer_interval", "full_attention_interval"):
        rows, _ = layer_plan({**config, field: value})
        assert layer_maps(rows) == ("R" * 8, "G" * 8), field


def test_a_layer_type_transformers_does_not_know_is_read_with_a_note():
    """``weird_attention`` is refused by transformers 5.25's ``validate_layer_type``; pecli
    reads it as attention and says so, where it said nothing."""
    kinds = ["weird_attention", "full_attention"]
    rows, notes = layer_plan({**QWEN3, "num_hidden_layers": 2, "layer_types": kinds})
    assert layer_maps(rows)[0] == "RR"
    said = "layer type weird_attention: a name transformers 5.25 does not know"
    assert [n for n in notes if n.startswith("layer type")] == [
        f"{said} (its class refuses it); read as attention"
    ]


def test_every_layer_type_the_config_classes_hold_is_known():
    """Each layer type transformers 5.25's classes held (fixture class_defaults) gets no note."""
    from pecli.core.rope.config.families import KNOWN_LAYER_TYPES

    doc = json.loads((FOLDER.parent / "class_defaults" / "class_defaults.json").read_text())
    held = {
        kind
        for entry in doc["model_types"].values()
        for read in entry.values()
        if isinstance(read, dict)
        for kind in (read.get("held") or {}).get("layer_types") or []
    }
    assert held and held <= KNOWN_LAYER_TYPES, held - KNOWN_LAYER_TYPES


@pytest.mark.parametrize("value", ["1e3", "2.5", "-1"])
@pytest.mark.parametrize(
    "command",
    [
        ("rope", "config", "{f}"),
        ("rope", "cache", "--config", "{f}", "--n", "2"),
        ("rope", "engines", "{f}"),
        ("rope", "freqs", "--config", "{f}"),
    ],
)
def test_a_layer_not_written_as_an_index_is_told_the_rule(run_cli, tmp_path, command, value):
    """``--layer 1e3`` got click's "'1e3' is not a valid integer.", where docs/cli.md
    promises the option's rule for a number not written as an integer (``-1`` had it)."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**QWEN3, "num_attention_heads": 4}), encoding="utf-8")
    result = run_cli(*(part.format(f=path) for part in command), "--layer", value)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"pecli {command[0]} {command[1]}: error: Invalid value for '--layer': must be a "
        f"layer's index: an integer, in digits, 0 or more (got {value})\n"
    )


def test_modernbert_s_window_is_half_its_local_attention_down_to_2():
    """ModernBertConfig's ``sliding_window`` is ``local_attention // 2``: 2 gives a window of
    one token; 1 would give none, and is refused by name (seed 79: ``< 2`` → ``< 3``)."""
    config = {"model_type": "modernbert", "num_hidden_layers": 3, "head_dim": 16}
    rows, _ = layer_plan({**config, "local_attention": 2})
    assert [r.window for r in rows if "sliding" in r.kind] == [1, 1]
    with pytest.raises(ParameterError) as refused:
        layer_plan({**config, "local_attention": 1})
    assert refused.value.rule.startswith("field local_attention must be an integer >= 2")
