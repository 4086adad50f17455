"""Issue 31: a model's RoPE read right from every config shape the 2025-26 LLMs ship.

Each expected value is computed here with mpmath from the formula (θ^(-2k/d), Gemma's linear
÷8, …) or quoted from the issue's "Values to hit"; none comes from pecli. Each case failed on
the reader before this change (head 56 for DeepSeek, 128 rotated channels for MiniMax-M2,
Gemma 3's per-layer dicts refused, "mrope" refused, rotary_emb_base ignored, …).
"""

from __future__ import annotations

import mpmath
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import rope_frequencies
from pecli.core.rope.config import read_rope, spec_from_config
from pecli.core.rope.config.shapes import text_section

mpmath.mp.dps = 40


def omega(theta: float, k: int, d: int, factor: float = 1.0) -> float:
    """θ^(-2k/d) / factor, exact then rounded once."""
    return float(mpmath.mpf(theta) ** (-mpmath.mpf(2 * k) / d) / factor)


DEEPSEEK_V3 = {
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "rope_theta": 10000,
    "rope_scaling": {
        "type": "yarn",
        "factor": 40,
        "beta_fast": 32,
        "beta_slow": 1,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
    },
}
MINIMAX_M2 = {"head_dim": 128, "rotary_dim": 64, "rope_theta": 5e6, "hidden_size": 3072}
GEMMA3_4B_V5 = {
    "text_config": {
        "head_dim": 256,
        "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        },
    }
}
GEMMA3_4B_V4 = {
    "text_config": {
        "head_dim": 256,
        "rope_theta": 1e6,
        "rope_local_base_freq": 1e4,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    }
}


def test_deepseek_v3_rotates_qk_rope_head_dim_the_last_64_of_192():
    reading = read_rope(DEEPSEEK_V3)
    assert (reading.rotated, reading.head, reading.start) == (64, 192, 128)
    inv = rope_frequencies(reading.spec).inv_freq
    assert len(inv) == 32
    assert inv[1] == pytest.approx(0.7498942, abs=5e-8)
    assert inv[1] == pytest.approx(omega(1e4, 1, 64), rel=1e-15)


def test_minimax_m2_rotates_rotary_dim_64_of_its_128_channels():
    spec, notes = spec_from_config(MINIMAX_M2)
    inv = rope_frequencies(spec).inv_freq
    assert spec.rotary_dim == 64 and len(inv) == 32
    assert inv[1] == pytest.approx(0.617528758, abs=1e-9)
    assert inv[31] == pytest.approx(3.2387e-7, rel=1e-4)
    assert inv[1] == pytest.approx(omega(5e6, 1, 64), rel=1e-15)
    assert any("rotary_dim = 64" in note for note in notes)


@pytest.mark.parametrize("config", [GEMMA3_4B_V5, GEMMA3_4B_V4], ids=["transformers-5", "4"])
def test_gemma3_4b_global_and_sliding_layers(config):
    full = rope_frequencies(read_rope(config, "full_attention").spec).inv_freq
    local = rope_frequencies(read_rope(config, "sliding_attention").spec).inv_freq
    assert full[1] == pytest.approx(0.112210892, abs=1e-9)
    assert full[1] == pytest.approx(omega(1e6, 1, 256, 8.0), rel=1e-15)
    assert full[127] == pytest.approx(1.39246732e-7, rel=1e-8)
    assert local[1] == pytest.approx(0.930572041, abs=1e-9)
    assert local[127] == pytest.approx(1.07460783e-4, rel=1e-8)
    assert read_rope(config, "full_attention").path == "text_config"


def test_gemma3_without_a_label_names_the_labels():
    with pytest.raises(ParameterError, match="per layer type; pass one of them"):
        spec_from_config(GEMMA3_4B_V5)


def test_qwen2_vl_mrope_reads_as_default_frequencies():
    config = {
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "rope_theta": 1e6,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    }
    spec, notes = spec_from_config(config)
    assert (spec.rope_type, spec.rotary_dim) == ("default", 128)
    assert rope_frequencies(spec).inv_freq[1] == pytest.approx(omega(1e6, 1, 128), rel=1e-15)
    assert any("mrope" in note for note in notes)


def test_gpt_neox_rotary_emb_base_is_theta():
    config = {"hidden_size": 1024, "num_attention_heads": 16, "rotary_pct": 0.5}
    spec, _ = spec_from_config({**config, "rotary_emb_base": 500000})
    assert (spec.theta, spec.rotary_dim) == (500000, 32)


