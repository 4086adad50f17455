"""``pecli rope cache``: cos and sin of a rotary embedding as CSV, npy or ``.safetensors``."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_checkpoint_table, check_table_dtype
from ...core.threads import AHEAD
from ...io import formats
from ..options import (
    COMPUTE_FORMATS,
    ComputeOutput,
    FormatOpt,
    Header,
    N,
    Quiet,
    TableDtype,
    TableDtypeOpt,
)
from ..progress import say_written, write_streamed
from .app import RopeLayout, RopeStart, rope_app
from .axes import Form
from .options import Part, rope_spec_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeFrequencies, RopeSpec


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
#: ``make(n, part=…, start=…)``: a cache's row blocks with the other arguments fixed.
Blocks = functools.partial[Iterator[np.ndarray]]


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
    from ...core.rope import rope_frequencies

    kind = formats.resolve_format(output, fmt.value if fmt else None, suffixes=COMPUTE_FORMATS)
    formats.check_output(output, kind)
    where, n = _positions(positions, n, kind, output)
    columns = _columns(rope[0].rotary_dim, part.value, kind, output, n)
    stored, freqs = check_table_dtype(dtype.value), rope_frequencies(rope[0])
    check_checkpoint_table(n, len(columns), stored, kind)
    make = _maker(
        arithmetic.value, freqs, start=start, layout=layout, dtype=stored, positions=where
    )
    blocks = make(n, part=part.value, **_reuse(kind, arithmetic.value))  # checked here, first
    _check_form_output(form.value, part.value, kind, stored, output)
    _say_notes(rope[1], quiet=quiet)
    if form is not Form.full:
        return _write_form(
            make, n, form.value, part.value, kind=kind, output=output, header=header, quiet=quiet
        )
    if kind == "safetensors":
        _write_checkpoint(make, output, n, part.value, arithmetic.value)
        return say_written(output, quiet=quiet)
    shape = (n, len(columns))
    sample = _sample(make, shape, (start, part.value, where)) if kind == "csv" else None
    size = formats.table_bytes(kind, shape, stored, sample=sample, columns=columns, header=header)
    write_streamed(
        blocks,
        output=output,
        fmt=kind,
        shape=shape,
        dtype=stored,
        columns=columns,
        header=header,
        quiet=quiet,
        description="rope cache",
        size=size,
    )


def _columns(rotary_dim: int, part: str, kind: str, output: str, n: int) -> list[str]:
    """The cache's column names; CSV is refused first if it cannot fit at 2 bytes a value.

    A digit and a comma at least per value: no room, no work (not even the frequencies).
    """
    from ...core.rope.cache import cache_columns

    columns = cache_columns(rotary_dim, part)
    if kind == "csv":
        formats.check_room(output, 2 * n * len(columns))
    return columns


def _check_form_output(form: str, part: str, kind: str, stored: np.dtype, output: str) -> None:
    """Refuse a form the output format, the part or the dtype cannot hold (before any work)."""
    from ...core.rope.forms import check_form

    check_form(form, part, stored)
    if form != "full" and (kind == "safetensors" or (kind == "csv" and form != "half")):
        rule = f"cannot hold the {form} form as {kind} (npy can; CSV: --form half)"
        raise ParameterError("output", rule, output)


def _write_form(make: Blocks, n: int, form: str, part: str, **out: Any) -> None:
    """The cache in a form other than full: rounded once from the float64 full cache."""
    from ...core.rope.cache import rope_layout
    from ...core.rope.forms import reformed

    kind, output, stored = out["kind"], out["output"], make.keywords["dtype"]
    h = make.args[0].inv_freq.size
    full = make(n, part="both", dtype=np.dtype(np.float64))
    blocks = reformed(
        full, h=h, layout=rope_layout(make.keywords["layout"]), form=form, part=part, stored=stored
    )
    names = ("cos", "sin") if part == "both" or form != "half" else (part,)
    shapes: dict[str, tuple[int, ...]] = {"half": (n, h * len(names)), "complex": (n, h)}
    shape = shapes.get(form, (n, h, 2, 2))
    columns = [f"{name}_{j}" for name in names for j in range(h)]
    dtype = np.dtype(np.complex64 if stored.itemsize == 4 else np.complex128)
    dtype = dtype if form == "complex" else stored
    size = None if kind == "csv" else 128 + int(np.prod(shape)) * dtype.itemsize
    write_streamed(
        blocks,
        output=output,
        fmt=kind,
        shape=shape,
        dtype=dtype,
        columns=columns,
        header=out["header"],
        quiet=out["quiet"],
        description="rope cache",
        size=size,
    )


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
    try:  # typer >= 0.26 vendors click (a plain pip install has no click of its own)
        from typer._click.globals import get_current_context  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - depends on the installed typer
        from click import get_current_context
    source = get_current_context().get_parameter_source("n")
    if source is not None and source.name != "DEFAULT" and n != where.size:
        raise ParameterError("n", f"must be {where.size} with these --positions (or left out)", n)
    return where, int(where.size)


def _listed(text: str) -> np.ndarray:
    """A typed list of positions as float64; integers checked first (2^53 + 1 is no 2^53)."""
    from ...core.rope.cache import check_positions_list

    try:
        words = [w.strip() for w in text.split(",")]
        values = [int(w) if w.lstrip("+-").isdigit() else float(w) for w in words]
    except ValueError:
        rule = "must be numbers separated by commas, or an existing .npy or CSV file (or -)"
        raise ParameterError("positions", rule, text) from None
    return check_positions_list(values, len(values))


def _reuse(kind: str, arithmetic: str) -> dict[str, int]:
    """A ring of AHEAD + 2 block buffers for .npy, which holds at most AHEAD + 1 blocks."""
    return {"reuse": AHEAD + 2} if kind == "npy" and arithmetic == "exact" else {}


def _say_notes(findings: list[str], *, quiet: bool) -> None:
    """What the options left to defaults or the config said, on stderr (silenced by -q)."""
    for finding in () if quiet else findings:
        sys.stderr.write(f"pecli rope cache: note: {finding}\n")


def _maker(arithmetic: str, freqs: RopeFrequencies, **fixed: Any) -> Blocks:
    """``make(n, part=…, start=…)``: the cache's row blocks, exact or as transformers computes."""
    from ...core.ports.ggml_cache import ggml_angles, ggml_cache_blocks
    from ...core.rope.cache import cache_blocks
    from ...core.rope.framework import framework_cache_blocks, transformers_inv_freq
    from ...core.sinusoidal.knobs import check_amplitude_range

    blocks = {"transformers": framework_cache_blocks, "llama.cpp": ggml_cache_blocks}.get(
        arithmetic, cache_blocks
    )
    factor = freqs.attention_factor  # cos and sin times it must stay finite in the dtype
    check_amplitude_range((factor, 0.0), fixed["dtype"], factor, "attention_factor")
    if arithmetic == "transformers":  # refuse a rope type it does not repeat, up front
        transformers_inv_freq(freqs.spec)
    if arithmetic == "llama.cpp":
        ggml_angles(freqs, np.zeros(1))
    if fixed.get("positions") is None:
        fixed.pop("positions", None)
    elif arithmetic == "llama.cpp":
        rule = "go with --arithmetic exact or transformers (llama.cpp counts up from --start)"
        raise ParameterError("positions", rule, "llama.cpp")
    return functools.partial(blocks, freqs, **fixed)


