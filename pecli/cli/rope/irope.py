"""``pecli rope irope``: Llama 4's layer map (RoPE or NoPE) and the NoPE temperature table."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from ...io import writing
from .. import text
from ..options import Quiet
from ..progress import say_written
from .app import ReportFormatOpt, ReportOutput, report_kind, rope_app

ConfigOpt = Annotated[
    str | None, typer.Option("--config", help="A Llama 4 config.json (text_config is read).")
]
Layers = Annotated[
    int | None, typer.Option("--layers", min=1, help="num_hidden_layers. [default: 48]")
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
    from ...core.errors import ParameterError
    from ...core.ports.llama4 import nope_temperature, rope_layers
    from ...io.inputs import refuse_output_over

    kind = report_kind(output, fmt)
    refuse_output_over(output, {"--config": config} if config else {})
    settings = _settings(config)
    try:
        points = np.array([int(p) for p in positions.split(",")], dtype=np.int64)
    except ValueError:
        raise ParameterError("positions", "must be comma-separated integers", positions) from None
    if points.size == 0 or points.min() < 0:
        raise ParameterError("positions", "must be integers >= 0", positions)
    scales = nope_temperature(
        points, floor_scale=settings["floor_scale"], attn_scale=settings["attn_scale"]
    )
    columns = {"position": points, "nope_temperature": scales}
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        flags = rope_layers(layers or settings["layers"], given=settings["no_rope_layers"])
        text.show(*_lines(flags, settings), _table(columns), output=output)
    say_written(output, quiet=quiet)


def _settings(config: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {
        "layers": 48,
        "no_rope_layers": None,
        "chunk": 8192,
        "floor_scale": 8192.0,
        "attn_scale": 0.1,
    }
    if config is None:
        return values
    from ...io.reading.json_config import read_json_object

    read = read_json_object(config, parameter="config")
    read = {**read, **(read.get("text_config") or {})}
    for key, name in (
        ("num_hidden_layers", "layers"),
        ("no_rope_layers", "no_rope_layers"),
        ("attention_chunk_size", "chunk"),
        ("floor_scale", "floor_scale"),
        ("attn_scale", "attn_scale"),
    ):
        if read.get(key) is not None:
            values[name] = read[key]
    return values


def _lines(flags: list[bool], settings: dict[str, Any]) -> list[str]:
    nope = [str(i) for i, rotates in enumerate(flags) if not rotates]
    return [
        f"{len(flags)} layers: {len(flags) - len(nope)} RoPE layers (chunked attention, "
        f"chunks of {settings['chunk']}), {len(nope)} NoPE layers (global, no rotation, "
        "temperature-tuned queries)",
        "NoPE layers: " + (" ".join(nope) or "none"),
        f"temperature = log(floor((p + 1) / {settings['floor_scale']:g}) + 1) · "
        f"{settings['attn_scale']:g} + 1",
    ]


def _table(columns: dict[str, np.ndarray]) -> Any:
    table = text.titled_table("NoPE temperature", "position p", "factor on the queries")
    for p, scale in zip(columns["position"], columns["nope_temperature"], strict=True):
        table.add_row(str(p), f"{scale:.7f}")
    return table
