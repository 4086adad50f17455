"""The widths, layer count and window a config class holds when its config.json omits them.

A hub file names what differs from its config class (transformers 4's ``save_pretrained`` wrote
a nested ``text_config`` as its diff from the class: Gemma 3's names five or six keys), and
transformers fills the rest from the class's field defaults: ``head_dim``, ``hidden_size``,
``num_attention_heads``, ``num_hidden_layers``, ``sliding_window``, the latent widths
(``qk_nope_head_dim`` / ``qk_rope_head_dim``) and a few families' own keys. :data:`FIELD_DEFAULTS`
holds those defaults per ``model_type``: the dataclass field defaults of transformers 5.25.0's
``models/*/configuration_*.py`` (values only; a field the class derives in ``__post_init__``, such
as Llama's ``head_dim = hidden_size // num_attention_heads``, is left to the reader, which derives
it the same way). The layer types the class derives are :mod:`.class_layers`'; θ and the rope are
:mod:`.class_defaults`'; ``partial_rotary_factor`` is
:data:`~pecli.core.rope.config.families.PARTIAL_DEFAULTS`'. tests/rope/test_class_defaults_fields.py
reads every model type's bare file through them and compares with what transformers 5.25.0 held
(tests/fixtures/libraries/class_defaults, tools/library_fixtures/generate_class_defaults.py).
Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["FIELD_DEFAULTS", "FILLED", "no_class", "with_class_fields"]

#: The key of a section that names the fields :func:`with_class_fields` filled in.
FILLED = "_class_fields"


def _f(
    hidden_size: int | None = None,
    num_attention_heads: int | None = None,
    num_hidden_layers: int | None = None,
    **others: Any,
) -> Mapping[str, Any]:
    """One class's defaults: the model width, the query heads, the layers and other fields."""
    found = {
        "hidden_size": hidden_size,
        "num_attention_heads": num_attention_heads,
        "num_hidden_layers": num_hidden_layers,
        **others,
    }
    return MappingProxyType({k: v for k, v in found.items() if v is not None})


