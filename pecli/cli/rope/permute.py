"""``pecli rope permute``: the q/k row permutation between Meta's and Hugging Face's layouts.

Printed as indices, or applied to tensors of a ``.safetensors`` file (written as a new file).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ...io import writing
from .. import text
from ..options import Quiet
from ..progress import say_written
from .app import JsonFormatOpt, JsonOutput, report_kind, rope_app

if TYPE_CHECKING:  # pragma: no cover
    from ...io.reading.safetensors_file import SafetensorsFile


class Direction(StrEnum):
    """Which way the q/k rows are permuted."""

    meta_to_hf = "meta-to-hf"
    hf_to_meta = "hf-to-meta"


Heads = Annotated[
    int,
    typer.Option("--heads", help="num_attention_heads for wq, num_key_value_heads for wk (>= 1)."),
]
HeadDim = Annotated[
    int | None,
    typer.Option(
        "--head-dim",
        help="Rows per head (even); with --input it must equal rows / --heads. [default: 128]",
        show_default=False,
    ),
]
DirectionOpt = Annotated[
    Direction,
    typer.Option(
        "--direction", help="meta-to-hf (transformers' converter) or hf-to-meta (llama.cpp's)."
    ),
]


Source = Annotated[
    str | None,
    typer.Option("--input", help="A .safetensors file whose --tensor rows to permute (needs -o)."),
]
TensorNames = Annotated[
    list[str] | None,
    typer.Option("--tensor", help="Name of a q or k weight in --input (repeat for several)."),
]
ConfigOpt = Annotated[
    str | None,
    typer.Option(
        "--config",
        help="The model's config.json (or folder): heads for q (num_attention_heads) and k "
        "(num_key_value_heads), head_dim; every q/k tensor of --input is permuted in one pass.",
    ),
]
QPattern = Annotated[
    list[str] | None,
    typer.Option(
        "--q-pattern",
        help="With --config: fnmatch pattern of the q projections (repeat). "
        "[default: *q_proj.weight, *q_proj.bias, *.wq.weight]",
        show_default=False,
    ),
]
KPattern = Annotated[
    list[str] | None,
    typer.Option(
        "--k-pattern",
        help="With --config: fnmatch pattern of the k projections (repeat). "
        "[default: *k_proj.weight, *k_proj.bias, *.wk.weight]",
        show_default=False,
    ),
]


@rope_app.command("permute")
def permute_command(
    heads: Heads = 1,
    head_dim: HeadDim = None,
    direction: DirectionOpt = Direction.meta_to_hf,
    fmt: JsonFormatOpt = None,
    output: JsonOutput = "-",
    source: Source = None,
    tensors: TensorNames = None,
    config: ConfigOpt = None,
    q_pattern: QPattern = None,
    k_pattern: KPattern = None,
    quiet: Quiet = False,
) -> None:
    """Row order from Meta's q/k projection rows to Hugging Face's (or back): w_new = w_old[perm].

    Within each head HF row r is Meta row [0, 2, 4, …, 1, 3, 5, …][r], so that rotate_half on
    the new rows equals interleaved pairs on the old ones. Use --heads num_attention_heads for
    wq and num_key_value_heads for wk. Python: pecli.core.rope.permute.qk_permutation.

    With --input and --tensor, the rows of the named tensors of a .safetensors file are
    permuted (head width = rows / --heads) and every tensor is written to -o, a new
    .safetensors file; the input is left as it is. With --input and --config, every q and k
    projection (--q-pattern, --k-pattern) of every layer is permuted in one pass, q with
    num_attention_heads and k with num_key_value_heads; a pattern that reaches a v or o
    projection, or a tensor whose rows disagree with the config, is refused.

    Example: pecli rope permute --heads 1 --head-dim 8
    """
    from ...core.rope.permute import qk_permutation

    if config is not None or q_pattern or k_pattern:
        _refuse_beside_config(tensors, head_dim)
        _permute_checkpoint(config, source, (q_pattern, k_pattern), direction.value, output)
        return say_written(output, quiet=quiet)
    if source is not None or tensors:
        _permute_file(source, tensors or [], (heads, head_dim), direction.value, output)
        return say_written(output, quiet=quiet)
    kind = report_kind(output, fmt, ("json",))
    head_dim = 128 if head_dim is None else head_dim
    perm = qk_permutation(heads, head_dim, direction.value)
    if kind == "json":
        writing.write_json(
            {
                "direction": direction.value,
                "heads": heads,
                "head_dim": head_dim,
                "perm": perm.tolist(),
            },
            output=output,
        )
    else:
        rows = perm.reshape(heads, head_dim)
        text.show(
            *(f"head {h}: " + " ".join(map(str, row)) for h, row in enumerate(rows)), output=output
        )
    say_written(output, quiet=quiet)


def _permute_file(
    source: str | None,
    names: list[str],
    shape: tuple[int, int | None],
    direction: str,
    output: str,
) -> None:
    """Permute the rows of the named tensors and write every tensor to a new file.

    ``shape`` is (--heads, --head-dim or None); a --head-dim must equal rows / --heads.
    """
    from ...core.errors import ParameterError
    from ...io.reading.safetensors_file import SafetensorsFile
    from ...io.tensors import missing_tensor

    if source is None or not names:
        raise ParameterError("input", "and --tensor go together", source)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ParameterError(
            "tensor", "must name each tensor once (it would be permuted twice)", ", ".join(twice)
        )
    _check_new_file(source, output)
    heads, head_dim = shape
    with SafetensorsFile(source, parameter="input") as handle:
        shapes = {key: entry.shape for key, entry in handle.entries.items()}
        for name in names:
            if name not in shapes:
                raise missing_tensor(source, list(shapes), name)
            rows = shapes[name][0] if shapes[name] else 0
            if head_dim is not None and head_dim * heads != rows:
                rule = f"must equal the rows of {name} / --heads = {rows} / {heads}"
                raise ParameterError("head_dim", rule, head_dim)
        _same_width(shapes, names, heads)
        _write_permuted(handle, dict.fromkeys(names, heads), direction, output)


def _check_new_file(source: str, output: str) -> None:
    """Refuse, before reading, an output that is not a new .safetensors file beside the input.

    However it is spelled (a link, a hard link, /dev/fd/N), the input is never the output.
    """
    from ...core.errors import ParameterError
    from ...io import formats, paths

    if not str(output).endswith(".safetensors"):
        raise ParameterError("output", "must name the new .safetensors file", output)
    formats.check_output(output, "npy", inputs=(source,))  # binary: room, folder, not the input
    if problem := paths.offsets_problem(source, ".safetensors file"):
        raise ParameterError("input", problem, source)


def _same_width(shapes: dict[str, tuple[int, ...]], names: list[str], heads: int) -> None:
    """One --heads for tensors of different heights: q and k of grouped-query attention."""
    from ...core.errors import ParameterError

    rows = {name: shapes[name][0] if shapes[name] else 0 for name in names}
    if len(set(rows.values())) > 1:
        shown = ", ".join(f"{name} {count} rows" for name, count in rows.items())
        rule = (
            f"is one count for tensors of different heights ({shown}): q and k have "
            "different head counts under grouped-query attention; give --config"
        )
        raise ParameterError("heads", rule, heads)


def _refuse_beside_config(tensors: list[str] | None, head_dim: int | None) -> None:
    """--tensor and --head-dim are --input's without --config: the config names both."""
    from ...core.errors import ParameterError

    if tensors:
        rule = "goes without `config`: the config's q and k patterns choose the tensors"
        raise ParameterError("tensor", rule, ", ".join(tensors))
    if head_dim is not None:
        raise ParameterError("head_dim", "goes without `config`, which gives head_dim", head_dim)


