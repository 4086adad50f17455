"""``pecli t5-buckets``: T5's relative-position buckets.

See docs/zoo.md#t5-relative-position-buckets.
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...io import text, writing
from ...io.reports import say_written
from .._app import app
from ..json_report import ArrayFormatOpt, array_kind
from ..options import Quiet, TableOutput, given

NumBuckets = Annotated[int, typer.Option("--num-buckets", help="relative_attention_num_buckets.")]
MaxDistance = Annotated[
    int, typer.Option("--max-distance", help="relative_attention_max_distance.")
]
Causal = Annotated[
    bool,
    typer.Option("--causal/--bidirectional", help="Decoder (causal) or encoder (bidirectional)."),
]


@app.command("t5-buckets")
def t5_buckets(
    num_buckets: NumBuckets = 32,
    max_distance: MaxDistance = 128,
    causal: Causal = False,
    span: Annotated[
        int | None,
        typer.Option(
            "--span",
            help="Relative positions -S … S. [default: --max-distance + 8]",
            show_default=False,
        ),
    ] = None,
    keys: Annotated[
        int | None,
        typer.Option(
            "--keys",
            help="Instead: the (queries, keys) grid of this many keys.",
            show_default=False,
        ),
    ] = None,
    queries: Annotated[
        int | None,
        typer.Option(
            "--queries", help="Query rows of the grid. [default: --keys]", show_default=False
        ),
    ] = None,
    past: Annotated[int, typer.Option("--past", help="Grid: tokens already in the cache.")] = 0,
    output: TableOutput = "-",
    fmt: ArrayFormatOpt = None,
    quiet: Quiet = False,
) -> None:
    """T5's bucket of each relative position memory − query (key − query), as T5 computes it.

    Without --keys: one row per relative position from -S to S (the table view lists each
    bucket's range). With --keys: the bucket of each (query, key), query i at position
    --past + i, as T5Attention.compute_bias looks it up. Integers; npy is int64.

    Example: pecli t5-buckets --num-buckets 32 --max-distance 128 --span 200 --format csv
    """
    from ...core.zoo.t5_buckets import bucket_grid, relative_position_bucket

    kind = array_kind(output, fmt)
    config: dict[str, Any] = {
        "bidirectional": not causal,
        "num_buckets": num_buckets,
        "max_distance": max_distance,
    }
    _scope(keys, span=span, queries=queries, past=past)
    if keys is not None:
        if kind == "table" and keys > 64:
            rule = "shows at most 64 keys as a table: give --format csv or -o NAME.npy"
            raise ParameterError("keys", rule, keys)
        grid = bucket_grid(keys if queries is None else queries, keys, past=past, **config)
        _write_grid(grid, kind, output)
    else:
        rp = _span(span, max_distance)
        _write_line(rp, relative_position_bucket(rp, **config), kind, output)
    say_written(output, quiet=quiet)


def _scope(keys: int | None, **options: int | None) -> None:
    """Refuse an option of the other view: ``span`` with ``keys``, the grid's without it."""
    grid_only = {"queries", "past"}
    for name, value in options.items():
        if given(name) and (name in grid_only) == (keys is None):
            where = "with `keys` (the grid)" if name in grid_only else "without `keys`"
            raise ParameterError(name, f"applies only {where}", value)


def _span(span: int | None, max_distance: int) -> np.ndarray:
    if span is None and max_distance > (1 << 22) - 8:  # the default span would overflow
        rule = "must be at most 2^22 - 8 with the default `span` (`max_distance` + 8): give `span`"
        raise ParameterError("max_distance", rule, max_distance)
    s = max_distance + 8 if span is None else span
    if not 0 <= s <= 1 << 22:
        raise ParameterError("span", "must be an integer from 0 to 2^22", s)
    return np.arange(-s, s + 1, dtype=np.int64)


def _write_line(rp: np.ndarray, buckets: np.ndarray, kind: str, output: str) -> None:
    if kind == "npy":
        writing.write_array(buckets, output=output)
    elif kind in ("csv", "json"):
        writing.write_records({"relative_position": rp, "bucket": buckets}, output=output, fmt=kind)
    else:
        from ...core.zoo.t5_buckets import bucket_ranges

        table = text.titled_table("buckets", "bucket", "from", "to", "count")
        for row in zip(*bucket_ranges(rp, buckets), strict=True):
            table.add_row(*map(str, row))
        title = "relative positions memory − query (key − query) in each bucket"
        text.show(title, table, output=output)


def _write_grid(grid: np.ndarray, kind: str, output: str) -> None:
    if kind == "npy":
        writing.write_array(grid, output=output)
        return
    columns = {f"key_{j}": grid[:, j] for j in range(grid.shape[1])}
    if kind in ("csv", "json"):
        writing.write_records(columns, output=output, fmt=kind)
        return
    table = text.titled_table("grid", "query", *columns)
    for i, row in enumerate(grid):
        table.add_row(str(i), *map(str, row))
    text.show("bucket of each (query row, key column)", table, output=output)