#: Gemma 4's full-attention head: ``__post_init__`` takes the kwarg ``global_head_dim`` (512 by
#: default) into ``per_layer_config`` (:func:`.shapes.label_section` reads either).
_GLOBAL_512 = {"global_head_dim": 512}
#: The field defaults of each config class, by ``model_type`` (transformers 5.25.0).
FIELD_DEFAULTS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "afmoe": _f(2048, 16, 32, head_dim=128, sliding_window=1024),
        "apertus": _f(4096, 32, 32),
        "apertus1p5_text": _f(4096, 32, 32),
        "arcee": _f(2560, 32, 32),
        "aria_text": _f(4096, 32, 32),
        "axk1": _f(7168, 64, 61, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "axk2": _f(2048, 32, 48, head_dim=64, qk_nope_head_dim=64, qk_rope_head_dim=32),
        "bailing_hybrid": _f(2560, 32, 42, head_dim=128, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "bamba": _f(4096, 32, 32),
        "beam": _f(5120, 48, 52, head_dim=128, sliding_window=512),
        "bitnet": _f(2560, 20, 30),
        "blt_global_transformer": _f(2048, 16, 25),
        "blt_local_decoder": _f(1024, 16, 9),
        "blt_local_encoder": _f(1024, 16, 1),
        "blt_patcher": _f(768, 12, 14, sliding_window=512),
        "chameleon": _f(4096, 32, 32),
        "cohere": _f(8192, 64, 40),
        "cohere2": _f(8192, 64, 40, sliding_window=4096),
        "cohere2_moe": _f(
            8192, 64, 40, head_dim=128, sliding_window=4096, sliding_window_pattern=4
        ),
        "cohere_compass_vision": _f(1152),
        "cosmos3_edge_text": _f(2048, 16, 28, head_dim=128),
        "csm": _f(2048, 32, 16),
        "csm_depth_decoder_model": _f(1024, 8, 4),
        "cwm": _f(6144, 48, 64, head_dim=128, sliding_window=8192),
        "dbrx": _f(d_model=2048, n_heads=16, n_layers=24),
        "deepseek_ocr2_encoder": _f(4096, 32, 32, sliding_window=4096),
        "deepseek_ocr2_text": _f(4096, 32, 32),
        "deepseek_v2": _f(4096, 32, 32, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "deepseek_v3": _f(7168, 128, 61, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "deepseek_v32": _f(7168, 128, 61, head_dim=64, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "deepseek_v4": _f(4096, 64, 43, head_dim=512, sliding_window=128),
        "dia_decoder": _f(2048, 16, 18, head_dim=128),
        "dia_encoder": _f(1024, 16, 12, head_dim=128),
        "diffllama": _f(2048, 32, 16),
        "diffusion_gemma_text": _f(2304, 8, 30, head_dim=256, sliding_window=512, **_GLOBAL_512),
        "doge": _f(1024, 8, 32),
        "dory": _f(2560, 16, 36, head_dim=256, sliding_window=1024),
        "dots1": _f(4608, 32, 62, sliding_window=4096),
        "dots3_note_audio_encoder": _f(1280, 20, 32),
        # sliding_window: __post_init__ takes the kwarg sliding_window_size, 512 by default
        "dots3_note_text": _f(
            5120,
            128,
            46,
            head_dim=256,
            qk_nope_head_dim=128,
            qk_rope_head_dim=64,
            sliding_window=512,
        ),
        "dots3_note_vision_encoder": _f(1536, 24, 42),
        "efficientloftr": _f(256, 8),
        "embedding_gemma2_text": _f(512, 4, 24, head_dim=256, sliding_window=512, **_GLOBAL_512),
        "emu3_text_model": _f(4096, 32, 32),
        "eomt_dinov3": _f(1024, 16, 24),
        "ergo": _f(8192, 64, 64, sliding_window=512),
        "ernie4_5": _f(1024, 16, 18, head_dim=128),
        "ernie4_5_moe": _f(2560, 20, 28),
        "ernie4_5_vl_moe_text": _f(2560, 20, 28),
        "ernie4_5_vl_moe_vision": _f(1280),
        "esmc": _f(2560, 40, 80),
        "eurobert": _f(768, 12, 12),
        "evolla": _f(4096, 32, 32),
        "exaone": _f(4096, 32, 32),
        "exaone4": _f(4096, 32, 32, sliding_window=4096, sliding_window_pattern=4),
        "exaone4_5_vision": _f(3584),
        "exaone_moe": _f(4096, 32, 32, sliding_window=4096, sliding_window_pattern=4),
        "falcon": _f(4544, 71, 32),
        "falcon_h1": _f(4096, 32, 32),
        "flex_olmo": _f(4096, 32, 32),
        "flint": _f(2048, 32, 49, head_dim=128, sliding_window=513),
        "gemma": _f(3072, 16, 28, head_dim=256),
        "gemma2": _f(2304, 8, 26, head_dim=256, sliding_window=4096),
        "gemma3_text": _f(2304, 8, 26, head_dim=256, sliding_window=4096),
        "gemma3n_text": _f(2048, 8, 35, head_dim=256, sliding_window=512),
        "gemma4_text": _f(2304, 8, 30, head_dim=256, sliding_window=512, **_GLOBAL_512),
        "gemma4_unified_text": _f(2304, 8, 30, head_dim=256, sliding_window=1024, **_GLOBAL_512),
        "gemma4_vision": _f(768, 12, 16, head_dim=64),
        "glm": _f(4096, 32, 40, head_dim=128),
        "glm4": _f(4096, 32, 40, head_dim=128),
        "glm4_moe": _f(4096, 96, 46),
        "glm4_moe_lite": _f(2048, 20, 47, qk_nope_head_dim=192, qk_rope_head_dim=64),
        "glm4v_moe_text": _f(4096, 96, 46),
        "glm4v_moe_vision": _f(1536),
        "glm4v_text": _f(4096, 32, 40),
        "glm4v_vision": _f(1536),
        "glm5_next_vision": _f(1024),
        "glm_image_text": _f(4096, 32, 40),
        "glm_moe_dsa": _f(6144, 64, 78, head_dim=64, qk_nope_head_dim=192, qk_rope_head_dim=64),
        "glm_ocr_text": _f(1024, 16, 16),
        "glm_ocr_vision": _f(1024),
        "glmasr_encoder": _f(1280, 20, 32),
        "gpt_neox": _f(6144, 64, 44),
        "gpt_neox_japanese": _f(2560, 32, 32),
        "gpt_oss": _f(2880, 64, 36, head_dim=64, sliding_window=128),
        "gradium_phonon_tts": _f(768, 12, 6),
        "granite": _f(4096, 32, 32),
        "granite4_vision_text": _f(4096, 32, 32),
        "granite_docling_text": _f(1024, 16, 28),
        "granite_swa": _f(2560, 20, 24, sliding_window=128),
        "granitemoe": _f(4096, 32, 32),
        "granitemoe_swa": _f(4096, 32, 32, sliding_window=128),
        "granitemoehybrid": _f(4096, 32, 32),
        "granitemoeshared": _f(4096, 32, 32),
        "gte": _f(768, 12, 12),
        "helium": _f(2560, 20, 24, head_dim=128),
        "higgs_audio_v2": _f(3072, 24, 28, head_dim=128),
        "hrm_text": _f(1536, 12, 16, head_dim=128),
        "hunyuan_v1_dense": _f(4096, 32, 32),
        "hunyuan_v1_moe": _f(4096, 32, 32),
        "hunyuan_vl_text": _f(4096, 32, 32),
        "hy_v3": _f(4096, 64, 80, head_dim=128),
        "hy_v4": _f(2816, 32, 34, head_dim=256, qk_nope_head_dim=192, qk_rope_head_dim=64),
        "hy_v4_vl_text": _f(6144, 64, 78, head_dim=256, qk_nope_head_dim=192, qk_rope_head_dim=64),
        "hyperclovax": _f(4096, 32, 32),
        "idefics": _f(4096, 32, 32),
        "inkling2_vision": _f(1024, 16, 23),
        "internlm3": _f(4096, 32, 48, head_dim=128),
        "iquestcoder": _f(5120, 40, 80, head_dim=128),
        "jais2": _f(3328, 26, 32),
        "jetmoe": _f(2048, None, 12, kv_channels=128),
        "jina_embeddings_v3": _f(1024, 16, 24),
        "kimi_k25_vision": _f(1152, 16, 27),
        "kolibri1": _f(2560, 48, 50, head_dim=128, sliding_window=513),
        "kolibri1_1": _f(2560, 48, 50, head_dim=128, sliding_window=513),
        "kyutai_speech_to_text": _f(2048, 32, 48, sliding_window=375),
        "laguna": _f(2048, 48, 40, head_dim=128, sliding_window=512),
        "lara_mini": _f(1024, 16, 34, head_dim=128, sliding_window=512),
        "lasr_encoder": _f(512, 8, 17),
        "lfm2": _f(2560, 32, 32),
        "lfm2_moe": _f(2048, 32, 32),
        "lfm3": _f(2048, 16, 24, head_dim=128, sliding_window=256),
        "lfm3_vl_vision": _f(1024, 16, 14),
        "llama": _f(4096, 32, 32),
        "llama4_text": _f(5120, 40, 48, attention_chunk_size=8192, head_dim=128),
        "llama4_vision_model": _f(768, 16, 34),
        "llava_onevision1_5_vision": _f(1024),
        "longcat_flash": _f(
            6144, 64, head_dim=64, num_layers=28, qk_nope_head_dim=128, qk_rope_head_dim=64
        ),
        "mellum": _f(2304, 32, 28, head_dim=128, sliding_window=1024),
        "mimi": _f(512, 8, 8, sliding_window=250),
        "mimi_decoder": _f(512, 8, 8, sliding_window=250),
        "mimi_encoder": _f(512, 8, 8, sliding_window=250),
        "mimo_v2_flash": _f(4096, 64, 48, head_dim=192, sliding_window=129),
        "minicpm3": _f(2560, 40, 62, qk_nope_head_dim=64, qk_rope_head_dim=32),
        "minicpm5_moe": _f(2048, 32, 28, head_dim=128),
        "minimax": _f(4096, 32, 32),
        "minimax_m2": _f(3072, 48, 62, head_dim=128),
        "minimax_m3_vl_text": _f(6144, 64, 60, head_dim=128, rotary_dim=64),
        "minimax_m3_vl_vision": _f(1280, 16, 32),
        "ministral": _f(4096, 32, 32, sliding_window=4096),
        "ministral3": _f(4096, 32, 34, head_dim=128),
        "mistral": _f(4096, 32, 32, sliding_window=4096),
        "mistral4": _f(4096, 32, 36, qk_nope_head_dim=64, qk_rope_head_dim=64),
        "mistral_large4_text": _f(
            6144, 64, 72, head_dim=64, qk_nope_head_dim=64, qk_rope_head_dim=64
        ),
        "mixtral": _f(4096, 32, 32),
        "mlcd_vision_model": _f(1664, 16, 48),
        "mllama_text_model": _f(4096, 32, 40),
        "modernbert": _f(768, 12, 22),
        "modernbert-decoder": _f(768, 12, 22),
        "molmo2_text": _f(4096, 32, 36, head_dim=128),
        "moonshine": _f(288, decoder_num_attention_heads=8),
        "moonshine_streaming": _f(320, 8, 6),
        "moshi": _f(4096, 32, 32, sliding_window=3000),
        "muse_glimmer_assistant": _f(6656, 32, 5, head_dim=128, sliding_window=2048),
        "muse_glimmer_text": _f(6656, 32, 52, head_dim=128, sliding_window=2048),
        "muse_glimmer_vision": _f(1536, 16, 50),
        "muse_spark_text": _f(8192, 128, 62, head_dim=64, sliding_window=2048),
        "muse_spark_vision": _f(1536, 16, 50),
        "nanochat": _f(768, 6, 12),
        "nemotron": _f(6144, 48, 32),
        "nemotron3_5_transcribe_asr_audio": _f(1280, 10, 32),
        "nemotron3_5_transcribe_word_timestamp": _f(1280, 16, 2),
        "nemotron3_diarization_audio": _f(512, 8, 31),
        "neomme": _f(1024, 16, 17, head_dim=64, sliding_window=256),
        "neucodec": _f(1024, 16, 12, head_dim=64),
        "nomic_bert": _f(768, 12, 12),
        "olmo": _f(4096, 32, 32),
        "olmo2": _f(4096, 32, 32),
        "olmo3": _f(4096, 32, 32, sliding_window=4096),
        "olmo_hybrid": _f(3840, 30, 32),
        "olmoe": _f(2048, 16, 16),
        "openai_privacy_filter": _f(640, 14, 8, head_dim=64, sliding_window=128),
        "ovis2_5_vision": _f(1152, 16, 27),
        "paddleocr_vl_text": _f(1024, 16, 18, head_dim=128),
        "paddleocr_vl_vision": _f(1152, 16, 27),
        "param2moe": _f(2048, 32, 21, head_dim=64),
        "pe_audio_encoder": _f(1792, 14, 6, head_dim=128),
        "pe_audio_video_encoder": _f(1792, 14, 6, head_dim=128),
        "pe_video_encoder": _f(1792, 14, 6, head_dim=128),
        "persimmon": _f(4096, 64, 36),
        "phi": _f(2048, 32, 24),
        "phi3": _f(3072, 32, 32),
        "phi4_multimodal": _f(3072, 32, 32),
        "phimoe": _f(4096, 32, 32),
        "pixtral": _f(1024, 16, 24),
        "pocket_tts": _f(1024, 16, 6),
        "pocket_tts_audio_tokenizer": _f(512, 8, 2, sliding_window=250),
        "pocket_tts_audio_tokenizer_decoder": _f(512, 8, 2, sliding_window=250),
        "pocket_tts_audio_tokenizer_encoder": _f(512, 8, 2, sliding_window=250),
        "qwen2": _f(4096, 32, 32, sliding_window=4096),
        "qwen2_5_omni_dit": _f(1024, 16, 22, head_dim=64),
        "qwen2_5_omni_talker": _f(3584, 28, 28, head_dim=128, sliding_window=32768),
        "qwen2_5_omni_text": _f(3584, 28, 28, sliding_window=32768),
        "qwen2_5_omni_vision_encoder": _f(3584),
        "qwen2_5_vl_text": _f(8192, 64, 80, sliding_window=4096),
        "qwen2_5_vl_vision": _f(3584),
        "qwen2_moe": _f(2048, 16, 24, sliding_window=4096),
        "qwen2_vl_text": _f(8192, 64, 80, sliding_window=4096),
        "qwen2_vl_vision": _f(3584),
        "qwen3": _f(4096, 32, 32, head_dim=128, sliding_window=4096),
        "qwen3_5_moe_text": _f(2048, 16, 40, head_dim=256),
        "qwen3_5_moe_vision": _f(1152),
        "qwen3_5_text": _f(4096, 16, 32, head_dim=256),
        "qwen3_5_vision": _f(1152),
        "qwen3_moe": _f(2048, 32, 24, sliding_window=4096),
        "qwen3_next": _f(2048, 16, 48, head_dim=256),
        "qwen3_omni_moe_talker_code_predictor": _f(1024, 16, 5, head_dim=128),
        "qwen3_omni_moe_talker_text": _f(1024, 16, 20),
        "qwen3_omni_moe_text": _f(2048, 28, 28),
        "qwen3_omni_moe_vision_encoder": _f(1152),
        "qwen3_vl_moe_text": _f(2048, 16, 24),
        "qwen3_vl_moe_vision": _f(1152),
        "qwen3_vl_text": _f(4096, 32, 32, head_dim=128),
        "qwen3_vl_vision": _f(1152),
        "qwen4_exp_text": _f(2048, 16, 40, head_dim=256),
        "qwen4_exp_vision": _f(1152),
        "recurrent_gemma": _f(2560, 10, 26),
        "sam3_vit_model": _f(1024, 16, 32),
        "sarvam_mla": _f(4096, 64, 32, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "sarvam_moe": _f(4096, 64, 19, head_dim=64),
        "seed_oss": _f(4096, 80, 64, head_dim=128),
        "smollm3": _f(2048, 16, 36),
        "solar_open": _f(4096, 64, 48, head_dim=128),
        "stablelm": _f(2560, 32, 32),
        "starcoder2": _f(3072, 24, 30),
        "step3p5": _f(4096, 64, 45, head_dim=128),
        "step3p5_vision": _f(1536, 16, 47),
        "t5_gemma_module": _f(2304, 8, 26, head_dim=256, sliding_window=4096),
        "t5gemma2_decoder": _f(2304, 8, 26, head_dim=256, sliding_window=4096),
        "t5gemma2_text": _f(2304, 8, 26, head_dim=256, sliding_window=4096),
        "timesfm2_5": _f(1280, 16, 20, head_dim=80),
        "ultrabert": _f(4096, 32, 32, sliding_window=128),
        "unlimited_ocr_text": _f(1280, 10, 12, sliding_window=128),
        "vaultgemma": _f(2304, 8, 26, head_dim=256, sliding_window=4096),
        "video_llama_3_vision": _f(768, 12, 12),
        "voxtral_realtime_encoder": _f(1280, 32, 32, head_dim=64, sliding_window=750),
        "voxtral_realtime_text": _f(4096, 32, 32, sliding_window=4096),
        "xcodec2": _f(1024, 16, 12, head_dim=64),
        "youtu": _f(2048, 16, 32, qk_nope_head_dim=128, qk_rope_head_dim=64),
        "zamba2": _f(2560, 32, 54),
        "zaya": _f(2048, 8, 40, head_dim=128),
    }
)


def no_class(section: Mapping[str, Any]) -> str:
    """Why no class filled a missing field in: `` (model_type 'x' is …)``, or ``""``.

    >>> no_class({"model_type": "nonexistent"})
    " (model_type 'nonexistent' is no config class pecli knows the defaults of)"
    >>> no_class({"model_type": "llama"}), no_class({})
    ('', '')
    """
    model_type = section.get("model_type")
    if model_type is None or model_type in FIELD_DEFAULTS:
        return ""
    return f" (model_type {model_type!r} is no config class pecli knows the defaults of)"


def with_class_fields(section: Mapping[str, Any]) -> dict[str, Any]:
    """``section`` with the fields of its config class that it does not name.

    The keys filled are listed under :data:`FILLED` (for the reader's note). A key the file
    names, even as null, is the file's.

    Examples
    --------
    >>> filled = with_class_fields({"model_type": "gemma3_text", "num_hidden_layers": 34})
    >>> filled["head_dim"], filled["num_hidden_layers"], filled[FILLED][:2]
    (256, 34, ('head_dim', 'hidden_size'))
    >>> with_class_fields({"head_dim": 64})
    {'head_dim': 64}

    """
    found = FIELD_DEFAULTS.get(str(section.get("model_type")), {})
    missing = {key: value for key, value in found.items() if key not in section}
    if not missing:
        return dict(section)
    return {**section, **missing, FILLED: tuple(sorted(missing))}
