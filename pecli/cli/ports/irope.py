"""``pecli rope irope``: Llama 4's layer map (RoPE or NoPE) and the NoPE temperature table."""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np
import typer

from ...io import writing
from .. import text
from ..json_report import ReportFormatOpt, ReportOutput
from ..options import Quiet
from ..progress import say_written
from ..rope.app import report_kind, rope_app

ConfigOpt = Annotated[
    str | None, typer.Option("--config", help="A Llama 4 config.json (text_config is read).")
]
#: Far more layers than any model has (Llama 4: 48); a typo of 10^11 is refused, not listed.
MAX_LAYERS = 100_000
#: float64 holds every integer up to 2^53, so the temperature's floor is exact up to there.
MAX_POSITION = 2**53
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
    from ...core.ports.llama4 import rope_layers
    from ...io.paths import check_not_input

    kind = report_kind(output, fmt)
    check_not_input(output, (config,))
    settings = _settings(config)
    points = _positions(positions)
    scales = _temperatures(points, settings)
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


def _temperatures(points: np.ndarray, settings: dict[str, Any]) -> np.ndarray:
    """The table's factors; one that overflows float64 is refused (never inf in a table)."""
    from ...core.errors import ParameterError
    from ...core.ports.llama4 import nope_temperature

    with np.errstate(all="ignore"):
        scales = nope_temperature(
            points, floor_scale=settings["floor_scale"], attn_scale=settings["attn_scale"]
        )
    if not np.all(np.isfinite(scales)):
        rule = "gives a NoPE temperature that overflows float64 (floor_scale or attn_scale)"
        raise ParameterError("config", rule, f"attn_scale {settings['attn_scale']!r}")
    return scales


def _positions(text: str) -> np.ndarray:
    """The positions of ``--positions``: integers from 0 to 2^53 (int64)."""
    from ...core.errors import ParameterError

    try:
        values = [int(p) for p in text.split(",")]
    except ValueError:
        raise ParameterError("positions", "must be comma-separated integers", text) from None
    if min(values) < 0 or max(values) > MAX_POSITION:
        raise ParameterError("positions", "must be integers from 0 to 2^53", text)
    return np.array(values, dtype=np.int64)


#: The config's fields read (transformers' Llama4TextConfig), each with its default and rule.
_FIELDS: dict[str, tuple[str, Any, str]] = {
    "num_hidden_layers": ("layers", 48, "layers"),
    "no_rope_layer_interval": ("interval", 4, "count"),
    "no_rope_layers": ("no_rope_layers", None, "flags"),
    "attention_chunk_size": ("chunk", 8192, "count"),
    "floor_scale": ("floor_scale", 8192.0, "positive"),
    "attn_scale": ("attn_scale", 0.1, "number"),
    "attn_temperature_tuning": ("tuning", True, "bool"),
}


def _settings(config: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {name: default for name, default, _ in _FIELDS.values()}
    values["missing"] = []
    if config is None:
        return values
    from ...io.reading.json_config import read_json_object

    read = read_json_object(config, parameter="config")
    inner = read.get("text_config")
    read = {**read, **(inner if isinstance(inner, dict) else {})}
    for key, (name, _, rule) in _FIELDS.items():
        if key in read and (read[key] is not None or key == "attention_chunk_size"):
            values[name] = _checked(key, read[key], rule)  # a null chunk size: no chunks
        elif key not in read and key != "no_rope_layers":  # without the list: the interval
            values["missing"].append(key)
    flags = values["no_rope_layers"]
    if flags:  # the map pecli rope layers reads: a list of another length is refused there
        from ...core.rope.config.plans import rope_flags

        flags = [int(f) for f in rope_flags(read, {"num_hidden_layers": len(flags)})[1]]
        values["no_rope_layers"] = flags
    if flags:  # the list decides the layers, not the interval or count
        unused = ("no_rope_layer_interval", "num_hidden_layers")
        values["missing"] = [k for k in values["missing"] if k not in unused]
    return values


def _checked(key: str, value: Any, rule: str) -> Any:
    """A config field that follows its rule, else a usage error naming --config and the field."""
    from ...core.errors import ParameterError

    number = isinstance(value, int | float) and not isinstance(value, bool)
    whole = number and math.isfinite(value) and value == int(value)  # int(NaN) would raise
    ok = {
        "layers": whole and 1 <= value <= MAX_LAYERS,
        "count": value is None or (whole and value >= 1),
        "positive": number and math.isfinite(value) and value > 0,
        "number": number and math.isfinite(value),
        "bool": isinstance(value, int | float),  # released configs hold 4: it is truthy
        "flags": isinstance(value, list)
        and len(value) <= MAX_LAYERS
        and all(v in (0, 1) and not isinstance(v, float) for v in value),
    }[rule]
    if not ok:
        words = {
            "layers": f"an integer from 1 to {MAX_LAYERS}",
            "count": "an integer >= 1",
            "positive": "a number > 0",
            "number": "a finite number",
            "bool": "true or false",
            "flags": "a list of 0 (NoPE) and 1 (RoPE), one per layer",
        }
        raise ParameterError("config", f"field {key} must be {words[rule]}", repr(value)[:60])
    if rule == "bool":
        return bool(value)
    return int(value) if rule in ("layers", "count") and value is not None else value


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
