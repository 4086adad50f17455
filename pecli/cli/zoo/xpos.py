"""``pecli xpos``: the xPos scale of each position and channel (docs/zoo.md#xpos)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_checkpoint_table, check_table_dtype
from ...io import formats
from ...io.formats import COMPUTE_FORMATS
from ...io.reports import CERTIFICATE
from ...io.targets import TableTarget
from .._app import app
from .._types import PositionType
from ..options import ComputeOutput, TableDtype, table_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.certificate import Certificate

#: The tensor name of a .safetensors output.
TENSOR = "xpos_scales"


class Centre(StrEnum):
    """How the positions are centred (docs/zoo.md#xpos)."""

    torchscale = "torchscale"
    lucidrains = "lucidrains"


class PairLayout(StrEnum):
    """Which channels hold a pair's scale."""

    interleaved = "interleaved"
    half_split = "half-split"


@app.command("xpos")
@table_options(dtype=TableDtype.float32, output=ComputeOutput, certified=True)
def xpos_command(
    head_dim: Annotated[int, typer.Option("--head-dim", help="Head width d, even.")] = 64,
    n: Annotated[int, typer.Option("--n", help="Length L of the sequence (rows), >= 1.")] = 16,
    scale_base: Annotated[
        float, typer.Option("--scale-base", help="γ in ζ_i^(p/γ) (both libraries: 512).")
    ] = 512.0,
    offset: Annotated[
        int,
        typer.Option(
            "--offset",
            click_type=PositionType("must be an integer, in digits, from 0 to 2^30"),
            help="torchscale: tokens before these rows (decoding).",
        ),
    ] = 0,
    centre: Annotated[
        Centre,
        typer.Option("--centre", help="torchscale: c = ceil((L+offset)/2); lucidrains: L//2."),
    ] = Centre.torchscale,
    layout: Annotated[
        PairLayout,
        typer.Option(
            "--layout",
            help="interleaved (both libraries) or half-split (rotary-embedding-torch 0.2–0.7).",
        ),
    ] = PairLayout.interleaved,
    keys: Annotated[
        bool, typer.Option("--keys", help="The keys' scales ζ_i^(-p/γ) (downscale).")
    ] = False,
    *,
    out: TableTarget,
) -> None:
    """The xPos scale ζ_i^((t - c)/γ) of each position t and channel, ζ_i = (2i + 0.4d)/(1.4d).

    Queries are multiplied by it, keys by its inverse (--keys), on top of the rotary
    rotation; their product ζ_i^((t_q - t_k)/γ) decays with the distance. The centre c depends
    on the sequence's length, and torchscale and rotary-embedding-torch centre an odd length
    differently. Rows are positions, CSV columns ch0_pair0, ch1_pair0, … (channel c and the
    pair i whose scale it holds). Each value is rounded once to --dtype (float32, float16,
    bfloat16: certified); -o NAME.safetensors holds the tensor xpos_scales (bfloat16 allowed).

    Example: pecli xpos --head-dim 8 --n 5 --format csv
    """
    from ...core import certificate
    from ...core.zoo.xpos import xpos_largest_scale, xpos_scales

    kind = out.check(suffixes=COMPUTE_FORMATS)
    stored = check_table_dtype(out.dtype)
    check_checkpoint_table(n, head_dim, stored, kind)
    knobs: dict[str, Any] = {
        "scale_base": scale_base,
        "offset": offset,
        "centre": centre.value,
        "keys": keys,
    }
    with np.errstate(over="ignore"), certificate.counting() as tally:  # overflow: _finite
        scales = xpos_scales(n, head_dim, layout=layout.value, dtype=out.dtype, **knobs)
        largest = lambda: xpos_largest_scale(n, head_dim, **knobs)  # noqa: E731
        table = _finite(scales, stored, scale_base, largest)
        said = tally.certificate(stored, None)  # each pair's value copied to its two channels
    if kind == "safetensors":
        _write_tensor(out, table, said)
        return
    out.write(
        [table],
        shape=table.shape,
        dtype=table.dtype,
        columns=_columns(head_dim, layout),
        description="xpos",
        size=table.nbytes if kind == "npy" else None,
        said=said,
    )


def _finite(
    scales: np.ndarray, dtype: np.dtype, scale_base: float, largest: Callable[[], float]
) -> np.ndarray:
    """The scales in the output dtype; an overflow refuses --scale-base (never inf in a table).

    The refusal offers only a wider --dtype that holds every scale (``largest``: the float64
    table's largest scale, computed then from its end rows), never the dtype that overflowed.
    """
    table = scales.astype(dtype)
    if not np.all(np.isfinite(table)):
        top = np.float64(largest())
        with np.errstate(over="ignore"):
            fits = [
                name
                for name in ("float32", "float64")
                if np.dtype(name).itemsize > dtype.itemsize and np.isfinite(top.astype(name))
            ]
        wider = f", or --dtype {'/'.join(fits)}" if fits else ""
        rule = (
            f"gives scales beyond {dtype.name}'s range at these positions "
            f"(a larger --scale-base, a smaller --n or --offset{wider})"
        )
        raise ParameterError("scale_base", rule, scale_base)
    return table


def _write_tensor(out: TableTarget, table: np.ndarray, said: Certificate) -> None:
    """The table as tensor ``xpos_scales`` of a .safetensors file, the report in its metadata."""
    from ...io import tensors

    meta = {CERTIFICATE: said.message}
    formats.check_room(
        out.output, tensors.safetensors_bytes([(TENSOR, table.dtype, table.shape)], meta)
    )
    out.write_tensor(TENSOR, table, said)


def _columns(head_dim: int, layout: PairLayout) -> list[str]:
    """``ch{c}_pair{i}`` of each channel ``c``: pair ``i = c // 2`` (interleaved) or ``c mod d/2``.

    Unique (a pair's two channels hold the same scale, so the pair alone would name two
    columns alike) and 0-based, as the channels of ``rope cache`` and xPos's pairs are.
    """
    half = head_dim // 2
    pairs = [c // 2 if layout == PairLayout.interleaved else c % half for c in range(head_dim)]
    return [f"ch{c}_pair{i}" for c, i in enumerate(pairs)]
