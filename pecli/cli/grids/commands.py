"""``pecli grid``: the 2-D (or N-D) table of a grid of tokens, as a library builds it."""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np
import typer

from ...core.rules import check_dtype
from ...core.sinusoidal.frequencies import DEFAULT_BASE
from ...core.threads import AHEAD
from ...io import formats
from ...io.targets import PlotOutputs, TableTarget
from .._app import app
from .._app import figures as load_figures
from ..options import plot_options, table_options
from .options import (
    AxisOrder,
    BaseSize,
    ClsToken,
    ExtraTokens,
    GridBase,
    GridChannels,
    GridD,
    GridPresetName,
    GridPresetOpt,
    GridShape,
    InterpolationScale,
    Patch,
    Similarity,
    TemporalScale,
)


@app.command()
@table_options(certified=True)
def grid(
    shape: GridShape,
    d: GridD = 768,
    preset: GridPresetOpt = GridPresetName.mae,
    base: GridBase = DEFAULT_BASE,
    axis_order: AxisOrder = None,
    cls_token: ClsToken = False,
    extra_tokens: ExtraTokens = None,
    base_size: BaseSize = None,
    interpolation_scale: InterpolationScale = 1.0,
    temporal_interpolation_scale: TemporalScale = 1.0,
    *,
    out: TableTarget,
) -> None:
    """Compute the sinusoidal table of an H × W grid of patches (ViT, MAE, DiT, …).

    One row per token in row-major order (token k = r·W + c, as patch embeddings flatten),
    after --cls-token / --extra-tokens all-zero rows. Each row holds one block per axis; the
    presets differ in which axis comes first (mae: the column index, although MAE and
    diffusers call it emb_h; mocov3 and timm: the row index), the frequencies and where the
    sines and cosines go (docs/grids.md). CSV columns are named sin_col_1, cos_row_1, ….
    cogvideox takes T H W and adds [frame d/4 | column 3d/8 | row 3d/8] (CogVideoX, diffusers
    get_3d_sincos_pos_embed, whose (T, H·W, d) output is this table reshaped).

    Example: pecli grid 14 14 --d 768 --preset mae --cls-token -o pos_embed.npy
    """
    from ...core.grids import grid_blocks, grid_column_names
    from ...core.grids.rules import leading_rows

    kind = out.check()
    extra = leading_rows(cls_token, extra_tokens)
    encoding: dict[str, Any] = {
        "d": d,
        "preset": preset.value,
        "base": base,
        "axis_order": axis_order,
        "extra_tokens": extra,
        "base_size": base_size,
        "interpolation_scale": interpolation_scale,
        "dtype": out.dtype,
        "temporal_interpolation_scale": temporal_interpolation_scale,
    }
    reuse = AHEAD + 2 if kind == "npy" else 0  # the npy writer holds at most AHEAD + 1 blocks
    blocks = grid_blocks(shape, reuse=reuse, **encoding)  # every argument checked here
    names = grid_column_names(d, preset=preset.value, axes=len(shape), axis_order=axis_order)
    table, stored = (extra + math.prod(shape), d), check_dtype(out.dtype)
    size = _size(kind, shape, encoding, table, names, out.header)
    out.write(
        blocks,
        shape=table,
        dtype=stored,
        columns=names,
        description="grid",
        size=size,
        certified="copied",  # per-axis values, broadcast
    )


def _size(
    kind: str,
    shape: list[int],
    encoding: dict[str, Any],
    table: tuple[int, int],
    columns: list[str],
    header: bool,
) -> int:
    """Bytes the table takes in ``kind``; CSV is estimated from 64 tokens spread over the grid."""
    from ...core.grids import grid_token_rows

    stored = check_dtype(encoding["dtype"])
    sample = None
    if kind == "csv":
        tokens = np.unique(np.linspace(0, math.prod(shape) - 1, 64).round().astype(np.int64))
        sample = grid_token_rows(tokens, shape, **encoding).astype(stored)
    return formats.table_bytes(kind, table, stored, sample=sample, columns=columns, header=header)


