"""Whether a tensor's first rows may be a sinusoidal table: sines and cosines on the unit circle.

A sinusoidal table pairs its columns into points ``(sin, cos)`` with ``sin² + cos² = 1``. Which
columns pair depends on the layout: the 1-D layouts of :data:`pecli.core.rules.LAYOUTS`
(interleaved, blocked), and the grid presets' layouts (:mod:`pecli.core.grids.presets`), where
each axis of a 2-D or 3-D grid has a block of its own (MAE's ``[sin a | cos a | sin b | cos b]``).
The screen takes the best pairing, so a grid table (a ViT's ``pos_embed``) passes too.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...core.errors import ParameterError
from ...core.grids import GRID_PRESETS, grid_plan
from ...core.rules import LAYOUTS
from ...core.sinusoidal.conventions import layout_views

__all__ = ["SCREEN_ROWS", "circle_residual", "columns_residual", "grid_pairings"]

#: Rows (or columns) read to decide whether a tensor may be a sinusoidal table.
SCREEN_ROWS = 64


def grid_pairings(d: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(sine columns, cosine columns)`` of every grid preset on 2 or 3 axes at width ``d``.

    The axis order does not change which columns pair, so each preset's default is used;
    columns a preset cuts off (``-1``) are left out. Layouts that coincide are given once.

    >>> [len(s) for s, c in grid_pairings(16)]  # 4-pair blocks, sines first, 3 × 2, 2 × 4, 2+3+3
    [8, 8, 6, 8, 8]

    """
    found: dict[tuple[bytes, bytes], tuple[np.ndarray, np.ndarray]] = {}
    for preset in GRID_PRESETS.values():
        for axes in (a for a in preset.axes if a in (2, 3)):
            try:
                plan = grid_plan(preset.name, d, axes)
            except ParameterError:  # a width the preset refuses
                continue
            keep = (plan.sin_cols >= 0) & (plan.cos_cols >= 0)
            sines, cosines = plan.sin_cols[keep], plan.cos_cols[keep]
            found.setdefault((sines.tobytes(), cosines.tobytes()), (sines, cosines))
    return list(found.values())


def circle_residual(sample: np.ndarray) -> float:
    """The best layout's largest ``|sin² + cos² - 1|`` over the non-zero rows of ``sample``.

    Rows are positions (or tokens of a grid). The 1-D layouts are tried on the whole row, the
    grid presets' layouts on the columns they own (:func:`grid_pairings`). An all-zero last
    column of an odd width (tensor2tensor's) is set aside; ``inf`` when no layout applies
    (fewer than 2 columns, no non-zero row).

    >>> from pecli.core.sinusoidal.encoding import encoding_table
    >>> from pecli.core.grids import grid_table
    >>> circle_residual(encoding_table(d=8, n=20)) < 1e-6
    True
    >>> circle_residual(grid_table((4, 4), d=16, extra_tokens=1)) < 1e-6  # MAE's blocks
    True
    >>> circle_residual(np.full((20, 8), 0.3)) > 0.5
    True

    """
    values = np.asarray(sample, dtype=np.float64)
    values = values[np.any(values != 0, axis=1)]
    if values.shape[0] == 0 or values.shape[1] < 2 or not np.all(np.isfinite(values)):
        return math.inf
    residuals = [_off(values[:, s], values[:, c]) for s, c in grid_pairings(values.shape[1])]
    if values.shape[1] % 2 == 1 and not values[:, -1].any():
        values = values[:, :-1]
    if values.shape[1] % 2 == 0:
        residuals += [_off(*layout_views(values, layout)) for layout in LAYOUTS]
    return min(residuals, default=math.inf)


def _off(sines: np.ndarray, cosines: np.ndarray) -> float:
    """The largest ``|sin² + cos² - 1|`` of paired columns (``inf`` for none)."""
    if sines.size == 0:
        return math.inf
    return float(np.max(np.abs(sines**2 + cosines**2 - 1.0)))


def columns_residual(
    read: Callable[[slice, slice], np.ndarray], width: int, positions: int
) -> float:
    """:func:`circle_residual` of a transposed table (rows = components), from four rows.

    Only rows 0, 1, h and h + 1 (``h = width // 2``, an odd width's last row set aside) of the
    first :data:`SCREEN_ROWS` columns are read: they hold a pair of every layout, and touch a
    few pages of a large tensor, not one page per row.
    """
    h = width // 2
    if h < 1:
        return math.inf
    first = slice(0, min(SCREEN_ROWS, positions))
    rows = {r: read(slice(r, r + 1), first)[0] for r in {0, 1, h, h + 1} if r < 2 * h}
    live = np.any(np.array(list(rows.values())) != 0, axis=0)

    def off(a: int, b: int) -> float:
        return float(np.max(np.abs(rows[a][live] ** 2 + rows[b][live] ** 2 - 1.0)))

    if not live.any():
        return math.inf
    blocks = [off(0, h)] + ([off(1, h + 1)] if h > 1 else [])
    return min(off(0, 1), max(blocks))
