"""``pecli rope engines`` per layer type (Gemma 3's sliding and global ropes) and which engines
apply Mistral's query temperature (issue 31).

Oracles: the issue's Gemma 3 4B values (derived with mpmath: local θ 1e4 over 256 channels,
global θ 1e6 with linear ×8), its layer map ``sssssG…``, and the engines' sources read for
``llama_4_scaling_beta`` (transformers 5.25's ``models/ministral3``; vLLM's ``models/llama.py``;
mlx-lm's ``models/ministral3.py``; llama.cpp's converter and ``llm_graph_input_attn_temp``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GEMMA3_4B = {
    "model_type": "gemma3",
    "text_config": {
        "model_type": "gemma3_text",
        "num_hidden_layers": 34,
        "head_dim": 256,
        "sliding_window": 1024,
        "rope_theta": 1e6,
        "rope_local_base_freq": 1e4,
        "sliding_window_pattern": 6,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        "max_position_embeddings": 131072,
    },
}
MINISTRAL3 = {
    "model_type": "ministral3",
    "num_hidden_layers": 4,
    "head_dim": 128,
    "max_position_embeddings": 262144,
    "rope_parameters": {
        "rope_type": "yarn",
        "rope_theta": 1e9,
        "factor": 16.0,
        "original_max_position_embeddings": 16384,
        "llama_4_scaling_beta": 0.1,
    },
}


def _report(run_cli, tmp_path, config: dict) -> dict:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    result = run_cli("rope", "engines", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_gemma3_has_one_engines_table_per_layer_type(run_cli, tmp_path):
    per_type = {t["label"]: t for t in _report(run_cli, tmp_path, GEMMA3_4B)["per_layer_type"]}
    assert set(per_type) == {"sliding_attention", "full_attention"}
    assert per_type["full_attention"]["layers"] == "5,11,17,23,29"  # global iff (i + 1) % 6 == 0
    assert per_type["sliding_attention"]["layers"] == "0-4,6-10,12-16,18-22,24-28,30-33"
    for label, (k1, k127) in {
        "sliding_attention": (0.930572041, 1.07460783e-4),
        "full_attention": (0.112210892, 1.39246732e-7),
    }.items():
        reference = per_type[label]["engines"][0]
        assert reference["engine"] == "transformers 5"
        assert reference["inv_freq"][1] == pytest.approx(k1, rel=1e-8)
        assert reference["inv_freq"][127] == pytest.approx(k127, rel=1e-8)


def test_the_text_report_shows_each_layer_type_s_table(run_cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(GEMMA3_4B), encoding="utf-8")
    result = run_cli("rope", "engines", str(path))
    assert result.exit_code == 0, result.output
    assert "engines: full_attention layers 5,11,17,23,29" in result.stdout
    assert "engines: sliding_attention layers 0-4," in result.stdout


def test_ministral3_says_which_engines_apply_the_query_temperature(run_cli, tmp_path):
    report = _report(run_cli, tmp_path, MINISTRAL3)
    temperature = report["query_temperature"]
    assert temperature["formula"] == "1 + 0.1·ln(⌊p/16384⌋ + 1)"
    applies = {n for n, said in temperature["engines"].items() if said.startswith("applies")}
    assert applies == {"transformers 5", "vLLM", "mlx_lm", "llama.cpp"}
    assert report["per_layer_type"] == []


def test_a_plain_config_has_no_extra_tables_nor_temperature(run_cli, tmp_path):
    config = {"num_hidden_layers": 2, "head_dim": 64, "rope_theta": 1e4}
    report = _report(run_cli, tmp_path, config)
    assert report["per_layer_type"] == [] and report["query_temperature"] is None


def test_read_config_names_the_layer_for_a_bad_layer_and_the_file_for_a_bad_field():
    """Gemma 3 4B has 34 layers (0 to 33): layer 34 is the ``layer`` option's fault; a
    ``sliding_window`` of -1 is the config file's, so the error names ``file``."""
    from pecli.core.errors import ParameterError
    from pecli.core.ports.engines import read_config

    with pytest.raises(ParameterError) as bad_layer:
        read_config(GEMMA3_4B, layer=34)
    assert bad_layer.value.parameter == "layer" and "0 to 33" in bad_layer.value.rule
    text = {**GEMMA3_4B["text_config"], "sliding_window": -1}
    with pytest.raises(ParameterError) as bad_field:
        read_config({**GEMMA3_4B, "text_config": text}, layer=0)
    assert bad_field.value.parameter == "file" and "sliding_window" in bad_field.value.rule


def test_deepseek_v4_tables_are_named_by_the_rope_transformers_applies(run_cli, tmp_path):
    """DeepSeek V4 Flash (the model zoo's recorded transformers run): layers 0-1 and 42 call
    ``apply_rotary_pos_emb: main`` (θ 1e4), layers 2-41 ``compress`` (``compress_rope_theta``
    160000): each table is named by its rope, not by the layers' attention kinds."""
    fixture = Path(__file__).parent.parent / "fixtures/libraries/model_zoo"
    recorded = json.loads((fixture / "hub__deepseek_v4_flash.json").read_text(encoding="utf-8"))
    runs = recorded["layers"]["probe"]["runs"]
    assert [r["calls"] for r in runs] == [
        [f"apply_rotary_pos_emb: {n}"] for n in ("main", "compress", "main")
    ]
    per_type = _report(run_cli, tmp_path, recorded["config_json"])["per_layer_type"]
    assert {t["label"]: t["layers"] for t in per_type} == {"main": "0-1,42", "compress": "2-41"}


def test_a_layer_type_of_one_layer_has_its_own_table(run_cli, tmp_path):
    """Gemma 3 with 6 layers: layer 5 alone is global (``(i + 1) % 6 == 0``), θ 1e6 ×8 linear;
    its table's ω_1 is ``1e6^(-2/256) / 8`` (the sliding ones' ``1e4^(-2/256)``)."""
    config = {**GEMMA3_4B, "text_config": {**GEMMA3_4B["text_config"], "num_hidden_layers": 6}}
    per_type = {t["label"]: t for t in _report(run_cli, tmp_path, config)["per_layer_type"]}
    assert {k: t["layers"] for k, t in per_type.items()} == {
        "sliding_attention": "0-4",
        "full_attention": "5",
    }
    one = per_type["full_attention"]["engines"][0]["inv_freq"][1]
    assert one == pytest.approx(1e6 ** (-2 / 256) / 8, rel=1e-12)
