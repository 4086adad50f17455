"""Hub-style configs for the families of issue 31, each with where its values come from.

Used by ``generate_model_zoo.py``. Each :class:`Variant` is a config.json as the hub ships it
(the key shape of the transformers release it was written for: ``rope_theta`` +
``rope_scaling`` for transformers 4, ``rope_parameters`` for 5), loaded the way
``from_pretrained`` loads one (``CONFIG_MAPPING[model_type].from_dict``). A file is written
in full only where a source shows it; otherwise the rope keys come from the source and the
rest from the transformers config class, whose defaults mirror the checkpoint its
``@auto_docstring(checkpoint=...)`` names. ``source`` says which. A few *constructed* configs
(kind ``"constructed"``) are not a real checkpoint: they exercise one key of the ecosystem
(a float ``max_position_embeddings``, a non-default ``rotary_emb_base``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from transformers.models.auto.configuration_auto import CONFIG_MAPPING

DOCSTRING = "the transformers {cls} defaults, which mirror {ckpt} (its @auto_docstring checkpoint)"


@dataclass(frozen=True)
class Variant:
    """One hub-style config."""

    name: str
    given: dict[str, Any]
    source: str
    kind: str = "hub"

    @property
    def model_type(self) -> str:
        """The config's model type."""
        return str(self.given["model_type"])

    def make(self) -> Any:
        """The config as ``from_pretrained`` builds it from this file."""
        return CONFIG_MAPPING[self.model_type].from_dict(copy.deepcopy(self.given))


def _mirror(name: str, model_type: str, cls: str, ckpt: str, note: str = "") -> Variant:
    """A hub-style config that is the class defaults (which mirror ``ckpt``)."""
    return Variant(name, {"model_type": model_type}, DOCSTRING.format(cls=cls, ckpt=ckpt) + note)


def _sliding(n: int, every: int, last: str = "full_attention") -> list[str]:
    return [last if (i + 1) % every == 0 else "sliding_attention" for i in range(n)]


DEEPSEEK_V3_YARN = {
    "type": "yarn",
    "factor": 40,
    "beta_fast": 32,
    "beta_slow": 1,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096,
}
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "n_shared_experts": 1,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "n_group": 8,
    "topk_group": 4,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "max_position_embeddings": 163840,
    "rope_theta": 10000,
    "rope_scaling": DEEPSEEK_V3_YARN,
    "vocab_size": 129280,
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
SRC_DSV3 = (
    "DeepSeek-V3 config.json (huggingface.co/deepseek-ai/DeepSeek-V3-Base/blob/main/config.json), "
    "its values as listed in gist.github.com/vinhnx/40eaf98b4bb51f0770276020a690bad5 (heads 128, "
    "qk_rope 64, nope 128, hidden 7168, 61 layers, max 163840, rope_theta 10000, rope_scaling "
    "yarn factor 40, beta 32/1, mscale 1.0, mscale_all_dim 1.0, original 4096); the same keys in "
    "third-party test configs that cite huggingface.co/deepseek-ai/DeepSeek-R1-0528 config.json"
)
KIMI_K25_TEXT = {
    **{k: v for k, v in DEEPSEEK_V3.items() if k not in ("rope_scaling", "rope_theta")},
    "num_attention_heads": 64,
    "num_key_value_heads": 64,
    "n_routed_experts": 384,
    "first_k_dense_replace": 1,
    "n_group": 1,
    "topk_group": 1,
    "max_position_embeddings": 262144,
    "vocab_size": 163840,
    "rms_norm_eps": 1e-05,
    "rope_theta": 50000.0,
    "rope_parameters": {
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "factor": 64.0,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
        "rope_theta": 50000.0,
        "rope_type": "yarn",
        "type": "yarn",
    },
}
GEMMA3_4B_TEXT_V4 = {
    "model_type": "gemma3_text",
    "hidden_size": 2560,
    "intermediate_size": 10240,
    "num_hidden_layers": 34,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "query_pre_attn_scalar": 256,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "sliding_window": 1024,
    "sliding_window_pattern": 6,
    "max_position_embeddings": 131072,
}


def _gemma3_v5(v4: dict[str, Any], full: dict[str, Any]) -> dict[str, Any]:
    """A Gemma 3 text config of transformers 4 written in the transformers-5 key shape."""
    old = ("rope_theta", "rope_local_base_freq", "rope_scaling", "sliding_window_pattern")
    return {
        **{k: v for k, v in v4.items() if k not in old},
        "layer_types": _sliding(v4["num_hidden_layers"], v4["sliding_window_pattern"]),
        "rope_parameters": {
            "full_attention": {**full, "rope_theta": v4["rope_theta"]},
            "sliding_attention": {"rope_type": "default", "rope_theta": v4["rope_local_base_freq"]},
        },
    }


