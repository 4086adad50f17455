"""``pecli rope engines``: how transformers, vLLM, MLX, llama.cpp and TensorRT-LLM read a config."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ...io import text, writing
from ...io.reports import say_written
from ..options import LAYER_INDEX, Quiet
from ..rope.app import ConfigFile, JsonFormatOpt, JsonOutput, report_kind, rope_app

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
        click_type=LAYER_INDEX,
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
    from ...analysis.ports.engines import engines_report
    from ...io.paths import check_not_input
    from ...io.reading.json_config import read_json_object
    from .._app import option_words

    kind = report_kind(output, fmt, ("json",))
    check_not_input(output, (file,))
    config = read_json_object(file, parameter="file")
    report = engines_report(config, layer=layer, seq_len=seq_len, context=context)
    if kind == "json":
        keys = ("context", "engines", "per_layer_type", "query_temperature")
        writing.write_json({key: report[key] for key in keys}, output=output)
    else:
        before, after = (
            ["note: " + option_words(note) for note in report[notes]]
            for notes in ("notes_before", "notes_after")
        )
        tables = [
            _table(t["engines"], f"engines: {t['label']} layers {t['layers']}")
            for t in report["per_layer_type"]
        ]
        engines = _table(report["engines"])
        text.show(report["headline"], *before, engines, *tables, *after, output=output)
    say_written(output, quiet=quiet)


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
