"""``pecli rope identify``: which rotary embedding made an inv_freq vector or a cos/sin cache."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...io import writing
from .. import text
from ..options import Quiet
from ..progress import say_written
from .app import (
    JsonFormatOpt,
    JsonOutput,
    report_kind,
    rope_app,
)

if TYPE_CHECKING:  # pragma: no cover
    pass

RopeFile = Annotated[
    str,
    typer.Argument(
        help="An inv_freq vector or a cos/sin cache: .npy, CSV or .safetensors (cos, sin)."
    ),
]
TensorName = Annotated[
    str | None,
    typer.Option(
        "--tensor", "--key", help="The tensor's name in a .safetensors file (as identify --key)."
    ),
]


@rope_app.command("identify")
def identify_command(
    file: RopeFile,
    tensor: TensorName = None,
    fmt: JsonFormatOpt = None,
    output: JsonOutput = "-",
    quiet: Quiet = False,
) -> None:
    """Which rotary embedding made an inv_freq vector or a cos/sin cache: θ, type, parameters.

    A vector (.npy, CSV, or a tensor of a .safetensors checkpoint: older Llama-2 files hold
    model.layers.N.self_attn.rotary_emb.inv_freq) is compared with 1/θ^(2i/dim): ratio 1
    (default), constant (linear), a ramp in i (yarn) or in ω (llama3), trailing zeros
    (proportional). A cache (n × dim: cos, sin, or [cos | sin] as rope cache writes it; a
    .safetensors file with tensors cos and sin) also gives its layout, first position and
    attention factor; its frequencies are measured from the phases, rows being consecutive.

    Example: pecli rope identify inv_freq.npy; pecli rope identify cache.safetensors
    """
    from ...io.tensors import read_arrays

    kind = report_kind(output, fmt, ("json",), inputs=(file,))
    arrays, metadata = read_arrays(file, tensor=tensor)
    report, findings = _identify(file, arrays, metadata)
    if kind == "json":
        writing.write_json({**report, "findings": findings}, output=output)
    else:
        lines = [f"{key}: {value}" for key, value in report.items()]
        text.show(*lines, *(f"note: {finding}" for finding in findings), output=output)
    say_written(output, quiet=quiet)
    if report["rope_type"] == "unknown":
        from ...core.errors import RuntimeFailure

        raise RuntimeFailure(  # status 1, after the report (as pecli identify)
            f"{file} matches no rope_type pecli knows (default, linear, yarn, llama3, "
            "proportional): see the notes"
        )


def _identify(
    file: str, arrays: dict[str, np.ndarray], metadata: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """The report and findings for an inv_freq vector or a cache."""
    from ...analysis.rope.cache import split_cache
    from ...io.tensors import as_vector, missing_tensor

    if {"cos", "sin"} & arrays.keys():
        report, findings = _cache_report(arrays.get("cos"), arrays.get("sin"))
        return report, findings + _metadata_findings(arrays, metadata)
    if len(arrays) > 1:  # not a cache (no cos, no sin): one of them is the vector
        raise missing_tensor(file, list(arrays), "nothing, and it holds no cos and sin")
    table = next(iter(arrays.values()))
    if table.ndim == 1 or (table.ndim == 2 and 1 in table.shape):
        return _inv_freq_report(as_vector(table))
    return _cache_report(*split_cache(table))


def _inv_freq_report(vector: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    from ...analysis.rope.inv_freq import identify_inv_freq

    guess = identify_inv_freq(vector)
    report = {
        "rope_type": guess.rope_type,
        "theta": _number(guess.theta),
        "rotary_dim": guess.rotary_dim,
        "storage": guess.storage,
        **guess.parameters,
    }
    return report, guess.findings


def _cache_report(
    cos: np.ndarray | None, sin: np.ndarray | None
) -> tuple[dict[str, Any], list[str]]:
    from ...analysis.rope.cache import identify_cache

    guess = identify_cache(cos, sin)
    rope = guess.rope
    tables = " and ".join(k for k, v in (("cos", cos), ("sin", sin)) if v is not None)
    report = {
        "cache": tables,
        "layout": guess.layout,
        "start": guess.start,
        "attention_factor": guess.attention_factor,
        "storage": guess.storage,
        "rotary_dim": guess.rotary_dim,
        "theta": _number(guess.theta),
        "rope_type": rope.rope_type if rope else "not determined",
        **(rope.parameters if rope else {}),
    }
    return report, guess.findings + (rope.findings if rope else [])


def _metadata_findings(arrays: dict[str, np.ndarray], metadata: dict[str, str]) -> list[str]:
    """Whether pecli's metadata (``rope cache -o NAME.safetensors``) rebuilds these values.

    The cache the metadata describes is rebuilt and compared bit for bit: a fitted θ may be
    undetermined (a short bf16 cache) where the values are exactly what pecli wrote.
    """
    if metadata.get("kind") != "rope_cache":
        return []
    keys = ["rope_type", "theta", "layout", "start"]
    if metadata.get("arithmetic", "exact") != "exact":  # llama.cpp's or transformers' float32
        keys.append("arithmetic")
    said = ", ".join(f"{k} {metadata.get(k)}" for k in keys)
    try:
        same = _rebuilds(metadata, arrays)
    except (ValueError, KeyError, TypeError) as error:
        return [f"pecli's metadata describes no cache pecli can rebuild ({error}): it says {said}"]
    if same:
        return [
            f"pecli's metadata agrees: the cache it describes ({said}) is these values, bit for bit"
        ]
    return [f"pecli's metadata disagrees with the values: it says {said}"]


def _rebuilds(metadata: dict[str, str], arrays: dict[str, np.ndarray]) -> bool:
    """Whether the cache that pecli's metadata describes is ``arrays``, bit for bit.

    Rebuilt block by block (memory stays a block). Raises ValueError, KeyError or TypeError
    if the metadata describes no cache (ParameterError is a ValueError).
    """
    n = int(metadata["n"])
    for name, table in arrays.items():
        if name not in ("cos", "sin"):
            continue
        if table.shape[0] != n:
            return False
        row = 0
        for block in _metadata_blocks(metadata, n, name):
            if not _same_bits(table[row : row + len(block)], block):
                return False
            row += len(block)
    return True


def _metadata_blocks(metadata: dict[str, str], n: int, part: str) -> Iterator[np.ndarray]:
    """The row blocks of ``part`` of the cache the metadata describes (as rope cache made them).

    The top-level fields (rope_type, theta, head_dim, layout, start, dtype, arithmetic) win
    over ``rope_parameters`` (the other fields of the spec).
    """
    import json

    from ...core.rope import RopeSpec, rope_frequencies
    from ...core.rope.cache import cache_blocks
    from ...core.rope.framework import framework_cache_blocks

    fields = json.loads(metadata["rope_parameters"])
    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    given |= {
        "rope_type": metadata["rope_type"],
        "theta": float(metadata["theta"]),
        "head_dim": int(metadata["head_dim"]),
    }
    from ...core.ports.ggml_cache import ggml_cache_blocks

    make = {"transformers": framework_cache_blocks, "llama.cpp": ggml_cache_blocks}.get(
        metadata.get("arithmetic", "exact"), cache_blocks
    )
    return make(
        rope_frequencies(RopeSpec(**given)),
        n,
        start=int(metadata["start"]),
        layout=metadata["layout"],
        dtype=metadata["dtype"],
        part=part,
    )


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _number(value: float) -> float | None:
    """None for NaN: not determined (JSON has no NaN)."""
    return None if math.isnan(value) else value
