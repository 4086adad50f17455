"""The options of ``pecli grid`` and ``pecli plot-grid`` (2-D / N-D tables; docs/grids.md).

Declared once here and used by pecli/cli/grids/commands.py only; the options every command
shares live in pecli/cli/options.py.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ...core.rules import MAX_D
from ..options import BASE_WORDS


class GridPresetName(StrEnum):
    """Grid presets (docs/grids.md); the same names as ``pecli.core.grids.GRID_PRESETS``."""

    mae = "mae"
    mocov3 = "mocov3"
    big_vision = "big-vision"
    timm = "timm"
    timm_interleaved = "timm-interleaved"
    t2t_nd = "t2t-nd"
    tatp22 = "tatp22"
    cogvideox = "cogvideox"


GridShape = Annotated[
    list[int],
    typer.Argument(
        help="The grid's sides: H W (rows, columns) for an image, T H W for a video "
        "(cogvideox); 1 to 4 axes.",
        show_default=False,
    ),
]
GridD = Annotated[
    int,
    typer.Option(
        "--d",
        help=f"Width d (embed_dim), 1 to {MAX_D}; a multiple of 4 for mae, mocov3, "
        "big-vision (>= 8), timm and timm-interleaved; of 16 for cogvideox.",
    ),
]
GridPresetOpt = Annotated[
    GridPresetName, typer.Option("--preset", help="The library whose layout to follow.")
]
GridBase = Annotated[
    float,
    typer.Option("--base", help=f"Base C (temperature, max_timescale); {BASE_WORDS}."),
]
AxisOrder = Annotated[
    str | None,
    typer.Option(
        "--axis-order",
        help="Which axis the first block encodes: row-first, col-first, or a permutation "
        "such as 2,1,0. [default: the preset's]",
        show_default=False,
    ),
]
ClsToken = Annotated[
    bool, typer.Option("--cls-token", help="One all-zero row first (a class token).")
]
ExtraTokens = Annotated[
    int | None,
    typer.Option("--extra-tokens", help="All-zero rows first (DiT's extra_tokens), 0 to 2^20."),
]
BaseSize = Annotated[
    float | None,
    typer.Option(
        "--base-size",
        help="mae only, diffusers' base_size: coordinate k of an axis of n becomes "
        "k·base_size/(n·scale). [default: n, integer positions]",
        show_default=False,
    ),
]
InterpolationScale = Annotated[
    float,
    typer.Option(
        "--interpolation-scale",
        help="mae and cogvideox only: diffusers' interpolation_scale "
        "(cogvideox: spatial_interpolation_scale, the row and column indices are divided by it).",
    ),
]
TemporalScale = Annotated[
    float,
    typer.Option(
        "--temporal-interpolation-scale",
        help="cogvideox only: diffusers' temporal_interpolation_scale (the frame index is "
        "divided by it).",
    ),
]
GridChannels = Annotated[
    str | None,
    typer.Option(
        "--channels",
        help="Columns to draw, comma-separated: names (sin_col_1) or 0-based indices. "
        "[default: pairs 1 and 2 of each axis's sines]",
        show_default=False,
    ),
]
Similarity = Annotated[
    bool,
    typer.Option(
        "--similarity", help="Draw the patches' cosine similarity (ViT's figure) instead."
    ),
]
Patch = Annotated[
    tuple[int, int] | None,
    typer.Option(
        "--patch",
        help="With --similarity: only patch R C (0-based row, column). [default: every patch]",
        show_default=False,
    ),
]
