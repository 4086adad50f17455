"""Recognise a 2-D (or 3-D) grid table: grid shape, library preset, axis order, extra tokens.

A grid table (:func:`pecli.core.grids.grid_table`) has one row per token of an ``H × W``
grid, after all-zero rows for a class token or other extra tokens. Its number of rows gives
the candidate shapes (every factorisation of the token count, sides >= 2); for each shape,
preset and axis order, pecli rebuilds a few spread rows and keeps the readings that
reproduce them, then checks the best one on every row. diffusers' ``base_size`` and
``interpolation_scale`` only enter through their ratio, which is read off token 1's first pair.

References
----------
.. [1] K. He et al., "Masked Autoencoders Are Scalable Vision Learners", 2021.

"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ...core.dtypes import storage_precision, unit_roundoff
from ...core.errors import ParameterError
from ...core.grids import GRID_PRESETS, grid_plan, grid_token_rows
from ...core.median import unique
from ..rebuild import Argument, Rebuild

__all__ = ["GridIdentification", "GridReading", "grid_match", "identify_grid"]

#: Rows compared for each candidate before the best is checked on every row.
SAMPLE_ROWS = 24
#: Rows checked for the best reading (spread over the table).
CHECK_ROWS = 65536
#: Error allowed beyond the storage's rounding: float32 arithmetic of the producing library.
ARITHMETIC = 1e-5


@dataclass
class GridReading:
    """One reading of a table as a grid: ``grid`` with the arguments of ``command`` rebuilds it."""

    preset: str
    shape: tuple[int, ...]
    axis_order: tuple[int, ...]
    first: str
    extra_tokens: int
    scale: float | None = None  # base_size / interpolation_scale, when not integer positions
    max_error: float = math.inf
    command: Rebuild = field(default_factory=Rebuild)
    note: str = ""


@dataclass
class GridIdentification:
    """What :func:`identify_grid` found; ``matched`` says whether ``best`` reproduces the table."""

    matched: bool
    rows: int
    d: int
    storage: str
    extra_tokens: int
    best: GridReading | None = None
    also: list[GridReading] = field(default_factory=list)


def _shapes(tokens: int, axes: int) -> list[tuple[int, ...]]:
    """Every way to write ``tokens`` as a product of ``axes`` (2 or 3) sides >= 2 (3: <= 10^6)."""
    if axes == 2:
        return [(h, tokens // h) for h in range(2, tokens // 2 + 1) if tokens % h == 0]
    if tokens > 10**6:
        return []
    return [
        (a, *rest)
        for a in range(2, tokens // 4 + 1)
        if tokens % a == 0
        for rest in _shapes(tokens // a, 2)
    ]


def order_words(order: tuple[int, ...]) -> str:
    """``column first`` / ``row first`` for 2-D orders, ``axis 2, 1, 3 first`` beyond.

    >>> order_words((1, 0)), order_words((0, 2, 1))
    ('column first', 'axes in the order 1, 3, 2')

    """
    if order == (1, 0):
        return "column first"
    if order == (0, 1):
        return "row first"
    return "axes in the order " + ", ".join(str(a + 1) for a in order)


def _scale(row: np.ndarray, shape: tuple[int, ...], order: tuple[int, ...], d: int) -> float:
    """``base_size / scale`` from token 1 (column 1) of a ``mae`` table: its column position ×W."""
    plan = grid_plan("mae", d, 2, order)
    block = order.index(1)
    s, c = row[plan.sin_cols[block]], row[plan.cos_cols[block]]
    omega = 10000.0 ** (-np.arange(plan.pairs) / plan.pairs)
    coarse = math.atan2(s[-1], c[-1]) / omega[-1]  # the slowest pair: no wrap below π·10^4
    fine = math.atan2(s[0], c[0])
    position = fine + 2 * math.pi * round((coarse - fine) / (2 * math.pi))
    return float(position * shape[1])


def _plausible(
    values: np.ndarray, preset: str, axes: int, order: tuple[int, ...], tol: float
) -> bool:
    """Whether tokens 0 and 1 fit the preset and order on any grid (they do not depend on it).

    Token 0 is at position 0 on every axis, token 1 at 1 on the last axis (for ``mae``,
    whose positions may be scaled, only token 0 is checked).
    """
    tokens = np.array([0] if preset == "mae" else [0, 1])
    rows = grid_token_rows(tokens, (2,) * axes, d=values.shape[1], preset=preset, axis_order=order)
    return float(np.max(np.abs(rows - values[tokens]))) <= tol


def _candidates(values: np.ndarray, d: int, sample: np.ndarray, tol: float) -> list[GridReading]:
    """Readings that reproduce the sample rows (grid tokens) within ``values``' tolerance."""
    found = []
    for preset in GRID_PRESETS.values():
        for axes in (a for a in preset.axes if a in (2, 3)):
            try:
                grid_plan(preset.name, d, axes)
            except ParameterError:
                continue
            for order in itertools.permutations(range(axes)):
                if not _plausible(values, preset.name, axes, order, tol):
                    continue
                found += [
                    _reading(values, d, sample, preset.name, shape, order)
                    for shape in _shapes(len(values), axes)
                ]
    return found


