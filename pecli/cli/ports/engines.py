"""``pecli rope engines``: how transformers, vLLM, MLX, llama.cpp and TensorRT-LLM read a config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...io import text, writing
from ...io.targets import say_written
from ..options import Quiet
from ..rope.app import ConfigFile, JsonFormatOpt, JsonOutput, report_kind, rope_app

if TYPE_CHECKING:  # pragma: no cover
    from ...core.ports.engines import EngineReading
    from ...core.rope import RopeSpec
    from ...core.rope.config.plans import LayerRow

Prompt = Annotated[
    int | None,
    typer.Option(
        "--seq-len", help="Prompt length, 1 to 2^53 (transformers switches longrope by it)."
    ),
]
Context = Annotated[
    int | None,
    typer.Option(
        "--context",
        help="max_model_len (vLLM, TensorRT-LLM) or llama.cpp's "
        "context per sequence, 1 to 2^53. [default: max_position_embeddings]",
    ),
]


Layer = Annotated[
    int | None,
    typer.Option(
        "--layer",
        help="The layer (0-based) whose rope to compare, for models whose layers differ. "
        "[default: the global layers' rope]",
    ),
]


@rope_app.command("engines")
def engines_command(
    file: ConfigFile,
    layer: Layer = None,
    seq_len: Prompt = None,
    context: Context = None,
    fmt: JsonFormatOpt = None,
    output: JsonOutput = "-",
    quiet: Quiet = False,
) -> None:
    """One config as transformers 5 and 4, vLLM, mlx_lm, llama.cpp and TensorRT-LLM read it.

    Per engine: inv_freq's largest relative difference from transformers 5, the factor on
    cos/sin, the longrope factors used (transformers switches by --seq-len; vLLM, llama.cpp
    and TensorRT-LLM by --context; MLX always takes the long ones), the yarn correction range
    (truncated or not), DeepSeek's multiplier on the scores, and the first position at which
    the phase differs from transformers 5's by more than 1e-3 rad. Each from the engine's
    published formula, evaluated exactly (docs/porting.md lists the files and functions).

    Example: pecli rope engines config.json --seq-len 1000 --context 131072
    """
    from ...core.ports.engines import engine_notes, engine_readings, read_config
    from ...io.paths import check_not_input
    from ...io.reading.json_config import read_json_object

    kind = report_kind(output, fmt, ("json",))
    check_not_input(output, (file,))
    config = read_json_object(file, parameter="file")
    spec, window, v4_theta = read_config(config, seq_len=seq_len, context=context, layer=layer)
    records = [_record(r) for r in engine_readings(spec, context=window or 0, v4_theta=v4_theta)]
    rows = _plan_rows(config)
    per_type = [] if layer is not None else _per_layer_type(config, rows, seq_len, context)
    if kind == "json":
        report: dict[str, Any] = {"context": window, "engines": records}
        report |= {"per_layer_type": per_type, "query_temperature": _temperature(rows)}
        writing.write_json(report, output=output)
    else:
        before, after = (["note: " + note for note in notes] for notes in engine_notes(spec))
        after += ["note: " + note for note in _plan_notes(rows, layer)]
        tables = [
            _table(t["engines"], f"engines: {t['label']} layers {t['layers']}") for t in per_type
        ]
        text.show(_line(spec, window), *before, _table(records), *tables, *after, output=output)
    say_written(output, quiet=quiet)


def _plan_rows(config: dict[str, Any]) -> list[LayerRow]:
    """The config's per-layer plan, or no rows when it has none (no ``num_hidden_layers``)."""
    from ...core.errors import ParameterError
    from ...core.rope.config.plans import layer_plan

    try:
        return layer_plan(config)[0]
    except ParameterError:
        return []