GEMMA3_4B_TEXT_V5 = _gemma3_v5(GEMMA3_4B_TEXT_V4, {"rope_type": "linear", "factor": 8.0})
GEMMA3_1B_V4 = {
    "architectures": ["Gemma3ForCausalLM"],
    "model_type": "gemma3_text",
    "hidden_size": 1152,
    "intermediate_size": 6912,
    "num_hidden_layers": 26,
    "num_attention_heads": 4,
    "num_key_value_heads": 1,
    "head_dim": 256,
    "query_pre_attn_scalar": 256,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "rope_scaling": None,
    "sliding_window": 512,
    "sliding_window_pattern": 6,
    "max_position_embeddings": 32768,
    "vocab_size": 262144,
}
GEMMA3_1B_V5 = _gemma3_v5(GEMMA3_1B_V4, {"rope_type": "default"})
SRC_GEMMA3 = (
    "google/gemma-3-{size} config.json as written for transformers 4 (rope_theta 1e6, "
    "rope_local_base_freq 1e4, sliding_window_pattern 6{scaling}); sizes from the Gemma 3 "
    "technical report's table (recalled, unverified here); the rope keys as issue 31 and "
    "mlx-vlm #1709 quote them"
)
EXAONE4_32B = {
    "architectures": ["Exaone4ForCausalLM"],
    "model_type": "exaone4",
    "hidden_size": 5120,
    "num_hidden_layers": 64,
    "num_attention_heads": 40,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "rope_scaling": {
        "factor": 16.0,
        "high_freq_factor": 4.0,
        "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "sliding_window": 4096,
    "sliding_window_pattern": "LLLG",
}
QWEN2_VL_7B = {
    "architectures": ["Qwen2VLForConditionalGeneration"],
    "model_type": "qwen2_vl",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "max_position_embeddings": 32768,
    "rope_theta": 1000000.0,
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vocab_size": 152064,
    "vision_config": {"depth": 32, "embed_dim": 1280, "num_heads": 16, "hidden_size": 3584},
}

VARIANTS: list[Variant] = [
    Variant("hub__deepseek_v3", DEEPSEEK_V3, SRC_DSV3),
    Variant(
        "hub__deepseek_v2_lite",
        {
            "architectures": ["DeepseekV2ForCausalLM"],
            "model_type": "deepseek_v2",
            "hidden_size": 2048,
            "intermediate_size": 10944,
            "moe_intermediate_size": 1408,
            "num_hidden_layers": 27,
            "num_attention_heads": 16,
            "num_key_value_heads": 16,
            "n_routed_experts": 64,
            "n_shared_experts": 2,
            "num_experts_per_tok": 6,
            "q_lora_rank": None,
            "kv_lora_rank": 512,
            "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64,
            "v_head_dim": 128,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 0.707,
                "mscale_all_dim": 0.707,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
            "vocab_size": 102400,
        },
        "deepseek-ai/DeepSeek-V2-Lite config.json: a dump of it loaded by transformers 5.7 "
        "(model report of /model/deepseek-ai/DeepSeek-V2-Lite in the code index) and the "
        "same rope_scaling in torchtitan / sglang test configs; written in its transformers-4 "
        "shape (rope_theta + rope_scaling with 'type')",
    ),
    Variant(
        "hub__deepseek_v32",
        {
            **DEEPSEEK_V3,
            "architectures": ["DeepseekV32ForCausalLM"],
            "model_type": "deepseek_v32",
            "index_head_dim": 128,
            "index_n_heads": 64,
            "index_topk": 2048,
        },
        SRC_DSV3 + "; plus the DSA indexer keys of DeepSeek-V3.2-Exp (index_head_dim 128, "
        "index_n_heads 64, index_topk 2048) as a serving engine's model table lists them",
    ),
    Variant(
        "hub__kimi_k25_text",
        KIMI_K25_TEXT,
        "moonshotai/Kimi-K2.5 text_config as transformers 5.7 prints it (a model report in "
        "the code index: deepseek_v3, 64 heads, qk_rope 64, rope_parameters yarn factor 64, "
        "beta 32/1, mscale 1.0/1.0, original 4096, rope_theta 50000, max 262144)",
    ),
    Variant(
        "hub__kimi_k2_beta1",
        {
            **KIMI_K25_TEXT,
            "max_position_embeddings": 131072,
            "rope_parameters": None,
            "rope_theta": 50000.0,
            "rope_scaling": {
                "type": "yarn",
                "factor": 32.0,
                "beta_fast": 1.0,
                "beta_slow": 1.0,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096,
            },
        },
        "Kimi K2 (moonshotai/Kimi-K2-Instruct) as recalled: rope_scaling yarn factor 32 with "
        "beta_fast = beta_slow = 1.0 (a third-party fixture 'pinned to the real container' "
        "also has beta 1/1, with factor 64); unverified against the hub file. It exercises "
        "YaRN's low == high ramp (transformers adds 0.001)",
    ),
    Variant(
        "hub__longcat_flash",
        {
            "architectures": ["LongcatFlashForCausalLM"],
            "model_type": "longcat_flash",
            "rope_theta": 10000000.0,
            "max_position_embeddings": 131072,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "kv_lora_rank": 512,
            "q_lora_rank": 1536,
            "v_head_dim": 128,
        },
        DOCSTRING.format(cls="LongcatFlashConfig", ckpt="meituan-longcat/LongCat-Flash-Chat")
        + ", with the rope keys in the hub's transformers-4 shape (rope_theta at top level)",
    ),
    Variant(
        "hub__glm4_7_flash",
        {
            "architectures": ["Glm4MoeLiteForCausalLM"],
            "model_type": "glm4_moe_lite",
            "rope_theta": 1000000.0,
        },
        DOCSTRING.format(
            cls="Glm4MoeLiteConfig", ckpt="zai-org/GLM-4.5 (GLM-4.7-Flash uses this class)"
        )
        + "; rope_theta 1e6 as recalled for zai-org/GLM-4.7-Flash (unverified)",
    ),
    Variant(
        "hub__minicpm3_4b",
        {
            "architectures": ["MiniCPM3ForCausalLM"],
            "model_type": "minicpm3",
            "qk_rope_head_dim": 32,
            "qk_nope_head_dim": 64,
            "rope_theta": 10000.0,
            "max_position_embeddings": 32768,
            "rope_scaling": {
                "type": "longrope",
                "short_factor": [1.0 + 0.05 * i for i in range(16)],
                "long_factor": [1.0 + 0.5 * i for i in range(16)],
                "original_max_position_embeddings": 32768,
            },
        },
        DOCSTRING.format(cls="MiniCPM3Config", ckpt="openbmb/MiniCPM3-4B")
        + "; the hub file's rope_scaling is longrope over qk_rope_head_dim 32 (16 factors); "
        "the factor values here are made up (the real lists were not found), their length is real",
    ),
    Variant(
        "hub__minimax_m2",
        {
            "architectures": ["MiniMaxM2ForCausalLM"],
            "model_type": "minimax_m2",
            "hidden_size": 3072,
            "num_hidden_layers": 62,
            "num_attention_heads": 48,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "rotary_dim": 64,
            "rope_theta": 5000000,
            "max_position_embeddings": 196608,
            "num_local_experts": 256,
            "num_experts_per_tok": 8,
            "intermediate_size": 1536,
            "vocab_size": 200064,
        },
        "MiniMaxAI/MiniMax-M2 config.json keys as third-party code quotes them (hidden 3072, "
        "62 layers, 48/8 heads, head_dim 128, rotary_dim 64, 256 experts); rope_theta 5e6 from "
        "issue 31 and the MiniMaxM2Config default",
    ),
    Variant(
        "hub__ministral3_8b",
        {
            "architectures": ["Mistral3ForConditionalGeneration"],
            "model_type": "mistral3",
            "text_config": {
                "model_type": "ministral3",
                "hidden_size": 4096,
                "num_hidden_layers": 34,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "head_dim": 128,
                "intermediate_size": 14336,
                "vocab_size": 131072,
                "rms_norm_eps": 1e-5,
                "max_position_embeddings": 262144,
                "rope_parameters": {
                    "rope_type": "yarn",
                    "rope_theta": 1000000,
                    "factor": 16.0,
                    "original_max_position_embeddings": 16384,
                    "beta_fast": 32.0,
                    "beta_slow": 1.0,
                    "llama_4_scaling_beta": 0.1,
                },
            },
            "vision_config": {"model_type": "pixtral"},
        },
        "mistralai/Ministral-3-8B-Instruct-2512 config.json as a serving engine's test quotes "
        "'the real 3B/8B fields' (mistral3 wrapper, ministral3 text_config, yarn factor 16, "
        "original 16384, llama_4_scaling_beta 0.1); Ministral3Config's own default rope "
        "parameters are the same (plus mscale 1.0 / mscale_all_dim 1.0)",
    ),
    Variant(
        "hub__mistral_small_4",
        {
            "architectures": ["Mistral3ForConditionalGeneration"],
            "model_type": "mistral3",
            "text_config": {"model_type": "mistral4"},
            "vision_config": {"model_type": "pixtral"},
        },
        DOCSTRING.format(cls="Mistral4Config", ckpt="mistralai/Mistral-Small-4-119B-2603")
        + " (yarn factor 128, original 8192, llama_4_scaling_beta in rope_parameters), in "
        "the mistral3 wrapper the hub uses",
    ),
    Variant(
        "hub__devstral_2_style",
        {
            "architectures": ["Mistral3ForConditionalGeneration"],
            "model_type": "mistral3",
            "text_config": {
                "model_type": "ministral3",
                "hidden_size": 12288,
                "num_hidden_layers": 88,
                "num_attention_heads": 96,
                "num_key_value_heads": 8,
                "head_dim": 128,
                "intermediate_size": 28672,
                "max_position_embeddings": 262144,
                "rope_parameters": {
                    "rope_type": "yarn",
                    "type": "yarn",
                    "rope_theta": 1000000.0,
                    "factor": 64.0,
                    "original_max_position_embeddings": 4096,
                    "beta_fast": 32.0,
                    "beta_slow": 1.0,
                    "mscale": 1.0,
                    "mscale_all_dim": 0.0,
                    "llama_4_scaling_beta": 0.1,
                },
            },
            "vision_config": {"model_type": "pixtral"},
        },
        "Devstral 2 / Mistral Medium 3.5 shape (ministral3 text_config, rope_parameters with "
        "'type' and 'rope_type', mscale_all_dim 0.0, llama_4_scaling_beta) as a Tenstorrent "
        "port's test of its vendored config.json checks them; the sizes and values are "
        "recalled (unverified); that port's Mistral Medium 3.5 ships beta 0",
    ),
    Variant(
        "hub__gemma3_1b_v4",
        GEMMA3_1B_V4,
        SRC_GEMMA3.format(size="1b-it", scaling=", rope_scaling null"),
    ),
    Variant(
        "hub__gemma3_1b_v5",
        GEMMA3_1B_V5,
        "the same Gemma 3 1B in the transformers-5 shape (layer_types; rope_parameters keyed "
        "by full_attention / sliding_attention)",
    ),
    Variant(
        "hub__gemma3_4b_v4",
        {
            "architectures": ["Gemma3ForConditionalGeneration"],
            "model_type": "gemma3",
            "text_config": GEMMA3_4B_TEXT_V4,
            "vision_config": {"model_type": "siglip_vision_model"},
        },
        SRC_GEMMA3.format(size="4b-it", scaling=", rope_scaling linear factor 8 in text_config"),
    ),
    Variant(
        "hub__gemma3_4b_v5",
        {
            "architectures": ["Gemma3ForConditionalGeneration"],
            "model_type": "gemma3",
            "text_config": GEMMA3_4B_TEXT_V5,
            "vision_config": {"model_type": "siglip_vision_model"},
        },
        "the same Gemma 3 4B in the transformers-5 shape",
    ),
    _mirror(
        "hub__gemma3n_e4b",
        "gemma3n_text",
        "Gemma3nTextConfig",
        "google/gemma-3n-E4B",
        " (the text model alone: the composite needs timm to build its vision tower)",
    ),
    _mirror(
        "hub__gemma4_e2b",
        "gemma4",
        "Gemma4Config",
        "google/gemma-4-e2b-it",
        " (per_layer_config head_dim 512 on full layers, proportional rope with partial 0.25)",
    ),
    Variant(
        "hub__smollm3_3b",
        {
            "architectures": ["SmolLM3ForCausalLM"],
            "model_type": "smollm3",
            "hidden_size": 2048,
            "num_hidden_layers": 36,
            "num_attention_heads": 16,
            "num_key_value_heads": 4,
            "max_position_embeddings": 65536,
            "rope_theta": 5000000.0,
            "no_rope_layer_interval": 4,
            "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(36)],
            "use_sliding_window": False,
        },
        DOCSTRING.format(cls="SmolLM3Config", ckpt="HuggingFaceTB/SmolLM3-3B")
        + "; rope_theta 5e6 and max 65536 as recalled for the released file (the class "
        "default is 2e6; unverified); no_rope_layers with 1 = RoPE, as the class builds it "
        "from no_rope_layer_interval and documents it (transformers #43756 quotes the hub "
        "list the other way round, [0, 0, 0, 1, ...]; unverified which the hub ships)",
    ),
    Variant(
        "constructed__smollm3_no_rope_layers_43756",
        {
            "architectures": ["SmolLM3ForCausalLM"],
            "model_type": "smollm3",
            "num_hidden_layers": 36,
            "rope_theta": 5000000.0,
            "no_rope_layers": [1 if (i + 1) % 4 == 0 else 0 for i in range(36)],
        },
        "constructed: SmolLM3 with no_rope_layers written as transformers #43756 reads the "
        "name (1 = NoPE): transformers applies RoPE where the list has 1, so 27 of 36 "
        "layers lose RoPE",
        kind="constructed",
    ),
    Variant(
        "hub__olmo3_7b",
        {
            "architectures": ["Olmo3ForCausalLM"],
            "model_type": "olmo3",
            "max_position_embeddings": 65536,
            "rope_theta": 500000,
            "rope_scaling": {
                "rope_type": "yarn",
                "factor": 8.0,
                "original_max_position_embeddings": 8192,
                "attention_factor": 1.2079441541679836,
                "beta_fast": 32,
                "beta_slow": 1,
            },
            "sliding_window": 4096,
            "layer_types": _sliding(32, 4),
        },
        DOCSTRING.format(cls="Olmo3Config", ckpt="allenai/Olmo-3-7B-Instruct")
        + "; the yarn rope_scaling of the long-context release as recalled (factor 8, "
        "original 8192, attention_factor 0.1 ln 8 + 1; unverified)",
    ),
    Variant(
        "hub__exaone4_32b",
        {**EXAONE4_32B, "layer_types": _sliding(64, 4)},
        "LGAI-EXAONE/EXAONE-4.0-32B (the Exaone4Config checkpoint): sliding_window_pattern "
        "'LLLG' as several ports' tests copy it from EXAONE 4 files, with layer_types; "
        "llama3 scaling factor 16 / original 8192 / rope_theta 1e6 as an ollama parser test "
        "of an EXAONE 4 file has them; sizes recalled (unverified)",
    ),
    Variant(
        "hub__exaone4_pattern_only",
        {
            "architectures": ["Exaone4ForCausalLM"],
            "model_type": "exaone4",
            "hidden_size": 2048,
            "intermediate_size": 4096,
            "num_hidden_layers": 30,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "max_position_embeddings": 65536,
            "rms_norm_eps": 1e-5,
            "sliding_window_pattern": "LLLG",
            "rope_theta": 1000000,
            "rope_scaling": {
                "factor": 16.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
            "vocab_size": 102400,
        },
        "an EXAONE 4 config.json as ollama's exaone4 parser test writes it ('exaone 4 "
        "top-level rope_scaling'): sliding_window_pattern 'LLLG' without layer_types",
    ),
    Variant(
        "hub__command_r7b",
        {
            "architectures": ["Cohere2ForCausalLM"],
            "model_type": "cohere2",
            "hidden_size": 4096,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "rope_theta": 50000.0,
            "sliding_window": 4096,
            "sliding_window_pattern": 4,
            "max_position_embeddings": 132096,
            "vocab_size": 256000,
        },
        "Command R7B (CohereForAI/c4ai-command-r7b-12-2024) sizes and rope as a port's model "
        "table lists them (head 128, rope_theta 50000, sliding_window 4096, pattern 4)",
    ),
    Variant(
        "hub__command_a",
        {
            "architectures": ["Cohere2ForCausalLM"],
            "model_type": "cohere2",
            "hidden_size": 12288,
            "num_hidden_layers": 64,
            "num_attention_heads": 96,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "rope_theta": 50000.0,
            "sliding_window": 4096,
            "sliding_window_pattern": 4,
            "max_position_embeddings": 131072,
            "vocab_size": 256000,
        },
        "Command A (CohereForAI/c4ai-command-a-03-2025) as the same port's table lists it",
    ),
    Variant(
        "hub__llama4_scout",
        {
            "architectures": ["Llama4ForConditionalGeneration"],
            "model_type": "llama4",
            "text_config": {
                "model_type": "llama4_text",
                "hidden_size": 5120,
                "num_hidden_layers": 48,
                "num_attention_heads": 40,
                "num_key_value_heads": 8,
                "head_dim": 128,
                "rope_theta": 500000.0,
                "rope_scaling": {
                    "factor": 16.0,
                    "high_freq_factor": 1.0,
                    "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
                "max_position_embeddings": 10485760,
                "attention_chunk_size": 8192,
                "attn_temperature_tuning": True,
                "floor_scale": 8192,
                "attn_scale": 0.1,
                "use_qk_norm": True,
                "no_rope_layers": [],
                "num_local_experts": 16,
                "interleave_moe_layer_step": 1,
            },
            "vision_config": {"model_type": "llama4_vision_model"},
        },
        DOCSTRING.format(cls="Llama4TextConfig", ckpt="meta-llama/Llama-4-Scout-17B-16E")
        + "; rope_scaling llama3 factor 16 with low_freq_factor = high_freq_factor = 1 and "
        "max 10485760 as issue 31 names them (recalled; unverified against the hub file)",
    ),
    Variant(
        "hub__deepseek_v4_flash",
        {
            "architectures": ["DeepseekV4ForCausalLM"],
            "model_type": "deepseek_v4",
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
        },
        DOCSTRING.format(cls="DeepseekV4Config", ckpt="deepseek-ai/DeepSeek-V4-Flash-Base")
        + ", in the legacy key shape the class converts (compress_ratios, qk_rope_head_dim, "
        "rope_scaling); ratio 0 on layers 0, 1 and 42 and YaRN f 16 / L 65536 as issue 31 and "
        "sglang #34788 state them; the 4/128 alternation of the middle layers is assumed",
    ),
    Variant(
        "hub__qwen3_next_80b",
        {
            "architectures": ["Qwen3NextForCausalLM"],
            "model_type": "qwen3_next",
            "rope_theta": 10000000,
            "partial_rotary_factor": 0.25,
            "full_attention_interval": 4,
            "max_position_embeddings": 262144,
        },
        DOCSTRING.format(cls="Qwen3NextConfig", ckpt="Qwen/Qwen3-Next-80B-A3B-Instruct")
        + "; rope_theta 1e7 and max 262144 as recalled for the hub file (unverified)",
    ),
    _mirror("hub__qwen3_5_27b", "qwen3_5", "Qwen3_5Config", "Qwen/Qwen3.5-27B"),
    Variant(
        "hub__gpt_oss_20b",
        {
            "architectures": ["GptOssForCausalLM"],
            "model_type": "gpt_oss",
            "hidden_size": 2880,
            "num_hidden_layers": 24,
            "num_attention_heads": 64,
            "num_key_value_heads": 8,
            "head_dim": 64,
            "rope_theta": 150000,
            "rope_scaling": {
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "factor": 32.0,
                "original_max_position_embeddings": 4096,
                "rope_type": "yarn",
                "truncate": False,
            },
            "sliding_window": 128,
            "layer_types": ["sliding_attention", "full_attention"] * 12,
            "max_position_embeddings": 131072,
            "num_local_experts": 32,
        },
        "openai/gpt-oss-20b config.json (the GptOssConfig checkpoint; yarn factor 32, "
        "truncate false, rope_theta 150000, 24 alternating layers) as recalled and as the "
        "rope area's gptoss_yarn case already uses it",
    ),
    Variant(
        "hub__gpt_neox_20b",
        {
            "architectures": ["GPTNeoXForCausalLM"],
            "model_type": "gpt_neox",
            "hidden_size": 6144,
            "num_hidden_layers": 44,
            "num_attention_heads": 64,
            "rotary_pct": 0.25,
            "rotary_emb_base": 10000,
            "max_position_embeddings": 2048,
            "vocab_size": 50432,
        },
        DOCSTRING.format(cls="GPTNeoXConfig", ckpt="EleutherAI/gpt-neox-20b")
        + ", written with the legacy keys the hub file uses (rotary_pct, rotary_emb_base)",
    ),
    Variant(
        "hub__pythia_410m",
        {
            "architectures": ["GPTNeoXForCausalLM"],
            "model_type": "gpt_neox",
            "hidden_size": 1024,
            "num_hidden_layers": 24,
            "num_attention_heads": 16,
            "rotary_pct": 0.25,
            "rotary_emb_base": 10000,
            "max_position_embeddings": 2048,
            "vocab_size": 50304,
        },
        "EleutherAI/pythia-410m as recalled (rotary_pct 0.25, rotary_emb_base 10000; unverified)",
    ),
    Variant(
        "constructed__gpt_neox_rotary_emb_base",
        {
            "architectures": ["GPTNeoXForCausalLM"],
            "model_type": "gpt_neox",
            "hidden_size": 1024,
            "num_hidden_layers": 4,
            "num_attention_heads": 16,
            "rotary_pct": 0.5,
            "rotary_emb_base": 500000,
            "max_position_embeddings": 8192,
        },
        "constructed: a GPT-NeoX file whose legacy rotary_emb_base is not 10000, so a reader "
        "that ignores the key is caught",
        kind="constructed",
    ),
    Variant(
        "hub__qwen2_vl_7b",
        QWEN2_VL_7B,
        DOCSTRING.format(cls="Qwen2VLConfig", ckpt="Qwen/Qwen2-VL-7B-Instruct")
        + "; the hub file's top-level text keys and rope_scaling {type: mrope, mrope_section "
        "[16, 24, 24]} (transformers-4 shape)",
    ),
    Variant(
        "hub__qwen2_5_vl_7b",
        {
            **QWEN2_VL_7B,
            "architectures": ["Qwen2_5_VLForConditionalGeneration"],
            "model_type": "qwen2_5_vl",
            "max_position_embeddings": 128000,
            "vision_config": {"depth": 32, "hidden_size": 1280, "out_hidden_size": 3584},
        },
        "Qwen/Qwen2.5-VL-7B-Instruct config.json shape: top-level text keys, rope_scaling "
        "{type: mrope, mrope_section [16, 24, 24]}, rope_theta 1e6, max 128000 (recalled)",
    ),
    Variant(
        "hub__phi3_5_moe",
        {
            "architectures": ["PhiMoEForCausalLM"],
            "model_type": "phimoe",
            "hidden_size": 4096,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {
                "type": "longrope",
                "short_factor": [1.0 + 0.01 * i for i in range(64)],
                "long_factor": [1.0 + 0.5 * i for i in range(64)],
                "short_mscale": 1.243163121016122,
                "long_mscale": 1.243163121016122,
                "original_max_position_embeddings": 4096,
            },
        },
        DOCSTRING.format(cls="PhimoeConfig", ckpt="microsoft/Phi-3.5-MoE-instruct")
        + "; rope_scaling longrope with short_mscale = long_mscale = 1.243163121016122 and "
        "original 4096 as several ports' tests copy them from the hub file; the 64 factors "
        "are made up (their length, head 128 / 2, is real)",
    ),
    Variant(
        "hub__jetmoe_8b",
        {
            "architectures": ["JetMoeForCausalLM"],
            "model_type": "jetmoe",
            "hidden_size": 2048,
            "num_hidden_layers": 24,
            "num_key_value_heads": 16,
            "kv_channels": 128,
            "rope_theta": 10000.0,
            "max_position_embeddings": 4096,
        },
        DOCSTRING.format(cls="JetMoeConfig", ckpt="jetmoe/jetmoe-8b")
        + " with the hub's 24 layers (recalled); kv_channels sets the head width",
    ),
    Variant(
        "hub__gptj_6b",
        {
            "architectures": ["GPTJForCausalLM"],
            "model_type": "gptj",
            "n_embd": 4096,
            "n_head": 16,
            "n_layer": 28,
            "n_positions": 2048,
            "rotary_dim": 64,
            "vocab_size": 50400,
        },
        DOCSTRING.format(cls="GPTJConfig", ckpt="EleutherAI/gpt-j-6B")
        + " (n_embd, n_head, rotary_dim)",
    ),
    Variant(
        "hub__codegen_350m_mono",
        {
            "architectures": ["CodeGenForCausalLM"],
            "model_type": "codegen",
            "n_embd": 1024,
            "n_head": 16,
            "n_layer": 20,
            "n_positions": 2048,
            "n_ctx": 2048,
            "rotary_dim": 32,
            "vocab_size": 51200,
        },
        "Salesforce/codegen-350M-mono as recalled (n_embd 1024, n_head 16, rotary_dim 32; "
        "unverified)",
    ),
    Variant(
        "hub__dbrx_instruct",
        {
            "architectures": ["DbrxForCausalLM"],
            "model_type": "dbrx",
            "d_model": 6144,
            "n_heads": 48,
            "n_layers": 40,
            "max_seq_len": 32768,
            "vocab_size": 100352,
            "attn_config": {"kv_n_heads": 8, "rope_theta": 500000, "clip_qkv": 8},
            "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4},
        },
        "databricks/dbrx-instruct config.json as the llama.cpp feature request for DBRX quotes "
        "it and ports' test configs copy it (attn_config {clip_qkv 8, kv_n_heads 8, "
        "rope_theta 500000}, d_model 6144, n_heads 48, n_layers 40, max_seq_len 32768, "
        "ffn_hidden_size 10752, 16 experts, top 4)",
    ),
    _mirror(
        "hub__moonshine_tiny",
        "moonshine",
        "MoonshineConfig",
        "UsefulSensors/moonshine-tiny",
        " (partial_rotary_factor 0.9 of head 36 → 32 rotated)",
    ),
    Variant(
        "hub__modernbert_base_v4",
        {
            "architectures": ["ModernBertForMaskedLM"],
            "model_type": "modernbert",
            "global_rope_theta": 160000.0,
            "local_rope_theta": 10000.0,
            "global_attn_every_n_layers": 3,
            "local_attention": 128,
            "max_position_embeddings": 8192,
        },
        DOCSTRING.format(cls="ModernBertConfig", ckpt="answerdotai/ModernBERT-base")
        + ", written with the transformers-4 keys the hub file has (global_rope_theta, "
        "local_rope_theta, global_attn_every_n_layers)",
    ),
    Variant(
        "constructed__llama_float_max_position",
        {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_hidden_layers": 4,
            "max_position_embeddings": 131072.0,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
        "constructed: Llama 3.1's rope keys with max_position_embeddings written as a float "
        "(131072.0), as some exported files carry it",
        kind="constructed",
    ),
]

#: Model types whose rotary module exists only behind a config switch, each with the switch.
OPTIONS: dict[str, dict[str, Any]] = {
    "esm": {"position_embedding_type": "rotary", "vocab_size": 33, "pad_token_id": 1},
    "zamba2": {"use_mem_rope": True},
    "granitemoehybrid": {"position_embedding_type": "rope"},
    "wav2vec2-conformer": {"position_embeddings_type": "rotary"},
    "wav2vec2-bert": {"position_embeddings_type": "rotary"},
    "seamless_m4t": {"position_embeddings_type": "rotary"},
}
for _model_type, _switch in OPTIONS.items():
    VARIANTS.append(
        Variant(
            f"option__{_model_type}",
            {"model_type": _model_type, **_switch},
            f"the {_model_type} defaults with the config switch that turns its rotary module "
            f"on: {_switch}",
            kind="option",
        )
    )


#: Facts read in transformers' source for one fixture, checked against its run.
FACTS: dict[str, list[str]] = {
    "hub__dbrx_instruct": [
        "transformers 5.25 ignores attn_config.rope_theta (500000 in the released DBRX files): "
        "DbrxAttentionConfig has no rope_theta field and DbrxConfig reads a top-level "
        "rope_theta only, so the rotary module uses theta 10000 (dbrx/configuration_dbrx.py "
        "DbrxAttentionConfig, DbrxConfig.__post_init__); a correct reader uses 500000",
    ],
    "hub__phi3_5_moe": [
        "PhimoeRotaryEmbedding.forward recomputes rope_init_fn(self.config) without seq_len, so "
        "the cos/sin use the short_factor frequencies at every length (inv_freq, not "
        "inv_freq_after_forward) while the scale switches to long_mscale above "
        "original_max_position_embeddings (phimoe/modeling_phimoe.py forward); the "
        "attention_scaling attribute (1.1902) is not the applied scale (1.2431631)",
    ],
    "hub__minimax_m2": [
        "transformers 5.25 reads the legacy rotary_dim: MiniMaxM2Config.convert_rope_params_to_"
        "dict sets partial_rotary_factor = rotary_dim / head_dim (64 of 128 rotate); releases "
        "before PR #48486 rotated all 128 (transformers #48241)",
    ],
    "hub__exaone4_pattern_only": [
        "Exaone4Config.__post_init__ computes (i + 1) % sliding_window_pattern when layer_types "
        "is absent, so the string pattern 'LLLG' raises TypeError",
    ],
    "hub__llama4_scout": [
        "no_rope_layers [] falls back to the default pattern (Llama4TextConfig.__post_init__: "
        "'self.no_rope_layers if self.no_rope_layers else default'): NoPE every 4th layer",
    ],
    "constructed__smollm3_no_rope_layers_43756": [
        "transformers reads no_rope_layers[i] as use_rope (1 = RoPE): this list, written the "
        "way transformers #43756 reads the name, leaves 27 of 36 layers without RoPE",
    ],
    "constructed__llama_float_max_position": [
        "transformers 5.25's strict config refuses a float max_position_embeddings",
    ],
}


def _declared_widths(doc: dict[str, Any]) -> dict[str, int]:
    """Width keys the config declares (given file, else saved file; text config included)."""
    found: dict[str, int] = {}
    config = doc.get("given_config") or doc["config_json"]
    for part in (config, config.get("text_config") or {}):
        for key in ("rotary_dim", "qk_rope_head_dim"):
            if isinstance(part.get(key), int):
                found[key] = part[key]
    return found


def facts(name: str, doc: dict[str, Any]) -> list[str]:
    """Facts worth a note on one fixture.

    The hand-checked ones of :data:`FACTS`, and any declared rotary width that no rotary module
    of the model produces.
    """
    notes = list(FACTS.get(name, []))
    widths = {t.get("rotated_width") for m in doc["modules"] for t in m["tables"]}
    for key, width in _declared_widths(doc).items():
        if width not in widths and (2 * width) not in widths:
            notes.append(
                f"the config declares {key} = {width}, but no rotary module produces that "
                f"width (rotated widths: {sorted(w for w in widths if w)})"
            )
    return notes


def _reason(result: dict[str, Any]) -> str:
    error = result.get("error", "")
    if "no model class takes" in error:
        return "no model of its own: a sub-config used inside another model type's model"
    if "requires the timm library" in error or "timm" in error:
        return (
            "its model needs timm (with a torchvision built for this torch), not installable here"
        )
    if error:
        return f"the default config cannot build or run its rotary module: {error}"
    if result.get("module_errors"):
        return "the default config cannot run its rotary module: " + result["module_errors"][0]
    if result.get("build", "").startswith("direct"):
        return (
            result["build"].removeprefix("direct: ")
            + "; no rotary class of its modeling files takes this config"
        )
    if result.get("modules"):
        return (
            "its rotary module(s) "
            + ", ".join(result["modules"])
            + " do not run on (x, position_ids) and hold no inv_freq, so there are no tables"
        )
    return "the model built from this config constructs no rotary module"


def classify(index: dict[str, Any]) -> None:
    """Give each model type of the index its ``status`` and, if not generated, ``reason``."""
    for entry in index["model_types"].values():
        default = entry.get("default", {})
        variants = entry.get("variants", [])
        written = [v["name"] for v in [default, *variants] if v.get("written")]
        entry["fixtures"] = written
        if default.get("written"):
            entry["status"] = "generated"
        elif written:
            entry["status"] = "generated from a variant"
            entry["reason_default"] = (
                _reason(default)
                if default
                else "not a candidate itself (its own modeling files do not mention rotary "
                "embeddings): a wrapper whose text model is another model type"
            )
        elif default:
            entry["status"] = "skipped"
            entry["reason"] = _reason(default)
