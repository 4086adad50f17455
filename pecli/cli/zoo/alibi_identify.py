"""``pecli alibi identify``: heads, max_bias, series and convention of a slope vector or bias."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ...core.errors import ParameterError
from ...io import text, writing
from .alibi import DESCRIPTIONS, alibi_app


@alibi_app.command("identify")
def identify_command(
    file: Annotated[
        str,
        typer.Argument(
            help="A slope vector or a bias tensor (.npy of 1 to 4 dimensions, or "
            "CSV); - for stdin.",
            show_default=False,
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the reading as JSON.")] = False,
) -> None:
    """Which ALiBi a slope vector or bias tensor is: heads, max_bias, series, convention.

    A 1-D input (or one row or column) is a slope vector, head 0 first; anything else a bias
    tensor: (heads, queries, keys), key-only (heads, 1, keys), BLOOM's (batch·heads, 1, keys)
    (each sequence with its own left padding), with leading size-1 axes (MPT's
    (1, heads, 1, keys)) or a 2-D one-head matrix. The series names the wrong ones
    ports use (alibi slopes --variant). Exit status 1, after the report (the convention that
    rebuilds it best, and how far) and one line on stderr saying why, when no series fits or
    no convention rebuilds it; 2 when no convention can read it at all (a shape of no bias, a
    head no convention rebuilds). A causal mask is -inf, any value <= -1e30, or one constant
    <= -1e4 in every cell above the diagonal, below every other value (-1e9; float16's min).

    Example: pecli alibi identify slopes.npy
    """
    from ...analysis.zoo.alibi import identify_alibi_bias, identify_alibi_slopes
    from ...io.reading import read_array

    array = read_array(file)
    vector = array.ndim == 1 or (array.ndim == 2 and 1 in array.shape and _positive(array))
    if vector and not _positive(array):
        raise ParameterError("file", "must hold positive slopes (a 1-D vector)", file)
    try:
        fit = identify_alibi_slopes(array.reshape(-1)) if vector else identify_alibi_bias(array)
    except ParameterError as error:  # the analysis names its array x: here it is FILE
        raise ParameterError("file", error.rule, error.value) from None
    report = fit.report()
    if as_json:
        import json

        text.show(json.dumps(writing.jsonable(report), indent=1))
    else:
        text.show(*_lines(report))
    if not fit.matched:
        from ...core.errors import RuntimeFailure

        raise RuntimeFailure(_why_not(file, report))  # status 1, after the report


def _why_not(file: str, report: dict[str, Any]) -> str:
    """The one stderr line of a reading that matched nothing: the convention, else the series."""
    slopes = report if report["kind"] == "slopes" else report["slope_fit"]
    if report["kind"] == "bias" and report["relative_error"] > report["tolerance"]:
        return (
            f"{file}: no ALiBi convention rebuilds it (the closest, {report['convention']}, "
            f"is off by {report['relative_error']:.3g} relative; tolerance "
            f"{report['tolerance']:.3g}): not an ALiBi bias, or one pecli does not know"
        )
    if not slopes["max_bias_in_range"]:
        return f"{file}: its slopes read as max_bias {slopes['max_bias']:g}, outside (0, 1024]"
    return (
        f"{file}: no ALiBi series fits its slopes (the closest, {slopes['series']}, is off by "
        f"{slopes['relative_error']:.3g} relative; tolerance {slopes['tolerance']:.3g})"
    )


def _positive(array: Any) -> bool:
    """Every value > 0 (asked of a vector only: a bias tensor is never copied for it)."""
    return bool((array.astype(float) > 0).all())


def _lines(report: dict[str, Any]) -> list[str]:
    lines = []
    slopes = report if report["kind"] == "slopes" else report["slope_fit"]
    if report["kind"] == "bias":
        pad = f", {report['left_padding']} padded keys" if report["left_padding"] else ""
        if "batch" in report:  # BLOOM's (batch·heads, 1, keys)
            padded = ", ".join(map(str, report["batch_padding"]))
            pad = f", a batch of {report['batch']} sequences (padded keys: {padded})"
        lines.append(
            f"ALiBi bias of shape {tuple(report['shape'])}: convention "
            f"{report['convention']}, {DESCRIPTIONS[report['convention']]}{pad}; "
            f"rebuilt within {report['relative_error']:.3g} (relative)"
        )
    rounded = ", rounded to bfloat16 (as Falcon's)" if slopes["bfloat16"] else ""
    lines.append(f"{slopes['heads']} heads, max_bias {slopes['max_bias']:g}{rounded}")
    lines.append(f"series: {slopes['series']}, {DESCRIPTIONS[slopes['series']]}")
    lines.append(
        f"largest relative slope error {slopes['relative_error']:.3g} "
        f"(tolerance {slopes['tolerance']:.3g})"
    )
    if slopes["also"]:
        same = ", ".join(f"{v} with max_bias {b:g}" for v, b in slopes["also"].items())
        lines.append(f"the same slopes: {same}")
    if not slopes["max_bias_in_range"]:
        lines.append("max_bias must be > 0 and <= 1024 in an ALiBi series: not determined")
    elif not slopes["matched"]:
        lines.append("no ALiBi series fits within the tolerance: not determined")
    elif not report["matched"]:  # the slopes fit a series, the tensor no convention
        lines.append("no ALiBi convention rebuilds the tensor within the tolerance: not determined")
    return lines
