"""``pecli rope learned-axes``: Mochi's rotary table from the frequencies in its checkpoint."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ...io.targets import TableTarget
from ..options import table_options
from ..rope.app import rope_app
from .options import parse_sizes

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator


@rope_app.command("learned-axes")
@table_options()
def learned_axes_command(
    file: Annotated[
        str,
        typer.Argument(
            help="The .safetensors (or .npz) holding the frequencies.", show_default=False
        ),
    ],
    grid: Annotated[
        str,
        typer.Option(
            "--grid", help="T x H x W of the latent grid after its 2x2 patches, e.g. 2x3x4."
        ),
    ],
    key: Annotated[
        str,
        typer.Option("--key", help="The (3, heads, pairs) frequencies' tensor."),
    ] = "pos_frequencies",
    *,
    out: TableTarget,
) -> None:
    """Cos and sin of Mochi's learned rotary embedding, its frequencies read from a checkpoint.

    Pair f of head h turns token n by sum over the axes a of pos[n, a]·freqs[a, h, f]: no θ,
    no axis per pair. Positions are frames 0 … T−1 and the centred, scaled row and column
    cells of diffusers' MochiRoPE, in float64; one row per token, the cos of every head's
    pairs (head-major), then the sin.

    Example: pecli rope learned-axes mochi.safetensors --grid 2x3x4 -o mochi_rope.npy
    """
    from ...core.multiaxis.ids import check_grid
    from ...core.multiaxis.learned import learned_angles

    kind = out.check()
    sizes = check_grid(parse_sizes(grid, "grid"), 3)  # before the work: a 0 makes no rows
    freqs = _frequencies(file, key)
    width = learned_angles(np.zeros((0, 3)), freqs).shape[1] * freqs.shape[2]  # checks freqs
    tokens, dtype = int(np.prod(sizes)), np.dtype(out.dtype)
    columns = [f"cos_{j}" for j in range(width)] + [f"sin_{j}" for j in range(width)]
    size = tokens * 2 * width * dtype.itemsize if kind == "npy" else None  # the room first
    blocks = _blocks(sizes, freqs, tokens, max(1, (1 << 22) // (2 * width)), dtype)
    shape = (tokens, 2 * width)
    out.write(
        blocks,
        shape=shape,
        dtype=dtype,
        columns=columns,
        description="rope learned-axes",
        size=size,
    )


def _blocks(
    sizes: tuple[int, ...], freqs: np.ndarray, tokens: int, rows: int, dtype: np.dtype
) -> Iterator[np.ndarray]:
    """``[cos | sin]`` of ``rows`` tokens at a time: the table is never whole in memory."""
    from ...core.multiaxis.learned import learned_angles, mochi_position_rows

    for first in range(0, tokens, rows):
        positions = mochi_position_rows(sizes, first, min(rows, tokens - first))
        flat = learned_angles(positions, freqs).reshape(len(positions), -1)
        yield np.concatenate([np.cos(flat), np.sin(flat)], axis=1).astype(dtype)


def _frequencies(path: str, key: str) -> np.ndarray:
    """The tensor ``key`` of the checkpoint (its error names what the file holds)."""
    from ...io.checkpoints import open_checkpoint

    with open_checkpoint(path, parameter="file") as checkpoint:
        checkpoint.info(key)
        return np.asarray(checkpoint.load(key), dtype=np.float64)
