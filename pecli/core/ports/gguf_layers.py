"""A GGUF's metadata as the config the per-layer RoPE plan reads, and what llama.cpp hard-codes.

llama.cpp keeps part of a model's per-layer plan in its loader, not in the file: Gemma 3's
sliding-window period (6) and its sliding layers' θ when the file has no ``rope.freq_base_swa``
(10000), SmolLM3's and Llama 4's NoPE step (every 4th layer), the periods of Gemma 2, Cohere 2,
EXAONE 4 and gpt-oss. Source: llama.cpp ``src/llama-model.cpp`` ``load_hparams``
(``set_swa_pattern``, ``n_no_rope_layer_step``, ``rope_freq_base_train_swa``) and
``src/models/smollm3.cpp`` / ``llama4.cpp`` (``(il + 1) % n_no_rope_layer_step != 0``). Pure
Python; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import ParameterError
from ..rope.config.reading import ENGINE_LAYOUT
from .gguf_modes import mode_words, rope_mode

__all__ = ["GGUF_PLANS", "GgufPlan", "config_from_gguf"]


@dataclass(frozen=True)
class GgufPlan:
    """What llama.cpp's loader fixes for an architecture, with no GGUF key to carry it.

    Attributes
    ----------
    model_type : str
        The transformers ``model_type`` whose rules the plan follows.
    swa_period : int or None
        Every ``swa_period``-th layer is global, the others sliding.
    swa_theta : float or None
        The sliding layers' θ when the file has no ``rope.freq_base_swa``.
    nope_step : int or None
        Every ``nope_step``-th layer rotates nothing.

    """

    model_type: str
    swa_period: int | None = None
    swa_theta: float | None = None
    nope_step: int | None = None


#: Per ``general.architecture``: the loader's hard-coded facts.
GGUF_PLANS = MappingProxyType(
    {
        "gemma2": GgufPlan("gemma2", swa_period=2),
        "gemma3": GgufPlan("gemma3_text", swa_period=6, swa_theta=10000.0),
        "cohere2": GgufPlan("cohere2", swa_period=4),
        "exaone4": GgufPlan("exaone4", swa_period=4),
        "gpt-oss": GgufPlan("gpt_oss", swa_period=2),
        "smollm3": GgufPlan("smollm3", nope_step=4),
        "llama4": GgufPlan("llama4_text", nope_step=4),
    }
)
#: ``{arch}.rope.scaling.type`` → transformers' ``rope_type`` (others: not read).
_SCALINGS = {"linear": "linear", "yarn": "yarn"}


def config_from_gguf(
    metadata: Mapping[str, Any], arch: str | None
) -> tuple[dict[str, Any], list[str]]:
    """The config a GGUF's keys amount to, and the facts taken from llama.cpp's code.

    Examples
    --------
    >>> config, notes = config_from_gguf({"smollm3.block_count": 36,
    ...     "smollm3.attention.key_length": 128, "smollm3.rope.freq_base": 5e6}, "smollm3")
    >>> config["no_rope_layer_interval"], notes[0][:40]
    (4, 'smollm3: llama.cpp hard-codes a NoPE lay')

    """
    key = f"{arch}." if arch else ""
    get = {name[len(key) :]: value for name, value in metadata.items() if name.startswith(key)}
    plan = GGUF_PLANS.get(arch or "", GgufPlan(arch or ""))
    config: dict[str, Any] = {"model_type": plan.model_type}
    if get.get("block_count") is None:
        raise ParameterError("gguf", f"has no {key}block_count (the number of layers)", "nothing")
    config["num_hidden_layers"] = get["block_count"]
    _widths(get, config)
    config["rope_theta"] = get.get("rope.freq_base", 10000.0)
    scaling = _SCALINGS.get(str(get.get("rope.scaling.type")))
    if scaling:
        config["rope_scaling"] = _scaling(scaling, get)
    notes = _hard_coded(arch or "", plan, get, config)
    sections = get.get("rope.dimension_sections")
    mode = rope_mode(arch, sections)
    if mode is not None and mode[0] == "NONE":  # llama.cpp's graph rotates no layer
        config["no_rope_layers"] = [0] * int(config["num_hidden_layers"])
    elif mode is not None:  # the channels' pairing is llama.cpp's, whatever the HF family's
        config[ENGINE_LAYOUT] = "interleaved" if mode[0] == "NORM" else "half-split"
    if (words := mode_words(arch, sections)) is not None:
        notes.append(words)
    return config, notes


def _count(get: Mapping[str, Any], name: str) -> int | None:
    """A width key as an integer (GGUF writes uint32), None when absent; else status 2."""
    value = get.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value % 1 != 0:
        raise ParameterError("gguf", f"must hold an integer in {name}", repr(value))
    return int(value)


def _widths(get: Mapping[str, Any], config: dict[str, Any]) -> None:
    widths = ("attention.key_length", "attention.key_length_mla", "attention.kv_lora_rank")
    get = {**get, **{name: _count(get, name) for name in (*widths, "rope.dimension_count")}}
    head, name = get.get("attention.key_length"), "attention.key_length"
    if get.get("attention.kv_lora_rank") and get.get("attention.key_length_mla"):
        # DeepSeek's MLA as llama.cpp's converter writes it since MLA absorption: key_length
        # is kv_lora_rank + qk_rope_head_dim (the compressed MQA head), key_length_mla the
        # query/key head, qk_nope_head_dim + qk_rope_head_dim (n_embd_head_k_mla)
        head, name = get["attention.key_length_mla"], "attention.key_length_mla"
    if head is None and get.get("attention.head_count"):
        config["hidden_size"] = get.get("embedding_length")
        config["num_attention_heads"] = get.get("attention.head_count")
    else:
        config["head_dim"] = head
    rotated = get.get("rope.dimension_count")
    if rotated is not None and rotated != head:
        if get.get("attention.kv_lora_rank") and head:  # DeepSeek's MLA: the last channels
            if rotated > head:  # else "qk_nope_head_dim", a field no GGUF holds, is negative
                rule = f"must rotate at most its query/key head: rope.dimension_count <= {name}"
                raise ParameterError("gguf", rule, f"{rotated} > {head}")
            config["qk_rope_head_dim"], config["qk_nope_head_dim"] = rotated, head - rotated
        else:
            config["rotary_dim"] = rotated


def _scaling(kind: str, get: Mapping[str, Any]) -> dict[str, Any]:
    scaling: dict[str, Any] = {"rope_type": kind, "factor": get.get("rope.scaling.factor")}
    for name, field in (
        ("rope.scaling.original_context_length", "original_max_position_embeddings"),
        ("rope.scaling.yarn_beta_fast", "beta_fast"),
        ("rope.scaling.yarn_beta_slow", "beta_slow"),
    ):
        if kind == "yarn" and get.get(name) is not None:
            scaling[field] = get[name]
    return scaling


def _hard_coded(
    arch: str, plan: GgufPlan, get: Mapping[str, Any], config: dict[str, Any]
) -> list[str]:
    notes = []
    window = get.get("attention.sliding_window")
    if window:
        config["sliding_window"] = window
    if plan.swa_period and window:
        config["sliding_window_pattern"] = plan.swa_period
        notes.append(
            f"{arch}: llama.cpp hard-codes the sliding-window period "
            f"{plan.swa_period} (no GGUF key holds it)"
        )
    swa = get.get("rope.freq_base_swa", plan.swa_theta if window else None)
    if swa is not None and plan.swa_period:
        config["rope_local_base_freq"] = swa
        if "rope.freq_base_swa" not in get:
            notes.append(f"no rope.freq_base_swa: llama.cpp takes θ = {swa:g} on sliding layers")
    if plan.nope_step:
        config["no_rope_layer_interval"] = plan.nope_step
        notes.append(
            f"{arch}: llama.cpp hard-codes a NoPE layer every "
            f"{plan.nope_step} layers (n_no_rope_layer_step; no GGUF key holds it, so a "
            "converter cannot change it)"
        )
    return notes
