"""``pecli compute``: the encoding table to CSV or npy, in a file or on stdout."""

from __future__ import annotations

import numpy as np

from .. import writing
from ..encoding import DEFAULT_BASE, component_names, positional_encoding, table_blocks
from ..errors import check_dtype
from ._app import app
from .options import Base, D, Dtype, DtypeOpt, FormatOpt, Header, N, Quiet, Start, TableOutput
from .progress import track_rows


@app.command()
def compute(
    d: D = 512,
    n: N = 100,
    base: Base = DEFAULT_BASE,
    start: Start = 1,
    dtype: DtypeOpt = Dtype.float32,
    output: TableOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    quiet: Quiet = False,
) -> None:
    """Compute the table pe(start) … pe(start + n - 1) and write it as CSV or npy.

    Rows are positions; columns are the components sin_1, cos_1, sin_2, cos_2, …
    (interleaved, 1-based pair index in the CSV header). Values are computed in float64
    and rounded to --dtype once. The table is streamed in row blocks, so any --n fits in
    memory; shards made with --start concatenate to the whole table exactly.

    Example: pecli compute --d 4 --n 2 --format csv
    """
    kind = writing.resolve_format(output, fmt.value if fmt else None)
    writing.check_output(output, kind)
    blocks = table_blocks(d=d, n=n, start=start, base=base, dtype=dtype.value)
    stored, columns = check_dtype(dtype.value), component_names(d)
    writing.check_room(output, _size(kind, d, n, start, base, stored, columns, header))
    writing.write_table(
        track_rows(blocks, total_rows=n, description="compute", quiet=quiet),
        output=output,
        fmt=kind,
        shape=(n, d),
        dtype=stored,
        columns=columns,
        header=header,
    )


def _size(
    kind: str,
    d: int,
    n: int,
    start: int,
    base: float,
    dtype: np.dtype,
    columns: list[str],
    header: bool,
) -> int:
    """Bytes the table takes in ``kind``; CSV is estimated from rows spread over the table."""
    positions = np.unique(np.linspace(start, start + n - 1, 64).round())
    sample = positional_encoding(positions, d=d, base=base, dtype=dtype) if kind == "csv" else None
    return writing.table_bytes(kind, (n, d), dtype, sample=sample, columns=columns, header=header)
