"""How six engines read one rotary config: inv_freq, factor on cos/sin, longrope, YaRN range.

One record per engine (:data:`ENGINES`): the files and functions it follows and what differs
from transformers 5 (the table of docs/porting.md, which
``tests/house/test_port_registries.py`` holds to the records), and how it treats each kind of
scaling. Each engine's published formula is evaluated exactly (as :mod:`pecli.core.rope`
evaluates transformers'), so a difference is one of formula, not of float32 rounding. Pure
NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..rope import RopeSpec, rope_frequencies
from ..rope.config import spec_from_config
from ..rope.config.plans import layer_rope
from ..rope.formulas import mscale
from ..rope.frequencies import RopeFrequencies
from ..rope.number_rules import check_theta
from ..rope.registry import record
from ..rules import check_n
from .ggml import deepseek_note, yarn_factor
from .gguf_format import text_config

__all__ = [
    "ENGINES",
    "Engine",
    "EngineReading",
    "deepseek",
    "engine_notes",
    "engine_readings",
    "first_phase_position",
    "read_config",
]

#: Phase difference (radians) that counts as a difference.
PHASE_LIMIT = 1e-3


@dataclass(frozen=True)
class Engine:
    """One engine's reading of a rotary config.

    Attributes
    ----------
    name : str
        As the report names it (``vLLM``, ``llama.cpp``, …).
    source : str
        The files and functions it follows (docs/porting.md's table, Markdown).
    differs : str
        What differs from transformers 5 (docs/porting.md's table, Markdown).
    yarn_range : str
        YaRN's correction range: ``config`` (floored and ceiled as ``truncate`` says),
        ``always`` (always floored and ceiled), ``deepseek`` (as the config says, but always
        for DeepSeek's).
    longrope_long : str
        When longrope takes the long factors: ``prompt`` (the sequence is longer than ``L``),
        ``context`` (the context it serves is), ``always``.
    longrope_factor : str
        longrope's factor on cos and sin: ``config`` (transformers') or ``lengths``
        (``√(1 + ln(max/L)/ln L)`` from the lengths).
    yarn_factor : str
        YaRN's factor on cos and sin: ``config`` (transformers'), ``mscale``
        (``mscale(f, m)/mscale(f, m_all)``, the config's ``attention_factor`` not read), or
        ``ggml`` (``attention_factor``, else ``mscale(f)``; DeepSeek's as ``mscale``).
    reads_parameters : bool
        It reads transformers 5's ``rope_parameters``; otherwise a config with only those
        rotates unscaled, θ from the top level.
    dynamic : bool
        It has dynamic NTK scaling; otherwise θ stays as the config's at every length.
    version : str
        The release its row follows, where the docs name one (``0.32``).
    temperature : str
        What it does with Mistral's ``llama_4_scaling_beta`` (queries × ``1 + β·ln(1 + ⌊p/L⌋)``
        after RoPE): ``applies``, ``ignores`` or ``not checked``, then where in its sources.

    """

    name: str
    source: str
    differs: str
    yarn_range: str = "config"
    longrope_long: str = "prompt"
    longrope_factor: str = "lengths"
    yarn_factor: str = "config"
    reads_parameters: bool = True
    dynamic: bool = True
    version: str = ""
    temperature: str = "not checked"


_VLLM = "vllm/model_executor/layers/rotary_embedding/"
#: Every engine, transformers 5 (the reference) first.
ENGINES = {
    e.name: e
    for e in (
        Engine(
            "transformers 5",
            "`transformers/modeling_rope_utils.py`, `_compute_<type>_parameters`",
            "the reference; longrope takes the long factors when the sequence is longer than `L`",
            longrope_factor="config",
            temperature="applies: `models/ministral3/modeling_ministral3.py` and "
            "`models/mistral4/modeling_mistral4.py` `get_llama_4_attn_scale`",
        ),
        Engine(
            "transformers 4",
            "the same file, reading `rope_scaling`",
            "a transformers 5 config (`rope_parameters`) reads as unscaled, θ from the top level "
            "or 10000 (the report models nothing else: releases before `truncate` existed "
            "always floor and ceil yarn's range)",
            reads_parameters=False,
        ),
        Engine(
            "vLLM",
            f"`{_VLLM}`: `yarn_scaling_rope.py` `YaRNScalingRotaryEmbedding`, `common.py` "
            "`yarn_find_correction_range`, `deepseek_scaling_rope.py` "
            "`DeepseekScalingRotaryEmbedding`, `phi3_long_rope_scaled_rope.py` "
            "`Phi3LongRoPEScaledRotaryEmbedding`",
            "yarn honours `truncate`; DeepSeek's range is always truncated and its scores × "
            "`mscale(f, m_all)²` (`deepseek_v2.py`); longrope takes the long factors whenever "
            '`max_model_len > L` ("to prevent KV cache invalidation"), factor '
            "`√(1 + ln(max/L)/ln L)`",
            yarn_range="deepseek",
            longrope_long="context",
            temperature="applies: `vllm/model_executor/models/llama.py` "
            "`_get_llama_4_attn_scale` (the converted config's `llama_4_scaling`: `beta`, "
            "`original_max_position_embeddings`)",
        ),
        Engine(
            "mlx_lm",
            "`mlx_lm/models/rope_utils.py`: `YarnRoPE`, `SuScaledRoPE`, `Llama3RoPE`, "
            "`apply_yarn_mscale`",
            "yarn's range always floored/ceiled; `mscale(f, m)/mscale(f, m_all)` with defaults "
            "1 and 0, `attention_factor` not read; longrope always takes the long factors; "
            "DeepSeek scores × `mscale(f, m_all)²`; `models/llama.py` reads `rope_theta` and "
            "`rope_scaling` only, so a transformers 5 config (`rope_parameters`) rotates "
            "unscaled, as in transformers 4",
            yarn_range="always",
            longrope_long="always",
            yarn_factor="mscale",
            reads_parameters=False,
            version="0.32",
            temperature="applies: `mlx_lm/models/ministral3.py` (a Llama 4 attention scale on "
            "the queries)",
        ),
        Engine(
            "llama.cpp",
            "`ggml/src/ggml.c` `ggml_rope_yarn_corr_dims`; `src/llama-model.cpp` "
            "`llama_model::get_rope_factors`; `src/models/deepseek2.cpp`",
            "yarn's range always floored/ceiled; longrope's long factors when the context per "
            "sequence (`n_ctx / n_seq_max`) exceeds `L`; DeepSeek: cos/sin unscaled (ggml's "
            "`1 + 0.1·ln f`, 1.3688879 at f = 40, cancelled by `attn_factor` 0.7305200), "
            "scores × `mscale²` = 1.8738542",
            yarn_range="always",
            longrope_long="context",
            yarn_factor="ggml",
            dynamic=False,
            temperature="applies from the GGUF: `convert_hf_to_gguf.py` writes β as "
            "`attention.temperature_scale` for ministral3; the loader reads it "
            "(`f_attn_temp_scale`, offset 0) and `llm_graph_input_attn_temp` scales the queries",
        ),
        Engine(
            "TensorRT-LLM",
            "`tensorrt_llm/functional.py` `RopeEmbeddingUtils.create_sinusoidal_positions_yarn`, "
            "`.create_sinusoidal_positions_long_rope`",
            "yarn's range always floored/ceiled (its `mscale_all_dim` defaults to 1: callers "
            "pass 0 outside DeepSeek); longrope's long factors unless `max_seq_len <= L`",
            yarn_range="always",
            longrope_long="context",
            yarn_factor="mscale",
        ),
    )
}


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


def deepseek(spec: RopeSpec) -> bool:
    """DeepSeek's YaRN: a ramp with ``mscale_all_dim`` (the scores are scaled by mscale²)."""
    return record(spec.rope_type).ramp and bool(spec.mscale_all_dim)


def _longrope_factor(spec: RopeSpec) -> float:
    """``√(1 + ln(max/L)/ln L)`` from the lengths (vLLM, MLX, llama.cpp's converter, TRT)."""
    top, orig = spec.max_position_embeddings, spec.original_max_position_embeddings
    scale = (top or orig or 1) / (orig or 1)
    return 1.0 if scale <= 1 else math.sqrt(1 + math.log(scale) / math.log(orig or 1))


def _variant(spec: RopeSpec, engine: Engine, context: int) -> tuple[RopeSpec, str | None]:
    """The spec an engine effectively computes, and which longrope factors it takes."""
    kind = record(spec.rope_type)
    truncated = engine.yarn_range == "always" or (
        engine.yarn_range == "deepseek" and deepseek(spec)
    )
    if kind.ramp and truncated:
        return dataclasses.replace(spec, truncate=True), None
    if kind.follows_length and not engine.dynamic:  # θ unchanged at every length
        return _unscaled(spec, spec.theta), None
    if not kind.factor_lists:
        return spec, None
    orig = spec.original_max_position_embeddings or 0
    length = {"prompt": spec.seq_len or 0, "context": context}.get(engine.longrope_long)
    long = length is None or length > orig  # "always": no length decides
    factors = "long" if long else "short"
    return dataclasses.replace(spec, seq_len=orig + 1 if long else None), factors


def _unscaled(spec: RopeSpec, theta: float) -> RopeSpec:
    """``spec``'s widths with no scaling, at ``theta``."""
    return RopeSpec(
        theta=theta, head_dim=spec.head_dim, partial_rotary_factor=spec.partial_rotary_factor
    )


def _cos_sin(spec: RopeSpec, freqs: RopeFrequencies, engine: Engine) -> float:
    """The factor on cos and sin."""
    kind = record(spec.rope_type)
    if kind.factor_lists and engine.longrope_factor == "lengths":
        return _longrope_factor(spec)
    if not kind.ramp or engine.yarn_factor == "config":
        return freqs.attention_factor
    m, m_all, f = spec.mscale or 1.0, spec.mscale_all_dim or 0.0, Decimal(yarn_factor(freqs))
    if engine.yarn_factor == "ggml" and not deepseek(spec):
        return spec.attention_factor if spec.attention_factor is not None else float(mscale(f))
    # mlx_lm, TensorRT-LLM (whose callers pass mscale_all_dim 0 outside DeepSeek), llama.cpp's
    # DeepSeek: mscale(f, m)/mscale(f, m_all); config's attention_factor is not read
    return float(mscale(f, Decimal(m)) / mscale(f, Decimal(m_all)))


def _scores(freqs: RopeFrequencies) -> float | None:
    """DeepSeek's multiplier on the attention scores (``mscale(f, m_all)²``), where applied."""
    if not deepseek(freqs.spec):
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
    for engine in ENGINES.values():
        variant, factors = _variant(spec, engine, context)
        if not engine.reads_parameters and v4_theta is not None:
            variant = _unscaled(spec, v4_theta)
        freqs = rope_frequencies(variant)
        ratio = np.abs(freqs.inv_freq - reference.inv_freq) / reference.inv_freq
        rows.append(
            EngineReading(
                engine.name,
                freqs.inv_freq,
                float(np.max(ratio[np.isfinite(ratio)], initial=0.0)),
                _cos_sin(variant, freqs, engine),
                factors,
                _range(freqs),
                _scores(freqs),
                first_phase_position(freqs.inv_freq, reference.inv_freq),
            )
        )
    return rows


def _range(freqs: RopeFrequencies) -> tuple[float, float] | None:
    if not record(freqs.spec.rope_type).ramp:
        return None
    return freqs.notes["ramp_low"], freqs.notes["ramp_high"]


def read_config(
    config: Mapping[str, Any],
    *,
    seq_len: int | None = None,
    context: int | None = None,
    layer: int | None = None,
) -> tuple[RopeSpec, int | None, float | None]:
    """A config as the engines read it: the spec, the context they serve, transformers 4's θ.

    ``context`` (a number of positions) defaults to the config's ``max_position_embeddings``
    (else ``original_max_position_embeddings``); transformers 4's θ is the top-level
    ``rope_theta`` (default 10000) of a config that has only ``rope_parameters``, else None.
    ``layer`` picks that layer's rope (:func:`pecli.core.rope.config.plans.layer_rope`); else a
    config with one rope per layer type is read for its global layers, as llama.cpp's converter
    writes ``freq_base``.

    Raises
    ------
    ParameterError
        (as ``file``) for a config whose rope fields are invalid; ``context`` out of range.

    """
    try:
        merged, _ = text_config(config)
        if layer is None:
            spec, _ = spec_from_config(merged, seq_len=seq_len, parameter="file")
        else:
            spec = layer_rope(config, layer, seq_len=seq_len).spec
    except ParameterError as error:  # the config's fault is said of the file, its one input
        name = "file" if error.parameter == "config" else error.parameter
        raise ParameterError(name, error.rule, error.value) from None
    if context is not None:
        window: int | None = check_n(context, "context")
    else:
        window = spec.max_position_embeddings or spec.original_max_position_embeddings
    if "rope_parameters" not in merged or "rope_scaling" in merged:
        return spec, window, None
    theta = check_theta(merged.get("rope_theta", 10000.0), "file", field="rope_theta")
    return spec, window, theta


def engine_notes(spec: RopeSpec) -> tuple[list[str], list[str]]:
    """What the report says in words: before the table (what is not modelled), after it."""
    kind = record(spec.rope_type)
    before = []
    if kind.follows_length:
        missing = [e.name for e in ENGINES.values() if not e.dynamic]
        before.append(
            f"{spec.rope_type}: the vLLM and TensorRT-LLM rows are not modelled (shown as "
            f"transformers); {' and '.join(missing)} has no dynamic scaling"
        )
    after = []
    if deepseek(spec):
        factor = yarn_factor(rope_frequencies(spec))
        after.append(
            "DeepSeek in llama.cpp: "
            + deepseek_note(factor, float(spec.mscale_all_dim or 0.0))
            + " (transformers, vLLM and mlx_lm: the same mscale² on the softmax scale)"
        )
    return before, after
