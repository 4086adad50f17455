"""``pecli rope cache``: cos and sin of a rotary embedding as CSV, npy or ``.safetensors``."""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.rules import check_checkpoint_table, check_table_dtype
from ...core.threads import AHEAD
from ...io import formats
from ..compute import COMPUTE_FORMATS
from ..options import ComputeOutput, FormatOpt, Header, N, Quiet, TableDtype, TableDtypeOpt
from ..progress import say_written, write_streamed
from .app import RopeLayout, RopeStart, rope_app
from .options import rope_spec_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeFrequencies, RopeSpec


class Part(StrEnum):
    """What the cache table holds."""

    both = "both"
    cos = "cos"
    sin = "sin"


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


@rope_app.command("cache")
@rope_spec_options()
def cache_command(
    n: N = 100, start: RopeStart = 0, layout: RopeLayout = "half-split", part: PartOpt = Part.both,
    dtype: TableDtypeOpt = TableDtype.float32, output: ComputeOutput = "-",
    fmt: FormatOpt = None, header: Header = True, arithmetic: ArithmeticOpt = Arithmetic.exact,
    quiet: Quiet = False, *, rope: tuple[RopeSpec, list[str]],
) -> None:  # fmt: skip
    """The cos and sin of positions start … start+n-1, times the attention factor.

    Each is rotary_dim wide: half-split [c_0 … c_h-1, c_0 … c_h-1] or interleaved
    [c_0, c_0, c_1, c_1, …]; --part both puts the cos columns first, then the sin columns.
    Angles are exact and every value is rounded once to --dtype. CSV and npy are streamed in
    row blocks; -o NAME.safetensors holds tensors cos and sin (bfloat16 allowed) with the
    rope parameters as metadata (pecli rope identify reads them). --arithmetic transformers
    gives what transformers computes instead (float32 steps, within 1 ulp of its own).

    Example: pecli rope cache --theta 500000 --head-dim 8 --n 3 --layout gptj --format csv
    """
    from ...core.rope import rope_frequencies
    from ...core.rope.cache import cache_columns

    kind = formats.resolve_format(output, fmt.value if fmt else None, suffixes=COMPUTE_FORMATS)
    formats.check_output(output, kind)
    stored, freqs = check_table_dtype(dtype.value), rope_frequencies(rope[0])
    columns = cache_columns(rope[0].rotary_dim, part.value)
    check_checkpoint_table(n, len(columns), stored, kind)
    make = _maker(arithmetic.value, freqs, start=start, layout=layout, dtype=stored)
    reuse = {"reuse": AHEAD + 2} if kind == "npy" and arithmetic.value == "exact" else {}
    blocks = make(n, part=part.value, **reuse)  # arguments are checked here, before any output
    _say_notes(rope[1], quiet=quiet)
    if kind == "safetensors":
        _write_checkpoint(make, output, n, part.value, arithmetic.value)
        return say_written(output, quiet=quiet)
    sample = _sample(make, n, start, part.value) if kind == "csv" else None
    shape = (n, len(columns))
    size = formats.table_bytes(kind, shape, stored, sample=sample, columns=columns, header=header)
    write_streamed(blocks, output=output, fmt=kind, shape=shape, dtype=stored, columns=columns,
                   header=header, quiet=quiet, description="rope cache", size=size)  # fmt: skip


def _say_notes(findings: list[str], *, quiet: bool) -> None:
    """What the options left to defaults or the config said, on stderr (silenced by -q)."""
    for finding in () if quiet else findings:
        sys.stderr.write(f"pecli rope cache: note: {finding}\n")


def _maker(arithmetic: str, freqs: RopeFrequencies, **fixed: Any) -> Blocks:
    """``make(n, part=…, start=…)``: the cache's row blocks, exact or as transformers computes."""
    from ...core.ports.ggml_cache import ggml_angles, ggml_cache_blocks
    from ...core.rope.cache import cache_blocks
    from ...core.rope.framework import framework_cache_blocks, transformers_inv_freq

    blocks = {"transformers": framework_cache_blocks, "llama.cpp": ggml_cache_blocks}.get(
        arithmetic, cache_blocks
    )
    if arithmetic == "transformers":  # refuse a rope type it does not repeat, up front
        transformers_inv_freq(freqs.spec)
    if arithmetic == "llama.cpp":
        ggml_angles(freqs, np.zeros(1))
    return functools.partial(blocks, freqs, **fixed)


def _write_checkpoint(make: Blocks, output: str, n: int, part: str, arithmetic: str) -> None:
    """Tensors ``cos`` and/or ``sin`` (n × rotary_dim) with the metadata, atomically."""
    from ... import __version__
    from ...analysis.rope.cache import cache_metadata
    from ...core.rope.cache import rope_layout
    from ...io.tensors import safetensors_bytes, write_safetensors

    freqs, fixed = make.args[0], make.keywords
    stored, layout = fixed["dtype"], rope_layout(fixed["layout"])
    meta = cache_metadata(freqs, n=n, start=fixed["start"], layout=layout, dtype=stored.name,
                          version=__version__, arithmetic=arithmetic)  # fmt: skip
    names = ("cos", "sin") if part == "both" else (part,)
    width = freqs.spec.rotary_dim * len(names)
    formats.check_room(output, safetensors_bytes((n, width), stored, ",".join(names), meta))
    tensors = {name: np.concatenate(list(make(n, part=name))) for name in names}  # held whole
    write_safetensors(tensors, output=output, metadata=meta)


def _sample(make: Blocks, n: int, start: int, part: str) -> np.ndarray:
    """Up to 64 rows spread over the cache, for the CSV size estimate."""
    rows = np.unique(np.linspace(start, start + n - 1, 64).round().astype(np.int64))
    return np.concatenate([next(make(1, start=int(p), part=part)) for p in rows])
