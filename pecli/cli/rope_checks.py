"""``pecli rope precision`` (what bf16 / fp32 costs a cache) and ``pecli rope identify``."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ..io import writing
from . import text
from .options import Quiet
from .progress import say_written
from .rope import (
    JsonOutput,
    ReportFormatOpt,
    ReportOutput,
    RopeStart,
    _kind,
    rope_app,
)
from .rope_options import rope_spec_options

if TYPE_CHECKING:  # pragma: no cover
    from ..core.rope import RopeSpec

Positions = Annotated[int, typer.Option("--n", help="Positions start … start+n-1 (>= 1).")]


@rope_app.command("precision")
@rope_spec_options()
def precision_command(
    n: Positions = 131072, start: RopeStart = 0, fmt: ReportFormatOpt = None,
    output: ReportOutput = "-", quiet: Quiet = False, *, rope: tuple[RopeSpec, list[str]],
) -> None:  # fmt: skip
    """Largest phase and cos error per decade of positions when a cache is built in low precision.

    Scenarios: fp32 (inv_freq, positions and angles in float32, as transformers does),
    bf16-inv-freq (inv_freq held in bf16), bf16-positions (positions in bf16: exact only up
    to 256), bf16-angles (angles rounded to bf16, as under autocast). Errors are against the
    exact angles p·ω; the cos error includes the attention factor.

    Example: pecli rope precision --theta 500000 --n 131072
    """
    from ..analysis.rope_precision import rope_phase_errors
    from ..core.rope import rope_frequencies

    kind = _kind(output, fmt)
    rows = rope_phase_errors(rope_frequencies(rope[0]), n, start=start)
    columns = {
        "scenario": np.array([r.scenario for r in rows]),
        "first": np.array([r.first for r in rows]),
        "last": np.array([r.last for r in rows]),
        "max_phase_error": np.array([r.phase for r in rows]),
        "max_cos_error": np.array([r.cos for r in rows]),
    }
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(_table(columns), output=output)
    say_written(output, quiet=quiet)


def _table(columns: dict[str, np.ndarray]) -> Any:
    from rich.table import Table

    table = Table(title="RoPE cache: largest errors per decade of positions")
    for name in ("scenario", "positions", "phase error (rad)", "cos error"):
        table.add_column(name, justify="left" if name == "scenario" else "right")
    for name, first, last, phase, cos in zip(*columns.values(), strict=True):
        table.add_row(str(name), f"{first} … {last}", f"{phase:.3g}", f"{cos:.3g}")
    return table


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


class TableOrJson(StrEnum):
    """The formats of rope identify's report."""

    table = "table"
    json = "json"


JsonOnly = Annotated[
    TableOrJson | None,
    typer.Option("--format", help="table or json. [default: the suffix, else table]"),
]


@rope_app.command("identify")
def identify_command(
    file: RopeFile, tensor: TensorName = None, fmt: JsonOnly = None,
    output: JsonOutput = "-", quiet: Quiet = False,
) -> None:  # fmt: skip
    """Which rotary embedding made an inv_freq vector or a cos/sin cache: θ, type, parameters.

    A vector (.npy, CSV, or a tensor of a .safetensors checkpoint: older Llama-2 files hold
    model.layers.N.self_attn.rotary_emb.inv_freq) is compared with 1/θ^(2i/dim): ratio 1
    (default), constant (linear), a ramp in i (yarn) or in ω (llama3), trailing zeros
    (proportional). A cache (n × dim: cos, sin, or [cos | sin] as rope cache writes it; a
    .safetensors file with tensors cos and sin) also gives its layout, first position and
    attention factor; its frequencies are measured from the phases, rows being consecutive.

    Example: pecli rope identify inv_freq.npy; pecli rope identify cache.safetensors
    """
    from ..io.tensors import read_arrays

    kind = _kind(output, fmt, ("json",))
    arrays, metadata = read_arrays(file, tensor=tensor)
    report, findings = _identify(file, arrays, metadata)
    if kind == "json":
        writing.write_json({**report, "findings": findings}, output=output)
    else:
        lines = [f"{key}: {value}" for key, value in report.items()]
        text.show(*lines, *(f"note: {finding}" for finding in findings), output=output)
    say_written(output, quiet=quiet)


def _identify(
    file: str, arrays: dict[str, np.ndarray], metadata: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """The report and findings for an inv_freq vector or a cache."""
    from ..analysis.rope_cache import split_cache
    from ..core.errors import ParameterError
    from ..io.tensors import as_vector

    if {"cos", "sin"} & arrays.keys():
        return _cache_report(arrays.get("cos"), arrays.get("sin"), metadata)
    if len(arrays) > 1:
        rule = f"must name a tensor of {file} (it holds no tensors cos and sin)"
        raise ParameterError("tensor", rule, None)
    table = next(iter(arrays.values()))
    if table.ndim == 1 or (table.ndim == 2 and 1 in table.shape):
        return _inv_freq_report(as_vector(table))
    return _cache_report(*split_cache(table), metadata)


def _inv_freq_report(vector: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    from ..analysis.rope_identify import identify_inv_freq

    guess = identify_inv_freq(vector)
    report = {"rope_type": guess.rope_type, "theta": _number(guess.theta),
              "rotary_dim": guess.rotary_dim, "storage": guess.storage,
              **guess.parameters}  # fmt: skip
    return report, guess.findings


def _cache_report(
    cos: np.ndarray | None, sin: np.ndarray | None, metadata: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    from ..analysis.rope_cache import identify_cache

    guess = identify_cache(cos, sin)
    rope = guess.rope
    tables = " and ".join(k for k, v in (("cos", cos), ("sin", sin)) if v is not None)
    report = {
        "cache": tables, "layout": guess.layout, "start": guess.start,
        "attention_factor": guess.attention_factor, "storage": guess.storage,
        "rotary_dim": guess.rotary_dim, "theta": _number(guess.theta),
        "rope_type": rope.rope_type if rope else "not determined",
        **(rope.parameters if rope else {}),
    }  # fmt: skip
    findings = guess.findings + (rope.findings if rope else [])
    return report, findings + _metadata_findings(report, metadata)


def _metadata_findings(report: dict[str, Any], metadata: dict[str, str]) -> list[str]:
    """What pecli's metadata (``rope cache -o NAME.safetensors``) says beside the values."""
    if metadata.get("kind") != "rope_cache":
        return []
    said = {"rope_type": metadata.get("rope_type"), "layout": metadata.get("layout"),
            "theta": float(metadata.get("theta", "nan")),
            "start": int(metadata.get("start", "-1"))}  # fmt: skip
    differ = [f"{k} {v}" for k, v in said.items() if report[k] not in (v, "not determined")]
    if not differ:
        return ["pecli's metadata agrees: " + ", ".join(f"{k} {v}" for k, v in said.items())]
    return ["pecli's metadata disagrees with the values: it says " + ", ".join(differ)]


def _number(value: float) -> float | None:
    """None for NaN: not determined (JSON has no NaN)."""
    return None if math.isnan(value) else value
