"""What a GGUF check adds in words: the rope mode, what ggml cannot express, conventions.

Analysis of a GGUF against its config (findings with statuses); pure Python and NumPy, no I/O.
Sources: llama.cpp ``llama_model_rope_type``,
``ggml_rope_yarn_corr_dims``, ``convert_hf_to_gguf.py`` (``LlamaModel.generate_extra_tensors``
reads ``original_max_position_embeddings`` from the top of the config, default 8192),
``DeepseekV2Model.set_gguf_parameters`` and ``deepseek2.cpp``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.ports.ggml import deepseek_note, yarn_corr_dims, yarn_factor
from ...core.ports.gguf_modes import mode_words, rope_mode
from ...core.rope import RopeSpec, rope_frequencies
from ...core.rope.registry import record

__all__ = ["Finding", "notes_for"]


@dataclass(frozen=True)
class Finding:
    """One comparison: the key or tensor, ``agree``/``differ``/``missing``/``note``, values."""

    item: str
    status: str
    expected: Any = None
    found: Any = None
    detail: str = ""


def notes_for(
    spec: RopeSpec, config: Mapping[str, Any], arch: str | None, found: Mapping[str, Any]
) -> list[Finding]:
    """Notes (``Finding`` with status ``note``, or ``differ`` for a convention broken)."""
    notes = [_mode_finding(config, arch, found.get("rope.dimension_sections"))]
    for text in (_truncate(spec), _llama3_length(spec, config), _dynamic(spec)):
        if text:
            notes.append(Finding("note", "note", None, None, text))
    if spec.mscale_all_dim is not None and record(spec.rope_type).ramp:
        notes.append(_deepseek(spec, found))
    return notes


def _expected_mode(config: Mapping[str, Any]) -> str | None:
    """M-RoPE when the config has ``mrope_section``: interleaved (IMROPE) for Qwen3-VL / 3.5."""
    rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
    if not isinstance(rope, Mapping) or not rope.get("mrope_section"):
        return None
    names = " ".join(str(a) for a in config.get("architectures") or [])
    interleaved = rope.get("mrope_interleaved") or "Qwen3VL" in names or "Qwen3_5" in names
    return "IMROPE" if interleaved else "MROPE"


def _mode_finding(config: Mapping[str, Any], arch: str | None, sections: Any = None) -> Finding:
    want, mode = _expected_mode(config), rope_mode(arch, sections)
    if want and mode and mode[0] != want:
        rule = (
            f"the config has mrope_section ({want}): {arch} rotates in {mode[0]}, "
            "right for text only, wrong for image and video positions"
        )
        return Finding("rope mode", "differ", want, mode[0], rule)
    return Finding("rope mode", "note", None, None, _mode(arch, sections))


def _mode(arch: str | None, sections: Any = None) -> str:
    words = mode_words(arch, sections)
    return words or f"architecture {arch!r} is not in pecli's table of llama.cpp rope modes"


def _truncate(spec: RopeSpec) -> str:
    if not record(spec.rope_type).ramp or spec.truncate:
        return ""
    exact, ggml = yarn_corr_dims(
        spec.rotary_dim,
        spec.original_max_position_embeddings or 0,
        spec.theta,
        spec.beta_fast or 32.0,
        spec.beta_slow or 1.0,
    )
    ours = rope_frequencies(spec).inv_freq
    theirs = rope_frequencies(dataclasses.replace(spec, truncate=True)).inv_freq
    worst = float(np.max(np.abs(theirs - ours) / ours))
    return (
        f"truncate: false cannot be expressed in GGUF: ggml always floors and ceils the "
        f"correction range ({exact[0]:.4f}…{exact[1]:.4f} in transformers, "
        f"{ggml[0]:g}…{ggml[1]:g} in ggml); inv_freq differ by up to {worst:.3g} relative"
    )


def _llama3_length(spec: RopeSpec, config: Mapping[str, Any]) -> str:
    if not record(spec.rope_type).bands:
        return ""
    taken = config.get("original_max_position_embeddings", 8192)
    if taken == spec.original_max_position_embeddings:
        return ""
    return (
        f"convert_hf_to_gguf.py reads original_max_position_embeddings from the top of "
        f"the config ({taken}), transformers from the rope parameters "
        f"({spec.original_max_position_embeddings}): a converted rope_freqs follows {taken}"
    )


def _dynamic(spec: RopeSpec) -> str:
    if not record(spec.rope_type).follows_length:
        return ""
    return "ggml has no dynamic NTK scaling: llama.cpp rotates with θ unchanged at every length"


def _deepseek(spec: RopeSpec, found: Mapping[str, Any]) -> Finding:
    m_all = float(spec.mscale_all_dim or 0.0)
    text = (
        f"DeepSeek convention: yarn_log_multiplier = 0.1·mscale_all_dim = {0.1 * m_all:g} "
        "(llama.cpp divides it by 0.1 on load); "
        + deepseek_note(yarn_factor(rope_frequencies(spec)), m_all)
    )
    stored = found.get("rope.scaling.yarn_log_multiplier")
    if stored is not None and spec.mscale_all_dim and stored == np.float32(spec.mscale_all_dim):
        text = (
            f"yarn_log_multiplier holds mscale_all_dim itself ({stored:g}), the convention "
            "before llama.cpp PR 17945: llama.cpp divides it by 0.1, so the scores are "
            f"scaled by the wrong mscale². {text}"
        )
    return Finding("note", "note", None, None, text)
