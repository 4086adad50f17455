"""The per-layer RoPE plan of a model: which layers rotate, with which rope, and the temperature.

Layer types come from ``layer_types``, else ``sliding_window_pattern`` (an integer N: global
iff (i+1) % N == 0; a string such as ``LLLG``), ``full_attention_interval`` (Qwen3-Next:
the others are linear attention) or ``compress_ratios`` (DeepSeek V4: ratio 0 is sliding).
A layer skips RoPE (NoPE) when ``no_rope_layers`` says 0 (SmolLM3, Llama 4; else every
``no_rope_layer_interval``-th layer), when it is linear attention, or when it is global in a
family that rotates only its sliding layers (Cohere 2, EXAONE 4). The query temperature is
Llama 4's on its NoPE layers, ``1 + attn_scale·ln(⌊(p + 1)/floor_scale⌋ + 1)``, or Mistral's
``llama_4_scaling_beta`` on every layer, ``1 + β·ln(1 + ⌊p/L⌋)``. Sources: transformers 5
``configuration_*.py`` (``layer_types``, ``no_rope_layers``) and the attention classes of
those models (``Cohere2Attention``, ``Exaone4Attention``, ``Llama4TextAttention``,
``Ministral3Attention``). Pure Python and NumPy.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ParameterError
from .families import NOPE_INTERVAL_DEFAULTS, ROPE_ON_SLIDING_ONLY, TEMPERATURE_NOPE
from .reading import RopeReading, read_rope
from .shapes import ALL, nope_labels, rope_tables, text_section

__all__ = [
    "LayerRow",
    "Temperature",
    "layer_maps",
    "layer_plan",
    "layer_rope",
    "rope_flags",
    "runs",
]

#: The names of the number of layers (GPT-J and CodeGen: ``n_layer``; DBRX: ``n_layers``).
LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers")
#: DeepSeek V4's layer types by compress ratio (``DeepseekV4Config.compress_rates``).
_V4_RATES = {4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
#: More layers than any model has; a typo of 10^9 is refused, not listed.
MAX_LAYERS = 100_000


@dataclass(frozen=True)
class Temperature:
    """A factor on the queries: ``1 + scale·ln(⌊(p + offset)/length⌋ + 1)``."""

    scale: float
    length: float
    offset: int

    def at(self, positions: np.ndarray) -> np.ndarray:
        """The factor at each position (float64).

        >>> Temperature(0.1, 16384, 0).at(np.array([16383, 16384])).round(8).tolist()
        [1.0, 1.06931472]
        """
        p = np.asarray(positions, dtype=np.float64)
        return 1.0 + self.scale * np.log(np.floor((p + self.offset) / self.length) + 1.0)

    def formula(self) -> str:
        """The formula in words, e.g. ``1 + 0.1·ln(⌊p/16384⌋ + 1)``."""
        top = "(p + 1)" if self.offset else "p"
        return f"1 + {self.scale:g}·ln(⌊{top}/{self.length:g}⌋ + 1)"


@dataclass(frozen=True)
class LayerRow:
    """One layer's attention kind and RoPE (``rope`` False: NoPE, the other fields unused)."""

    kind: str
    rope: bool
    label: str
    theta: float
    rope_type: str
    factor: float | None
    rotated: int
    head: int
    start: int
    layout: str
    window: int | None
    temperature: Temperature | None

    def same(self, other: LayerRow) -> bool:
        """Equal as a plan's rows are compared (a NoPE row ignores the rope's fields)."""
        if not self.rope and not other.rope:
            keys = ("kind", "window", "temperature")
            return all(getattr(self, k) == getattr(other, k) for k in keys)
        return self == other


def layer_plan(config: Mapping[str, Any]) -> tuple[list[LayerRow], list[str]]:
    """Every layer's plan and the findings of reading it.

    Raises
    ------
    ParameterError
        ``config``: no ``num_hidden_layers``; a per-layer list of another length; a layer
        type with no rope parameters; anything :func:`.read_rope` refuses.

    Examples
    --------
    >>> rows, _ = layer_plan({"num_hidden_layers": 4, "head_dim": 64,
    ...     "no_rope_layer_interval": 4})
    >>> [row.rope for row in rows]
    [True, True, True, False]

    """
    _, section = text_section(config)
    kinds, rotates = rope_flags(config)
    nope = _nope_kinds(section, kinds)
    notes: list[str] = [
        f"rope_parameters {k}: null, its layers rotate nothing"
        for k in sorted(nope_labels(section))
    ]
    notes += [f"layer type {k}: no attention, no RoPE" for k in sorted(nope - nope_labels(section))]
    tables = rope_tables(section, [])
    labels = _labels(tables, [k for k in kinds if k not in nope])
    readings = {label: read_rope(config, label) for label in labels}
    for reading in readings.values():
        notes += [n for n in reading.notes if n not in notes]
    named = {kind: "" if kind in nope else _label(tables, kind) for kind in set(kinds)}
    if not readings:
        raise ParameterError("config", "has no RoPE layer: every layer type's rope is null", nope)
    fallback = next(iter(readings.values()))
    rows = [
        _row(section, kind, rope, named[kind], readings.get(named[kind], fallback))
        for kind, rope in zip(kinds, rotates, strict=True)
    ]
    return rows, notes