@app.command("plot-grid")
# the size is fitted to the panels and held to the pixel budget when drawn; checked here: the
# smallest figure, one panel (pecli.figures.grids)
@plot_options("grid.png", default_size=(3.8, 3.0))
def plot_grid(
    shape: GridShape,
    d: Annotated[int, typer.Option("--d", help="Width d (embed_dim), as for pecli grid.")] = 64,
    preset: GridPresetOpt = GridPresetName.mae,
    base: GridBase = DEFAULT_BASE,
    axis_order: AxisOrder = None,
    base_size: BaseSize = None,
    interpolation_scale: InterpolationScale = 1.0,
    channels: GridChannels = None,
    similarity: Similarity = False,
    patch: Patch = None,
    *,
    plot: PlotOutputs,
) -> None:
    """Draw channels of a 2-D grid table as H × W images, or the patches' similarity.

    Each channel (a column of the table: sin_col_1, cos_row_3, …) is drawn as an image of
    the grid, row 0 at the top; several channels become small multiples. --similarity draws
    the cosine similarity of every patch with every other (the ViT paper's figure: tile
    (r, c) is patch (r, c) against all), --patch R C one tile. Writes grid.png without -o.

    Example: pecli plot-grid 14 14 --d 64 --preset mae --channels sin_col_1,sin_row_1 -o grid.png
    """
    from ...core.grids import grid_column_names, grid_table
    from ...core.grids.rules import check_plot_plane

    knobs = {
        "d": d,
        "preset": preset.value,
        "base": base,
        "axis_order": axis_order,
        "base_size": base_size,
        "interpolation_scale": interpolation_scale,
    }
    plane = check_plot_plane(shape, similarity=similarity, patch=patch)
    table = grid_table(plane, dtype="float64", **knobs)
    names = grid_column_names(d, preset=preset.value, axes=2, axis_order=axis_order)
    grid = f"{preset.value} table of a {' × '.join(map(str, shape))} grid, d = {d}"
    title = (
        f"Similarity of the patches' encodings, {grid}" if similarity else f"Channels of the {grid}"
    )
    picked = None if similarity else _channels(channels, names)
    look = {"figsize": plot.size, "dpi": plot.dpi or 100}
    _draw(plot, table, plane, title, names, picked, patch, look)


def _draw(
    outputs: PlotOutputs,
    table: np.ndarray,
    plane: tuple[int, int],
    title: str,
    names: list[str],
    picked: list[int] | None,
    patch: tuple[int, int] | None,
    look: dict[str, Any],
) -> None:
    """Write the channels figure (``picked``) or the similarity figure, with their data."""
    figures = load_figures("grids")
    if picked is None:
        similarity = figures.patch_similarity(table)

        def mosaic() -> Any:
            return figures.patch_similarity_figure(table, plane, title=title, patch=patch, **look)

        outputs.write(mosaic, similarity, [f"token_{k}" for k in range(len(similarity))])
        return

    def channels() -> Any:
        chosen = [names[k] for k in picked]
        return figures.grid_channels_figure(
            table[:, picked], plane, names=chosen, title=title, **look
        )

    outputs.write(channels, table[:, picked], [names[k] for k in picked])


def _channels(text: str | None, names: list[str]) -> list[int]:
    """Column indices from names or 0-based indices; by default pairs 1 and 2 of each sine block."""
    from ...core.errors import ParameterError

    if text is None:
        wanted = [f"sin_{axis}_{i}" for axis in ("col", "row") for i in (1, 2)]
        return sorted({names.index(n) for n in wanted if n in names})
    picked = []
    for part in (p.strip() for p in text.split(",")):
        if part in names:
            picked.append(names.index(part))
        elif part.isdigit() and int(part) < len(names):
            picked.append(int(part))
        else:
            rule = f"must be column names (sin_col_1, …) or indices 0 … {len(names) - 1}"
            raise ParameterError("channels", rule, part)
    return picked
