"""2-D and N-D sinusoidal tables of grids of tokens (vision transformers, DiT): docs/grids.md.

:mod:`~pecli.core.grids.presets` holds each library's layout, :mod:`~pecli.core.grids.table`
computes and streams the tables.
"""

from .knobs import GridEncoding
from .presets import GRID_PRESETS, GridPreset, grid_plan
from .table import grid_blocks, grid_column_names, grid_table, grid_token_rows

__all__ = [
    "GRID_PRESETS",
    "GridEncoding",
    "GridPreset",
    "grid_blocks",
    "grid_column_names",
    "grid_plan",
    "grid_table",
    "grid_token_rows",
]
