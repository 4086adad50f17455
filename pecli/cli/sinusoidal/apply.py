"""``pecli add``: add the encoding to a data matrix, row r getting pe(start + r - 1)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_base, check_dtype, check_positions
from ...core.sinusoidal.frequencies import DEFAULT_BASE
from ...core.threads import AHEAD
from ...io import formats
from ...io.targets import TableTarget
from .._app import app
from ..options import Base, InputFile, Start, table_options


@app.command()
@table_options(certified=True)
def add(
    file: Annotated[
        str | None,
        typer.Argument(help="Input .npy or CSV file, - for stdin (as -i).", show_default=False),
    ] = None,
    input_file: InputFile = None,
    start: Start = 1,
    base: Base = DEFAULT_BASE,
    *,
    out: TableTarget,
) -> None:
    """Add the positional encoding to an (n, d) data matrix: x_pos + pe(pos).

    Row r (1-based) gets pe(start + r - 1); d is the number of columns and must be even.
    Reads .npy or CSV (with or without a header line) from FILE (or -i FILE) or stdin; a large .npy
    is read and processed in row blocks. With float32 each sum is correctly rounded
    (certified); the output follows the rules of compute.

    Example: pecli add embeddings.npy --start 0 -o encoded.npy
    """
    source = _source(file, input_file)
    named = "file" if file is not None else "input"  # errors name FILE or --input as typed
    kind = out.check(inputs=(source,))
    base, out_dtype = check_base(base), check_dtype(out.dtype)
    from ...core.rules import check_data_shape
    from ...io import reading  # csv, mmap: only commands that read input pay for them

    matrix = reading.read_matrix(source, parameter=named)
    d = check_data_shape(matrix.shape, named)  # before shape[0]: a 0-D .npy has none
    n = matrix.shape[0]
    check_positions(start, n)  # the whole range, before row blocks shift the start
    blocks = _sums(matrix.blocks(), start, base, out_dtype, AHEAD + 2 if kind == "npy" else 0)
    columns = matrix.columns or [f"x_{j}" for j in range(1, d + 1)]
    from_file = os.path.isfile(source)  # a pipe's .npy header is not checked yet
    size = formats.table_bytes(kind, (n, d), out_dtype) if kind == "npy" and from_file else None
    out.write(
        blocks,
        shape=(n, d),
        dtype=out_dtype,
        columns=columns,
        description="add",
        size=size,
        certified="counted",  # float32: each sum correctly rounded (docs/exactness.md)
    )


def _sums(
    blocks: Iterator[tuple[int, np.ndarray]],
    start: float,
    base: float,
    dtype: np.dtype,
    reuse: int,
) -> Iterator[np.ndarray]:
    """``x + pe`` of each input block, into ``reuse`` output buffers taken in turn (0: new ones).

    The .npy writer holds at most ``AHEAD + 1`` blocks, so ``AHEAD + 2`` buffers are never
    overwritten in use (as compute's blocks, :func:`pecli.core.threads.block_buffers`).
    """
    from ...core.sinusoidal.apply import add_encoding

    ring: list[np.ndarray] = []
    for k, (first, block) in enumerate(blocks):
        out = None
        if reuse:
            if len(ring) < reuse:
                ring.append(np.empty(block.shape, dtype))
            buffer = ring[k % reuse]
            out = buffer[: len(block)] if len(buffer) >= len(block) else None  # else a new one
        yield add_encoding(block, start=start + first, base=base, dtype=dtype, out=out)


def _source(file: str | None, input_file: str | None) -> str:
    """The input named by FILE or -i (not both), ``-`` (stdin) when neither is given."""
    if file is not None and input_file is not None and file != input_file:
        raise ParameterError("input", "is given twice: as FILE and with -i; give one", file)
    source = file if file is not None else input_file
    if source == "":
        raise ParameterError("input", "must be a file name, or - for stdin", "''")
    return source or "-"
