"""What a GGUF file holds about rotary embeddings, and what llama.cpp's converter reads.

ggml's tensor types, the F32 tensors that carry frequency factors, the GGUF value types and
the types llama.cpp's loader requires of the rope keys; the config the converter
(``convert_hf_to_gguf.py``) reads. The rope type of each architecture is :mod:`.gguf_modes`'s.
Pure Python; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rope.config.shapes import ALL, rope_tables, text_section

__all__ = [
    "FREQUENCY_TENSORS",
    "ROPE_KEY_TYPES",
    "TENSOR_TYPES",
    "VALUE_TYPES",
    "text_config",
    "value_type",
]

#: transformers 4's keys that split the rope per layer (read into labels by the rope reader).
_PER_LAYER_KEYS = (
    "rope_scaling",
    "rope_theta",
    "rope_local_base_freq",
    "global_rope_theta",
    "local_rope_theta",
    "compress_rope_theta",
)
#: GGUF's value types by code (ggml ``gguf.h`` ``gguf_type``); an array is named by its items,
#: ``ARRAY[INT32]``.
VALUE_TYPES = {
    0: "UINT8",
    1: "INT8",
    2: "UINT16",
    3: "INT16",
    4: "UINT32",
    5: "INT32",
    6: "FLOAT32",
    7: "BOOL",
    8: "STRING",
    9: "ARRAY",
    10: "UINT64",
    11: "INT64",
    12: "FLOAT64",
}
#: The type llama.cpp's loader requires of each rope key (without the ``{arch}.`` prefix):
#: ``llama_model_loader::get_key`` throws "key … has wrong type" for any other scalar type, and
#: ``get_arr`` takes int arrays as INT32 only (``src/llama-model-loader.cpp``; the hparams'
#: C types in ``llama_model::load_hparams``: float, uint32_t, bool, std::array<int, 4>).
ROPE_KEY_TYPES = {
    "rope.freq_base": "FLOAT32",
    "rope.freq_base_swa": "FLOAT32",
    "rope.dimension_count": "UINT32",
    "rope.dimension_sections": "ARRAY[INT32]",
    "rope.scale_linear": "FLOAT32",
    "rope.scaling.type": "STRING",
    "rope.scaling.factor": "FLOAT32",
    "rope.scaling.attn_factor": "FLOAT32",
    "rope.scaling.original_context_length": "UINT32",
    "rope.scaling.finetuned": "BOOL",
    "rope.scaling.yarn_ext_factor": "FLOAT32",
    "rope.scaling.yarn_attn_factor": "FLOAT32",
    "rope.scaling.yarn_beta_fast": "FLOAT32",
    "rope.scaling.yarn_beta_slow": "FLOAT32",
    "rope.scaling.yarn_log_multiplier": "FLOAT32",
}


def value_type(kind: int, item: int | None = None) -> str:
    """A GGUF value type's name; an array's with its items' (``ARRAY[FLOAT32]``).

    >>> value_type(12), value_type(9, 5)
    ('FLOAT64', 'ARRAY[INT32]')
    """
    name = VALUE_TYPES.get(kind, f"type {kind}")
    return f"{name}[{value_type(item)}]" if item is not None else name


#: The F32 tensors of a GGUF that carry frequency factors (``MODEL_TENSOR.ROPE_FREQS`` …).
FREQUENCY_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")
#: ggml's tensor types by code: name, elements per block, bytes per block (gguf-py
#: ``GGML_QUANT_SIZES``).
TENSOR_TYPES = {
    0: ("F32", 1, 4),
    1: ("F16", 1, 2),
    2: ("Q4_0", 32, 18),
    3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34),
    9: ("Q8_1", 32, 40),
    10: ("Q2_K", 256, 84),
    11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176),
    14: ("Q6_K", 256, 210),
    15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66),
    17: ("IQ2_XS", 256, 74),
    18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50),
    20: ("IQ4_NL", 32, 18),
    21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82),
    23: ("IQ4_XS", 256, 136),
    24: ("I8", 1, 1),
    25: ("I16", 1, 2),
    26: ("I32", 1, 4),
    27: ("I64", 1, 8),
    28: ("F64", 1, 8),
    29: ("IQ1_M", 256, 56),
    30: ("BF16", 1, 2),
    34: ("TQ1_0", 256, 54),
    35: ("TQ2_0", 256, 66),
    39: ("MXFP4", 32, 17),
    40: ("NVFP4", 64, 36),
    41: ("Q1_0", 128, 18),
}


def text_config(config: Mapping[str, Any]) -> tuple[dict[str, Any], float | None]:
    """The config the converter reads (the text model's, its ``full_attention`` rope).

    Returns the config and the sliding-window layers' θ (``freq_base_swa``), if any. The text
    model and its ropes per label are found by :mod:`pecli.core.rope.config` (composite
    configs, transformers 4's per-layer keys); the global rope stands for the model, as
    llama.cpp's converter writes ``freq_base`` from it.
    """
    _, merged = text_section(config)
    tables = rope_tables(merged, [])
    swa = None
    if ALL not in tables:
        sliding = tables.get("sliding_attention") or tables.get("main")
        swa = sliding.get("rope_theta") if sliding else None
        full = tables.get("full_attention") or tables.get("compress") or next(iter(tables.values()))
        legacy = "rope_parameters" not in merged  # transformers 4 keys: stay transformers 4
        for key in _PER_LAYER_KEYS:
            merged.pop(key, None)
        if legacy:
            merged["rope_theta"] = full["rope_theta"]
            scaling = {k: v for k, v in full.items() if k != "rope_theta"}
            if scaling.get("rope_type", scaling.get("type", "default")) != "default":
                merged["rope_scaling"] = scaling
        else:
            merged["rope_parameters"] = dict(full)
    if "qk_rope_head_dim" in merged:  # DeepSeek: only this part of the head rotates
        merged["head_dim"] = merged["qk_rope_head_dim"]
    return merged, swa