def _reading(
    values: np.ndarray,
    d: int,
    sample: np.ndarray,
    preset: str,
    shape: tuple[int, ...],
    order: tuple[int, ...],
) -> GridReading:
    """One candidate reading and its largest error on the sample rows."""
    reading = GridReading(preset, shape, order, order_words(order), 0)
    if preset == "mae":  # every side is >= 2
        ratio = _scale(values[1], shape, order, d)
        if abs(ratio - shape[1]) > 1e-6 * shape[1]:
            reading.scale = ratio
    reading.max_error = _error(values, sample, reading, d)
    if reading.scale is not None:  # a simple fraction, if it does as well
        _round_scale(values, sample, reading, d)
    if reading.scale == shape[1]:  # rounded to integer positions (a coarse storage's noise)
        reading.scale = None
    return reading


def _round_scale(values: np.ndarray, sample: np.ndarray, reading: GridReading, d: int) -> None:
    """Replace a fitted ``base_size / scale`` by a fraction of denominator <= 64 if as close."""
    from fractions import Fraction

    raw, error = float(reading.scale), reading.max_error  # type: ignore[arg-type]
    reading.scale = float(Fraction(raw).limit_denominator(64))
    rounded = _error(values, sample, reading, d)
    if rounded <= max(2 * error, 1e-6):
        reading.max_error = rounded
    else:
        reading.scale = raw


def _error(values: np.ndarray, tokens: np.ndarray, reading: GridReading, d: int) -> float:
    knobs: dict[str, object] = {"axis_order": reading.axis_order}
    if reading.scale is not None:
        knobs.update(base_size=reading.scale, interpolation_scale=1.0)
    try:
        rows = grid_token_rows(tokens, reading.shape, d=d, preset=reading.preset, **knobs)
    except ParameterError:  # e.g. a scale outside diffusers' range
        return math.inf
    return float(np.max(np.abs(rows - values[tokens])))


