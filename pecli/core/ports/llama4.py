"""Llama 4's iRoPE: which layers rotate, their chunked attention, and the NoPE temperature.

Every ``no_rope_layer_interval``-th layer (4: layers 3, 7, 11, …) rotates nothing and
attends globally; the others use RoPE inside chunks of ``attention_chunk_size`` (8192). The
NoPE layers multiply the queries by ``log(floor((p + 1) / floor_scale) + 1) · attn_scale + 1``
(``floor_scale`` 8192, ``attn_scale`` 0.1): 1 up to position 8190, then growing with the log
of the position. Source: transformers ``models/llama4/configuration_llama4.py``
(``no_rope_layers``) and ``modeling_llama4.py`` ``Llama4TextAttention.forward``
(``attn_temperature_tuning``). Pure NumPy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = ["MAX_LAYERS", "irope_settings", "nope_temperature", "rope_layers", "temperatures"]

#: Far more layers than any model has (Llama 4: 48); a typo of 10^11 is refused, not listed.
MAX_LAYERS = 100_000


def nope_temperature(
    positions: np.ndarray, *, floor_scale: float = 8192.0, attn_scale: float = 0.1
) -> np.ndarray:
    """The NoPE layers' factor on the queries at each position (float64).

    Examples
    --------
    >>> np.round(nope_temperature(np.array([0, 8190, 8191, 65535, 1048575])), 7).tolist()
    [1.0, 1.0, 1.0693147, 1.2197225, 1.4859812]

    """
    p = np.asarray(positions, dtype=np.float64)
    result: np.ndarray = np.log(np.floor((p + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0
    return result


def rope_layers(layers: int, interval: int = 4, given: list[int] | None = None) -> list[bool]:
    """Whether each layer rotates: ``(i + 1) % interval != 0`` unless the config lists them.

    Examples
    --------
    >>> ["rope" if r else "nope" for r in rope_layers(8)]
    ['rope', 'rope', 'rope', 'nope', 'rope', 'rope', 'rope', 'nope']

    """
    if given:
        return [bool(flag) for flag in given]
    return [(i + 1) % interval != 0 for i in range(layers)]


def temperatures(points: np.ndarray, settings: dict[str, Any]) -> np.ndarray:
    """The NoPE temperature at ``points`` with a config's settings (:func:`irope_settings`).

    Raises
    ------
    ParameterError
        (as ``config``) a factor that overflows float64 (never inf in a table).

    Examples
    --------
    >>> temperatures(np.array([8191]), irope_settings(None)).round(7).tolist()
    [1.0693147]

    """
    with np.errstate(all="ignore"):
        scales = nope_temperature(
            points, floor_scale=settings["floor_scale"], attn_scale=settings["attn_scale"]
        )
    if not np.all(np.isfinite(scales)):
        rule = "gives a NoPE temperature that overflows float64 (floor_scale or attn_scale)"
        raise ParameterError("config", rule, f"attn_scale {settings['attn_scale']!r}")
    return scales


#: The config's fields read (transformers' Llama4TextConfig), each with its default and rule.
_FIELDS: dict[str, tuple[str, Any, str]] = {
    "num_hidden_layers": ("layers", 48, "layers"),
    "no_rope_layer_interval": ("interval", 4, "count"),
    "no_rope_layers": ("no_rope_layers", None, "flags"),
    "attention_chunk_size": ("chunk", 8192, "count"),
    "floor_scale": ("floor_scale", 8192.0, "positive"),
    "attn_scale": ("attn_scale", 0.1, "number"),
    "attn_temperature_tuning": ("tuning", True, "bool"),
}


def irope_settings(config: dict[str, Any] | None) -> dict[str, Any]:
    """The iRoPE fields of a Llama 4 config (its ``text_config`` read over the top level).

    Returns a dict keyed ``layers``, ``interval``, ``no_rope_layers``, ``chunk``,
    ``floor_scale``, ``attn_scale``, ``tuning`` (each field or transformers' default) and
    ``missing`` (the fields that fell back on a default). A ``no_rope_layers`` list is read as
    :func:`pecli.core.rope.config.plans.rope_flags` reads it.

    Raises
    ------
    ParameterError
        (as ``config``) a field against its rule, naming the field.

    Examples
    --------
    >>> irope_settings({"no_rope_layer_interval": 2})["interval"]
    2

    """
    values: dict[str, Any] = {name: default for name, default, _ in _FIELDS.values()}
    values["missing"] = []
    if config is None:
        return values
    read = config
    inner = read.get("text_config")
    read = {**read, **(inner if isinstance(inner, dict) else {})}
    for key, (name, _, rule) in _FIELDS.items():
        if key in read and (read[key] is not None or key == "attention_chunk_size"):
            values[name] = _checked(key, read[key], rule)  # a null chunk size: no chunks
        elif key not in read and key != "no_rope_layers":  # without the list: the interval
            values["missing"].append(key)
    flags = values["no_rope_layers"]
    if flags:  # the map pecli rope layers reads: a list of another length is refused there
        from ..rope.config.plans import rope_flags

        flags = [int(f) for f in rope_flags(read, {"num_hidden_layers": len(flags)})[1]]
        values["no_rope_layers"] = flags
    if flags:  # the list decides the layers, not the interval or count
        unused = ("no_rope_layer_interval", "num_hidden_layers")
        values["missing"] = [k for k in values["missing"] if k not in unused]
    return values


def _checked(key: str, value: Any, rule: str) -> Any:
    """A config field that follows its rule, else a usage error naming --config and the field."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    whole = number and math.isfinite(value) and value == int(value)  # int(NaN) would raise
    ok = {
        "layers": whole and 1 <= value <= MAX_LAYERS,
        "count": value is None or (whole and value >= 1),
        "positive": number and math.isfinite(value) and value > 0,
        "number": number and math.isfinite(value),
        "bool": isinstance(value, int | float),  # released configs hold 4: it is truthy
        "flags": isinstance(value, list)
        and len(value) <= MAX_LAYERS
        and all(v in (0, 1) and not isinstance(v, float) for v in value),
    }[rule]
    if not ok:
        words = {
            "layers": f"an integer from 1 to {MAX_LAYERS}",
            "count": "an integer >= 1",
            "positive": "a number > 0",
            "number": "a finite number",
            "bool": "true or false",
            "flags": "a list of 0 (NoPE) and 1 (RoPE), one per layer",
        }
        raise ParameterError("config", f"field {key} must be {words[rule]}", repr(value)[:60])
    if rule == "bool":
        return bool(value)
    return int(value) if rule in ("layers", "count") and value is not None else value
