"""``pecli diff A B``: two tables or caches entry by entry, and the likely cause in words."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError, RuntimeFailure
from ...io import text, writing
from ...io.reports import say_written
from .._app import app
from .._types import PositionType
from ..json_report import FormatOpt, Output, report_kind
from ..options import START_FROM_0_RULE, Quiet

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.ports.diff import Diff


TableA = Annotated[
    str, typer.Argument(help="A table or cache: .npy, CSV, .safetensors, .npz, .gguf.")
]
TableB = Annotated[str, typer.Argument(help="The table or cache to compare with A.")]
TensorA = Annotated[
    str | None,
    typer.Option("--tensor-a", help="A's tensor (.safetensors, .npz, .gguf) if several."),
]
TensorB = Annotated[
    str | None,
    typer.Option("--tensor-b", help="B's tensor (.safetensors, .npz, .gguf) if several."),
]
Start = Annotated[
    int | None,
    typer.Option(
        "--start",
        click_type=PositionType(START_FROM_0_RULE),
        show_default=False,
        help="Position of the first row, 0 to 2^53. [default: the first position the"
        " readings agree on (1 for pecli's sinusoidal tables), else 0]",
    ),
]
Ulps = Annotated[
    float,
    typer.Option(
        "--ulps", min=0.0, help="Entries within this many ulps (of the coarser dtype) are equal."
    ),
]
Atol = Annotated[
    float, typer.Option("--atol", min=0.0, help="Entries at most this far apart are equal.")
]


class Side(StrEnum):
    """Which table is known to be right (``--reference``)."""

    A = "a"
    B = "b"


Reference = Annotated[
    Side | None,
    typer.Option(
        "--reference",
        case_sensitive=False,
        help="The table known to be right: a cause read two ways then names one.",
    ),
]


@app.command("diff")
def diff_command(
    a: TableA,
    b: TableB,
    tensor_a: TensorA = None,
    tensor_b: TensorB = None,
    start: Start = None,
    ulps: Ulps = 1.0,
    atol: Atol = 0.0,
    reference: Reference = None,
    fmt: FormatOpt = None,
    output: Output = "-",
    quiet: Quiet = False,
) -> None:
    """Compare two tables or caches entry by entry and name the likely cause of a difference.

    Rows are positions (from --start, else as the readings find), columns channels; a
    .safetensors cache with tensors cos and sin is read as [cos | sin]. The report gives
    the largest error in ulps (of the coarser dtype) per position decade, the first row and
    column that differ, identify's reading of both, and each known mistake that explains the
    difference (layout, start, θ, scaling, width and slice, exponent base, storage dtype,
    float32 arithmetic of transformers or ggml, attention factor, temperature, sin/cos; or
    two at once), named in the JSON report's transformations; --reference says which table
    is right. Exit status 0 when equal within --ulps or --atol, 1 otherwise.

    Example: pecli diff ours.npy theirs.safetensors --ulps 2
    """
    from ...analysis.ports.diff import diff

    kind = report_kind(output, fmt, {"A": a, "B": b})
    side = reference.value.upper() if reference else None
    found = diff(
        _table(a, tensor_a, "a"),
        _table(b, tensor_b, "b"),
        start=start,
        ulps=ulps,
        atol=atol,
        reference=side,
    )
    _write(found, kind, output)
    say_written(output, quiet=quiet)
    if not found.equal:
        result = found.comparison
        where = (
            f"first at row {result.first[0]}, column {result.first[1]}"
            if result.first
            else (f"shapes {result.shape_a} and {result.shape_b}")
        )
        cause = f": {found.causes[0].split(':')[0]}" if found.causes else ""
        raise RuntimeFailure(f"{a} and {b} differ ({where}){cause}")


def _table(path: str, tensor: str | None, which: str) -> np.ndarray:
    """The table of argument ``which`` (A or B), a tensor of it named by --tensor-a or -b."""
    from ...analysis.ports.diff import one_table
    from ...io.reading.arrays import read_arrays
    from .._app import option_words

    name = f"tensor_{which}"
    try:
        arrays, _ = read_arrays(path, tensor=tensor, parameter=which, tensor_parameter=name)
        return one_table(arrays, parameter=which, tensor_parameter=name)
    except ParameterError as error:
        if error.parameter != which:
            raise
        rule = f"{option_words(error.rule)} (got {error.value})"
        raise typer.BadParameter(rule, param_hint=f"'{which.upper()}'") from None


def _write(found: Diff, kind: str, output: str) -> None:
    from ...analysis.ports.diff import headline, readings_and_causes
    from .._app import option_words

    if kind == "json":
        writing.write_json(_worded(found.record()), output=output)
        return
    table = text.titled_table(
        "error per position decade", "positions", "max ulps", "max |A − B|", "differing"
    )
    for d in found.comparison.decades:
        table.add_row(
            f"{d.first}…{d.last}", f"{d.max_ulps:.4g}", f"{d.max_abs:.3g}", str(d.differing)
        )
    below = [option_words(line) for line in readings_and_causes(found)]
    tables = [table] if found.comparison.decades else []
    text.show(*headline(found), *tables, *below, output=output)


def _worded(record: dict[str, Any]) -> dict[str, Any]:
    """The report with a sinusoidal reading's presets naming options, as identify's JSON does.

    (``pytorch `start` 49900`` → ``pytorch --start 49900``.)
    """
    from .._app import option_words

    for key in ("reading_a", "reading_b"):
        seen = record[key]
        if seen and "presets" in seen:
            record[key] = {**seen, "presets": [option_words(p) for p in seen["presets"]]}
    return record
