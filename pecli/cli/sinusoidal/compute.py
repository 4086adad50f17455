"""``pecli compute``: the encoding table to CSV, npy or safetensors, in a file or on stdout."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core import certificate
from ...core.errors import ParameterError
from ...core.rules import check_checkpoint_table, check_n, check_table_dtype
from ...core.sinusoidal.frequencies import DEFAULT_BASE
from ...core.threads import AHEAD
from ...io import formats, paths
from ...io.formats import COMPUTE_FORMATS
from ...io.targets import TableTarget
from .._app import app
from ..options import (
    Base,
    ComputeKey,
    ComputeOutput,
    D,
    N,
    TableDtype,
    given,
    table_options,
)
from .options import convention_options

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    from ...core.sinusoidal.conventions import Convention

#: The tensor name of a .safetensors output without --key.
DEFAULT_KEY = "positional_encoding"

#: The largest --n of --relative (2n − 1 rows, angles up to (n − 1)·ω). The certificate's
#: recomputation allows the angle an error of 2^-99 of itself (the double-double frequency),
#: so a sine or cosine near 0 at an angle A is undecidable when it lies within A·2^-99 of a
#: float32 midpoint: at n = 2^52 the first rows hold cos(4503599627027798) = 9.2e-7, within
#: 3.3e-15 of one (the margin is 7.1e-15), and the table failed with status 1 after its
#: work. Over a whole relative table such values are expected about A²·ln(A)·2^-74 times
#: per pair: 1e-4 for d = 512 at 2^24, thousands at 2^40.
MAX_RELATIVE_N = 1 << 24
RELATIVE_N_RULE = (
    "must be an integer from 1 to 16777216 (2^24) with --relative: larger angles (n − 1)·ω "
    "leave values near 0 the certificate cannot decide"
)

Relative = Annotated[
    bool,
    typer.Option(
        "--relative",
        help="Rows are positions n−1, n−2, …, −(n−1) (2n−1 rows): the relative table of "
        "Conformer, Parakeet, wav2vec2-conformer (with --convention pytorch); --n at most "
        "2^24.",
    ),
]


@app.command()
@convention_options()
@table_options(
    dtype=TableDtype.float32,
    output=ComputeOutput,
    extra=[("key", ComputeKey, None), ("relative", Relative, False)],
    certified=True,
)
def compute(
    d: D = 512,
    n: N = 100,
    base: Base = DEFAULT_BASE,
    *,
    out: TableTarget,
    key: str | None,
    relative: bool,
    conv: Convention,
) -> None:
    """Compute the table pe(start) … pe(start + n - 1) and write it as CSV, npy or safetensors.

    Rows are positions; columns are the components sin_1, cos_1, sin_2, cos_2, …
    (interleaved, 1-based pair index in the CSV header; --convention / --layout change the
    order and the header follows). Values are computed in float64 and rounded to --dtype once.
    CSV and npy are streamed in row blocks, so any --n fits in memory; shards made with --start
    concatenate to the whole table exactly. A .safetensors file holds the table under --key
    with its convention as metadata (pecli identify checks it).

    Example: pecli compute --d 4 --n 2 --format csv
    """
    from ...core.sinusoidal.encoding import (  # the core, once a command runs
        component_names,
        table_blocks,
    )

    kind = out.check(suffixes=COMPUTE_FORMATS)
    stored = check_table_dtype(out.dtype)
    check_checkpoint_table(n, d, stored, kind)
    if key is not None and kind != "safetensors":
        raise ParameterError("key", "names a tensor of a .safetensors output only", key)
    table = {"d": d, "base": base, "dtype": out.dtype, **conv.table_kwargs()}
    if relative:
        return _write_relative(out, kind, n, table)
    reuse = AHEAD + 2 if kind == "npy" else 0  # the writer holds at most AHEAD + 1 blocks
    blocks = table_blocks(n=n, reuse=reuse, **table)
    if kind == "safetensors":
        _write_checkpoint(out, DEFAULT_KEY if key is None else key, n, table, conv)
        return
    columns = component_names(d, conv.layout, odd_d=conv.odd_d)
    size = _size(out.output, kind, n, table, columns, out.header)
    out.write(
        blocks,
        shape=(n, d),
        dtype=stored,
        columns=columns,
        description="compute",
        size=size,
        certified="counted",
    )


def _write_relative(out: TableTarget, kind: str, n: int, table: dict[str, Any]) -> None:
    """--relative: rows ``pe(n−1) … pe(−(n−1))``, the convention's layout and schedule.

    Streamed in row blocks as the plain table is, after the same checks (``n``, the room);
    the 2n−1 rows were one array, and ``--n 0`` was named as an option compute does not have.
    """
    from ...core.sinusoidal.encoding import BLOCK_CELLS, component_names, table_blocks

    if kind == "safetensors":
        raise ParameterError("relative", "goes with a CSV or npy output", out.output)
    if table["padding_idx"] is not None:  # fairseq's row of zeros has no offset to stand at
        rule = "goes with a convention without a padding row"
        raise ParameterError("relative", rule, f"padding row {table['padding_idx']}")
    if given("start"):  # its rows are offsets: a first position has no place in them
        raise ParameterError(
            "start", "has no meaning with --relative (rows n−1 … −(n−1))", table["start"]
        )
    if check_n(n) > MAX_RELATIVE_N:
        raise ParameterError("n", RELATIVE_N_RULE, n)
    span = {**table, "start": 1 - n, "padding_idx": None}  # every position, checked at once
    table_blocks(n=2 * n - 1, **span)
    knobs = {k: v for k, v in table.items() if k not in ("start", "padding_idx")}
    columns = component_names(table["d"], table["layout"], odd_d=table["odd_d"])
    size = _size(out.output, kind, 2 * n - 1, span, columns, out.header)
    blocks = _descending(n, max(1, BLOCK_CELLS // table["d"]), knobs)
    shape, stored = (2 * n - 1, table["d"]), check_table_dtype(out.dtype)
    out.write(
        blocks,
        shape=shape,
        dtype=stored,
        columns=columns,
        description="compute",
        size=size,
        certified="counted",  # the direct kernel: each value checked once
    )


def _descending(n: int, rows: int, knobs: dict[str, Any]) -> Iterator[np.ndarray]:
    """The rows of positions ``n−1, n−2, …, −(n−1)``, ``rows`` at a time."""
    from ...core.sinusoidal.encoding import positional_encoding

    for top in range(n - 1, -n, -rows):
        positions = np.arange(top, max(top - rows, -n), -1, dtype=np.float64)
        yield positional_encoding(positions, **knobs)


def _write_checkpoint(
    out: TableTarget, key: str, n: int, table: dict[str, Any], conv: Convention
) -> None:
    """The table as tensor ``key`` of a .safetensors file, with pecli's metadata."""
    from ... import __version__
    from ...analysis.checkpoints.metadata import table_metadata
    from ...core.sinusoidal.encoding import encoding_table
    from ...io import tensors

    tensors.check_key(key)  # before the table is built
    meta = table_metadata(
        key=key,
        d=table["d"],
        n=n,
        base=table["base"],
        dtype=table["dtype"],
        convention=conv,
        version=__version__,
    )
    stored = check_table_dtype(table["dtype"])
    room = tensors.safetensors_bytes([(key, stored, (n, table["d"]))], meta)
    formats.check_room(out.output, room)
    with certificate.counting() as tally:
        whole = encoding_table(n=n, **table)  # held whole: safetensors writes one buffer
    out.write_tensor(key, whole, tally.certificate(stored, whole.size), meta)


def _size(
    output: str, kind: str, n: int, table: dict[str, Any], columns: list[str], header: bool
) -> int | None:
    """Bytes the table takes in ``kind`` (CSV: estimated from rows spread over the table).

    None for stdout or a device, where no room is checked.
    """
    from ...core.sinusoidal.encoding import positional_encoding

    if paths.is_stdout(output) or paths.is_special(output):
        return None
    sample = None
    if kind == "csv":  # 64 rows spread over the table (the padding row would be shorter)
        first = table["start"]
        positions = np.unique(np.linspace(first, first + n - 1, 64).round())
        knobs = {k: v for k, v in table.items() if k not in ("start", "padding_idx")}
        sample = positional_encoding(positions, **knobs)
    dtype = check_table_dtype(table["dtype"])
    return formats.table_bytes(
        kind, (n, table["d"]), dtype, sample=sample, columns=columns, header=header
    )
