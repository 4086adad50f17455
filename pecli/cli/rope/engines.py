"""``pecli rope engines``: how transformers, vLLM, MLX, llama.cpp and TensorRT-LLM read a config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...io import writing
from .. import text
from ..options import Quiet
from ..progress import say_written
from .app import ConfigFile, JsonFormatOpt, JsonOutput, report_kind, rope_app

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


@rope_app.command("engines")
def engines_command(
    file: ConfigFile,
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
    from ...core.ports.engines import engine_readings
    from ...core.ports.gguf_check import text_config
    from ...core.rope.config import spec_from_config
    from ...io.paths import check_not_input
    from ...io.reading.json_config import read_json_object

    kind = report_kind(output, fmt, ("json",))
    check_not_input(output, (file,))
    config = read_json_object(file, parameter="file")
    merged, _ = text_config(config)
    spec, _notes = spec_from_config(merged, seq_len=seq_len, parameter="file")
    window = _window(spec, context)
    v5_only = "rope_parameters" in merged and "rope_scaling" not in merged
    v4_theta = _v4_theta(merged.get("rope_theta", 10000.0), file) if v5_only else None
    rows = engine_readings(spec, context=window or 0, v4_theta=v4_theta)
    records = [_record(row) for row in rows]
    if kind == "json":
        writing.write_json(text.jsonable({"context": window, "engines": records}), output=output)
    else:
        text.show(*_lines(spec, window), _table(records), *_deepseek(spec), output=output)
    say_written(output, quiet=quiet)


def _window(spec: RopeSpec, context: int | None) -> int | None:
    """--context (a number of positions, as --seq-len: 1 to 2^53), else the config's."""
    from ...core.rules import check_n

    if context is not None:
        return check_n(context, "context")
    return spec.max_position_embeddings or spec.original_max_position_embeddings


def _v4_theta(value: Any, file: str) -> float:
    """The top-level rope_theta transformers 4 reads beside rope_parameters: a number > 0."""
    from ...core.errors import ParameterError

    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not 0 < float(value) < float("inf"):
        raise ParameterError("file", "must give rope_theta as a finite number > 0", value)
    return float(value)


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


def _lines(spec: RopeSpec, window: int | None) -> list[str]:
    lines = [
        f"rope_type {spec.rope_type}, θ = {spec.theta:g}, rotated width {spec.rotary_dim}, "
        f"prompt {spec.seq_len or '-'}, context {window or '-'}"
    ]
    if spec.rope_type == "dynamic":
        lines.append(
            "note: dynamic: the vLLM and TensorRT-LLM rows are not modelled (shown as "
            "transformers); llama.cpp has no dynamic scaling"
        )
    return lines


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


def _deepseek(spec: RopeSpec) -> list[str]:
    if spec.rope_type != "yarn" or not spec.mscale_all_dim:
        return []
    from ...core.ports.ggml import deepseek_factors, yarn_factor
    from ...core.rope import rope_frequencies

    v = deepseek_factors(yarn_factor(rope_frequencies(spec)), float(spec.mscale_all_dim))
    return [
        f"note: DeepSeek in llama.cpp: ggml's YaRN multiplies cos/sin by "
        f"{v['ggml_mscale']:.7f}, the graph cancels it with attn_factor "
        f"{v['cancelling_attn_factor']:.7f}, and the scores are multiplied by mscale² = "
        f"{v['kq_multiplier']:.7f} (transformers, vLLM and mlx_lm: the same mscale² on the "
        "softmax scale)"
    ]