@pytest.mark.parametrize(
    ("config", "head", "rotated"),
    [
        ({"n_embd": 4096, "n_head": 16, "rotary_dim": 64}, 256, 64),  # GPT-J
        ({"d_model": 6144, "n_heads": 48, "attn_config": {"rope_theta": 5e5}}, 128, 128),  # DBRX
        ({"hidden_size": 2048, "num_attention_heads": 32, "kv_channels": 128}, 128, 128),  # JetMoE
        ({"model_type": "glm", "head_dim": 128}, 128, 64),  # GLM's class default 0.5
        ({"hidden_size": 288, "decoder_num_attention_heads": 8, "model_type": "moonshine"}, 36, 32),
    ],
    ids=["gptj", "dbrx", "jetmoe", "glm", "moonshine"],
)
def test_width_keys_of_every_family(config, head, rotated):
    reading = read_rope(config)
    assert (reading.head, reading.rotated) == (head, rotated)


def test_dbrx_theta_sits_in_attn_config():
    assert (
        spec_from_config({"d_model": 6144, "n_heads": 48, "attn_config": {"rope_theta": 5e5}})[
            0
        ].theta
        == 5e5
    )


def _phimoe(**mscales: float) -> dict:
    """A PhiMoE-shaped longrope config (d 128, 131072 positions over 4096) with these mscales."""
    factors = [1.0] * 64
    return {
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "rope_scaling": {
            "type": "longrope",
            "short_factor": factors,
            "long_factor": factors,
            **mscales,
            "original_max_position_embeddings": 4096,
        },
    }


def test_phimoe_scales_cos_and_sin_by_its_mscale():
    config = _phimoe(short_mscale=1.243163121016122, long_mscale=1.243163121016122)
    spec, notes = spec_from_config(config)
    assert rope_frequencies(spec).attention_factor == pytest.approx(1.2431631, abs=1e-7)
    assert not any("short_mscale is not used" in note for note in notes)


@pytest.mark.parametrize(
    ("seq_len", "factor"),
    # transformers' PhimoeRotaryEmbedding.forward: mscale = long_mscale if seq_len > original
    # else short_mscale; None falls back to longrope's sqrt(1 + ln s / ln L) with
    # s = 131072 / 4096 = 32 = 2^5, L = 2^12: sqrt(1 + 5/12) = sqrt(17/12)
    [(8192, 1.5), (2048, (17 / 12) ** 0.5)],
)
def test_phimoe_with_long_mscale_only_scales_past_the_original_length(seq_len, factor):
    spec, _ = spec_from_config(_phimoe(long_mscale=1.5), seq_len=seq_len)
    assert rope_frequencies(spec).attention_factor == pytest.approx(factor, rel=1e-15)


