"""``rope permute --config``: every q and k projection of a checkpoint in one pass (issue 22).

The expected tensors are those transformers' converter (convert_llama_weights_to_hf.py,
``permute`` with ``n_heads`` for wq and ``num_key_value_heads`` for wk) made of random Meta
weights of a tiny grouped-query Llama (tests/fixtures/libraries/permute/,
tools/library_fixtures/generate_permute.py). The input checkpoint holds Meta's weights under
Hugging Face's names: renamed but not yet permuted, what a hand-written port leaves.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from library_fixtures import load
from safetensors.numpy import load_file, save_file

FIXTURES = {f.name: f.table for f in load("permute")}
CONFIG = {
    "hidden_size": 64,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "rope_theta": 10000.0,
}
SHORT = {"q_proj": "wq", "k_proj": "wk", "v_proj": "wv", "o_proj": "wo"}


def hf_name(layer: int, proj: str) -> str:
    return f"model.layers.{layer}.self_attn.{proj}.weight"


@pytest.fixture
def model(tmp_path):
    """config.json and a checkpoint of Meta's weights under HF names, plus other tensors."""
    tensors = {
        hf_name(layer, proj): FIXTURES[f"meta_layers.{layer}.attention.{w}.weight"]
        for layer in range(2)
        for proj, w in SHORT.items()
    }
    tensors["model.embed_tokens.weight"] = np.ones((10, 64), np.float32)
    tensors["model.layers.0.input_layernorm.weight"] = np.ones(64, np.float32)
    save_file(tensors, str(tmp_path / "in.safetensors"), metadata={"format": "pt"})
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    return tmp_path


def permute(run_cli, folder, *args: str, output: str = "out.safetensors"):
    return run_cli(
        "rope",
        "permute",
        "--config",
        str(folder / "config.json"),
        "--input",
        str(folder / "in.safetensors"),
        "-o",
        str(folder / output),
        *args,
    )


def test_every_layer_matches_the_converter(run_cli, model):
    result = permute(run_cli, model, "-q")
    assert result.exit_code == 0, result.output
    out = load_file(str(model / "out.safetensors"))
    for layer in range(2):
        for proj in SHORT:
            expected = FIXTURES[f"hf_{hf_name(layer, proj)}"]
            np.testing.assert_array_equal(out[hf_name(layer, proj)], expected)
    np.testing.assert_array_equal(out["model.embed_tokens.weight"], np.ones((10, 64)))
    back = run_cli(
        "rope",
        "permute",
        "--config",
        str(model / "config.json"),
        "--input",
        str(model / "out.safetensors"),
        "-o",
        str(model / "back.safetensors"),
        "--direction",
        "hf-to-meta",
    )
    assert back.exit_code == 0, back.output
    assert f"pecli: wrote {model / 'back.safetensors'}" in back.stderr  # not -q: said
    again = load_file(str(model / "back.safetensors"))
    before = load_file(str(model / "in.safetensors"))
    assert all(np.array_equal(again[k], before[k]) for k in before)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--k-pattern", "*v_proj.weight"], "'--k-pattern': must not match a v or o projection"),
        (["--q-pattern", "*_proj.weight"], "'--q-pattern': must not match a v or o projection"),
        (
            ["--q-pattern", "*.q_proj.weight", "--k-pattern", "*q_proj.weight"],
            "'--k-pattern': must not match a tensor the q pattern matches",
        ),
        (["--q-pattern", "*nothing*", "--k-pattern", "*none*"], "match no tensor"),
    ],
)
def test_patterns_that_would_break_the_model_are_refused(run_cli, model, args, message):
    result = permute(run_cli, model, *args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert not os.path.exists(model / "out.safetensors")


def test_a_config_whose_heads_disagree_with_the_tensors_is_refused(run_cli, model):
    (model / "config.json").write_text(json.dumps(CONFIG | {"num_key_value_heads": 4}))
    result = permute(run_cli, model)
    assert result.exit_code == 2, result.output
    assert "num_key_value_heads 4 × head_dim 16 = 64 rows" in result.output
    assert not os.path.exists(model / "out.safetensors")


def test_one_heads_for_q_and_k_of_different_heights_is_refused(run_cli, model):
    """Before, --heads 4 for k (2 heads of 16 rows) was taken as 4 heads of 8 rows, silently."""
    result = run_cli(
        "rope",
        "permute",
        "--heads",
        "4",
        "--input",
        str(model / "in.safetensors"),
        "--tensor",
        hf_name(0, "q_proj"),
        "--tensor",
        hf_name(0, "k_proj"),
        "-o",
        str(model / "out.safetensors"),
    )
    assert result.exit_code == 2 and "'--heads': is one count for tensors of different" in (
        result.output
    )
    assert not os.path.exists(model / "out.safetensors")


def test_the_input_is_never_the_output(run_cli, model):
    os.link(model / "in.safetensors", model / "same.safetensors")
    result = permute(run_cli, model, output="same.safetensors")
    assert result.exit_code == 2 and "must not be the input" in result.output  # any spelling


def test_head_counts_read_text_config_only_when_the_top_level_has_no_heads():
    from pecli.core.errors import ParameterError
    from pecli.core.rope.permute import head_counts

    text = {"hidden_size": 512, "num_attention_heads": 8}
    top = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8}
    assert head_counts({**top, "text_config": text}) == (32, 8, 128)  # 4096 / 32
    assert head_counts({"text_config": text}) == (8, 8, 64)  # 512 / 8, no GQA
    with pytest.raises(ParameterError, match="num_attention_heads"):
        head_counts({"hidden_size": 4096})  # neither: one line, not a KeyError
    with pytest.raises(ParameterError, match="num_attention_heads, an integer >= 1"):
        head_counts({"num_attention_heads": 0, "head_dim": 64})  # no heads: not (0, 0, 64)


