"""What a model family's class decides when its config.json is silent.

A hub file omits what the model's config class fills in (GLM's ``partial_rotary_factor`` 0.5)
or what its modeling code hard-codes (Cohere's interleaved pairs). Each table below holds those
facts per ``model_type``; the values are those of transformers 5.25.0's classes, read from the
config each saves with no argument (the model-zoo corpus, tests/fixtures/libraries/model_zoo,
``default__<model_type>``) and from its rotary and attention classes. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "HALF_LOCAL_ATTENTION",
    "INTERLEAVED",
    "INTERLEAVE_BY_DEFAULT",
    "KNOWN_LAYER_TYPES",
    "NOPE_INTERVAL_DEFAULTS",
    "NO_ROPE_MODELS",
    "PARTIAL_DEFAULTS",
    "ROPE_ON_SLIDING_ONLY",
    "TEMPERATURE_NOPE",
    "no_rope_reason",
]

#: Text models with no rotary embedding at all (transformers 5.25's modeling code), and why.
NO_ROPE_MODELS = MappingProxyType(
    {
        "inkling2_text": "Inkling2's text layers have no rotary embedding: positions enter as a "
        "learned relative bias (d_rel, rel_extent), and its full (hybrid) layers scale the "
        "queries by 1 + log_scaling_alpha·ln(max((p + 1)/log_scaling_n_floor, 1)) "
        "(models/inkling2/modeling_inkling2.py Inkling2LogScale)",
        "glm5_next_text": "GLM-5 Next's decoder gives every layer position_embeddings=None "
        "(NoPE; Glm5NextTextConfig refuses a qk_rope_head_dim above 0; "
        "models/glm5_next/modeling_glm5_next.py)",
    }
)

#: ``partial_rotary_factor`` of the config class when the file does not give it.
PARTIAL_DEFAULTS = MappingProxyType(
    {
        "bamba": 0.5,
        "dots3_note_audio_encoder": 0.5,
        "glm": 0.5,
        "glm4": 0.5,
        "glm4_moe": 0.5,
        "glm4v_moe_text": 0.5,
        "glmasr_encoder": 0.5,
        "gpt_neox": 0.25,
        "mistral4": 0.5,
        "moonshine": 0.9,
        "moonshine_streaming": 0.8,
        "nemotron": 0.5,
        "nemotron3_5_transcribe_asr_audio": 0.5,
        "nemotron3_5_transcribe_word_timestamp": 0.5,
        "persimmon": 0.5,
        "phi": 0.5,
        "qwen3_5_text": 0.25,
        "qwen3_5_moe_text": 0.25,
        "qwen3_next": 0.25,
        "recurrent_gemma": 0.5,
        "stablelm": 0.25,
    }
)
#: Families whose attention rotates adjacent pairs (x[2i], x[2i+1]) rather than halves
#: (``rotate_every_two``, or a ``rotate_half`` on ``x[..., 0::2]`` / ``x[..., 1::2]`` with
#: ``repeat_interleave``d cos/sin, in their modeling files; tests/rope/test_rope_layouts.py).
INTERLEAVED = frozenset(
    {"codegen", "cohere", "cohere2", "cohere2_moe", "deepseek_v2", "ergo", "gptj", "glm_ocr_text"}
    | {"blt", "blt_global_transformer", "blt_local_decoder", "blt_local_encoder", "blt_patcher"}
    | {"deepseek_v4", "ernie4_5", "ernie4_5_moe", "ernie4_5_vl_moe_text", "glm", "glm4"}
    | {"glm4v_text", "helium", "moonshine", "moonshine_streaming"}
)
#: Families whose config class defaults ``rope_interleave`` to true: the checkpoint's rotated
#: channels come in adjacent pairs, which ``apply_rotary_pos_emb_interleave`` regroups into
#: halves before rotating (a config may set it false).
INTERLEAVE_BY_DEFAULT = frozenset(
    {"axk1", "deepseek_v3", "glm4_moe_lite", "mistral4", "sarvam_mla", "youtu"}
)
#: Families whose full-attention layers skip RoPE (``Cohere2Attention`` and
#: ``Exaone4Attention`` rotate only when the layer is sliding, if the model has sliding layers).
ROPE_ON_SLIDING_ONLY = frozenset({"cohere2", "cohere2_moe", "exaone4"})
#: Families whose attention rotates only on sliding layers whatever ``sliding_window`` holds
#: (``AfmoeAttention``: ``if self.is_local_attention``, the layer type's).
ROPE_ON_LOCAL_ONLY = frozenset({"afmoe"})
#: ``no_rope_layer_interval`` of the config class when the file gives neither it nor the list
#: (``SmolLM3Config``, ``Llama4TextConfig``, ``MistralLarge4TextConfig``: a NoPE layer every 4).
NOPE_INTERVAL_DEFAULTS = MappingProxyType(
    {"llama4_text": 4, "mistral_large4_text": 4, "smollm3": 4}
)
#: The layer types transformers 5.25 knows (``ALLOWED_LAYER_TYPES`` of
#: ``configuration_utils.py``, the legacy names its ``remap_legacy_layer_types`` renames, and
#: Dory's ``mlp``, which its class validates itself): another name is read, with a note.
KNOWN_LAYER_TYPES = frozenset(
    {
        "full_attention",
        "sliding_attention",
        "chunked_attention",
        "window_attention",
        "indexed_attention",
        "compressed_sparse_attention",
        "heavily_compressed_attention",
        "minimax_m3_sparse",
        "conv",
        "moe",
        "hybrid",
        "hybrid_sliding",
        "reference_sliding_attention",
        "linear_attention",
        "sparse",
        "dense",
        "mamba",
        "attention",
        "deepseek_sparse_attention",
        "qwen_sparse_attention",
        "mlp",
    }
)
#: ``global_attn_every_n_layers`` N by family, as (offset, the class's default N): layer i is
#: global iff (i + offset) % N == 0 — ModernBERT's first layer is global, AFMoE's N-th
#: (``ModernBertConfig`` / ``AfmoeConfig`` ``layer_types`` when the file has none).
GLOBAL_EVERY = MappingProxyType({"modernbert": (0, 3), "afmoe": (1, 4)})
#: Families whose sliding window is half their ``local_attention`` (``ModernBertConfig``'s
#: ``sliding_window`` property, ``ModernBertDecoderConfig.__post_init__``), with the class's
#: default ``local_attention``: the window a file without ``sliding_window`` gets.
HALF_LOCAL_ATTENTION = MappingProxyType({"modernbert": 128, "modernbert-decoder": 128})
#: Families whose NoPE layers scale the queries (``attn_temperature_tuning``: Llama 4).
TEMPERATURE_NOPE = frozenset({"llama4", "llama4_text"})


def no_rope_reason(section: Mapping[str, Any]) -> str | None:
    """Why the text model ``section`` has no RoPE at all, or None when it has some.

    A family of :data:`NO_ROPE_MODELS`, or a ``qk_rope_head_dim`` of 0 (no channel rotates).

    >>> no_rope_reason({"qk_rope_head_dim": 0, "qk_nope_head_dim": 256})
    'qk_rope_head_dim 0: no channel of the head rotates'
    >>> no_rope_reason({"head_dim": 128}) is None
    True
    """
    family = str(section.get("model_type"))
    for name in (family, f"{family}_text"):
        if name in NO_ROPE_MODELS:
            return NO_ROPE_MODELS[name]
    width = section.get("qk_rope_head_dim")
    if isinstance(width, int) and not isinstance(width, bool) and width == 0:
        return "qk_rope_head_dim 0: no channel of the head rotates"
    labels = section.get("rope_parameters")
    if not isinstance(labels, Mapping) or not labels:
        return None
    fields = any(str(k).startswith("rope_") or k in ("type", "factor") for k in labels)
    if not fields and all(v is None for v in labels.values()):
        return "rope_parameters: every layer type's rope is null"
    return None