def test_llama4_scout_equal_band_factors_and_a_float_length_are_read():
    config = {
        "text_config": {
            "head_dim": 128,
            "rope_theta": 500000.0,
            "max_position_embeddings": 10485760.0,
            "rope_scaling": {
                "factor": 16.0,
                "high_freq_factor": 1.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        }
    }
    spec, _ = spec_from_config(config)
    inv = rope_frequencies(spec).inv_freq
    # wavelength < 8192: kept; above: ÷16 (no band between equal factors)
    assert inv[1] == pytest.approx(omega(5e5, 1, 128), rel=1e-15)
    assert inv[63] == pytest.approx(omega(5e5, 63, 128, 16.0), rel=1e-15)
    assert spec.max_position_embeddings == 10485760


def test_deepseek_v4_compress_yarn_values():
    config = {
        "num_hidden_layers": 43,
        "qk_rope_head_dim": 64,
        "rope_theta": 10000.0,
        "compress_rope_theta": 160000.0,
        "compress_ratios": [0, 0] + [4, 128] * 20 + [0],
        "rope_scaling": {
            "type": "yarn",
            "factor": 16,
            "original_max_position_embeddings": 65536,
            "beta_fast": 32,
            "beta_slow": 1,
        },
    }
    compress = rope_frequencies(read_rope(config, "compress").spec)
    assert compress.notes["correction_low"] == pytest.approx(15.4532953, abs=1e-7)
    assert compress.notes["correction_high"] == pytest.approx(24.7084238, abs=1e-7)
    assert compress.inv_freq[16] == pytest.approx(0.002265625, rel=1e-7)
    main = rope_frequencies(read_rope(config, "main").spec)
    assert main.inv_freq[16] == pytest.approx(omega(1e4, 16, 64), rel=1e-15)
    assert compress.attention_factor == 1.0


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"head_dim": 64, "rotary_dim": 128}, "field rotary_dim must be <= the head width 64"),
        ({"head_dim": 64, "rope_theta": -5.0}, "rope_theta"),
        ({"head_dim": 64, "rope_theta": float("nan")}, "rope_theta"),
        ({"head_dim": 64.5}, "field head_dim must be an integer >= 1"),
        ({"rope_theta": 1e4}, "needs head_dim, or hidden_size and num_attention_heads"),
        ({**DEEPSEEK_V3, "rope_theta": -5.0}, "field rope_theta must be a finite number > 1"),
        ({**DEEPSEEK_V3, "qk_rope_head_dim": 63}, "field qk_rope_head_dim must be even"),
    ],
    ids=[
        "rotary-over-head",
        "negative-theta",
        "nan-theta",
        "fractional-head",
        "no-width",
        "rotated-key-and-theta",  # the rotated key names the width's error, not θ's
        "odd-rotated-key",
    ],
)
def test_a_bad_config_is_one_line_naming_the_key(config, words):
    with pytest.raises(ParameterError) as caught:
        spec_from_config(config)
    assert caught.value.parameter == "config" and words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_layer_type_without_parameters_is_named():
    config = {"head_dim": 64, "rope_parameters": {"full_attention": {"rope_theta": 1e4}}}
    with pytest.raises(ParameterError, match="no rope parameters for 'sliding_attention'"):
        read_rope(config, "sliding_attention")


#: Model types whose class default rotates part of the head but that PARTIAL_DEFAULTS leaves
#: out, each with why (the population: tests/fixtures/libraries/layouts/partial_defaults.json).
NOT_BY_DEFAULT = {
    "deepseek_v4": "its rotated width is qk_rope_head_dim, read from the config (the corpus test)",
    "musicflamingo": "an audio model, not a text model's RoPE",
}


def test_partial_rotary_defaults_are_transformers_class_defaults():
    import json
    from pathlib import Path

    from pecli.core.rope.config.families import PARTIAL_DEFAULTS

    fixture = Path(__file__).resolve().parent.parent / "fixtures/libraries/layouts"
    record = json.loads((fixture / "partial_defaults.json").read_text())
    library = record["defaults"]  # transformers 5.25.0: every config class's own default
    assert dict(PARTIAL_DEFAULTS) == {t: f for t, f in library.items() if t not in NOT_BY_DEFAULT}
    assert set(NOT_BY_DEFAULT) <= set(library)


def test_an_empty_text_config_is_no_language_model_but_a_path_given_is_taken():
    """``text_config: {}`` (a multimodal class's unset default) holds nothing: the top level is
    the language model. A path the caller names is taken even when empty."""
    from pecli.core.rope.config.shapes import text_section

    config = {"rope_theta": 1e6, "head_dim": 64, "text_config": {}}
    assert text_section(config) == ("", config)
    assert text_section(config, "text_config") == ("text_config", {"rope_theta": 1e6})


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"model_type": "gemma3", "text_config": [1, 2]}, "text_config"),
        ({"model_type": "qwen2_5_omni", "thinker_config": {"text_config": 3}}, None),
    ],
)
def test_a_text_model_key_that_holds_no_object_is_named(config, field):
    """A list under ``text_config`` was passed over: the top level was read and refused as
    needing head_dim, "model_type 'gemma3' is no config class pecli knows", true of the
    composite and beside the point. The key is named instead."""
    field = field or "thinker_config.text_config"
    with pytest.raises(ParameterError) as refused:
        text_section(config)
    assert refused.value.rule == f"field {field} must be an object (the text model's config)"


@pytest.mark.parametrize("key", ["llm_config", "decoder", "language_config"])
def test_another_text_key_that_holds_no_object_is_passed_over(key):
    """transformers ignores ``"decoder": true`` or ``"llm_config": 5`` on a model that does
    not read them: the top level is the text model, as before."""
    path, section = text_section({key: 5, "head_dim": 64, "rope_theta": 1e4})
    assert path == "" and section["head_dim"] == 64