def test_one_key_value_head_is_multi_query_attention_and_is_read():
    """Gemma 2B's config.json: 8 query heads, 1 key/value head of 256 (multi-query): before,
    num_key_value_heads had to be >= 2 and the model was refused."""
    from pecli.core.errors import ParameterError
    from pecli.core.rope.permute import head_counts

    gemma = {
        "hidden_size": 2048,
        "num_attention_heads": 8,
        "num_key_value_heads": 1,
        "head_dim": 256,
    }
    assert head_counts(gemma) == (8, 1, 256)
    with pytest.raises(ParameterError, match="num_key_value_heads, an integer >= 1"):
        head_counts({**gemma, "num_key_value_heads": -1})
    with pytest.raises(ParameterError, match=r"head_dim \(or hidden_size\), an even integer >= 2"):
        head_counts({**gemma, "head_dim": 255})


def test_named_tensors_are_permuted_and_the_file_is_announced(run_cli, model):
    """--input with --tensor (no --config): wq of layer 0 with --heads 4 (num_attention_heads)
    becomes what transformers' converter made of it, and ``pecli: wrote OUT`` is said on
    stderr unless -q (the house rule of every command that writes a file)."""
    out = model / "out.safetensors"
    args = ["rope", "permute", "--heads", "4", "--input", str(model / "in.safetensors")]
    args += ["--tensor", hf_name(0, "q_proj"), "-o", str(out)]
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    assert f"pecli: wrote {out}" in result.stderr
    expected = FIXTURES[f"hf_{hf_name(0, 'q_proj')}"]
    np.testing.assert_array_equal(load_file(str(out))[hf_name(0, "q_proj")], expected)
    quiet = run_cli(*args, "-q")
    assert quiet.exit_code == 0 and "wrote" not in quiet.stderr, quiet.stderr


def test_one_attention_head_is_a_model():
    """A config of one query head (num_attention_heads 1, the least LlamaConfig allows) is read:
    head_dim = hidden_size // 1, and one key/value head by default; a head of one pair
    (head_dim 2) is the narrowest rope rotates. No head_dim and no hidden_size reads as 0."""
    from pecli.core.errors import ParameterError
    from pecli.core.rope.permute import head_counts

    assert head_counts({"hidden_size": 64, "num_attention_heads": 1}) == (1, 1, 64)
    assert head_counts({"head_dim": 2, "num_attention_heads": 1}) == (1, 1, 2)
    with pytest.raises(ParameterError, match=r"an even integer >= 2 \(got 0\)"):
        head_counts({"num_attention_heads": 1})


def test_a_scalar_named_beside_a_projection_has_no_rows(run_cli, tmp_path):
    """A 0-d tensor has no rows: named with wq (64 rows) under one --heads it is refused as a
    tensor of another height, counted as 0 rows (not 1), and nothing is written."""
    source, out = tmp_path / "in.safetensors", tmp_path / "out.safetensors"
    wq = FIXTURES["meta_layers.0.attention.wq.weight"]
    save_file({"scale": np.array(2.0, np.float32), "wq": wq}, str(source))
    args = ["rope", "permute", "--heads", "4", "--input", str(source), "-o", str(out)]
    result = run_cli(*args, "--tensor", "scale", "--tensor", "wq")
    assert result.exit_code == 2 and "(scale 0 rows, wq 64 rows)" in result.output
    assert not out.exists()


def test_a_scalar_has_zero_rows_so_heads_of_width_zero():
    """permute_rows of a 0-d array: no rows, so one head of 0 rows, refused as head_dim 0
    (not as a row count of 1 that 2 does not divide)."""
    from pecli.core.errors import ParameterError
    from pecli.core.rope.permute import permute_rows

    with pytest.raises(ParameterError, match=r"head_dim must be an even integer >= 2 \(got 0\)"):
        permute_rows(np.array(2.0), 1)


def test_a_tensor_of_no_bytes_a_row_is_copied_as_it_is(run_cli, model):
    """safetensors stores empty tensors (shape (3, 0), no data): the other tensors' copy
    carries it unchanged beside the permuted q and k (the converter's own fixture)."""
    tensors = load_file(str(model / "in.safetensors"))
    tensors["model.empty.weight"] = np.zeros((3, 0), np.float32)
    save_file(tensors, str(model / "in.safetensors"), metadata={"format": "pt"})
    result = permute(run_cli, model, "-q")
    assert result.exit_code == 0, result.output
    out = load_file(str(model / "out.safetensors"))
    assert out["model.empty.weight"].shape == (3, 0)
    expected = FIXTURES[f"hf_{hf_name(1, 'k_proj')}"]
    np.testing.assert_array_equal(out[hf_name(1, "k_proj")], expected)
