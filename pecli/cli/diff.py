"""``pecli diff A B``: two tables or caches entry by entry, and the likely cause in words."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ..core.errors import ParameterError, RuntimeFailure
from ..io import writing
from . import text
from ._app import app
from .json_report import FormatOpt, Output, report_kind
from .options import Quiet
from .progress import say_written

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.ports.compare import Comparison


TableA = Annotated[str, typer.Argument(help="A table or cache: .npy, CSV, .safetensors, .gguf.")]
TableB = Annotated[str, typer.Argument(help="The table or cache to compare with A.")]
TensorA = Annotated[
    str | None, typer.Option("--tensor-a", help="A's tensor (.safetensors, .gguf) if several.")
]
TensorB = Annotated[
    str | None, typer.Option("--tensor-b", help="B's tensor (.safetensors, .gguf) if several.")
]
Start = Annotated[int, typer.Option("--start", min=0, help="Position of the first row.")]
Ulps = Annotated[
    float,
    typer.Option(
        "--ulps", min=0.0, help="Entries within this many ulps (of the coarser dtype) are equal."
    ),
]
Atol = Annotated[
    float, typer.Option("--atol", min=0.0, help="Entries at most this far apart are equal.")
]


@app.command("diff")
def diff_command(
    a: TableA,
    b: TableB,
    tensor_a: TensorA = None,
    tensor_b: TensorB = None,
    start: Start = 0,
    ulps: Ulps = 1.0,
    atol: Atol = 0.0,
    fmt: FormatOpt = None,
    output: Output = "-",
    quiet: Quiet = False,
) -> None:
    """Compare two tables or caches entry by entry and name the likely cause of a difference.

    Rows are positions (from --start), columns channels; a .safetensors cache with tensors
    cos and sin is read as [cos | sin]. The report gives the largest error in ulps (of the
    coarser dtype) per position decade, the first row and column that differ, identify's
    reading of both, and each known mistake that explains the difference: pair layout
    swapped, rows transposed, first position off by k, θ differs, scaling missing past L,
    stored or computed in bf16, half width vs full width, attention factor missing, sin/cos
    swapped. Exit status 0 when equal within --ulps or --atol, 1 otherwise.

    Example: pecli diff ours.npy theirs.safetensors --ulps 2
    """
    from ..analysis.ports.causes import likely_causes
    from ..analysis.ports.compare import compare
    from ..analysis.ports.readings import reading

    kind = report_kind(output, fmt, {"A": a, "B": b})
    _check_tolerances(ulps=ulps, atol=atol)
    x, y = _table(a, tensor_a, "a"), _table(b, tensor_b, "b")
    result = compare(x, y, start=start, ulps=ulps, atol=atol)
    ra, rb = reading(x), reading(y)
    causes = [] if result.equal else likely_causes(x, y, result.dtype, ra, rb)
    report = _report(result, ra, rb, causes, start)
    _write(report, result, kind, output)
    say_written(output, quiet=quiet)
    if not result.equal:
        where = (
            f"first at row {result.first[0]}, column {result.first[1]}"
            if result.first
            else (f"shapes {result.shape_a} and {result.shape_b}")
        )
        raise RuntimeFailure(
            f"{a} and {b} differ ({where})" + (f": {causes[0].split(':')[0]}" if causes else "")
        )


def _check_tolerances(**tolerances: float) -> None:
    """NaN passes click's ``min=0`` and would make every entry equal (status 0)."""
    for name, value in tolerances.items():
        if math.isnan(value):
            raise ParameterError(name, "must be a number >= 0", value)


def _table(path: str, tensor: str | None, which: str) -> np.ndarray:
    """One table (argument ``which``); a problem names the argument A or B, or --tensor-a/b."""
    try:
        table = _read_table(path, tensor, which)
        if table.ndim == 0 or table.size == 0:  # a 0-d .npy, an empty one: nothing to compare
            rule = "must hold a vector or a table of at least one value"
            raise ParameterError(which, rule, f"shape {table.shape}")
        return table
    except ParameterError as error:
        if error.parameter == "tensor":  # the readers' own name: here it is --tensor-a or -b
            raise ParameterError(f"tensor_{which}", error.rule, error.value) from None
        if error.parameter != which:
            raise
        hint = f"'{which.upper()}'"
        raise typer.BadParameter(f"{error.rule} (got {error.value})", param_hint=hint) from None


