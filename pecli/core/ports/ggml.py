"""llama.cpp / ggml's reading of a rotary embedding: frequency factors, YaRN, DeepSeek.

The rope modes are in :mod:`.gguf_modes`, what a GGUF file holds in :mod:`.gguf_format`. Pure
NumPy and :mod:`math`; no I/O. Sources (llama.cpp): ``ggml/src/ggml.c``
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
    "deepseek_factors",
    "deepseek_note",
    "frequency_factors",
    "yarn_corr_dims",
    "yarn_factor",
]


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


def deepseek_note(factor: float, mscale_all_dim: float) -> str:
    """What ggml and DeepSeek's graph do with YaRN's magnitude, in words (once, for every report).

    >>> deepseek_note(40.0, 1.0)[:55]
    "ggml's YaRN multiplies cos/sin by 1.3688879, DeepSeek's"
    """
    values = deepseek_factors(factor, mscale_all_dim)
    return (
        f"ggml's YaRN multiplies cos/sin by {values['ggml_mscale']:.7f}, DeepSeek's graph "
        f"cancels it with attn_factor {values['cancelling_attn_factor']:.7f} and scales the "
        f"scores by mscale² = {values['kq_multiplier']:.7f}"
    )