def _row(
    section: Mapping[str, Any], kind: str, rope: bool, label: str, reading: RopeReading
) -> LayerRow:
    """One layer's row (a NoPE label's row carries another rope's widths, unused)."""
    spec = reading.spec
    return LayerRow(
        kind,
        rope,
        label,
        spec.theta,
        spec.rope_type,
        spec.factor,
        spec.rotary_dim,
        reading.head,
        reading.start,
        reading.layout,
        _window(section, kind),
        _temperature(section, reading.params, rope),
    )


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
    _, section = text_section(config)
    section = _blocks_as_layers({**(defaults or {}), **section})
    kinds = _kinds(section, _layers(section))
    nope = _nope_kinds(section, kinds)
    rotates = [r and k not in nope for r, k in zip(_rotates(section, kinds), kinds, strict=True)]
    chunked = section.get("model_type") in TEMPERATURE_NOPE and section.get("attention_chunk_size")
    if chunked and "layer_types" not in section:  # Llama 4: the RoPE layers attend in chunks
        kinds = ["chunked_attention" if r else k for r, k in zip(rotates, kinds, strict=True)]
    return kinds, rotates


def _blocks_as_layers(section: dict[str, Any]) -> dict[str, Any]:
    """One layer per (attention, ``mlp``) pair, as ``DoryConfig.__post_init__`` reads them.

    Dory's released files list attention and ``mlp`` blocks apart; transformers halves
    ``layer_types`` and ``num_hidden_layers``.
    """
    kinds, count = section.get("layer_types"), section.get("num_hidden_layers")
    if isinstance(kinds, list) and "mlp" in kinds and isinstance(count, int):
        return {**section, "layer_types": kinds[::2], "num_hidden_layers": count // 2}
    return section


def _nope_kinds(section: Mapping[str, Any], kinds: list[str]) -> set[str]:
    """Layer types that rotate nothing: a null rope, or no attention at all.

    LFM's ``conv`` and Dory's ``mlp`` layers have no attention, unless the rope parameters
    name the type (Zaya's ``hybrid``).
    """
    labels = set(rope_tables(section, []))
    plain = {k for k in set(kinds) if "attention" not in k and k not in labels}
    return nope_labels(section) | plain


def _window(section: Mapping[str, Any], kind: str) -> int | None:
    """The sliding window of a sliding layer, the chunk of a chunked one (Llama 4)."""
    if "sliding" in kind:
        return section.get("sliding_window")
    return section.get("attention_chunk_size") if "chunked" in kind else None


def layer_rope(config: Mapping[str, Any], layer: int, *, seq_len: int | None = None) -> RopeReading:
    """The rope of layer ``layer`` (0-based) of a config.

    Raises
    ------
    ParameterError
        ``layer``: outside the model's layers, or a NoPE layer (it rotates nothing);
        ``config``: as :func:`layer_plan`.

    Examples
    --------
    >>> config = {"num_hidden_layers": 6, "head_dim": 256, "rope_theta": 1e6,
    ...     "rope_local_base_freq": 1e4}
    >>> layer_rope(config, 0).spec.theta, layer_rope(config, 5).spec.theta
    (10000.0, 1000000.0)

    """
    rows, _ = layer_plan(config)
    if not 0 <= layer < len(rows):
        rule = f"must be a layer of the model, 0 to {len(rows) - 1}"
        raise ParameterError("layer", rule, layer)
    row = rows[layer]
    if not row.rope:
        rule = f"is a NoPE layer ({row.kind}): it rotates nothing; pick a RoPE layer"
        raise ParameterError("layer", rule, layer)
    reading = read_rope(config, row.label or None, seq_len=seq_len)
    notes = [f"layer {layer}: {row.kind}" + (f", rope {row.label!r}" if row.label else "")]
    return dataclasses.replace(reading, notes=notes + reading.notes)


def runs(rows: list[LayerRow]) -> list[tuple[int, int, LayerRow]]:
    """Runs of equal consecutive rows: ``(first, last, row)``."""
    found: list[tuple[int, int, LayerRow]] = []
    for i, row in enumerate(rows):
        if found and found[-1][2].same(row):
            found[-1] = (found[-1][0], i, found[-1][2])
        else:
            found.append((i, i, row))
    return found


def layer_maps(rows: list[LayerRow]) -> tuple[str, str]:
    """One character per layer: RoPE (``R``) or NoPE (``N``), and the attention kind.

    The kinds: sliding (``s``), global (``G``), linear (``L``), compressed (``C``),
    chunked (``c``), no attention (``-``: a convolution or MLP block).

    >>> layer_maps(layer_plan({"num_hidden_layers": 4, "head_dim": 64,
    ...     "no_rope_layer_interval": 4})[0])
    ('RRRN', 'GGGG')
    """
    letters = {"sliding": "s", "linear": "L", "compress": "C", "chunked": "c"}
    kinds = "".join(
        next((v for k, v in letters.items() if k in r.kind), "G" if _attends(r) else "-")
        for r in rows
    )
    return "".join("R" if r.rope else "N" for r in rows), kinds


def _attends(row: LayerRow) -> bool:
    """Whether a row is an attention layer (not a convolution or an MLP-only block)."""
    return row.rope or "attention" in row.kind


def _layers(section: Mapping[str, Any]) -> int:
    key = next((k for k in LAYER_KEYS if section.get(k) is not None), "num_hidden_layers")
    value: Any = section.get(key)
    if isinstance(value, list):  # some configs list per-stack counts
        value = len(value)
    whole = isinstance(value, int | float) and not isinstance(value, bool)
    rule = f"field {key} must be an integer from 1 to {MAX_LAYERS}"
    if not whole or not math.isfinite(value) or value != int(value):
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
    interval = _period(section.get("full_attention_interval"))
    if interval:
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
    elif step := _period(
        section.get(
            "no_rope_layer_interval", NOPE_INTERVAL_DEFAULTS.get(str(section.get("model_type")))
        )
    ):
        rotates = [(i + 1) % step != 0 for i in range(len(kinds))]
    else:
        rotates = [True] * len(kinds)
    sliding_only = section.get("model_type") in ROPE_ON_SLIDING_ONLY
    sliding_only = sliding_only and section.get("sliding_window") is not None
    return [
        r and kind != "linear_attention" and (not sliding_only or "sliding" in kind)
        for r, kind in zip(rotates, kinds, strict=True)
    ]


def _period(value: Any) -> int | None:
    """A period of layers if ``value`` is one (an integer >= 1, not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def _labels(tables: Mapping[str, Any], kinds: list[str]) -> set[str]:
    return {_label(tables, kind) for kind in kinds}


def _label(tables: Mapping[str, Any], kind: str) -> str:
    if ALL in tables:
        return ALL
    if kind in tables:
        return kind
    if "main" in tables and "compress" in tables:  # DeepSeek V4
        return "main" if kind == "sliding_attention" else "compress"
    if len(tables) == 1:
        return next(iter(tables))
    raise ParameterError(
        "config", f"has no rope parameters for layer type {kind!r}", sorted(tables)
    )


def _temperature(
    section: Mapping[str, Any], params: Mapping[str, Any], rope: bool
) -> Temperature | None:
    beta = params.get("llama_4_scaling_beta")
    if beta is not None:
        length = params.get("original_max_position_embeddings")
        return Temperature(
            _number("llama_4_scaling_beta", beta),
            _number("original_max_position_embeddings", length, positive=True),
            0,
        )
    llama4 = section.get("model_type") in TEMPERATURE_NOPE or "attn_temperature_tuning" in section
    if llama4 and not rope and section.get("attn_temperature_tuning", True):
        scale = _number("attn_scale", section.get("attn_scale", 0.1))
        floor = _number("floor_scale", section.get("floor_scale", 8192), positive=True)
        return Temperature(scale, floor, 1)
    return None


def _number(key: str, value: Any, *, positive: bool = False) -> float:
    """A temperature's field: a finite number (> 0 where it divides the position)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or (positive and value <= 0):
        words = "a number > 0" if positive else "a finite number"
        raise ParameterError("config", f"field {key} must be {words}", repr(value)[:40])
    return float(value)
