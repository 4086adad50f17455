"""How five engines read one rotary config: inv_freq, factor on cos/sin, longrope, YaRN range.

Each engine's published formula, evaluated exactly (as :mod:`pecli.core.rope` evaluates
transformers'), so a difference is one of formula, not of float32 rounding:

* transformers 5: ``modeling_rope_utils.py`` ``_compute_<type>_parameters`` (the reference);
  longrope switches to the long factors when the sequence is longer than L.
* transformers 4: reads ``rope_scaling`` only; a transformers 5 config (``rope_parameters``)
  is read as unscaled, θ from the top level or 10000.
* vLLM: ``rotary_embedding/yarn_scaling_rope.py`` ``YaRNScalingRotaryEmbedding`` (honours
  ``truncate``; ``attention_factor``, else ``mscale(f, m)/mscale(f, m_all)``, else
  ``mscale(f)``), ``deepseek_scaling_rope.py`` ``DeepseekScalingRotaryEmbedding`` (range always
  truncated; scores × ``mscale(f, m_all)²`` in ``deepseek_v2.py``),
  ``phi3_long_rope_scaled_rope.py`` (long factors whenever ``max_model_len > L``; factor
  ``√(1 + ln(max/L)/ln L)``).
* mlx_lm 0.32: ``models/rope_utils.py`` ``YarnRoPE`` (range always truncated; ``mscale`` 1 and
  ``mscale_all_dim`` 0 by default, ``attention_factor`` not read), ``SuScaledRoPE`` (long
  factors always, factor from max/L), ``apply_yarn_mscale`` (scores × ``mscale(f, m_all)²``).
* llama.cpp: ``ggml_rope_yarn_corr_dims`` (always truncated), ``llama_model::get_rope_factors``
  (long factors when the context per sequence exceeds L), ``deepseek2.cpp`` (DeepSeek: cos/sin
  unscaled, scores × ``mscale²``).
* TensorRT-LLM: ``tensorrt_llm/functional.py`` ``RopeEmbeddingUtils``
  (``create_sinusoidal_positions_yarn``: range always truncated;
  ``create_sinusoidal_positions_long_rope``: long factors unless ``max_seq_len <= L``).

Pure NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from ..rope import RopeSpec, rope_frequencies
from ..rope.formulas import mscale
from ..rope.frequencies import RopeFrequencies
from .ggml import yarn_factor

__all__ = ["ENGINES", "EngineReading", "engine_readings", "first_phase_position"]

ENGINES = ("transformers 5", "transformers 4", "vLLM", "mlx_lm", "llama.cpp", "TensorRT-LLM")
#: Phase difference (radians) that counts as a difference.
PHASE_LIMIT = 1e-3


@dataclass(frozen=True)
class EngineReading:
    """One engine's reading of a config (``None``: the engine does not have that part)."""

    engine: str
    inv_freq: np.ndarray
    max_relative: float
    cos_sin_factor: float
    factors: str | None
    yarn_range: tuple[float, float] | None
    scores: float | None
    first_position: int | None


def _deepseek(spec: RopeSpec) -> bool:
    return spec.rope_type == "yarn" and bool(spec.mscale_all_dim)


def _longrope_factor(spec: RopeSpec) -> float:
    """``√(1 + ln(max/L)/ln L)`` from the lengths (vLLM, MLX, llama.cpp's converter, TRT)."""
    top, orig = spec.max_position_embeddings, spec.original_max_position_embeddings
    scale = (top or orig or 1) / (orig or 1)
    return 1.0 if scale <= 1 else math.sqrt(1 + math.log(scale) / math.log(orig or 1))


def _variant(spec: RopeSpec, engine: str, context: int) -> tuple[RopeSpec, str | None]:
    """The spec an engine effectively computes, and which longrope factors it takes."""
    kind = spec.rope_type
    if kind == "yarn" and engine in ("mlx_lm", "llama.cpp", "TensorRT-LLM"):
        return dataclasses.replace(spec, truncate=True), None
    if kind == "yarn" and engine == "vLLM" and _deepseek(spec):
        return dataclasses.replace(spec, truncate=True), None
    if kind == "dynamic" and engine == "llama.cpp":  # ggml has no dynamic NTK scaling
        return RopeSpec(
            theta=spec.theta,
            head_dim=spec.head_dim,
            partial_rotary_factor=spec.partial_rotary_factor,
        ), None
    if kind != "longrope":
        return spec, None
    orig = spec.original_max_position_embeddings or 0
    long = {
        "transformers 5": (spec.seq_len or 0) > orig,
        "transformers 4": (spec.seq_len or 0) > orig,
        "vLLM": context > orig,
        "mlx_lm": True,
        "llama.cpp": context > orig,
        "TensorRT-LLM": context > orig,
    }[engine]
    return dataclasses.replace(spec, seq_len=orig + 1 if long else None), (
        "long" if long else "short"
    )


