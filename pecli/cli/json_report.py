"""The ``--format table|json`` and ``-o`` options of the report commands (gguf, diff), once.

Also ``--format table|csv|json`` of the reports that are a table too (wavelengths, rope) and
``--format table|csv|json|npy`` of those that are an array (zoo, rope freqs).

The format comes from ``--format``, else the output's suffix, else ``table``; the output is
checked before any work and refused when it is one of the command's inputs.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..io import formats


class Format(StrEnum):
    """Formats of a report."""

    table = "table"
    json = "json"


FormatOpt = Annotated[
    Format | None, typer.Option("--format", help="table or json. [default: the suffix, else table]")
]
Output = Annotated[
    str, typer.Option("-o", "--output", help="Output file (.json), or - for stdout.")
]


class ReportFormat(StrEnum):
    """Formats of the reports that are also a table (wavelengths, rope)."""

    table = "table"
    csv = "csv"
    json = "json"


ReportFormatOpt = Annotated[
    ReportFormat | None,
    typer.Option("--format", help="table, csv or json. [default: the suffix, else table]"),
]
ReportOutput = Annotated[
    str, typer.Option("-o", "--output", help="Output file (.csv, .json), or - for stdout.")
]


class ArrayFormat(StrEnum):
    """Formats of a small report that is also an array."""

    table = "table"
    csv = "csv"
    json = "json"
    npy = "npy"


ArrayFormatOpt = Annotated[
    ArrayFormat | None,
    typer.Option("--format", help="table, csv, json or npy. [default: the suffix, else table]"),
]


def table_kind(
    output: str,
    fmt: StrEnum | None,
    choices: tuple[str, ...] = ("csv", "json"),
    inputs: tuple[str | None, ...] = (),
) -> str:
    """table, csv or json (``choices`` besides table) from --format, else the suffix.

    The output is checked (:func:`pecli.io.formats.check_output`), also against ``inputs``.
    """
    kind = formats.resolve_format(
        output,
        fmt.value if fmt else None,
        formats=("table", *choices),
        default="table",
        suffixes=choices,
    )
    formats.check_output(output, kind, inputs=inputs)
    return kind


def array_kind(output: str, fmt: ArrayFormat | None) -> str:
    """table, csv, json or npy from --format, else the suffix (table on stdout); checked."""
    return table_kind(output, fmt, ("csv", "json", "npy"))


def report_kind(output: str, fmt: Format | None, inputs: dict[str, str | None]) -> str:
    """``table`` or ``json``, after refusing an output that cannot be written or is an input.

    ``inputs`` names each input as the help does (``A``, ``--config``): one of them at most
    may be stdin (``-``), which is read once, so a second would find it empty.
    """
    stdin = [name for name, value in inputs.items() if value == "-"]
    if len(stdin) > 1:
        rule = f"cannot be stdin (-) as well as {stdin[0]}: give one of them a file (got -)"
        raise typer.BadParameter(rule, param_hint=f"'{stdin[1]}'")
    return table_kind(output, fmt, ("json",), tuple(inputs.values()))