def _write_checkpoint(make: Blocks, output: str, n: int, part: str, arithmetic: str) -> None:
    """Tensors ``cos`` and/or ``sin`` (n × rotary_dim) with the metadata, streamed, atomically."""
    from ... import __version__
    from ...analysis.rope.cache import cache_metadata
    from ...core.rope.cache import rope_layout
    from ...io.tensors import safetensors_bytes, write_safetensors_parts

    freqs, fixed = make.args[0], make.keywords
    stored, layout = fixed["dtype"], rope_layout(fixed["layout"])
    meta = cache_metadata(
        freqs,
        n=n,
        start=fixed["start"],
        layout=layout,
        dtype=stored.name,
        version=__version__,
        arithmetic=arithmetic,
    )
    names = ("cos", "sin") if part == "both" else (part,)
    shape = (n, freqs.spec.rotary_dim)  # streamed: one row block in memory at a time
    formats.check_room(output, safetensors_bytes([(name, stored, shape) for name in names], meta))
    parts = [(name, stored, shape, make(n, part=name)) for name in names]
    write_safetensors_parts(parts, output=output, metadata=meta)


def _sample(
    make: Blocks, shape: tuple[int, int], at: tuple[int, str, np.ndarray | None]
) -> np.ndarray:
    """Up to 64 rows spread over the cache (at most 2^20 values), for the CSV size estimate.

    ``at`` is (start, part, the --positions or None); the command has checked already that
    the file fits at two bytes a value (a digit and a comma), so none is formatted in vain.
    """
    (n, width), (start, part, where) = shape, at
    count = max(2, min(64, (1 << 20) // width))
    if where is not None:
        chosen = where[np.unique(np.linspace(0, n - 1, count).round().astype(np.int64))]
        return np.concatenate(list(make(chosen.size, part=part, positions=chosen)))
    rows = np.unique(np.linspace(start, start + n - 1, count).round().astype(np.int64))
    return np.concatenate([next(make(1, start=int(p), part=part)) for p in rows])
