"""The rope a config class holds when its config.json names no θ, or no rope key at all.

transformers 5 fills a rope dict that lacks ``rope_theta`` with the config class's
``default_theta`` (``RotaryEmbeddingConfigMixin``: 10000, overridden by about seventy classes:
GPT-OSS 150000, Cohere 500000, …; a dict for the classes whose global and sliding layers
differ, Gemma 3's and ModernBERT's ``{"global": …, "local": …}``), and a file with no rope
key at all with the class's default ``rope_parameters`` — which may scale (GPT-OSS's YaRN,
Apertus's llama3) or hold one dict per layer type. :data:`THETA_DEFAULTS` and
:data:`ROPE_DEFAULTS` hold those values per ``model_type``; tests/rope/test_class_defaults.py
reads every model type's files through them and compares with what transformers 5.25.0 read
from the same files (tests/fixtures/libraries/default_theta, made by
tools/library_fixtures/generate_default_theta.py). ``partial_rotary_factor`` defaults are
:data:`~pecli.core.rope.config.families.PARTIAL_DEFAULTS`'; vision towers (rope type
``axial``) are left out. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["ROPE_DEFAULTS", "THETA_DEFAULTS", "default_nope", "default_rope", "default_theta"]

#: The keys a θ or a rope may come from; a file with none of them takes :data:`ROPE_DEFAULTS`.
ROPE_KEYS = (
    "rope_parameters",
    "rope_scaling",
    "rope_theta",
    "rotary_emb_base",
    "global_rope_theta",
    "local_rope_theta",
    "rope_local_base_freq",
    "compress_rope_theta",
)
#: ``default_theta`` of each config class that overrides 10000: one θ, or one per layer type.
THETA_DEFAULTS: Mapping[str, float | Mapping[str, float]] = MappingProxyType(
    {
        "apertus": 12000000.0,
        "apertus1p5_text": 12000000.0,
        "bailing_hybrid": 6000000.0,
        "bitnet": 500000.0,
        "blt": 500000.0,
        "blt_global_transformer": 500000.0,
        "blt_local_decoder": 500000.0,
        "blt_local_encoder": 500000.0,
        "cohere": 500000.0,
        "cosmos3_edge_text": 100000000.0,
        "csm": 500000.0,
        "csm_depth_decoder_model": 500000.0,
        "cwm": 1000000.0,
        "dots3_note_text": 80000000.0,
        "emu3_text_model": 1000000.0,
        "eomt_dinov3": 100.0,
        "ergo": 1000000.0,
        "ernie4_5": 500000.0,
        "ernie4_5_moe": 500000.0,
        "ernie4_5_vl_moe_text": 500000.0,
        "evolla": 500000.0,
        "exaone": 500000.0,
        "flex_olmo": 500000.0,
        "gemma3_text": {"full_attention": 1000000.0, "sliding_attention": 10000.0},
        "gemma3n_text": {"full_attention": 1000000.0, "sliding_attention": 10000.0},
        "gpt_oss": 150000.0,
        "gte": 160000.0,
        "helium": 100000.0,
        "hy_v3": 11158840.0,
        "jina_embeddings_v3": 20000.0,
        "lfm2": 1000000.0,
        "lfm2_moe": 1000000.0,
        "lfm3": 1000000.0,
        "llama4_text": 500000.0,
        "longcat_flash": 10000000.0,
        "minicpm5_moe": 5000000.0,
        "minimax": 1000000.0,
        "minimax_m2": 5000000.0,
        "minimax_m3_vl_text": 5000000.0,
        "mixtral": 1000000.0,
        "mllama_text_model": 500000.0,
        "modernbert": {"full_attention": 160000.0, "sliding_attention": 10000.0},
        "modernbert-decoder": {"full_attention": 160000.0, "sliding_attention": 10000.0},
        "muse_glimmer_assistant": 500000.0,
        "musicflamingo": 1200.0,
        "neomme": {"full_attention": 1000000.0, "sliding_attention": 10000.0},
        "nomic_bert": 1000.0,
        "olmo3": 500000.0,
        "openai_privacy_filter": 150000.0,
        "paddleocr_vl_text": 500000.0,
        "param2moe": 500000.0,
        "pe_audio_encoder": 20000.0,
        "pe_audio_video_encoder": 20000.0,
        "pe_video_encoder": 20000.0,
        "phimoe": 1000000.0,
        "qwen2_5_omni_talker": 1000000.0,
        "qwen2_5_omni_text": 1000000.0,
        "qwen2_5_vl_text": 1000000.0,
        "qwen2_vl_text": 1000000.0,
        "qwen3_omni_moe_text": 1000000.0,
        "qwen3_vl_moe_text": 500000.0,
        "qwen3_vl_text": 500000.0,
        "sarvam_moe": 8000000.0,
        "smollm3": 2000000.0,
        "solar_open": 1000000.0,
        "t5gemma2_decoder": {"full_attention": 1000000.0, "sliding_attention": 10000.0},
        "t5gemma2_text": {"full_attention": 1000000.0, "sliding_attention": 10000.0},
    }
)


def _per_type(
    full: float,
    sliding: float = 10_000.0,
    kind: str = "default",
    labels: tuple[str, str] = ("full_attention", "sliding_attention"),
    partial: tuple[float, float] | None = None,
) -> dict[str, dict[str, Any]]:
    """One default rope per layer type: the full layers' θ and type, the sliding layers' θ.

    ``partial``: each type's ``partial_rotary_factor``, where the class's rope dicts hold one.
    """
    found = {
        labels[0]: {"rope_theta": full, "rope_type": kind},
        labels[1]: {"rope_theta": sliding, "rope_type": "default"},
    }
    for label, factor in zip(labels, partial or (), strict=False):
        found[label]["partial_rotary_factor"] = factor
    return found


def _one(theta: float, kind: str = "default", **scaling: Any) -> dict[str, dict[str, Any]]:
    """One default rope for every layer (``""``), scaled by ``scaling``."""
    return {"": {"rope_theta": theta, "rope_type": kind, **scaling}}


_LLAMA3 = {
    "high_freq_factor": 4.0,
    "low_freq_factor": 1.0,
    "original_max_position_embeddings": 8192,
}
_YARN = {"beta_fast": 32.0, "beta_slow": 1.0}
_MISTRAL = {**_YARN, "llama_4_scaling_beta": 0.1, "mscale": 1.0, "mscale_all_dim": 1.0}
_APERTUS = _one(12_000_000.0, "llama3", factor=8.0, **_LLAMA3)
_GPT_OSS = _one(
    150_000.0, "yarn", factor=32.0, original_max_position_embeddings=4096, truncate=False, **_YARN
)
#: The default ``rope_parameters`` of each config class whose own differ from one unscaled
#: rope at its ``default_theta`` (M-RoPE sections left out; ``partial_rotary_factor`` where the
#: class keeps one per layer type, else :data:`.families.PARTIAL_DEFAULTS`; None: a layer type
#: that rotates nothing, Beam's and Ergo's global layers).
ROPE_DEFAULTS: Mapping[str, Mapping[str, Mapping[str, Any] | None]] = MappingProxyType(
    {
        "apertus": _APERTUS,
        "apertus1p5_text": _APERTUS,
        "beam": {
            "full_attention": None,
            "sliding_attention": {"rope_theta": 10_000.0, "rope_type": "default"},
        },
        "cwm": _one(1_000_000.0, "llama3", factor=16.0, **_LLAMA3),
        "deepseek_v4": _per_type(160_000.0, labels=("compress", "main")),
        "diffusion_gemma_text": _per_type(1_000_000.0, kind="proportional"),
        "dory": _per_type(10_000_000.0),
        "dots3_note_text": _per_type(
            80_000_000.0, 50_000.0, labels=("indexed_attention", "sliding_attention")
        ),
        "embedding_gemma2_text": _per_type(1_000_000.0),
        "ergo": {
            "full_attention": None,
            "sliding_attention": {"rope_theta": 1_000_000.0, "rope_type": "default"},
        },
        "gemma3_text": _per_type(1_000_000.0),
        "gemma3n_text": _per_type(1_000_000.0),
        "gemma4_text": _per_type(1_000_000.0, kind="proportional"),
        "gemma4_unified_text": _per_type(1_000_000.0, kind="proportional"),
        "gpt_oss": _GPT_OSS,
        "higgs_audio_v2": _one(
            500_000.0,
            "llama3",
            factor=32.0,
            high_freq_factor=0.5,
            low_freq_factor=0.125,
            original_max_position_embeddings=1024,
        ),
        "laguna": _per_type(500_000.0, partial=(0.5, 1.0)),
        "lfm3": _per_type(1_000_000.0, kind="proportional"),
        "mellum": _per_type(500_000.0),
        "mimo_v2_flash": _per_type(5_000_000.0, partial=(0.334, 0.334)),
        "ministral3": _one(
            1_000_000.0, "yarn", factor=16.0, original_max_position_embeddings=16384, **_MISTRAL
        ),
        "mistral4": _one(
            10_000.0, "yarn", factor=128.0, original_max_position_embeddings=8192, **_MISTRAL
        ),
        "mistral_large4_text": _one(
            10_000.0,
            "yarn",
            attention_factor=1.0,
            factor=2048.0,
            original_max_position_embeddings=512,
            **_YARN,
        ),
        "modernbert": _per_type(160_000.0),
        "modernbert-decoder": _per_type(160_000.0),
        "muse_spark_text": _one(500_000.0),
        "neomme": _per_type(1_000_000.0, partial=(0.25, 1.0)),
        "olmo3": _per_type(500_000.0, 500_000.0),
        "openai_privacy_filter": _GPT_OSS,
        "step3p5": {"full_attention": {"rope_theta": 10_000.0, "rope_type": "default"}},
        "t5gemma2_decoder": _per_type(1_000_000.0),
        "t5gemma2_text": _per_type(1_000_000.0),
        "ultrabert": _per_type(2_560_000.0),
        "zaya": _per_type(5_000_000.0, labels=("hybrid", "hybrid_sliding"), partial=(0.5, 0.5)),
    }
)


def default_theta(section: Mapping[str, Any], label: str = "") -> float:
    """θ transformers puts in a rope dict of ``section`` that names none, for layer type ``label``.

    Parameters
    ----------
    section : mapping
        The text model's config (its ``model_type`` picks the class).
    label : str
        The layer type of the rope dict (``""``: one dict for every layer).

    Returns
    -------
    float
        The class's ``default_theta``; for a class with one θ per layer type and ``label``
        none of them, its ``full_attention`` θ.

    Examples
    --------
    >>> default_theta({"model_type": "gpt_oss"}), default_theta({"model_type": "llama"})
    (150000.0, 10000.0)
    >>> default_theta({"model_type": "gemma3_text"}, "sliding_attention")
    10000.0

    """
    found = THETA_DEFAULTS.get(str(section.get("model_type")), 10000.0)
    if isinstance(found, Mapping):
        return float(found.get(label, found["full_attention"]))
    return float(found)


def default_rope(section: Mapping[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The rope dicts per label of a ``section`` that names no rope key, as its class holds them.

    None when ``section`` names a rope key (:data:`ROPE_KEYS`, or DBRX's ``attn_config``) or
    its class holds one unscaled dict of its ``default_theta``.

    >>> default_rope({"model_type": "gpt_oss"})[""]["rope_type"]
    'yarn'
    >>> default_rope({"model_type": "gpt_oss", "rope_theta": 1e4}) is None
    True
    """
    if any(key in section for key in (*ROPE_KEYS, "attn_config")):
        return None
    found = ROPE_DEFAULTS.get(str(section.get("model_type")))
    if not found:
        return None
    return {label: dict(params) for label, params in found.items() if params is not None}


def default_nope(section: Mapping[str, Any]) -> set[str]:
    """The layer types whose default rope is null, for a ``section`` that names no rope key.

    >>> default_nope({"model_type": "beam"}), default_nope({"model_type": "beam", "rope_theta": 1})
    ({'full_attention'}, set())
    """
    if default_rope(section) is None:
        return set()
    found = ROPE_DEFAULTS[str(section.get("model_type"))]
    return {label for label, params in found.items() if params is None}
