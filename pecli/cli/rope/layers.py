"""``pecli rope layers``: a model's RoPE layer by layer (NoPE, θ, scaling, slice, temperature)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...io import writing
from .. import text
from ..json_report import ReportFormatOpt, ReportOutput
from ..options import Quiet
from ..progress import say_written
from .app import ConfigFile, report_kind, rope_app

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope.config.plans import LayerRow

#: The columns of the CSV and JSON outputs, one row per layer.
COLUMNS: tuple[str, ...] = ("layer", "attention", "rope", "label", "theta", "rope_type")
COLUMNS += ("factor", "rotated", "first_channel", "head", "layout", "sliding_window")
COLUMNS += ("temperature",)


@rope_app.command("layers")
def layers_command(
    file: ConfigFile,
    fmt: ReportFormatOpt = None,
    output: ReportOutput = "-",
    quiet: Quiet = False,
) -> None:
    """The per-layer RoPE plan of a model's config: which layers rotate, and how.

    One row per run of equal layers: the attention kind (sliding, global, linear, compressed),
    RoPE or NoPE, θ, rope type and factor, the rotated slice (first channel, width, layout), the
    sliding window, and the query temperature as a function of the position p (Llama 4's NoPE
    layers, Mistral's llama_4_scaling_beta). The CSV and JSON outputs hold one row per layer.

    Example: pecli rope layers gemma-3-4b/config.json
    """
    from ...core.rope.config.plans import layer_maps, layer_plan, runs
    from ...io.paths import check_not_input
    from ...io.reading.json_config import read_json_object

    kind = report_kind(output, fmt)
    check_not_input(output, (file,))
    from ...core.errors import ParameterError

    try:
        rows, notes = layer_plan(read_json_object(file, parameter="file"))
    except ParameterError as error:  # the config's faults are the argument's
        raise ParameterError("file", error.rule, error.value) from None
    if kind != "table":
        records = [_record(i, row) for i, row in enumerate(rows)]
        columns = {name: [r[name] for r in records] for name in COLUMNS}
        writing.write_records(columns, output=output, fmt=kind)  # type: ignore[arg-type]
    else:
        rope_map, attention_map = layer_maps(rows)
        lines = [f"{len(rows)} layers; RoPE map {rope_map}", f"attention map {attention_map}"]
        text.show(*lines, _table(runs(rows)), *("note: " + n for n in notes), output=output)
    say_written(output, quiet=quiet)


def _record(index: int, row: LayerRow) -> dict[str, Any]:
    rope = row.rope
    return {
        "layer": index,
        "attention": row.kind,
        "rope": rope,
        "label": row.label or None,
        "theta": row.theta if rope else None,
        "rope_type": row.rope_type if rope else None,
        "factor": row.factor if rope else None,
        "rotated": row.rotated if rope else 0,
        "first_channel": row.start if rope else None,
        "head": row.head,
        "layout": row.layout if rope else None,
        "sliding_window": row.window,
        "temperature": row.temperature.formula() if row.temperature else None,
    }


def _table(found: list[tuple[int, int, LayerRow]]) -> Any:
    table = text.titled_table(
        "layers", "layers", "attention", "RoPE", "θ", "type", "rotated", "window", "temperature"
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
