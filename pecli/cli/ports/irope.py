"""``pecli rope irope``: Llama 4's layer map (RoPE or NoPE) and the NoPE temperature table."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from ...core.ports.llama4 import MAX_LAYERS
from ...io import text, writing
from ...io.reports import say_written
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
    from ...analysis.ports.irope import irope_lines, temperature_table
    from ...core.ports.llama4 import irope_settings
    from ...io.paths import check_not_input
    from ...io.reading.json_config import read_json_object

    kind = report_kind(output, fmt)
    check_not_input(output, (config,))
    settings = irope_settings(
        None if config is None else read_json_object(config, parameter="config")
    )
    columns = temperature_table(settings, integer_positions(positions))
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(*irope_lines(settings, layers), _table(columns), output=output)
    say_written(output, quiet=quiet)


def _table(columns: dict[str, np.ndarray]) -> Any:
    table = text.titled_table("NoPE temperature", "position p", "factor on the queries")
    for p, scale in zip(columns["position"], columns["nope_temperature"], strict=True):
        table.add_row(str(p), f"{scale:.7f}")
    return table
