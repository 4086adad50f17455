"""``pecli rope precision`` (what bf16 / fp32 costs a cache) and ``pecli rope identify``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ..io import writing
from . import text
from .options import Quiet
from .progress import say_written
from .rope import (
    JsonOutput,
    ReportFormat,
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


InvFreqFile = Annotated[
    str, typer.Argument(help="An inv_freq vector: .npy, CSV (one row or column) or .safetensors.")
]
TensorName = Annotated[
    str | None, typer.Option("--tensor", help="The tensor's name in a .safetensors file.")
]
JsonOnly = Annotated[
    ReportFormat | None,
    typer.Option("--format", help="table or json. [default: the suffix, else table]"),
]


@rope_app.command("identify")
def identify_command(
    file: InvFreqFile, tensor: TensorName = None, fmt: JsonOnly = None,
    output: JsonOutput = "-", quiet: Quiet = False,
) -> None:  # fmt: skip
    """Which rotary embedding made this inv_freq vector: θ, width, rope type, its parameters.

    Reads a vector saved as .npy or CSV, or a tensor of a .safetensors checkpoint (older
    Llama-2 files hold model.layers.N.self_attn.rotary_emb.inv_freq). The type follows from
    the ratio to 1/θ^(2i/dim): 1 (default), constant (linear), a ramp in i (yarn) or in ω
    (llama3), trailing zeros (proportional); the storage dtype sets the tolerance.

    Example: pecli rope identify inv_freq.npy
    """
    from ..analysis.rope_identify import identify_inv_freq
    from ..io.tensors import read_vector

    kind = _kind(output, fmt, ("json",))
    guess = identify_inv_freq(read_vector(file, tensor=tensor))
    theta = None if math.isnan(guess.theta) else guess.theta  # not determined (JSON has no NaN)
    report = {"rope_type": guess.rope_type, "theta": theta, "rotary_dim": guess.rotary_dim,
              "storage": guess.storage, **guess.parameters}  # fmt: skip
    if kind == "json":
        writing.write_json({**report, "findings": guess.findings}, output=output)
    else:
        lines = [f"{key}: {value}" for key, value in report.items()]
        text.show(*lines, *(f"note: {finding}" for finding in guess.findings), output=output)
    say_written(output, quiet=quiet)
