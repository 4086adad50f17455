"""``pecli rope layers``: a model's RoPE layer by layer (NoPE, θ, scaling, slice, temperature)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...io import text, writing
from ...io.reports import say_written
from ..json_report import ReportFormatOpt, ReportOutput
from ..options import Quiet
from .app import report_kind, rope_app
from .options import integer_positions

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope.config.plans import LayerRow


ModelFile = Annotated[
    str, typer.Argument(help="A model's config.json (or its folder), or a GGUF file.")
]
Positions = Annotated[
    str | None,
    typer.Option(
        "--positions",
        help="Comma-separated positions p (0 to 2^53): the query temperature of each layer there.",
    ),
]


@rope_app.command("layers")
def layers_command(
    file: ModelFile,
    positions: Positions = None,
    fmt: ReportFormatOpt = None,
    output: ReportOutput = "-",
    quiet: Quiet = False,
) -> None:
    """The per-layer RoPE plan of a model's config.json or GGUF: which layers rotate, and how.

    One row per run of equal layers: the attention kind (sliding, global, linear, compressed),
    RoPE or NoPE, θ, rope type and factor, the rotated slice (first channel, width, layout), the
    sliding window, and the query temperature as a function of the position p (Llama 4's NoPE
    layers, Mistral's llama_4_scaling_beta); --positions gives its value at those positions.
    The CSV and JSON outputs hold one row per layer. A GGUF is read by its keys, plus what
    llama.cpp hard-codes per architecture (Gemma 3's period 6, SmolLM3's NoPE step 4).

    Example: pecli rope layers gemma-3-4b/config.json
    """
    from ...core.rope.config.plans import layer_maps, runs
    from ...io.paths import check_not_input

    kind = report_kind(output, fmt)
    check_not_input(output, (file,))
    points = np.zeros(0, np.int64) if positions is None else integer_positions(positions)
    rows, notes = _plan(file)
    if kind != "table":
        records = [row.record(i, points) for i, row in enumerate(rows)]
        columns = {name: [r[name] for r in records] for name in records[0]}
        writing.write_records(columns, output=output, fmt=kind)  # type: ignore[arg-type]
    else:
        rope_map, attention_map = layer_maps(rows)
        lines = [f"{len(rows)} layers; RoPE map {rope_map}", f"attention map {attention_map}"]
        tables = [_table(runs(rows))] + ([_temperatures(rows, points)] if len(points) else [])
        text.show(*lines, *tables, *("note: " + n for n in notes), output=output)
    say_written(output, quiet=quiet)


def _plan(file: str) -> tuple[list[LayerRow], list[str]]:
    """The plan of the config or GGUF; its faults are the argument's."""
    from ...core.errors import ParameterError
    from ...core.rope.config.plans import layer_plan
    from ...io.ports.gguf import is_gguf

    notes: list[str] = []
    if not is_gguf(file):
        from ...io.reading.json_config import read_json_object

        config = read_json_object(file, parameter="file")
    try:
        if is_gguf(file):
            from ...core.ports.gguf_layers import config_from_gguf
            from ...io.ports.gguf import read_gguf

            gguf = read_gguf(file, parameter="file")
            config, notes = config_from_gguf(gguf.metadata, gguf.arch)
        rows, found = layer_plan(config)
    except ParameterError as error:
        raise ParameterError("file", error.rule, error.value) from None
    return rows, notes + found


def _temperatures(rows: list[LayerRow], points: np.ndarray) -> Any:
    """One column per distinct temperature (1 where a layer has none)."""
    formulas = sorted({r.temperature for r in rows if r.temperature}, key=lambda t: t.formula())
    table = text.titled_table(
        "query temperature", "position p", "no temperature", *(t.formula() for t in formulas)
    )
    for i, p in enumerate(points):
        values = [t.at(points)[i] for t in formulas]
        table.add_row(str(p), "1", *(f"{v:.8f}" for v in values))
    return table


def _table(found: list[tuple[int, int, LayerRow]]) -> Any:
    table = text.titled_table(
        "runs of equal layers",
        "layers",
        "attention",
        "RoPE",
        "θ",
        "type",
        "rotated",
        "window",
        "temperature",
    )
    for first, last, row in found:
        span = str(first) if first == last else f"{first}-{last}"
        scaled = f"{row.rope_type} ×{row.factor:g}" if row.factor else row.rope_type
        rotated = f"{row.start}…{row.start + row.rotated - 1} of {row.head}, {row.layout}"
        table.add_row(
            span,
            row.kind,
            "RoPE" if row.rope else "NoPE",
            f"{row.theta:g}" if row.rope else "-",
            scaled if row.rope else "-",
            rotated if row.rope else "-",
            str(row.window or "-"),
            row.temperature.formula() if row.temperature else "-",
        )
    return table
