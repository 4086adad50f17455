"""``pecli rope identify``: which rotary embedding made an inv_freq vector or a cos/sin cache."""

from __future__ import annotations

from typing import Annotated

import typer

from ...io import text, writing
from ...io.reports import say_written
from ..options import Quiet
from .app import (
    JsonFormatOpt,
    JsonOutput,
    report_kind,
    rope_app,
)

RopeFile = Annotated[
    str,
    typer.Argument(
        help="An inv_freq vector or a cos/sin cache: .npy, CSV, .safetensors or .npz (cos, sin)."
    ),
]
TensorName = Annotated[
    str | None,
    typer.Option(
        "--tensor",
        "--key",
        help="The tensor's name in a .safetensors or .npz file (as identify --key).",
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
    Exit status 1, after the report, when no rope type matches (rope_type: unknown) or the
    values do not determine one (rope_type: not determined: too few rows or pairs, no
    rotation), unless pecli's metadata beside them rebuilds them bit for bit (its type then).

    Example: pecli rope identify inv_freq.npy; pecli rope identify cache.safetensors
    """
    from ...analysis.rope.identify import identify_rope, type_known
    from ...io.reading.arrays import ANY_FORMATS, read_arrays
    from ...io.tensors import missing_tensor

    kind = report_kind(output, fmt, ("json",), inputs=(file,))
    arrays, metadata = read_arrays(file, tensor=tensor, formats=ANY_FORMATS[:-1])  # no GGUF
    if len(arrays) > 1 and not {"cos", "sin"} & arrays.keys():  # which one is the vector?
        raise missing_tensor(file, list(arrays), "nothing, and it holds no cos and sin")
    report, findings = identify_rope(arrays, metadata)
    if kind == "json":
        writing.write_json({**report, "findings": findings}, output=output)
    else:
        lines = [f"{key}: {value}" for key, value in report.items()]
        text.show(*lines, *(f"note: {finding}" for finding in findings), output=output)
    say_written(output, quiet=quiet)
    if not type_known(report, findings):
        from ...core.errors import RuntimeFailure

        if report["rope_type"] == "unknown":
            raise RuntimeFailure(  # status 1, after the report (as pecli identify)
                f"{file} matches no rope_type pecli knows (default, linear, yarn, llama3, "
                "proportional): see the notes"
            )
        raise RuntimeFailure(  # a reading that determines no type is no success either
            f"{file}: its values do not determine the rope type: see the notes"
        )
