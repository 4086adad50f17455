"""``pecli rope irope``: Llama 4's layer map (RoPE or NoPE) and the NoPE temperature table."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from ...core.ports.llama4 import MAX_LAYERS
from ...io import text, writing
from ...io.targets import say_written
from ..json_report import ReportFormatOpt, ReportOutput
from ..options import Quiet
from ..rope.app import report_kind, rope_app
from ..rope.options import integer_positions

ConfigOpt = Annotated[
    str | None, typer.Option("--config", help="A Llama 4 config.json (text_config is read).")
]
Layers = Annotated[
    int | None,
    typer.Option("--layers", min=1, max=MAX_LAYERS, help="num_hidden_layers. [default: 48]"),
]
Positions = Annotated[
    str,
    typer.Option("--positions", help="Comma-separated positions for the temperature table."),
]
DEFAULT_POSITIONS = "0,8190,8191,16383,32767,65535,131071,1048575,10000000"


@rope_app.command("irope")
def irope_command(
    config: ConfigOpt = None,
    layers: Layers = None,
    positions: Positions = DEFAULT_POSITIONS,
    fmt: ReportFormatOpt = None,
    output: ReportOutput = "-",
    quiet: Quiet = False,
) -> None:
    """Llama 4's iRoPE: which layers rotate, the chunk size, and the NoPE temperature.

    Every 4th layer (no_rope_layer_interval) rotates nothing and attends globally; the others
    use RoPE within chunks of attention_chunk_size. The NoPE layers multiply the queries by
    log(floor((p + 1) / floor_scale) + 1) · attn_scale + 1 (8192 and 0.1): the table gives it
    per position. The CSV and JSON outputs hold the table.

    Example: pecli rope irope --layers 8 --positions 0,8191,65535
    """
    from ...core.ports.llama4 import irope_settings, rope_layers, temperatures
    from ...io.paths import check_not_input
    from ...io.reading.json_config import read_json_object

    kind = report_kind(output, fmt)
    check_not_input(output, (config,))
    settings = irope_settings(
        None if config is None else read_json_object(config, parameter="config")
    )
    points = integer_positions(positions)
    scales = temperatures(points, settings)
    if not settings["tuning"]:  # attn_temperature_tuning false: the queries are not scaled
        scales = np.ones_like(scales)
    columns = {"position": points, "nope_temperature": scales}
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        given = None if layers else settings["no_rope_layers"]  # --layers: the interval's map
        flags = rope_layers(layers or settings["layers"], settings["interval"], given=given)
        text.show(*_lines(flags, settings), _table(columns), output=output)
    say_written(output, quiet=quiet)


def _lines(flags: list[bool], settings: dict[str, Any]) -> list[str]:
    nope = [str(i) for i, rotates in enumerate(flags) if not rotates]
    chunk = settings["chunk"]
    attention = f"chunked attention, chunks of {chunk}" if chunk else "full attention, no chunks"
    lines = [
        f"{len(flags)} layers: {len(flags) - len(nope)} RoPE layers ({attention}), "
        f"{len(nope)} NoPE layers (global, no rotation"
        + (", temperature-tuned queries)" if settings["tuning"] else ")"),
        "NoPE layers: " + (" ".join(nope) or "none"),
        f"temperature = log(floor((p + 1) / {settings['floor_scale']:g}) + 1) · "
        f"{settings['attn_scale']:g} + 1",
    ]
    if not settings["tuning"]:
        lines[-1] = "attn_temperature_tuning false: the NoPE layers' queries are not scaled (1)"
    if settings["missing"]:
        lines.append(
            "note: not in the config, Llama 4's defaults used: " + ", ".join(settings["missing"])
        )
    return lines


def _table(columns: dict[str, np.ndarray]) -> Any:
    table = text.titled_table("NoPE temperature", "position p", "factor on the queries")
    for p, scale in zip(columns["position"], columns["nope_temperature"], strict=True):
        table.add_row(str(p), f"{scale:.7f}")
    return table
