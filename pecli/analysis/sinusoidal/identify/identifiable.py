"""When a table can tell its convention at all: the size rule of ``identify``."""

from __future__ import annotations

from ....core.errors import ParameterError

__all__ = ["COARSE_ROWS", "MIN_IDENTIFY_ROWS", "check_identifiable", "coarse"]

#: Fewest rows (positions) and columns a table needs before ``identify`` can tell anything.
MIN_IDENTIFY_ROWS = 2
#: Fewer rows than this in float16 or bfloat16 are also tried with C = 10000.
COARSE_ROWS = 64


def check_identifiable(shape: tuple[int, ...], live: tuple[int, int] | None = None) -> None:
    """Raise :class:`ParameterError` unless a table of ``shape`` can tell its convention.

    It must be 2-D with at least 2 rows (positions) and 2 columns; with ``live``, the numbers
    of rows and of columns that are not all zero, one of them must be at least 2 too (a row
    of zeros is a padding row; identify reads the table transposed too, so 2 live columns
    will do). One position gives the angles but not how they grow.

    >>> check_identifiable((6, 8), (1, 2))  # one live row, two live columns: read transposed
    >>> check_identifiable((6, 8), (1, 1))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: table must have at least 2 rows or 2 columns that are ...
    """
    least = MIN_IDENTIFY_ROWS
    if len(shape) != 2 or min(shape) < least:
        rule = (
            f"must be a 2-D table with at least {least} rows (positions) and {least} "
            "columns: too few to tell a convention"
        )
        raise ParameterError("table", rule, " × ".join(map(str, shape)) or "a scalar")
    if live is not None and max(live) < least:  # rows, or columns: it is read transposed too
        rule = (
            f"must have at least {least} rows or {least} columns that are not all zero (it is "
            "read transposed too): too few to tell a convention"
        )
        found = (
            f"{live[0]} non-zero row(s) of {shape[0]}, {live[1]} non-zero column(s) of {shape[1]}"
        )
        raise ParameterError("table", rule, found)


def coarse(storage: str, rows: int) -> bool:
    """Whether a table is a few rows of half precision, whose slopes tell the base poorly."""
    return storage in ("float16", "bfloat16") and rows < COARSE_ROWS
