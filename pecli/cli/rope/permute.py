"""``pecli rope permute``: the q/k row permutation between Meta's and Hugging Face's layouts.

Printed as indices, or applied to tensors of a ``.safetensors`` file (written as a new file).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ...io import text, writing
from ...io.reports import say_written
from ..options import Quiet
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
    from ...io.rope.permute import permute_checkpoint, permute_tensors

    if config is not None or q_pattern or k_pattern:
        _refuse_beside_config(tensors, head_dim)
        permute_checkpoint(config, source, (q_pattern, k_pattern), direction.value, output)
        return say_written(output, quiet=quiet)
    if source is not None or tensors:
        permute_tensors(source, tensors or [], (heads, head_dim), direction.value, output)
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


def _refuse_beside_config(tensors: list[str] | None, head_dim: int | None) -> None:
    """--tensor and --head-dim are --input's without --config: the config names both."""
    from ...core.errors import ParameterError

    if tensors:
        rule = "goes without `config`: the config's q and k patterns choose the tensors"
        raise ParameterError("tensor", rule, ", ".join(tensors))
    if head_dim is not None:
        raise ParameterError("head_dim", "goes without `config`, which gives head_dim", head_dim)
