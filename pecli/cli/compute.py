"""``pecli compute``: the encoding table to CSV or npy, in a file or on stdout."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.frequencies import DEFAULT_BASE
from ..core.rules import check_dtype
from ..io import formats
from ._app import app

if TYPE_CHECKING:  # pragma: no cover
    from ..core.conventions import Convention

from .options import (
    Base,
    D,
    Dtype,
    DtypeOpt,
    FormatOpt,
    Header,
    N,
    Quiet,
    TableOutput,
    convention_options,
)
from .progress import write_streamed


@app.command()
@convention_options()
def compute(
    d: D = 512,
    n: N = 100,
    base: Base = DEFAULT_BASE,
    dtype: DtypeOpt = Dtype.float32,
    output: TableOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    quiet: Quiet = False,
    *,
    conv: Convention,
) -> None:
    """Compute the table pe(start) … pe(start + n - 1) and write it as CSV or npy.

    Rows are positions; columns are the components sin_1, cos_1, sin_2, cos_2, …
    (interleaved, 1-based pair index in the CSV header; --convention / --layout change the
    order and the header follows). Values are computed in float64 and rounded to --dtype once.
    The table is streamed in row blocks, so any --n fits in memory; shards made with --start
    concatenate to the whole table exactly.

    Example: pecli compute --d 4 --n 2 --format csv
    """
    from ..core.encoding import component_names, table_blocks  # the core, once a command runs

    kind = formats.resolve_format(output, fmt.value if fmt else None)
    formats.check_output(output, kind)
    table = {"d": d, "base": base, "dtype": dtype.value, **conv.table_kwargs()}
    blocks = table_blocks(n=n, **table)
    stored = check_dtype(dtype.value)
    columns = component_names(d, conv.layout, odd_d=conv.odd_d)
    write_streamed(
        blocks, output=output, fmt=kind, shape=(n, d), dtype=stored, columns=columns,
        header=header, quiet=quiet, description="compute",
        size=_size(kind, n, table, columns, header),
    )  # fmt: skip


def _size(kind: str, n: int, table: dict[str, Any], columns: list[str], header: bool) -> int:
    """Bytes the table takes in ``kind``; CSV is estimated from rows spread over the table."""
    from ..core.encoding import positional_encoding

    sample = None
    if kind == "csv":  # 64 rows spread over the table (the padding row would be shorter)
        first = table["start"]
        positions = np.unique(np.linspace(first, first + n - 1, 64).round())
        knobs = {k: v for k, v in table.items() if k not in ("start", "padding_idx")}
        sample = positional_encoding(positions, **knobs)
    dtype = check_dtype(table["dtype"])
    return formats.table_bytes(
        kind, (n, table["d"]), dtype, sample=sample, columns=columns, header=header
    )
