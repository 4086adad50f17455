"""``pecli rope axes --config``: a VL model's config.json read into its M-RoPE plan (issue 31).

Oracles: the cos/sin tables transformers' own rotary classes made (tests/fixtures/libraries/
mrope, made by transformers 5.24 from the ``params`` each fixture records; vl_ids, made by
transformers 5.25), and the hub's own Qwen2-VL / Qwen2.5-VL config.json saved in the model zoo
corpus (model_zoo/hub__*.json ``given_config``). The configs below are written from the
parameters each fixture records; pecli's presets are never the oracle.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import ROOT, load

from pecli.core.dtypes import ulps32

MROPE = {f.name: f for f in load("mrope")}
VL = {f.name: f for f in load("vl_ids")}


def _hub(name: str) -> dict:
    record = json.loads((ROOT / "model_zoo" / f"{name}.json").read_text(encoding="utf-8"))
    return record["given_config"]


def _text(model_type: str, head: int, params: dict) -> dict:
    """A composite config as transformers 5 writes it: the rope in text_config."""
    text = {"model_type": f"{model_type}_text", "head_dim": head, "hidden_size": 4096}
    text |= {"num_attention_heads": 32, "rope_parameters": params}
    return {"model_type": model_type, "text_config": text}


def _qwen3(p: dict) -> dict:
    params = {"rope_type": "default", "rope_theta": p["theta"], "mrope_section": p["section"]}
    params |= {"mrope_interleaved": True}
    if "partial_rotary_factor" in p:
        params["partial_rotary_factor"] = p["partial_rotary_factor"]
    return _text("qwen3_5" if p["head_dim"] == 256 else "qwen3_vl", p["head_dim"], params)


CASES = {  # fixture → the config (as a hub or transformers writes it) that made it
    "qwen2-vl": lambda p: _hub("hub__qwen2_vl_7b"),
    "qwen2.5-vl": lambda p: _hub("hub__qwen2_5_vl_7b"),
    "qwen3-vl": _qwen3,
    "qwen3.5": _qwen3,
}


def _axes(run_cli, tmp_path, config: dict, *args: str) -> np.ndarray:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    out = tmp_path / "c.npy"
    result = run_cli("rope", "axes", "--config", str(path), *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    return np.load(out)


@pytest.mark.parametrize("model", sorted(CASES))
@pytest.mark.parametrize("part", ["cos", "sin"])
def test_a_qwen_vl_config_gives_the_rotary_class_table(run_cli, tmp_path, model, part):
    theirs = MROPE[f"{model}_{part}"]
    config = CASES[model](theirs.params)
    tokens = ("--tokens", theirs.params["tokens"], "--part", part, "--arithmetic", "model")
    ours = _axes(run_cli, tmp_path, config, *tokens)
    assert ours.shape == theirs.table.shape
    assert ulps32(ours, theirs.table).max() <= 2


@pytest.mark.parametrize(
    ("model", "model_type"),
    [("glm46v", "glm4v"), ("glm46v_moe", "glm4v_moe"), ("ernie4_5_vl", "ernie4_5_vl_moe")],
)
def test_a_glm_4v_config_gives_the_rotary_class_table(run_cli, tmp_path, model, model_type):
    theirs = VL[f"{model}_cos"]
    config = _text(model_type, theirs.params["head_dim"], theirs.params["rope_parameters"])
    ids = tmp_path / "ids.npy"
    np.save(ids, VL[f"{model}_ids"].table.astype(np.float64))  # transformers' (3, seq)
    ours = _axes(run_cli, tmp_path, config, "--ids", str(ids), "--part", "cos")
    assert ours.shape == theirs.table.shape
    assert np.abs(ours - theirs.table).max() < 4e-6


def test_a_config_without_mrope_section_takes_the_rotary_class_default(run_cli, tmp_path):
    """Qwen3VLTextRotaryEmbedding: ``rope_parameters.get("mrope_section", [24, 20, 20])``."""
    theirs = MROPE["qwen3-vl_cos"]
    config = _qwen3(theirs.params)
    del config["text_config"]["rope_parameters"]["mrope_section"]
    ours = _axes(run_cli, tmp_path, config, "--tokens", theirs.params["tokens"], "--part", "cos")
    assert np.abs(ours - theirs.table).max() < 1e-5


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"model_type": "llama", "head_dim": 128}, "field model_type must be one whose M-RoPE"),
        (_text("qwen2_vl", 128, {"rope_theta": 1e6, "mrope_section": [16, 24]}), "mrope_section"),
        (
            _text("qwen2_vl", 128, {"rope_theta": 1e6, "mrope_section": [8, 8, 8]}),
            "adding up to 64",
        ),
        (_text("qwen2_vl", 128, {"rope_theta": -1.0}), "rope_theta"),
    ],
)
def test_a_bad_config_is_one_line_naming_config(run_cli, tmp_path, config, words):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    out = tmp_path / "c.npy"
    result = run_cli("rope", "axes", "--config", str(path), "--tokens", "text:3", "-o", str(out))
    assert result.exit_code == 2
    assert "--config" in result.output and words in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_config_and_preset_together_are_refused(run_cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_hub("hub__qwen2_vl_7b")), encoding="utf-8")
    result = run_cli(
        "rope", "axes", "--config", str(path), "--preset", "qwen2-vl", "--tokens", "text:3"
    )
    assert result.exit_code == 2 and "--config" in result.output and "--preset" in result.output


@pytest.mark.parametrize(("theta", "status"), [(None, 0), (1e6, 1)])
def test_identify_axes_tries_the_config_s_preset(run_cli, tmp_path, theta, status):
    """Qwen3.5's table (64 of 256 channels rotate) against its config, and a θ it does not fit."""
    cos, sin = MROPE["qwen3.5_cos"], MROPE["qwen3.5_sin"]
    config = _qwen3(cos.params)
    if theta is not None:
        config["text_config"]["rope_parameters"]["rope_theta"] = theta
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    cache = tmp_path / "cache.npy"
    np.save(cache, np.concatenate([cos.table, sin.table], axis=1))
    args = ("--config", str(tmp_path / "config.json"), "--tokens", cos.params["tokens"])
    result = run_cli("rope", "identify-axes", str(cache), *args, "--format", "json")
    assert result.exit_code == status, result.output
    verdicts = json.loads(result.stdout)["presets"]
    assert list(verdicts) == ["config (qwen3.5)"]
    assert verdicts["config (qwen3.5)"]["matches"] is (status == 0)


def test_a_config_preset_s_title_names_its_model_family():
    """The hub's Qwen2-VL-7B config.json (model_type qwen2_vl) reads as "Qwen2-VL …": the
    title names the model, not the family's θ or section."""
    from pecli.core.multiaxis.config_preset import preset_from_config

    preset = preset_from_config(_hub("hub__qwen2_vl_7b"))
    assert preset.title == "Qwen2-VL as the config gives it"
