"""``pecli rope cache``: cos and sin of a rotary embedding as CSV, npy or ``.safetensors``."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_checkpoint_table, check_table_dtype
from ...core.threads import AHEAD
from ...io import formats
from ...io.rope.output import table_kind, write_cache
from ..options import (
    ComputeOutput,
    FormatOpt,
    Header,
    JsonReport,
    N,
    Quiet,
    TableDtype,
    TableDtypeOpt,
    given,
)
from .app import RopeLayout, RopeStart, rope_app
from .options import Form, Part, rope_spec_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeSpec
    from ...core.rope.cache_spec import CacheSpec
    from ...core.rope.forms import FormTable


PartOpt = Annotated[
    Part,
    typer.Option(
        "--part",
        help="cos, sin, or both (cos columns, then sin; .safetensors: tensors cos and sin).",
    ),
]


class Arithmetic(StrEnum):
    """How the cache is computed."""

    exact = "exact"
    transformers = "transformers"
    llama_cpp = "llama.cpp"


ArithmeticOpt = Annotated[
    Arithmetic,
    typer.Option(
        "--arithmetic",
        help="exact (rounded once); transformers: what your framework computes, its float32 "
        "inv_freq, angles and cos/sin; llama.cpp: ggml's float32 loop (θ multiplied pair by "
        "pair). For default, linear, llama3, yarn.",
    ),
]


PositionsOpt = Annotated[
    str | None,
    typer.Option(
        "--positions",
        help="Positions of the rows instead of --start and --n: a list (0,1.5,7,-2), a 1-D .npy, "
        "or a .npy / CSV file of one row or column (- for stdin); fractional and negative "
        "too. CSV and npy only.",
    ),
]


CacheFormOpt = Annotated[
    Form,
    typer.Option(
        "--form",
        help="full (rotary_dim columns), half (one per pair: GPT-J, gpt-oss), complex "
        "(cos + i·sin, freqs_cis; .npy) or matrix (2×2 per pair; .npy). CSV and npy only.",
    ),
]


@rope_app.command("cache")
@rope_spec_options()
def cache_command(
    n: N = 100,
    start: RopeStart = 0,
    layout: RopeLayout = "half-split",
    part: PartOpt = Part.both,
    dtype: TableDtypeOpt = TableDtype.float32,
    output: ComputeOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    arithmetic: ArithmeticOpt = Arithmetic.exact,
    quiet: Quiet = False,
    positions: PositionsOpt = None,
    form: CacheFormOpt = Form.full,
    as_json: JsonReport = False,
    *,
    rope: tuple[RopeSpec, list[str]],
) -> None:
    """The cos and sin of positions start … start+n-1, times the attention factor.

    Each is rotary_dim wide: half-split [c_0 … c_h-1, c_0 … c_h-1] or interleaved
    [c_0, c_0, c_1, c_1, …]; --part both puts the cos columns first, then the sin columns.
    Angles are exact and every value is rounded once to --dtype. CSV and npy are streamed in
    row blocks; -o NAME.safetensors holds tensors cos and sin (bfloat16 allowed) with the
    rope parameters as metadata (pecli rope identify reads them). --arithmetic transformers
    gives what transformers computes instead (float32 steps, within 1 ulp of its own).

    --positions gives any positions instead (a list or a file; fractional too), each angle
    still exact and each value rounded once. --form half, complex or matrix writes one column,
    a complex number or a 2×2 rotation per pair instead of the full width.

    Example: pecli rope cache --theta 500000 --head-dim 8 --n 3 --layout gptj --format csv
    """
    from ...core.ports.arithmetic import cache_table

    kind = table_kind(output, fmt, as_json=as_json, header=header if given("header") else None)
    _check_form_output(form.value, kind, output, fmt)
    where, n = _positions(positions, n, kind, output)
    rows = {"start": start, "layout": layout, "dtype": dtype.value, "part": part.value}
    spec = _spec(rope[0], n, kind, output, positions=where, **rows)
    table = cache_table(spec, arithmetic=arithmetic.value, form=form.value)
    _say_notes(rope[1], quiet=quiet or as_json)  # with --json: its notes
    meta = _metadata(spec, arithmetic.value) if kind == "safetensors" else None
    size = _size(spec, arithmetic.value, kind, table, header) if form is Form.full else None
    write_cache(
        table,
        output=output,
        kind=kind,
        header=header,
        quiet=quiet,
        description="rope cache",
        metadata=meta,
        size=size,
        certified=arithmetic.value == "exact",  # the others reproduce a framework's float32
        not_certified=FRAMEWORK.format(arithmetic.value),
        as_json=as_json,
        notes=tuple(rope[1]),
    )


#: Why a cache of a framework's arithmetic has no certificate (for --json).
FRAMEWORK = (
    "--arithmetic {}: a framework's float32 arithmetic, on purpose "
    "(not meant to be correctly rounded)"
)


def _spec(rope: RopeSpec, n: int, kind: str, output: str, **rows: Any) -> CacheSpec:
    """The cache's spec, once the output can hold it.

    CSV is refused first if it cannot fit at 2 bytes a value (a digit and a comma at least):
    no room, no work (not even the frequencies).
    """
    from ...core.rope import rope_frequencies
    from ...core.rope.cache_spec import CacheSpec

    width = rope.rotary_dim * (2 if rows["part"] == "both" else 1)
    if kind == "csv":
        formats.check_room(output, 2 * n * width)
    freqs = rope_frequencies(rope)
    check_checkpoint_table(n, width, check_table_dtype(rows["dtype"]), kind)
    reuse = AHEAD + 2 if kind == "npy" else 0  # the npy writer holds at most AHEAD + 1 blocks
    return CacheSpec(freqs, n, reuse=reuse, **rows)


def _check_form_output(form: str, kind: str, output: str, fmt: FormatOpt) -> None:
    """Refuse a form the output format cannot hold (before any work).

    Under the option typed: ``--format``, else ``-o`` (its suffix), else ``--form`` (stdout's
    CSV was never asked for).
    """
    if form != "full" and (kind == "safetensors" or (kind == "csv" and form != "half")):
        rule = f"cannot hold the {form} form as {kind} (npy can; CSV: --form half)"
        if fmt is not None:
            raise ParameterError("format", rule, fmt.value)
        if given("output"):
            raise ParameterError("output", rule, output)
        rule = f"cannot go to stdout as {kind}: give -o NAME.npy (or --form half for CSV)"
        raise ParameterError("form", rule, form)


def _positions(text: str | None, n: int, kind: str, output: str) -> tuple[np.ndarray | None, int]:
    """The --positions as float64 and the row count; --n given beside them must agree."""
    if text is None:
        return None, n
    if kind == "safetensors":
        rule = "must be .csv or .npy with --positions (the metadata says consecutive positions)"
        raise ParameterError("output", rule, output)
    if text == "-" or os.path.exists(text):  # - is stdin, not a list of numbers
        from ...io.paths import check_not_input
        from ...io.reading import read_vector

        check_not_input(output, (text,))  # a 1-D .npy is the plain list of positions
        where = read_vector(text, parameter="positions").astype(np.float64)
    else:
        where = _listed(text)
    if given("n") and n != where.size:
        raise ParameterError("n", f"must be {where.size} with these --positions (or left out)", n)
    return where, int(where.size)


def _listed(text: str) -> np.ndarray:
    """A typed list of positions as float64; integers checked first (2^53 + 1 is no 2^53)."""
    from ...core.rope.cache_spec import check_positions_list

    try:
        words = [w.strip() for w in text.split(",")]
        values = [int(w) if w.lstrip("+-").isdigit() else float(w) for w in words]
    except ValueError:
        rule = "must be numbers separated by commas, or an existing .npy or CSV file (or -)"
        raise ParameterError("positions", rule, text) from None
    return check_positions_list(values, len(values))


def _say_notes(findings: list[str], *, quiet: bool) -> None:
    """What the options left to defaults or the config said, on stderr (silenced by -q)."""
    for finding in () if quiet else findings:
        sys.stderr.write(f"pecli rope cache: note: {finding}\n")


def _metadata(spec: CacheSpec, arithmetic: str) -> dict[str, str]:
    """What a ``.safetensors`` cache holds: the rope parameters, rows and arithmetic."""
    from ... import __version__
    from ...analysis.rope.metadata import cache_metadata

    return cache_metadata(spec, version=__version__, arithmetic=arithmetic)


def _size(
    spec: CacheSpec, arithmetic: str, kind: str, table: FormTable, header: bool
) -> int | None:
    """Bytes of the npy file, or of the CSV text estimated from rows spread over the cache."""
    from ...core.ports.arithmetic import cache_sample

    if kind == "safetensors":  # counted by the writer, from the tensors' shapes
        return None
    sample = cache_sample(spec, arithmetic) if kind == "csv" else None
    shape = (table.shape[0], table.shape[1])
    return formats.table_bytes(
        kind, shape, table.dtype, sample=sample, columns=table.columns, header=header
    )