def _per_layer_type(
    config: dict[str, Any], rows: list[LayerRow], seq_len: int | None, context: int | None
) -> list[dict[str, Any]]:
    """One engines table per rope of a model whose layers rotate with several (Gemma 3)."""
    from ...core.ports.engines import engine_readings, read_config

    firsts: dict[tuple[Any, ...], list[int]] = {}
    for index, row in enumerate(rows):
        if row.rope:
            firsts.setdefault((row.label, row.theta, row.rope_type, row.factor), []).append(index)
    if len(firsts) < 2:
        return []
    found = []
    for layers in firsts.values():
        spec, window, v4 = read_config(config, seq_len=seq_len, context=context, layer=layers[0])
        readings = engine_readings(spec, context=window or 0, v4_theta=v4)
        label = rows[layers[0]].label or rows[layers[0]].kind
        shown = _spans(layers)
        found.append({"label": label, "layers": shown, "engines": [_record(r) for r in readings]})
    return found


def _spans(layers: list[int]) -> str:
    """``0-4,6-10`` for ``[0, 1, 2, 3, 4, 6, …]``."""
    spans: list[list[int]] = []
    for i in layers:
        if spans and spans[-1][1] == i - 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _temperature(rows: list[LayerRow]) -> dict[str, Any] | None:
    """Mistral's llama_4_scaling_beta on the queries, and what each engine does with it."""
    from ...core.ports.engines import ENGINES

    mistral = {r.temperature.formula() for r in rows if r.temperature and not r.temperature.offset}
    if not mistral:
        return None
    engines = {name: engine.temperature for name, engine in ENGINES.items()}
    return {"formula": sorted(mistral)[0], "engines": engines}


def _plan_notes(rows: list[LayerRow], layer: int | None) -> list[str]:
    """Per-layer ropes and query temperatures the rows above do not cover."""
    from ...core.ports.engines import ENGINES

    notes = []
    ropes = {(r.label, r.theta, r.rope_type, r.factor) for r in rows if r.rope}
    if len(ropes) > 1 and layer is None:
        notes.append(
            f"the layers rotate with {len(ropes)} ropes: the first table is the global "
            "layers' (llama.cpp's freq_base), the next ones each layer type's"
        )
    for t in sorted({r.temperature for r in rows if r.temperature}, key=lambda t: t.formula()):
        said = "; ".join(f"{n}: {e.temperature.split(':')[0]}" for n, e in ENGINES.items())
        who = said if not t.offset else "transformers applies it"
        notes.append(
            f"the queries are also multiplied by {t.formula()} at position p ({who}; the rows "
            "compare frequencies only): pecli rope layers --positions gives it"
        )
    return notes


def _record(row: EngineReading) -> dict[str, Any]:
    return {
        "engine": row.engine,
        "max_relative_inv_freq": row.max_relative,
        "cos_sin_factor": row.cos_sin_factor,
        "longrope_factors": row.factors,
        "yarn_range": list(row.yarn_range) if row.yarn_range else None,
        "scores_multiplier": row.scores,
        "first_position_phase_1e-3": row.first_position,
        "inv_freq": row.inv_freq.tolist(),
    }


def _line(spec: RopeSpec, window: int | None) -> str:
    return (
        f"rope_type {spec.rope_type}, θ = {spec.theta:g}, rotated width {spec.rotary_dim}, "
        f"prompt {spec.seq_len or '-'}, context {window or '-'}"
    )


def _table(records: list[dict[str, Any]], title: str = "engines") -> Any:
    table = text.titled_table(
        title,
        "engine",
        "inv_freq max rel. diff",
        "cos/sin factor",
        "longrope",
        "yarn range",
        "scores ×",
        "phase > 1e-3 rad from",
    )
    for r in records:
        span = r["yarn_range"]
        table.add_row(
            r["engine"],
            f"{r['max_relative_inv_freq']:.3g}",
            f"{r['cos_sin_factor']:.7g}",
            r["longrope_factors"] or "-",
            f"{span[0]:.4f}…{span[1]:.4f}" if span else "-",
            f"{r['scores_multiplier']:.7g}" if r["scores_multiplier"] else "-",
            str(r["first_position_phase_1e-3"] or "never"),
        )
    return table
