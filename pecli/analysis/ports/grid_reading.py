"""A grid table's reading in a diff: the preset ``pecli identify`` names, as its record.

A ViT's ``pos_embed`` is a table of an ``H × W`` grid of tokens that neither ``rope identify``
nor the sinusoidal identify reads. :func:`grid_reading` then runs the grid identify
(:func:`pecli.analysis.grids.identify.grid_match`) and, when a preset rebuilds the table,
gives that preset's record (:class:`~pecli.core.grids.presets.GridPreset`, with the axis
order read off the table in place of the preset's default) beside the grid, the extra rows
and the pairs of each block, so that two readings compare field by field
(:mod:`.causes.grids`). :func:`short_grid_reading` words it in one line. Pure NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from ..grids.identify import GridReading

__all__ = ["GRID_FIELDS", "grid_reading", "order_name", "short_grid_reading"]

#: The fields of a preset's record that are not how it lays out the table.
_DESCRIPTIVE = ("name", "users", "axes")


def _grid_fields() -> tuple[str, ...]:
    from ...core.grids.presets import GridPreset

    names = [f.name for f in dataclasses.fields(GridPreset) if f.name not in _DESCRIPTIVE]
    return ("grid", "extra_tokens", "d", *names, "pairs", "base_size")


#: What a grid reading holds to compare, in this order: the grid, its leading all-zero rows,
#: the width, the preset's record (``order`` as read), the pairs of each block, the scale.
GRID_FIELDS: tuple[str, ...] = _grid_fields()


def order_name(order: tuple[int, ...]) -> str:
    """An axis order as ``grid --axis-order`` names it: ``col-first``, ``row-first``, ``0,2,1``.

    >>> order_name((1, 0)), order_name((0, 1)), order_name((0, 2, 1))
    ('col-first', 'row-first', '0,2,1')
    """
    from ...core.grids.presets import NAMED_ORDERS

    named: dict[tuple[int, ...], str] = {v: k for k, v in NAMED_ORDERS.items()}
    return named.get(order, ",".join(map(str, order)))


def grid_reading(table: np.ndarray) -> dict[str, Any] | None:
    """The grid identify's reading of ``table``, when a grid preset rebuilds it; else None.

    Tried only on what ``pecli identify`` reads as a grid: a 2-D ``(rows, d)`` table of real
    numbers with at least 4 rows, built at the base C = 10000.

    Parameters
    ----------
    table : numpy.ndarray
        All-zero rows of extra tokens (a class token) first, then one row per token of the
        grid in row-major order; any float dtype.

    Returns
    -------
    dict or None
        ``kind`` ``grid``; ``preset`` and ``presets`` (every preset that builds the table,
        with the ``grid`` options it needs); the :data:`GRID_FIELDS`: ``grid`` (the sides),
        ``extra_tokens``, ``d``, the preset's ``schedule``, ``layout``, ``order`` (as read)
        and ``width``, ``pairs`` (of each block) and ``base_size`` (diffusers' positions
        ``k·base_size/n``, or None); ``first`` and ``note`` (the axis order in words, as
        identify says it), ``storage`` and ``max_error``.

    Examples
    --------
    >>> from pecli.core.grids import grid_table
    >>> found = grid_reading(grid_table((3, 5), d=16, extra_tokens=1))
    >>> found["preset"], found["grid"], found["order"], found["extra_tokens"], found["pairs"]
    ('mae', [3, 5], 'col-first', 1, [4, 4])
    >>> grid_reading(np.ones((3, 16))) is None  # three rows: not a grid identify reads
    True

    """
    if table.ndim != 2 or len(table) < 4 or table.dtype.kind == "c" or not _origin(table):
        return None
    from ..grids.identify import grid_match

    try:
        found = grid_match(table)
    except (ParameterError, ValueError, FloatingPointError):
        return None
    if found is None or found.best is None:
        return None
    best = found.best
    return {
        "kind": "grid",
        "preset": best.preset,
        "presets": [_label(r) for r in (best, *found.also)],
        **_fields(best, found.d),
        "first": best.first,
        "note": best.note,
        "storage": found.storage,
        "max_error": best.max_error,
    }


def _origin(table: np.ndarray) -> bool:
    """Whether the first row not all zero holds only 0 and 1, as every grid's token 0 does.

    Token 0 is at coordinate 0 on every axis: its sines are 0 and its cosines 1 (padding
    columns 0), in every preset and storage. A table that fails this (noise, a learned table)
    is not given to the grid identify, which would try every preset and shape.
    """
    live = np.flatnonzero(np.any(table != 0, axis=1))
    if not len(live):
        return False
    row = np.asarray(table[live[0]], dtype=np.float64)
    return bool(np.all(np.minimum(np.abs(row), np.abs(row - 1.0)) <= 1e-6))


def _fields(best: GridReading, d: int) -> dict[str, Any]:
    """The :data:`GRID_FIELDS` of a reading: its grid, the preset's record, the split."""
    from ...core.grids.presets import GRID_PRESETS, grid_plan

    record = GRID_PRESETS[best.preset]
    plan = grid_plan(best.preset, d, len(best.shape), best.axis_order)
    return {
        "grid": list(best.shape),
        "extra_tokens": best.extra_tokens,
        "d": d,
        **{name: getattr(record, name) for name in GRID_FIELDS if hasattr(record, name)},
        "order": order_name(best.axis_order),
        "pairs": list(plan.block_pairs),
        "base_size": best.scale,
    }


def _label(reading: GridReading) -> str:
    """``mae``, or ``mocov3 `axis_order` 1,0``: a preset with the options that rebuild the table."""
    from ...core.grids.presets import GRID_PRESETS

    own = GRID_PRESETS[reading.preset].default_order(len(reading.shape))
    if reading.axis_order == own:
        return reading.preset
    return f"{reading.preset} `axis_order` {','.join(map(str, reading.axis_order))}"


def short_grid_reading(seen: dict[str, Any]) -> str:
    """A grid reading in one line: the presets, then the grid, the axis order, the layout.

    Examples
    --------
    >>> line = short_grid_reading({"presets": ["mae"], "grid": [3, 5], "extra_tokens": 1,
    ...     "first": "column first", "layout": "blocks", "schedule": "paper", "pairs": [4, 4],
    ...     "d": 16, "base_size": None, "storage": "float32"})
    >>> line[:65]
    'grid table, mae: 3 × 5 grid, 1 all-zero row first, column first, '
    >>> line[65:]
    'blocks layout, paper schedule, d = 16 (4 + 4 pairs), float32'

    """
    names = seen["presets"]
    more = f" (or {', '.join(names[1:])})" if len(names) > 1 else ""
    extra = seen["extra_tokens"]
    words = [" × ".join(map(str, seen["grid"])) + " grid"]
    words += [f"{extra} all-zero row{'s' if extra > 1 else ''} first"] if extra else []
    words += [
        str(seen["first"]),
        f"{seen['layout']} layout",
        f"{seen['schedule']} schedule",
        f"d = {seen['d']} ({' + '.join(map(str, seen['pairs']))} pairs)",
    ]
    if seen.get("base_size") is not None:
        words.append(f"base_size {seen['base_size']:.10g}")
    return f"grid table, {names[0]}{more}: {', '.join([*words, str(seen['storage'])])}"
