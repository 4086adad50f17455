"""The zoo commands' outputs: a table view, CSV, JSON or a whole ``.npy`` array, checked first."""

from __future__ import annotations

from ..json_report import ArrayFormat, ArrayFormatOpt, table_kind

__all__ = ["ArrayFormat", "ArrayFormatOpt", "output_kind"]


def output_kind(output: str, fmt: ArrayFormat | None) -> str:
    """table, csv, json or npy from --format, else the suffix (table on stdout); checked."""
    return table_kind(output, fmt, ("csv", "json", "npy"))
