"""Which layers a model has: each layer's attention kind and whether it rotates.

Layer types come from ``layer_types``, else ``sliding_window_pattern`` (an integer N: global
iff (i+1) % N == 0; a string such as ``LLLG``), ``global_attn_every_n_layers`` (global iff
i % N == 0 in ModernBERT, (i+1) % N == 0 in AFMoE), ``full_attention_interval`` (Qwen3-Next:
the others are linear attention) or ``compress_ratios`` (DeepSeek V4). A layer skips RoPE
(NoPE) when ``no_rope_layers`` says 0 (SmolLM3, Llama 4; else every ``no_rope_layer_interval``-th
layer, 4 by the class default), when it is linear attention or has no attention at all, when
its type's rope is null, or when it is global in a family that rotates only its sliding layers
(Cohere 2, EXAONE 4 with a sliding window; AFMoE always). Sources: transformers 5
``configuration_*.py`` (``layer_types``, ``no_rope_layers``) and those models' attention
classes. Pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ...errors import ParameterError
from .class_fields import no_class, with_class_fields
from .class_layers import NOPE_SLIDES, class_layer_types
from .families import (
    GLOBAL_EVERY,
    NOPE_INTERVAL_DEFAULTS,
    ROPE_ON_LOCAL_ONLY,
    ROPE_ON_SLIDING_ONLY,
    TEMPERATURE_NOPE,
)
from .shapes import nope_labels, rope_tables, text_section

__all__ = ["LAYER_KEYS", "MAX_LAYERS", "nope_kinds", "rope_flags"]

#: The names of the number of layers (GPT-J and CodeGen: ``n_layer``; DBRX: ``n_layers``).
LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers")
#: DeepSeek V4's layer types by compress ratio (``DeepseekV4Config.compress_rates``).
_V4_RATES = {4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
#: More layers than any model has; a typo of 10^9 is refused, not listed.
MAX_LAYERS = 100_000


def rope_flags(
    config: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
) -> tuple[list[str], list[bool]]:
    """Each layer's attention kind and whether it rotates, without reading the rope itself.

    ``defaults`` fill keys the config lacks (Llama 4's class: 48 layers, interval 4).

    Raises
    ------
    ParameterError
        ``config``: no ``num_hidden_layers``; a per-layer list of another length.

    Examples
    --------
    >>> rope_flags({"text_config": {"no_rope_layers": [1, 1, 0]}},
    ...     {"num_hidden_layers": 3})[1]
    [True, True, False]

    """
    _, section = text_section(config, fill=False)  # the caller's defaults before the class's
    section = with_class_fields({**(defaults or {}), **section})
    if derived := class_layer_types(section, _layers(section)):
        section["layer_types"] = derived
    section = _blocks_as_layers(section)
    kinds = _kinds(section, _layers(section))
    nope = nope_kinds(section, kinds)
    rotates = [r and k not in nope for r, k in zip(_rotates(section, kinds), kinds, strict=True)]
    if _nope_slides(section):  # SmolLM3: its NoPE layers slide
        kinds = ["sliding_attention" if not r else k for r, k in zip(rotates, kinds, strict=True)]
    chunked = section.get("model_type") in TEMPERATURE_NOPE and section.get("attention_chunk_size")
    if chunked and "layer_types" not in section:  # Llama 4: the RoPE layers attend in chunks
        kinds = ["chunked_attention" if r else k for r, k in zip(rotates, kinds, strict=True)]
    return kinds, rotates


def _nope_slides(section: Mapping[str, Any]) -> bool:
    """Whether the NoPE layers of ``section`` slide (:data:`.class_layers.NOPE_SLIDES`)."""
    return (
        section.get("model_type") in NOPE_SLIDES
        and section.get("layer_types") is None
        and section.get("use_sliding_window") is True
        and section.get("sliding_window") is not None
    )


def _blocks_as_layers(section: dict[str, Any]) -> dict[str, Any]:
    """One layer per (attention, ``mlp``) pair, as ``DoryConfig.__post_init__`` reads them.

    Dory's released files list attention and ``mlp`` blocks apart; transformers halves
    ``layer_types`` and ``num_hidden_layers``.
    """
    kinds, count = section.get("layer_types"), section.get("num_hidden_layers")
    if isinstance(kinds, list) and "mlp" in kinds and isinstance(count, int):
        return {**section, "layer_types": kinds[::2], "num_hidden_layers": count // 2}
    return section


def nope_kinds(section: Mapping[str, Any], kinds: list[str]) -> set[str]:
    """Layer types that rotate nothing: a null rope, or no attention at all.

    LFM's ``conv`` and Dory's ``mlp`` layers have no attention, unless the rope parameters
    name the type (Zaya's ``hybrid``).
    """
    labels = set(rope_tables(section, []))
    plain = {k for k in set(kinds) if "attention" not in k and k not in labels}
    return nope_labels(section) | plain


def _layers(section: Mapping[str, Any]) -> int:
    key = next((k for k in LAYER_KEYS if section.get(k) is not None), "num_hidden_layers")
    value: Any = section.get(key)
    if isinstance(value, list):  # some configs list per-stack counts
        value = len(value)
    whole = isinstance(value, int | float) and not isinstance(value, bool)
    rule = f"field {key} must be an integer from 1 to {MAX_LAYERS}"
    if not whole or not math.isfinite(value) or value != int(value):
        rule += no_class(section) if value is None else ""
        raise ParameterError("config", rule, "nothing" if value is None else repr(value)[:40])
    if not 1 <= value <= MAX_LAYERS:
        raise ParameterError("config", rule, value)
    return int(value)


def _per_layer(section: Mapping[str, Any], key: str, count: int) -> list[Any] | None:
    value = section.get(key)
    if value is None or value == []:
        return None
    if not isinstance(value, list) or len(value) != count:
        size = len(value) if isinstance(value, list) else repr(value)[:40]
        rule = f"field {key} must have one entry per layer (num_hidden_layers = {count})"
        raise ParameterError("config", rule, f"{size} entries" if isinstance(size, int) else size)
    return value


def _kinds(section: Mapping[str, Any], count: int) -> list[str]:
    listed = _per_layer(section, "layer_types", count)
    if listed is not None:
        return [str(kind) for kind in listed]
    ratios = _per_layer(section, "compress_ratios", count)
    if ratios is not None:  # DeepSeek V4: named as DeepseekV4Config names them
        rates = section.get("compress_rates")
        names = {v: k for k, v in rates.items()} if isinstance(rates, Mapping) else _V4_RATES
        return [
            "sliding_attention" if r == 0 else names.get(r, "compressed_attention") for r in ratios
        ]
    pattern = section.get("sliding_window_pattern")
    if pattern is None and section.get("rope_local_base_freq") is not None:
        pattern = 6  # Gemma 3's class default
    if isinstance(pattern, str) and pattern and set(pattern) <= {"L", "G"}:
        cycle = ["sliding_attention" if c == "L" else "full_attention" for c in pattern]
        return [cycle[i % len(cycle)] for i in range(count)]
    if period := _period(pattern):
        full = [(i + 1) % period == 0 for i in range(count)]
        return ["full_attention" if f else "sliding_attention" for f in full]
    if pattern is not None:
        rule = "field sliding_window_pattern must be an integer >= 1 or a string of L and G"
        raise ParameterError("config", rule, repr(pattern)[:40])
    if known := GLOBAL_EVERY.get(str(section.get("model_type"))):
        offset, every = known[0], section.get("global_attn_every_n_layers", known[1])
        if not _period(every):
            rule = "field global_attn_every_n_layers must be an integer >= 1"
            raise ParameterError("config", rule, repr(every)[:40])
        full = [(i + offset) % every == 0 for i in range(count)]
        return ["full_attention" if f else "sliding_attention" for f in full]
    if interval := _period_field(section, "full_attention_interval"):
        full = [(i + 1) % interval == 0 for i in range(count)]
        return ["full_attention" if f else "linear_attention" for f in full]
    return ["full_attention"] * count


def _rotates(section: Mapping[str, Any], kinds: list[str]) -> list[bool]:
    flags = _per_layer(section, "no_rope_layers", len(kinds))
    if flags is not None:
        if not all(f in (0, 1) and not isinstance(f, float) for f in flags):
            rule = "field no_rope_layers must hold 0 (NoPE) and 1 (RoPE), one per layer"
            raise ParameterError("config", rule, repr(flags)[:40])
        rotates = [bool(f) for f in flags]
    elif step := _period_field(
        section,
        "no_rope_layer_interval",
        NOPE_INTERVAL_DEFAULTS.get(str(section.get("model_type"))),
    ):
        rotates = [(i + 1) % step != 0 for i in range(len(kinds))]
    else:
        rotates = [True] * len(kinds)
    family = section.get("model_type")
    sliding_only = family in ROPE_ON_LOCAL_ONLY or (
        family in ROPE_ON_SLIDING_ONLY and section.get("sliding_window") is not None
    )
    return [
        r and kind != "linear_attention" and (not sliding_only or "sliding" in kind)
        for r, kind in zip(rotates, kinds, strict=True)
    ]


def _period_field(section: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    """The period of layers field ``key`` gives (``default`` when absent or null), or None.

    Read only where a class reads it (:data:`INTERVAL_READERS`, or a file that names no
    model_type): Llama's class ignores ``no_rope_layer_interval`` and rotates every layer.
    transformers takes ``(i + 1) % N`` of an integer: -4 is 4 and 0 divides by zero; a value
    that is no integer is refused by its strict fields. Refused here likewise: read as no
    period, it gave SmolLM3 no NoPE layer at all, silently.
    """
    model_type = section.get("model_type")
    if model_type is not None and model_type not in INTERVAL_READERS[key]:
        return None
    value = section.get(key)
    value = default if value is None else value
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value == 0:
        raise ParameterError("config", f"field {key} must be a nonzero integer", repr(value)[:40])
    return abs(value)


#: The classes that read each interval field (transformers 5.25: SmolLM3Config and the
#: Llama 4 / Mistral Large 4 text configs; Qwen3-Next and the Qwen3.5 / Qwen4 text configs,
#: whose ``__post_init__`` derives ``layer_types`` from ``full_attention_interval``).
INTERVAL_READERS = {
    "no_rope_layer_interval": frozenset(NOPE_INTERVAL_DEFAULTS),
    "full_attention_interval": frozenset(
        {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen4_exp_text"}
    ),
}


def _period(value: Any) -> int | None:
    """A period of layers if ``value`` is one (an integer >= 1, not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None
