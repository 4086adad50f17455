"""``pecli rope precision``: what bf16 / fp32 arithmetic costs a cos/sin cache."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...io import text, writing
from ...io.reports import say_written
from .._types import PositionType
from ..json_report import ReportFormatOpt, ReportOutput
from ..options import START_FROM_0_RULE, Quiet
from .app import report_kind, rope_app
from .options import rope_spec_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeSpec

Positions = Annotated[int, typer.Option("--n", help="Positions start … start+n-1 (>= 1).")]
Start = Annotated[
    int,
    typer.Option(
        "--start",
        click_type=PositionType(START_FROM_0_RULE),
        help="First position, >= 0 (the errors at -p are those at p).",
    ),
]


@rope_app.command("precision")
@rope_spec_options()
def precision_command(
    n: Positions = 131072,
    start: Start = 0,
    fmt: ReportFormatOpt = None,
    output: ReportOutput = "-",
    quiet: Quiet = False,
    *,
    rope: tuple[RopeSpec, list[str]],
) -> None:
    """Largest phase and cos error per decade of positions when a cache is built in low precision.

    Scenarios: fp32 (inv_freq, positions and angles in float32, as transformers does),
    bf16-inv-freq (inv_freq held in bf16), bf16-positions (positions in bf16: exact only up
    to 256), bf16-angles (angles rounded to bf16, as under autocast); bf16-storage and
    fp16-storage (exact cos and sin stored in bf16 / fp16, no arithmetic in them: the error
    does not grow with the position). Errors are against the exact angles p·ω; the cos error
    includes the attention factor.

    Example: pecli rope precision --theta 500000 --n 131072
    """
    from ...analysis.rope.precision import rope_phase_errors
    from ...core.rope import rope_frequencies

    kind = report_kind(output, fmt)
    rows = rope_phase_errors(rope_frequencies(rope[0]), n, start=start)
    columns = {
        "scenario": np.array([r.scenario for r in rows]),
        "first": np.array([r.first for r in rows]),
        "last": np.array([r.last for r in rows]),
        "max_phase_error": np.array([r.phase for r in rows]),
        "max_cos_error": np.array([r.cos for r in rows]),
    }
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(_table(columns), output=output)
    say_written(output, quiet=quiet)


def _table(columns: dict[str, np.ndarray]) -> Any:
    table = text.Columns(title="RoPE cache: largest errors per decade of positions")
    for name in ("scenario", "positions", "phase error (rad)", "cos error"):
        table.add_column(name, justify="left" if name == "scenario" else "right")
    for name, first, last, phase, cos in zip(*columns.values(), strict=True):
        table.add_row(str(name), f"{first} … {last}", f"{phase:.3g}", f"{cos:.3g}")
    return table