def identify_grid(table: np.ndarray) -> GridIdentification:
    """Read ``table`` as the 2-D / 3-D table of a grid of tokens, as a library builds it.

    Parameters
    ----------
    table : numpy.ndarray
        2-D ``(rows, d)``, any float dtype: extra-token rows (all zero) first, then one row
        per token in row-major order. The base ``C`` is taken as 10000, every library's
        default.

    Returns
    -------
    GridIdentification
        ``best`` is the reading with the smallest error; ``matched`` when that error is
        within one unit in the last place of the storage plus 1e-5 (float32 arithmetic of the
        producing library). ``also`` holds other readings that match too (MoCo v3 and timm's
        ``interleave_sin_cos=True`` are the same table).

    Examples
    --------
    >>> from pecli.core.grids import grid_table
    >>> found = identify_grid(grid_table((3, 5), d=16, extra_tokens=1))
    >>> found.best.preset, found.best.shape, found.best.first, found.extra_tokens
    ('mae', (3, 5), 'column first', 1)

    """
    values = np.asarray(table).astype(np.float64)
    if values.ndim != 2 or len(values) < 4:
        raise ParameterError(
            "table", "must be a 2-D (rows, d) table of at least 4 rows", values.shape
        )
    storage = storage_precision(values)
    zero = np.flatnonzero(np.any(values != 0, axis=1))
    extra = int(zero[0]) if len(zero) else len(values)
    result = GridIdentification(False, len(values), values.shape[1], storage, extra)
    grid = values[extra:]
    if len(grid) < 4:
        return result
    sample = unique(np.linspace(0, len(grid) - 1, SAMPLE_ROWS).round().astype(np.int64))
    sample = unique(np.concatenate([sample, [1]]))  # np.union1d
    tolerance = unit_roundoff(storage) * 2 + ARITHMETIC
    readings = sorted(_candidates(grid, result.d, sample, tolerance), key=lambda r: r.max_error)
    good = [r for r in readings if r.max_error <= tolerance]
    if not readings:
        return result
    result.best = _preferred(good) if good else readings[0]
    check = unique(np.linspace(0, len(grid) - 1, CHECK_ROWS).round().astype(np.int64))
    result.best.max_error = _error(grid, check, result.best, result.d)
    result.matched = result.best.max_error <= tolerance
    result.also = [r for r in good if r is not result.best]
    for reading in [result.best, *result.also]:
        reading.extra_tokens = result.extra_tokens
        reading.command, reading.note = _command(reading, result), _note(reading)
    return result


def _preferred(good: list[GridReading]) -> GridReading:
    """Among matching readings, one in its preset's own axis order, else the closest."""
    for reading in good:
        if reading.axis_order == GRID_PRESETS[reading.preset].default_order(len(reading.shape)):
            return reading
    return good[0]


def _command(reading: GridReading, found: GridIdentification) -> Rebuild:
    """The ``grid`` arguments that write this table."""
    parts: list[Argument] = [("d", str(found.d)), ("preset", reading.preset)]
    if reading.axis_order != GRID_PRESETS[reading.preset].default_order(len(reading.shape)):
        parts.append(("axis_order", ",".join(map(str, reading.axis_order))))
    if reading.extra_tokens:
        parts.append(("extra_tokens", str(reading.extra_tokens)))
    if reading.scale is not None:
        parts.append(("base_size", f"{reading.scale:.10g}"))
    if found.storage == "float64":
        parts.append(("dtype", "float64"))
    return Rebuild("grid", reading.shape, tuple(parts))


def _note(reading: GridReading) -> str:
    """What a user checks against their own code."""
    if len(reading.shape) != 2:
        grid = " × ".join(map(str, reading.shape))
        return f"tokens in row-major order of a {grid} grid"
    h, w = reading.shape
    which = "column index c" if reading.first == "column first" else "row index r"
    text = f"the first block encodes the {which} of token k = r·{w} + c"
    if reading.preset == "mae" and reading.first == "column first":
        text += " (MAE, DiT and diffusers call that half emb_h)"
    if reading.first == "row first" and h != w:
        who = {"timm": "timm with reverse_coord=True"}.get(reading.preset, "MoCo v3's own code")
        if reading.preset in ("timm", "mocov3", "timm-interleaved"):
            text += f"; {who} gives this table for a {w} × {h} grid"
    if reading.scale is not None:
        text += f"; positions k·{reading.scale:.6g}/n (diffusers base_size / interpolation_scale)"
    return text


def grid_match(table: np.ndarray) -> GridIdentification | None:
    """The grid reading of a 2-D table of at least 4 rows, if one reproduces it; else None.

    What ``identify`` and the checkpoint scan try once no 1-D convention reproduces a table.

    >>> from pecli.core.grids import grid_table
    >>> grid_match(grid_table((2, 3), d=8)).best.shape, grid_match(np.ones((3, 8)))
    ((2, 3), None)
    """
    if table.ndim != 2 or len(table) < 4:
        return None
    found = identify_grid(table)
    return found if found.matched and found.best is not None else None
