"""llama.cpp / ggml's reading of a rotary embedding: rope modes, frequency factors, YaRN.

Pure NumPy and :mod:`math`; no I/O. Sources (llama.cpp): ``src/llama-model.cpp``
``llama_model_rope_type`` (the mode per architecture), ``ggml/src/ggml.c``
``ggml_rope_yarn_corr_dims`` (the correction range, always floored and ceiled),
``convert_hf_to_gguf.py`` ``LlamaModel.generate_extra_tensors`` (``rope_freqs``),
``DeepseekV2Model.set_gguf_parameters`` and ``src/models/deepseek2.cpp`` (the log-multiplier,
``[TAG_DEEPSEEK2_YARN_LOG_MUL_FIX]``, llama.cpp PR 17945).
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

from ..rope.float32_formulas import correction_dim
from ..rope.formulas import mscale
from ..rope.frequencies import RopeFrequencies, unscaled_inv_freq

__all__ = [
    "ARCH_MODES",
    "FREQUENCY_TENSORS",
    "ROPE_MODES",
    "TENSOR_TYPES",
    "deepseek_factors",
    "frequency_factors",
    "rope_mode",
    "yarn_corr_dims",
    "yarn_factor",
]

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
#: ggml's rope modes (``GGML_ROPE_TYPE_*`` in ``ggml.h``).
ROPE_MODES = {"NORM": 0, "NEOX": 2, "MROPE": 8, "VISION": 24, "IMROPE": 40}
_NORM = (
    "llama",
    "llama4",
    "deci",
    "baichuan",
    "starcoder",
    "internlm2",
    "minicpm",
    "xverse",
    "command-r",
    "cohere2",
    "olmo",
    "arctic",
    "deepseek",
    "deepseek2",
    "chatglm",
    "granite",
    "granitemoe",
    "chameleon",
    "bailingmoe",
    "smollm3",
    "arcee",
    "ernie4_5",
    "mistral3",
    "orion",
)
_NEOX = (
    "falcon",
    "grok",
    "dbrx",
    "bert",
    "nomic-bert",
    "stablelm",
    "bitnet",
    "qwen",
    "qwen2",
    "qwen2moe",
    "qwen3",
    "qwen3moe",
    "olmo2",
    "olmoe",
    "phi2",
    "phi3",
    "phimoe",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3n",
    "starcoder2",
    "openelm",
    "gptneox",
    "codeshell",
    "nemotron",
    "exaone",
    "minicpm3",
    "gpt-oss",
    "plamo2",
)
#: The mode each GGUF ``general.architecture`` implies (a selection of llama-model.cpp's).
ARCH_MODES = {
    **dict.fromkeys(_NORM, "NORM"),
    **dict.fromkeys(_NEOX, "NEOX"),
    "qwen2vl": "MROPE",
    "qwen3vl": "IMROPE",
    "qwen3vlmoe": "IMROPE",
}
_PAIRS = {
    "NORM": "consecutive pairs (2j, 2j+1): the converter permuted q_proj/k_proj rows from "
    "transformers' half-split layout (LlamaModel.permute)",
    "NEOX": "half-split pairs (j, j + n_rot/2), transformers' rotate_half layout; no permutation",
    "MROPE": "half-split pairs, sections of the pairs driven by time, height, width",
    "IMROPE": "half-split pairs, time/height/width interleaved pair by pair",
    "VISION": "half-split pairs, the exponent restarting in each section",
}


def rope_mode(arch: str | None) -> tuple[str, int, str] | None:
    """The rope mode llama.cpp uses for a GGUF architecture: name, value, pair layout.

    Examples
    --------
    >>> rope_mode("llama")[:2], rope_mode("qwen2")[:2], rope_mode("qwen3vl")[:2]
    (('NORM', 0), ('NEOX', 2), ('IMROPE', 40))
    >>> rope_mode("mystery") is None
    True

    """
    name = ARCH_MODES.get(arch or "")
    return None if name is None else (name, ROPE_MODES[name], _PAIRS[name])


def yarn_corr_dims(
    n_dims: int, n_ctx_orig: int, base: float, beta_fast: float = 32.0, beta_slow: float = 1.0
) -> tuple[tuple[float, float], tuple[float, float]]:
    """YaRN's correction range: exact (transformers with ``truncate: false``) and ggml's.

    ``corr(r) = n_dims·ln(L/(2π·r)) / (2·ln θ)``; ggml (``ggml_rope_yarn_corr_dims``) takes
    ``max(0, floor(corr(β_fast)))`` and ``min(n_dims − 1, ceil(corr(β_slow)))`` always.

    Returns
    -------
    exact, ggml : tuple of (float, float)
        ``(low, high)`` each, in pair indices.

    Examples
    --------
    >>> exact, ggml = yarn_corr_dims(64, 4096, 150000.0)  # gpt-oss
    >>> [round(v, 4) for v in exact], ggml
    ([8.0928, 17.398], (8.0, 18.0))

    """
    low = correction_dim(n_dims, n_ctx_orig, base, beta_fast)
    high = correction_dim(n_dims, n_ctx_orig, base, beta_slow)
    return (low, high), (
        max(0.0, float(math.floor(low))),
        min(n_dims - 1.0, float(math.ceil(high))),
    )


def frequency_factors(freqs: RopeFrequencies) -> np.ndarray:
    """What ``rope_freqs`` must hold for ggml to reproduce ``freqs``: ``θ-schedule / ω``.

    ggml divides each ``θ_i`` by the factor (``freq_factors`` of ``ggml_rope_ext``), so a
    factor is the unscaled ``1/θ^(2i/d)`` over transformers' ``inv_freq``; float64, shape
    ``(rotary_dim/2,)``. For Llama 3.1: 29 × 1.0, 6 smoothed, 29 × 8.0.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> spec = RopeSpec(rope_type="llama3", theta=500000.0, head_dim=128, factor=8.0,
    ...     low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192)
    >>> np.round(frequency_factors(rope_frequencies(spec))[29:35], 6).tolist()
    [1.207484, 1.553415, 2.026313, 2.69453, 3.684253, 5.257327]

    """
    base = unscaled_inv_freq(freqs.spec)
    exact = freqs.inv_freq + freqs.residual
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(exact > 0, base / exact, 1.0)


def yarn_factor(freqs: RopeFrequencies) -> float:
    """The YaRN factor ``freqs`` rotate with (derived from the lengths when none is given)."""
    return float(freqs.notes.get("factor", freqs.spec.factor or 1.0))


def deepseek_factors(factor: float, mscale_all_dim: float) -> dict[str, float]:
    """DeepSeek's YaRN magnitudes in llama.cpp (``deepseek2.cpp``) and in transformers.

    ggml's rope multiplies cos/sin by ``1 + 0.1·ln f`` whenever YaRN extrapolates; DeepSeek's
    graph passes ``attn_factor = 1/(1 + 0.1·ln f)`` to cancel it and scales the attention
    scores by ``mscale²``, ``mscale = 1 + 0.1·mscale_all_dim·ln f`` (transformers'
    ``yarn_get_mscale``, squared into ``softmax_scale``). The GGUF stores
    ``yarn_log_multiplier = 0.1·mscale_all_dim``; llama.cpp divides it by 0.1 on load.

    Examples
    --------
    >>> values = deepseek_factors(40.0, 1.0)
    >>> [round(values[k], 7) for k in ("ggml_mscale", "cancelling_attn_factor", "kq_multiplier")]
    [1.3688879, 0.73052, 1.8738542]

    """
    internal = mscale(Decimal(factor))
    scores = mscale(Decimal(factor), Decimal(mscale_all_dim))
    return {
        "ggml_mscale": float(internal),
        "cancelling_attn_factor": float(1 / internal),
        "kq_multiplier": float(scores * scores),
        "yarn_log_multiplier": 0.1 * mscale_all_dim,
    }
