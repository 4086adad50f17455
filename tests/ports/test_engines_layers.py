"""``pecli rope engines`` per layer type (Gemma 3's sliding and global ropes) and which engines
apply Mistral's query temperature (issue 31).

Oracles: the issue's Gemma 3 4B values (derived with mpmath: local θ 1e4 over 256 channels,
global θ 1e6 with linear ×8), its layer map ``sssssG…``, and the engines' sources read for
``llama_4_scaling_beta`` (transformers 5.25's ``models/ministral3``; vLLM's ``models/llama.py``;
mlx-lm's ``models/ministral3.py``; llama.cpp's converter and ``llm_graph_input_attn_temp``).
"""

from __future__ import annotations

import json

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
