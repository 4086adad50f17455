"""``pecli rope permute``: the q/k row permutation between Meta's and Hugging Face's layouts.

Printed as indices, or applied to tensors of a ``.safetensors`` file (written as a new file).
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated

import typer

from ...io import writing
from .. import text
from ..options import Quiet
from ..progress import say_written
from .app import JsonFormatOpt, JsonOutput, report_kind, rope_app


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


@rope_app.command("permute")
def permute_command(
    heads: Heads = 1, head_dim: HeadDim = None, direction: DirectionOpt = Direction.meta_to_hf,
    fmt: JsonFormatOpt = None, output: JsonOutput = "-", source: Source = None,
    tensors: TensorNames = None, quiet: Quiet = False,
) -> None:  # fmt: skip
    """Row order from Meta's q/k projection rows to Hugging Face's (or back): w_new = w_old[perm].

    Within each head HF row r is Meta row [0, 2, 4, …, 1, 3, 5, …][r], so that rotate_half on
    the new rows equals interleaved pairs on the old ones. Use --heads num_attention_heads for
    wq and num_key_value_heads for wk. Python: pecli.core.rope.permute.qk_permutation.

    With --input and --tensor, the rows of the named tensors of a .safetensors file are
    permuted (head width = rows / --heads) and every tensor is written to -o, a new
    .safetensors file; the input is left as it is.

    Example: pecli rope permute --heads 1 --head-dim 8
    """
    from ...core.rope.permute import qk_permutation

    if source is not None or tensors:
        _permute_file(source, tensors or [], (heads, head_dim), direction.value, output)
        return say_written(output, quiet=quiet)
    kind = report_kind(output, fmt, ("json",))
    head_dim = 128 if head_dim is None else head_dim
    perm = qk_permutation(heads, head_dim, direction.value)
    if kind == "json":
        writing.write_json({"direction": direction.value, "heads": heads, "head_dim": head_dim,
                            "perm": perm.tolist()}, output=output)  # fmt: skip
    else:
        rows = perm.reshape(heads, head_dim)
        text.show(
            *(f"head {h}: " + " ".join(map(str, row)) for h, row in enumerate(rows)), output=output
        )
    say_written(output, quiet=quiet)


def _permute_file(
    source: str | None, names: list[str], shape: tuple[int, int | None], direction: str,
    output: str,
) -> None:  # fmt: skip
    """Permute the rows of the named tensors and write every tensor to a new file.

    ``shape`` is (--heads, --head-dim or None); a --head-dim must equal rows / --heads.
    """
    from ...core.errors import ParameterError
    from ...core.rope.permute import permute_rows
    from ...io import formats
    from ...io.tensors import missing_tensor, read_safetensors, write_safetensors

    if source is None or not names:
        raise ParameterError("input", "and --tensor go together", source)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ParameterError("tensor", "must name each tensor once (it would be permuted "
                             "twice)", ", ".join(twice))  # fmt: skip
    if not str(output).endswith(".safetensors"):
        raise ParameterError("output", "must name the new .safetensors file", output)
    formats.check_output(output, "npy")  # a binary file: room, folder, not the input's name
    if os.path.abspath(output) == os.path.abspath(source):
        raise ParameterError("output", "must differ from --input (a new file is written)", output)
    tensors, metadata = read_safetensors(source)
    heads, head_dim = shape
    for name in names:
        if name not in tensors:
            raise missing_tensor(source, list(tensors), name)
        rows = tensors[name].shape[0] if tensors[name].ndim else 0
        if head_dim is not None and head_dim * heads != rows:
            rule = f"must equal the rows of {name} / --heads = {rows} / {heads}"
            raise ParameterError("head_dim", rule, head_dim)
    for name in names:
        tensors[name] = permute_rows(tensors[name], heads, direction)
    write_safetensors(tensors, output=output, metadata=metadata)
