"""Models without RoPE (issue 31): ``rope layers`` prints a plan with RoPE off everywhere, and the
commands that need a rope (``freqs``, ``cache``, ``config``) refuse with one line.

The configs are the ones transformers 5.25 saves (tests/fixtures/libraries/model_zoo,
``default__glm5_next`` and ``default__inkling2``, ``config_json``). That these models have no
RoPE is read in transformers 5.25's sources: ``Glm5NextTextModel.forward`` passes
``position_embeddings=None`` to every decoder layer ("Key change using NoPE") and
``Glm5NextTextConfig`` refuses ``qk_rope_head_dim > 0``; Inkling2's text model has no rotary
class at all (positions enter as a learned relative bias, ``d_rel``; only its vision tower
rotates). Before this change GLM-5 Next was refused ("qk_rope_head_dim must be an integer >= 1")
and Inkling2's ``rope freqs --config`` printed θ 10000 frequencies for a model that has none.
"""

from __future__ import annotations

import json

import pytest
from library_fixtures import ROOT

MODELS = {"glm5_next": 45, "inkling2": 48}


def _config(tmp_path, name: str) -> str:
    record = json.loads((ROOT / "model_zoo" / f"default__{name}.json").read_text("utf-8"))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(record["config_json"]), encoding="utf-8")
    return str(path)


def _layer_types(name: str) -> list[str]:
    record = json.loads((ROOT / "model_zoo" / f"default__{name}.json").read_text("utf-8"))
    return record["config_json"]["text_config"]["layer_types"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_rope_layers_prints_every_layer_nope(run_cli, tmp_path, name):
    result = run_cli("rope", "layers", _config(tmp_path, name), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == MODELS[name]
    assert [r["attention"] for r in rows] == _layer_types(name)
    assert not any(r["rope"] for r in rows) and all(r["rotated"] == 0 for r in rows)
    assert all(r["theta"] is None for r in rows)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_plan_says_why_and_keeps_the_attention_map(run_cli, tmp_path, name):
    result = run_cli("rope", "layers", _config(tmp_path, name))
    assert result.exit_code == 0, result.output
    count = MODELS[name]
    assert f"RoPE map {'N' * count}" in result.stdout
    assert "no RoPE:" in result.output and "no attention" not in result.output
    kinds = _layer_types(name)
    if name == "inkling2":  # hybrid_sliding: window 1024 (sliding_window_size); hybrid: global
        expected = "".join("s" if k == "hybrid_sliding" else "G" for k in kinds)
        assert "1024" in result.stdout
    else:
        expected = "".join("L" if k == "linear_attention" else "G" for k in kinds)
    assert f"attention map {expected}" in result.stdout


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize(
    "command", [("freqs", "--config"), ("cache", "--n", "4", "-o", "OUT", "--config"), ("config",)]
)
def test_commands_needing_a_rope_refuse_in_one_line(run_cli, tmp_path, name, command):
    out = tmp_path / "out.npy"
    args = [str(out) if word == "OUT" else word for word in command]
    result = run_cli("rope", *args, _config(tmp_path, name))
    assert result.exit_code == 2, result.output
    assert "has no RoPE" in result.output and "pecli rope layers" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_every_rope_null_is_a_nope_plan_not_a_refusal(run_cli, tmp_path):
    config = {
        "num_hidden_layers": 4,
        "head_dim": 64,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
        "rope_parameters": {"sliding_attention": None, "full_attention": None},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    result = run_cli("rope", "layers", str(path))
    assert result.exit_code == 0, result.output
    assert "RoPE map NNNN" in result.stdout and "attention map sGsG" in result.stdout
    assert "every layer type's rope is null" in result.output
    freqs = run_cli("rope", "freqs", "--config", str(path))
    assert freqs.exit_code == 2 and "has no RoPE: rope_parameters: every layer" in freqs.output


def test_a_zero_qk_rope_head_dim_is_no_rope(run_cli, tmp_path):
    """An MLA head whose rotated part is 0 channels wide rotates nothing."""
    config = {"num_hidden_layers": 2, "qk_rope_head_dim": 0, "qk_nope_head_dim": 128}
    config |= {"num_attention_heads": 8, "hidden_size": 1024, "rope_theta": 1e4}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    plan = run_cli("rope", "layers", str(path))
    assert plan.exit_code == 0 and "RoPE map NN" in plan.stdout
    freqs = run_cli("rope", "freqs", "--config", str(path))
    assert freqs.exit_code == 2 and "qk_rope_head_dim 0" in freqs.output
