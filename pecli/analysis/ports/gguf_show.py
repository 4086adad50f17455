"""``gguf show``'s report: a GGUF's rope keys, rope mode and frequency tensors, as data and words.

The file's own numbers are kept as it stores them (:func:`spelled`: a NaN is ``"NaN"`` in
JSON, not null); the ``θ-schedule / rope_freqs`` tensor is read as transformers' inv_freq
(:func:`pecli.analysis.ports.gguf.identify_freqs`). Pure Python; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...core.ports.gguf_modes import MODES, rope_mode
from .gguf import identify_freqs

__all__ = ["show_lines", "show_report", "spelled"]


def show_report(
    arch: str | None,
    version: int,
    metadata: Mapping[str, Any],
    tensor_types: list[str],
    tensors: Mapping[str, np.ndarray],
) -> dict[str, Any]:
    """What ``gguf show`` reports of a file's header and frequency tensors.

    Its ``{arch}.rope.*`` keys and context length, the rope mode of its architecture, how many
    tensors of each ggml type it holds, the frequency tensors' values, and how
    ``θ-schedule / rope_freqs`` (transformers' ``inv_freq``) reads.
    """
    prefix = f"{arch}."
    keys = {
        k: v
        for k, v in metadata.items()
        if k.startswith(prefix + "rope.") or k == prefix + "context_length"
    }
    types: dict[str, int] = {}
    for name in tensor_types:
        types[name] = types.get(name, 0) + 1
    values = {k: v.tolist() for k, v in tensors.items()}
    mode = rope_mode(arch, keys.get(prefix + "rope.dimension_sections"))
    return {
        "architecture": arch,
        "version": version,
        "keys": keys,
        "rope_mode": mode[0] if mode else None,
        "tensor_types": types,
        "tensors": values,
        "rope_freqs_reading": identify_freqs(values.get("rope_freqs.weight"), keys, prefix),
    }


def spelled(value: Any) -> Any:
    """The file's own numbers for JSON: a stored NaN or infinity spelled as a string.

    "NaN", "Infinity" or "-Infinity": JSON has none, and null would read as a key stored
    without a value.

    >>> spelled({"a": [1.0, float("nan")], "b": float("-inf")})
    {'a': [1.0, 'NaN'], 'b': '-Infinity'}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: spelled(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [spelled(item) for item in value]
    return value


def show_lines(report: dict[str, Any]) -> list[str]:
    """:func:`show_report` in words, a line each: keys, rope mode, tensors and their reading."""
    mode = MODES.get(report["rope_mode"])
    lines = [f"architecture {report['architecture']}, GGUF version {report['version']}"]
    lines += [f"{k} = {v!r}" for k, v in report["keys"].items()]
    how = f"{mode.name} ({mode.value}): {mode.pairs}" if mode else "not in pecli's table"
    lines.append(f"rope mode {how}")
    lines.append("tensors: " + ", ".join(f"{n} {t}" for t, n in report["tensor_types"].items()))
    if report["rope_freqs_reading"]:
        seen = ", ".join(
            f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
            for k, v in report["rope_freqs_reading"].items()
            if v is not None
        )
        lines.append(f"θ-schedule / rope_freqs (transformers' inv_freq) reads as: {seen}")
    for name, values in report["tensors"].items():
        lines.append(f"{name} ({len(values)} values): " + " ".join(f"{v:.8g}" for v in values))
    return lines
