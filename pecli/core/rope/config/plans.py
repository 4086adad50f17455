"""The per-layer RoPE plan of a model: which layers rotate, with which rope, and the temperature.

Which layers there are and which rotate is :mod:`.layer_types`; each layer type's rope is
:func:`.reading.read_rope` of its label. The query temperature is Llama 4's on its NoPE layers,
``1 + attn_scale·ln(⌊(p + 1)/floor_scale⌋ + 1)``, or Mistral's ``llama_4_scaling_beta`` on
every layer, ``1 + β·ln(1 + ⌊p/L⌋)``. Sources: transformers 5 ``Llama4TextAttention``
(``attn_temperature_tuning``) and ``Ministral3Attention`` (``get_llama_4_attn_scale``). Pure
Python and NumPy.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...rules import LAYER_RULE
from .class_layers import window_dropped
from .families import HALF_LOCAL_ATTENTION, KNOWN_LAYER_TYPES, TEMPERATURE_NOPE, no_rope_reason
from .layer_types import nope_kinds, rope_flags
from .reading import RopeReading, read_rope
from .shapes import ALL, nope_labels, rope_tables, text_section
from .widths import head_widths

__all__ = [
    "LayerRow",
    "Temperature",
    "layer_maps",
    "layer_plan",
    "layer_rope",
    "rope_flags",
    "runs",
]


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
        with np.errstate(over="ignore"):
            factor = 1.0 + self.scale * np.log(np.floor((p + self.offset) / self.length) + 1.0)
        if not np.isfinite(factor).all():  # a scale near 1e308: never an inf (or null) written
            rule = f"must keep the query temperature {self.formula()} finite in float64"
            raise ParameterError("positions", rule, int(p[~np.isfinite(factor)][0]))
        return np.asarray(factor)

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

    def record(self, index: int, points: np.ndarray) -> dict[str, Any]:
        """Layer ``index`` as a CSV or JSON row, with its query temperature at ``points``.

        A NoPE layer's rope fields are None (``rotated`` 0); the temperature is 1 at every
        point for a layer without one (column ``temperature_at_<p>``).
        """
        rope = self.rope
        factors = self.temperature.at(points) if self.temperature else np.ones(len(points))
        at = {f"temperature_at_{p}": float(f) for p, f in zip(points, factors, strict=True)}
        return {
            "layer": index,
            "attention": self.kind,
            "rope": rope,
            "label": self.label or None,
            "theta": self.theta if rope else None,
            "rope_type": self.rope_type if rope else None,
            "factor": self.factor if rope else None,
            "rotated": self.rotated if rope else 0,
            "first_channel": self.start if rope else None,
            "head": self.head,
            "layout": self.layout if rope else None,
            "sliding_window": self.window,
            "temperature": self.temperature.formula() if self.temperature else None,
            **at,
        }


def layer_plan(config: Mapping[str, Any]) -> tuple[list[LayerRow], list[str]]:
    """Every layer's plan and the findings of reading it.

    Raises
    ------
    ParameterError
        ``config``: no ``num_hidden_layers``; a per-layer list of another length; a layer
        type with no rope parameters; anything :func:`.read_rope` refuses. A model without
        RoPE (:func:`.families.no_rope_reason`, or every rope null) is a plan of NoPE rows.

    Examples
    --------
    >>> rows, _ = layer_plan({"num_hidden_layers": 4, "head_dim": 64,
    ...     "no_rope_layer_interval": 4})
    >>> [row.rope for row in rows]
    [True, True, True, False]

    """
    _, section = text_section(config)
    kinds, rotates = rope_flags(config)
    reason = no_rope_reason(section)
    nope = set(kinds) if reason else nope_kinds(section, kinds)
    notes: list[str] = [f"no RoPE: {reason}"] if reason else []
    notes += [
        f"rope_parameters {k}: null, its layers rotate nothing"
        for k in sorted(nope_labels(section))
    ]
    plain = set() if reason else nope - nope_labels(section)
    notes += [f"layer type {k}: no attention, no RoPE" for k in sorted(plain)]
    notes += [
        f"layer type {k}: a name transformers 5.25 does not know (its class refuses it); read"
        f" as {'no attention' if k in plain else 'attention'}"
        for k in sorted(set(kinds) - KNOWN_LAYER_TYPES)
    ]
    tables = {} if reason else rope_tables(section, [])
    labels = _labels(tables, [k for k in kinds if k not in nope])
    readings = {label: read_rope(config, label) for label in labels}
    for reading in readings.values():
        notes += [n for n in reading.notes if n not in notes]
    named = {kind: "" if kind in nope else _label(tables, kind) for kind in set(kinds)}
    if not readings:  # a model without RoPE: every layer NoPE
        notes += [] if reason else ["no layer rotates"]
        return [_nope_row(section, kind) for kind in kinds], notes
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


def _nope_row(section: Mapping[str, Any], kind: str) -> LayerRow:
    """A layer of a model without RoPE (its head width when the config gives one, else 0)."""
    try:
        head = head_widths(section, []).head
    except ParameterError:
        given = section.get("qk_head_dim")
        head = given if isinstance(given, int) else 0
    window = _window(section, kind)
    return LayerRow(kind, False, "", math.nan, "", None, 0, head, 0, "", window, None)


def _window(section: Mapping[str, Any], kind: str) -> int | None:
    """The sliding window of a sliding layer, the chunk of a chunked one (Llama 4).

    ModernBERT's is half its ``local_attention`` (:data:`HALF_LOCAL_ATTENTION`); a class
    that drops its window unless ``use_sliding_window`` (:func:`.class_layers.window_dropped`)
    has none.
    """
    if "sliding" in kind and window_dropped(section):
        return None
    if "sliding" in kind:  # Inkling2: sliding_window_size
        key = (
            "sliding_window" if section.get("sliding_window") is not None else "sliding_window_size"
        )
    elif "chunked" in kind:
        key = "attention_chunk_size"
    else:
        return None
    window = section.get(key)
    family = str(section.get("model_type"))
    if window is None and "sliding" in kind and family in HALF_LOCAL_ATTENTION:
        local = section.get("local_attention", HALF_LOCAL_ATTENTION[family])
        if not isinstance(local, int) or isinstance(local, bool) or local < 2:
            rule = "field local_attention must be an integer >= 2 (the window is half of it)"
            raise ParameterError("config", rule, repr(local)[:40])
        return local // 2
    if window is None:
        return None
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:  # NaN, -1, "x"
        raise ParameterError("config", f"field {key} must be an integer >= 1", repr(window)[:40])
    return window


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
    if layer < 0:  # before the config is read: a file without num_hidden_layers is no excuse
        raise ParameterError("layer", LAYER_RULE, layer)
    rows, _ = layer_plan(config)
    if layer >= len(rows):
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
    return row.rope or "attention" in row.kind or "hybrid" in row.kind  # Inkling2's hybrid


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