def _read_table(path: str, tensor: str | None, which: str) -> np.ndarray:
    """A GGUF tensor, a .safetensors tensor or [cos | sin], a .npy or CSV table."""
    from ..io.gguf import is_gguf
    from ..io.reading import existing_rule
    from ..io.tensors import ARRAY_FORMATS

    if path != "-" and (not os.path.exists(path) or os.path.isdir(path)):  # any of the four kinds
        raise ParameterError(which, existing_rule((*ARRAY_FORMATS, ".gguf")), path)
    if is_gguf(path):
        return _gguf_table(path, tensor, which)
    if tensor is not None and not path.endswith(".safetensors"):
        rule = "applies only to .safetensors and .gguf files (a .npy or CSV file is one table)"
        raise ParameterError("tensor", rule, tensor)
    from ..io.tensors import read_arrays

    arrays, _ = read_arrays(path, tensor=tensor, parameter=which)
    if {"cos", "sin"} <= arrays.keys() and tensor is None:
        cos, sin = arrays["cos"], arrays["sin"]
        if cos.shape == sin.shape and cos.ndim == 2:
            return np.concatenate([cos, sin], axis=1)
    if len(arrays) != 1:
        rule = f"holds {len(arrays)} tensors: name one with --tensor-{which}"
        raise ParameterError(which, rule, ", ".join(list(arrays)[:8]))
    return next(iter(arrays.values()))


def _gguf_table(path: str, tensor: str | None, which: str) -> np.ndarray:
    from ..core.ports.gguf_check import TENSORS
    from ..io.gguf import read_f32, read_gguf

    gguf = read_gguf(path, parameter=which)
    if tensor is None:
        present = [name for name in TENSORS if name in gguf.tensors]
        if len(present) != 1:
            rule = f"holds {len(present)} frequency tensors: name one with --tensor-{which}"
            raise ParameterError(which, rule, path)
        tensor = present[0]
    return read_f32(gguf, tensor, parameter=f"tensor_{which}")


def _report(
    result: Comparison,
    ra: dict[str, Any] | None,
    rb: dict[str, Any] | None,
    causes: list[str],
    start: int,
) -> dict[str, Any]:
    return {
        "equal": result.equal,
        "shape_a": list(result.shape_a),
        "shape_b": list(result.shape_b),
        "dtype": result.dtype,
        "differing": result.differing,
        "max_ulps": result.max_ulps,
        "max_abs": result.max_abs,
        "start": start,
        "first": None
        if result.first is None
        else {"row": result.first[0], "column": result.first[1]},
        "decades": [vars(d) for d in result.decades],
        "reading_a": ra,
        "reading_b": rb,
        "causes": causes,
    }


def _write(report: dict[str, Any], result: Comparison, kind: str, output: str) -> None:
    if kind == "json":
        writing.write_json(text.jsonable(report), output=output)
        return
    table = text.titled_table(
        "error per position decade", "positions", "max ulps", "max |A − B|", "differing"
    )
    for d in result.decades:
        table.add_row(
            f"{d.first}…{d.last}", f"{d.max_ulps:.4g}", f"{d.max_abs:.3g}", str(d.differing)
        )
    readings = [
        f"reading of {name.upper()}: "
        + (", ".join(f"{k} {v}" for k, v in seen.items() if v is not None) if seen else "none")
        for name, seen in (("a", report["reading_a"]), ("b", report["reading_b"]))
    ]
    causes = [f"likely cause: {c}" for c in report["causes"]]
    if not result.equal and not causes:
        causes = ["likely cause: none of the known mistakes explains it (see the readings)"]
    head = _headline(report, result)
    text.show(*head, *([table] if result.decades else []), *readings, *causes, output=output)


def _headline(report: dict[str, Any], result: Comparison) -> list[str]:
    lines = [f"A {result.shape_a}, B {result.shape_b}; ulps of {result.dtype}"]
    first = report["first"]
    if not result.comparable:
        lines.append("shapes differ: nothing compared entry by entry")
    elif result.equal or first is None:
        lines.append("equal within the tolerance")
    else:
        where = f"row {first['row']} (position {report['start'] + first['row']})"
        lines.append(
            f"{result.differing} entries differ, first at {where}, column {first['column']}"
        )
    return lines
