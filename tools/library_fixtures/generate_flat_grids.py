"""Flattened 2-D tables as users save them, read by ``pecli identify`` (issue 32, "identify").

Area ``flat_grids``: positional-encodings' ``PositionalEncoding2D(64)`` on a 32 × 32 grid
saved as ``(1024, 64)`` float32 (``identify`` stopped with ``internal error: KeyError: ''``),
and timm's ``build_sincos2d_pos_embed([32, 32], dim=64)`` (read as "no match"). timm's
functions are read from its installed files as generate_grids.py does (torchvision does not
load with this torch).
"""

from __future__ import annotations

import typing
from pathlib import Path

from common import save
from generate_grids import _installed


def generate(out: Path) -> None:
    """Write the two tables into ``out``."""
    import torch
    from positional_encodings.torch_encodings import PositionalEncoding2D

    table = PositionalEncoding2D(64)(torch.zeros((1, 32, 32, 64)))[0].reshape(-1, 64)
    call = (
        "positional_encodings.torch_encodings.PositionalEncoding2D(64)"
        "(torch.zeros((1, 32, 32, 64)))[0].reshape(-1, 64)"
    )
    save(
        out,
        "tatp22_2d_32x32_c64",
        table.numpy(),
        library="positional-encodings",
        call=call,
        grid=[32, 32],
        channels=64,
    )
    ns = _installed(
        "timm",
        ["timm/layers/grid.py", "timm/layers/pos_embed_sincos.py"],
        ["ndgrid", "freq_bands", "build_sincos2d_pos_embed"],
        {"torch": torch, **vars(typing)},
    )
    table = ns["build_sincos2d_pos_embed"]([32, 32], dim=64).numpy()
    save(
        out,
        "timm_32x32_d64",
        table,
        library="timm",
        call="timm.layers.pos_embed_sincos.build_sincos2d_pos_embed([32, 32], dim=64) (read "
        "from the installed file)",
        feat_shape=[32, 32],
        dim=64,
    )
