"""``pecli rope engines``: how transformers, vLLM, MLX, llama.cpp and TensorRT-LLM read a config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...io import writing
from .. import text
from ..options import Quiet
from ..progress import say_written
from ..rope.app import ConfigFile, JsonFormatOpt, JsonOutput, report_kind, rope_app

if TYPE_CHECKING:  # pragma: no cover
    from ...core.ports.engines import EngineReading
    from ...core.rope import RopeSpec

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
    if kind == "json":
        writing.write_json(text.jsonable({"context": window, "engines": records}), output=output)
    else:
        before, after = (["note: " + note for note in notes] for notes in engine_notes(spec))
        after += ["note: " + note for note in _plan_notes(config, layer)]
        text.show(_line(spec, window), *before, _table(records), *after, output=output)
    say_written(output, quiet=quiet)


def _plan_notes(config: dict[str, Any], layer: int | None) -> list[str]:
    """Per-layer ropes and query temperatures the rows above do not cover."""
    from ...core.errors import ParameterError
    from ...core.rope.config.plans import layer_plan

    try:
        rows, _ = layer_plan(config)
    except ParameterError:  # no num_hidden_layers: no plan to speak of
        return []
    notes = []
    ropes = {(r.label, r.theta, r.rope_type, r.factor) for r in rows if r.rope}
    if len(ropes) > 1 and layer is None:
        kinds = ", ".join(sorted({r.label or r.kind for r in rows if r.rope}))
        notes.append(
            f"the layers rotate with {len(ropes)} ropes ({kinds}): the rows are the global "
            "layers' (llama.cpp's freq_base); --layer i compares layer i's"
        )
    temperatures = {r.temperature.formula() for r in rows if r.temperature}
    for formula in sorted(temperatures):
        notes.append(
            f"the queries are also multiplied by {formula} at position p (transformers applies "
            "it; the rows compare frequencies only): pecli rope layers --positions gives it"
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


def _table(records: list[dict[str, Any]]) -> Any:
    table = text.titled_table(
        "engines",
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
