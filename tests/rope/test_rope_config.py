"""Reading a model's config.json as transformers 5 does: which dict wins, aliases, refusals.

The rules are transformers 5's (``RotaryEmbeddingConfigMixin.convert_rope_params_to_dict``:
``self.rope_parameters = rope_scaling or self.rope_parameters``, so an empty ``rope_scaling``
or ``rope_parameters`` is as good as none; GPT-NeoX's ``rotary_pct`` is its
``partial_rotary_factor``); the expected values are written out by hand from them.
"""

from __future__ import annotations

import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope.config import spec_from_config

HEAD = {"hidden_size": 256, "num_attention_heads": 4}  # head_dim 64


def _alias_notes(config: dict) -> list[str]:
    return [n for n in spec_from_config({**HEAD, **config})[1] if "'type'" in n]


def test_the_type_alias_is_said_only_when_type_stands_alone():
    assert _alias_notes({"rope_scaling": {"type": "linear", "factor": 2.0}}) == [
        "rope_type is given as 'type' (the transformers 4 alias): 'linear'"
    ]
    both = {"rope_scaling": {"type": "linear", "rope_type": "linear", "factor": 2.0}}
    assert _alias_notes(both) == []
    assert _alias_notes({"rope_theta": 5e5}) == []  # no rope dict at all: nothing was aliased
    assert _alias_notes({"rope_scaling": {"rope_type": "linear", "factor": 2.0}}) == []


def test_an_empty_rope_parameters_leaves_rope_scaling_in_force():
    """transformers: ``rope_scaling or rope_parameters``: ``{}`` is falsy, rope_scaling is read."""
    config = {
        **HEAD,
        "rope_theta": 10000.0,
        "rope_parameters": {},
        "rope_scaling": {"rope_type": "linear", "factor": 2.0},
    }
    spec, notes = spec_from_config(config)
    assert (spec.rope_type, spec.factor, spec.theta) == ("linear", 2.0, 10000.0)
    assert not any("rope_parameters" in n for n in notes)  # nothing to say about an empty dict


def test_an_empty_rope_scaling_leaves_rope_parameters_in_force():
    modern = {"rope_type": "linear", "factor": 4.0, "rope_theta": 5e5}
    config = {**HEAD, "rope_scaling": {}, "rope_parameters": modern}
    spec, notes = spec_from_config(config)
    assert (spec.rope_type, spec.factor, spec.theta) == ("linear", 4.0, 5e5)
    assert any(n.startswith("rope_parameters (transformers 5)") for n in notes)
    assert not any("disagree" in n for n in notes)


def test_empty_dicts_on_both_sides_are_the_default_rope_at_10000():
    spec, notes = spec_from_config({**HEAD, "rope_parameters": {}, "rope_scaling": {}})
    assert (spec.rope_type, spec.theta, spec.head_dim) == ("default", 10000.0, 64)
    assert "no rope_theta: transformers' default 10000 is used" in notes


def test_rotary_pct_is_gpt_neox_s_partial_rotary_factor():
    config = {"hidden_size": 512, "num_attention_heads": 4, "rotary_pct": 0.25}
    spec, notes = spec_from_config(config)
    assert (spec.head_dim, spec.partial_rotary_factor, spec.rotary_dim) == (128, 0.25, 32)
    assert "rotary_pct (GPT-NeoX) is the partial_rotary_factor" in notes
    inside = spec_from_config({**config, "partial_rotary_factor": 0.5})[0]
    assert inside.rotary_dim == 64  # partial_rotary_factor is read first; rotary_pct unused


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"rope_theta": 1e4}, "config needs head_dim, or hidden_size and num_attention_heads"),
        ({"hidden_size": 256, "rope_theta": 1e4}, "needs head_dim, or hidden_size and"),
        (
            {
                **HEAD,
                "rope_parameters": {
                    "full_attention": {"rope_type": "default"},
                    "sliding_attention": {"rope_type": "default"},
                },
            },
            "config has rope_parameters per layer type; pass one of them "
            "(got ['full_attention', 'sliding_attention'])",
        ),
    ],
    ids=["no-width", "no-heads", "per-layer-type"],
)
def test_a_config_without_one_reading_is_refused_as_the_config(config, words):
    with pytest.raises(ParameterError) as caught:
        spec_from_config(config, parameter="config")
    assert caught.value.parameter == "config" and words in str(caught.value)


def test_a_bad_seq_len_is_the_command_line_s_error_not_the_config_s():
    config = {
        **HEAD,
        "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
    }
    with pytest.raises(ParameterError) as caught:
        spec_from_config(config, seq_len=0, parameter="--config")
    assert caught.value.parameter == "seq_len"
    with pytest.raises(ParameterError) as caught:
        spec_from_config({**config, "max_position_embeddings": 0}, parameter="--config")
    assert caught.value.parameter == "--config"
    assert "field max_position_embeddings" in str(caught.value)


def test_one_attention_head_is_the_whole_hidden_size_and_zero_heads_are_refused():
    spec, notes = spec_from_config({"hidden_size": 64, "num_attention_heads": 1})
    assert spec.head_dim == 64
    assert "head_dim = hidden_size // num_attention_heads = 64 // 1" in notes
    with pytest.raises(ParameterError, match="field num_attention_heads must be an integer >= 1"):
        spec_from_config({"hidden_size": 64, "num_attention_heads": 0})