def _cos_sin(spec: RopeSpec, freqs: RopeFrequencies, engine: str) -> float:
    """The factor on cos and sin."""
    if spec.rope_type == "longrope" and engine != "transformers 5":
        return _longrope_factor(spec)
    if spec.rope_type != "yarn" or engine in ("transformers 5", "transformers 4", "vLLM"):
        return freqs.attention_factor
    m, m_all, f = spec.mscale or 1.0, spec.mscale_all_dim or 0.0, Decimal(yarn_factor(freqs))
    if engine == "llama.cpp" and not _deepseek(spec):
        return spec.attention_factor if spec.attention_factor is not None else float(mscale(f))
    # mlx_lm, TensorRT-LLM (whose callers pass mscale_all_dim 0 outside DeepSeek), llama.cpp's
    # DeepSeek: mscale(f, m)/mscale(f, m_all); config's attention_factor is not read
    return float(mscale(f, Decimal(m)) / mscale(f, Decimal(m_all)))


def _scores(freqs: RopeFrequencies, engine: str) -> float | None:
    """DeepSeek's multiplier on the attention scores (``mscale(f, m_all)²``), where applied."""
    if not _deepseek(freqs.spec):
        return None
    return float(mscale(Decimal(yarn_factor(freqs)), Decimal(freqs.spec.mscale_all_dim or 0)) ** 2)


def first_phase_position(ours: np.ndarray, theirs: np.ndarray) -> int | None:
    """The first position p with ``p·max|ω − ω'| > 1e-3`` rad (None when equal).

    Examples
    --------
    >>> first_phase_position(np.array([1.0, 0.5]), np.array([1.0, 0.5 + 2.0**-20]))
    1049

    """
    gap = float(np.max(np.abs(ours - theirs), initial=0.0))
    return None if gap == 0 else math.floor(PHASE_LIMIT / gap) + 1


def engine_readings(
    spec: RopeSpec, *, context: int, v4_theta: float | None = None
) -> list[EngineReading]:
    """Each engine's reading of ``spec`` for a context (``max_model_len``, llama.cpp's n_ctx).

    ``spec.seq_len`` is the prompt length (transformers switches longrope by it).
    ``v4_theta``: the config carries only ``rope_parameters`` (transformers 5), which
    transformers 4 and mlx_lm's ``models/llama.py`` (``ModelArgs`` has ``rope_theta`` and
    ``rope_scaling`` only; ``from_dict`` drops other keys) do not read: they rotate unscaled
    with this θ (the top-level ``rope_theta``, else 10000).

    Examples
    --------
    >>> oss = RopeSpec(rope_type="yarn", theta=150000.0, head_dim=64, factor=32.0,
    ...     original_max_position_embeddings=4096, truncate=False)
    >>> rows = {r.engine: r for r in engine_readings(oss, context=131072)}
    >>> [round(v, 4) for v in rows["transformers 5"].yarn_range], rows["mlx_lm"].yarn_range
    ([8.0928, 17.398], (8.0, 18.0))

    """
    reference = rope_frequencies(spec)
    rows = []
    for engine in ENGINES:
        variant, factors = _variant(spec, engine, context)
        if engine in ("transformers 4", "mlx_lm") and v4_theta is not None:
            variant = RopeSpec(
                theta=v4_theta,
                head_dim=spec.head_dim,
                partial_rotary_factor=spec.partial_rotary_factor,
            )
        freqs = rope_frequencies(variant)
        ratio = np.abs(freqs.inv_freq - reference.inv_freq) / reference.inv_freq
        rows.append(
            EngineReading(
                engine,
                freqs.inv_freq,
                float(np.max(ratio[np.isfinite(ratio)], initial=0.0)),
                _cos_sin(variant, freqs, engine),
                factors,
                _range(freqs),
                _scores(freqs, engine),
                first_phase_position(freqs.inv_freq, reference.inv_freq),
            )
        )
    return rows


def _range(freqs: RopeFrequencies) -> tuple[float, float] | None:
    if freqs.spec.rope_type != "yarn":
        return None
    return freqs.notes["ramp_low"], freqs.notes["ramp_high"]