def _permute_checkpoint(
    config: str | None,
    source: str | None,
    patterns: tuple[list[str] | None, list[str] | None],
    direction: str,
    output: str,
) -> None:
    """Permute every q and k projection of ``source`` with the config's head counts."""
    from ...core.errors import ParameterError
    from ...core.rope.permute import K_PATTERNS, Q_PATTERNS, checkpoint_plan, head_counts
    from ...io.reading.json_config import read_json_object
    from ...io.reading.safetensors_file import SafetensorsFile

    if config is None or source is None:
        raise ParameterError(
            "config", "and --input go together (--q-pattern, --k-pattern need both)", config
        )
    q_heads, kv_heads, head_dim = head_counts(read_json_object(config, parameter="config"))
    _check_new_file(source, output)
    chosen = (patterns[0] or Q_PATTERNS, patterns[1] or K_PATTERNS)
    with SafetensorsFile(source, parameter="input") as handle:
        shapes = {key: entry.shape for key, entry in handle.entries.items()}
        plan = checkpoint_plan(
            shapes, heads=(q_heads, kv_heads), head_dim=head_dim, patterns=chosen
        )
        _write_permuted(handle, plan, direction, output)


def _write_permuted(
    handle: SafetensorsFile, plan: dict[str, int], direction: str, output: str
) -> None:
    """Every tensor to ``output``, those of ``plan`` permuted with their head counts, streamed.

    Memory holds one head (or 16 MiB of rows) at a time, not the checkpoint.
    """
    from ...core.errors import ParameterError
    from ...core.rope.permute import permute_rows
    from ...io.tensors import write_safetensors_parts

    for key, entry in handle.entries.items():
        if handle.dtype(key) is None:
            rule = f"holds tensor {key} of dtype {entry.code}, which pecli does not copy"
            raise ParameterError("input", rule, handle.path)
    for key, heads in plan.items():  # the rows split into heads of even width, before writing
        rows = handle.entries[key].shape[0] if handle.entries[key].shape else 0
        permute_rows(np.empty((rows, 0)), heads, direction)
    parts = [
        (key, handle.dtype(key), entry.shape, _blocks(handle, key, plan.get(key), direction))
        for key, entry in handle.entries.items()
    ]
    write_safetensors_parts(parts, output=output, metadata=handle.metadata)


def _blocks(
    handle: SafetensorsFile, key: str, heads: int | None, direction: str
) -> Iterator[np.ndarray]:
    """Tensor ``key`` in row blocks: one head at a time, permuted, when ``heads`` is given."""
    from ...core.rope.permute import permute_rows

    shape = handle.entries[key].shape
    if not shape:
        yield handle.read(key)
        return
    row_bytes = max(1, math.prod(shape[1:]) * handle.dtype(key).itemsize)  # type: ignore[union-attr]
    step = shape[0] // heads if heads else max(1, (1 << 24) // row_bytes)
    for first in range(0, shape[0], step or 1):
        block = handle.read(key, slice(first, first + step))
        yield permute_rows(block, 1, direction) if heads else block
