"""``pecli compute``: the encoding table to CSV or npy, in a file or on stdout."""

from __future__ import annotations

from .. import writing
from ..encoding import DEFAULT_BASE, component_names, table_blocks
from ..errors import check_dtype
from ._app import app
from .options import Base, D, Dtype, DtypeOpt, FormatOpt, Header, N, Start, TableOutput


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
) -> None:
    """Compute the table pe(start) … pe(start + n - 1) and write it as CSV or npy.

    Rows are positions; columns are the components sin_1, cos_1, sin_2, cos_2, …
    (interleaved, 1-based pair index in the CSV header). Values are computed in float64
    and rounded to --dtype once.

    Example: pecli compute --d 4 --n 2 --format csv
    """
    kind = writing.resolve_format(output, fmt.value if fmt else None)
    writing.check_output(output, kind)
    blocks = table_blocks(d=d, n=n, start=start, base=base, dtype=dtype.value)
    writing.write_table(
        blocks,
        output=output,
        fmt=kind,
        shape=(n, d),
        dtype=check_dtype(dtype.value),
        columns=component_names(d),
        header=header,
    )
