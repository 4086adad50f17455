"""Why two rotary (or sinusoidal) tables differ, in words: a registry of known mistakes (causes).

Each :class:`Cause` record names one mistake (or two at once) and holds its test: undo it on
one table and see the other appear within a few ulps of the coarser dtype, or read it off
identify's readings of both. :func:`likely_causes` runs every record in turn; ``pecli diff``
prints each sentence found and names the records in its JSON report (``transformations``), so
a script can act on them. Pure NumPy (and identify's readings, passed in).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import arithmetic, combined, conventions, grids, readings, shapes, values
from .tables import HEAD_ROWS, Pair, Reading

__all__ = ["CAUSES", "Cause", "closest_move", "likely_causes", "named_causes"]


@dataclass(frozen=True)
class Cause:
    """One known porting mistake: its name (for scripts), what it is, its test."""

    name: str
    summary: str
    check: Callable[[Pair], str | None]


#: Every cause pecli tests, in the order the report lists them.
CAUSES: tuple[Cause, ...] = (
    Cause("kind", "an inv_freq vector against a cos/sin cache", shapes.kinds),
    Cause("convention", "two sinusoidal conventions, field by field", conventions.convention),
    Cause("grid", "two grid tables (ViT), field by field", grids.grid),
    Cause("transposed", "rows and columns exchanged", shapes.transposed),
    Cause("width", "each pair's value once against twice (half width)", shapes.width),
    Cause("layout", "pair layout: rotate_half against interleaved", shapes.layout),
    Cause("sin-cos", "the cos and sin halves exchanged", shapes.sin_cos),
    Cause("start", "the first position off by k", shapes.offset),
    Cause("slice-end", "the rotated slice at the wrong end of the head", shapes.slice_end),
    Cause("attention-factor", "an attention factor in one table only", values.factor),
    Cause("one-side-factor", "the attention factor on cos or on sin only", values.one_side_factor),
    Cause("storage", "stored or computed in bf16 / fp16", values.storage),
    Cause("temperature", "a query temperature growing with the position", values.temperature),
    Cause(
        "arithmetic",
        "float32 arithmetic: transformers' or ggml's",
        arithmetic.framework_arithmetic,
    ),
    Cause("exponent", "the exponent over head_dim, not the rotated width", readings.exponent_width),
    Cause("theta", "θ (rope_theta) differs", readings.theta),
    Cause(
        "rotated-width",
        "partial factor applied twice, or the full head rotated",
        readings.rotated_width,
    ),
    Cause("scaling", "scaling in one table only (or on the wrong layer)", readings.scaling),
    Cause("layer-type", "a sliding layer's RoPE against a full one's", readings.layer_type),
    Cause("xpos", "xPos: γ, queries against keys, or the centre", readings.xpos),
    Cause("two-at-once", "a layout or sin/cos swap and one more", combined.two_at_once),
)


#: The rotary causes also tried on two xPos scale tables, after their readings' own (``xpos``:
#: γ, the side, the centre): the moves of rows and columns and the storage (a factor, a
#: temperature or θ would be read into scales that are not angles).
XPOS_MOVES = ("transposed", "layout", "start", "storage")
#: The rotary causes also tried on two grid tables, after their readings' own (``grid``): a
#: swap of halves or of pair layouts would name an axis order or a preset's layout as a rotary
#: mistake, and a class token's row as a first position, so only the storage (and an offset
#: when the readings name no difference).
GRID_MOVES = ("start", "storage")


def named_causes(
    a: np.ndarray,
    b: np.ndarray,
    dtype: str,
    ra: Reading = None,
    rb: Reading = None,
    *,
    start: int = 0,
    reference: str | None = None,
) -> list[tuple[str, str]]:
    """``(name, sentence)`` of each cause that explains the difference (empty: none found).

    The values are tested on the first :data:`~.tables.HEAD_ROWS` rows of each table (the
    readings come from whole tables): every mistake listed shows there, and memory stays
    bounded. Two at once are tried only when no single cause is found. ``start``: the first
    row's position, where neither reading finds it; ``reference``: ``"A"`` or ``"B"``, the
    table that is right, when known (a cause read two ways then names one). Two xPos scale
    tables get their own short list (:data:`XPOS_MOVES`), and so do two grid tables
    (:data:`GRID_MOVES`).
    """
    pair = Pair(_head(a), _head(b), dtype, ra, rb, a, b, start, reference)
    if ra and rb and ra.get("kind") == rb.get("kind") == "xpos":
        return _xpos_causes(pair)
    if ra and rb and ra.get("kind") == rb.get("kind") == "grid":
        return _grid_causes(pair)
    found = [(c.name, c.check(pair)) for c in CAUSES if c.name != "two-at-once"]
    named = [(name, words) for name, words in found if words]
    if not named:
        words = combined.two_at_once(pair)
        named = [("two-at-once", words)] if words else []
    return named


def likely_causes(
    a: np.ndarray, b: np.ndarray, dtype: str, ra: Reading = None, rb: Reading = None
) -> list[str]:
    """Each known mistake that explains the difference, in words (empty: none found).

    Examples
    --------
    >>> table = np.cos(np.arange(20.0)[:, None] * np.array([1.0, 0.1, 0.01, 0.001]))
    >>> likely_causes(table, table[3:13], "float64")[0][:24]
    'first position off by 3:'

    """
    return [words for _, words in named_causes(a, b, dtype, ra, rb)]


def closest_move(a: np.ndarray, b: np.ndarray, dtype: str) -> str | None:
    """When no cause explains the difference: the move of B that leaves it nearest A."""
    return combined.closest(Pair(_head(a), _head(b), dtype, None, None, a, b))


def _head(table: np.ndarray) -> np.ndarray:
    return table[:HEAD_ROWS] if table.ndim == 2 else table


def _xpos_causes(pair: Pair) -> list[tuple[str, str]]:
    """Two xPos tables: what their readings say first, then the moves the readings leave open.

    A layout swap only when the readings' layouts differ; a start offset only when the
    readings name no difference (their centres are the xPos cause's).
    """
    said = readings.xpos(pair)
    skip = {"layout"} if pair.ra["layout"] == pair.rb["layout"] else set()  # type: ignore[index]
    skip |= {"start"} if said else set()
    moves = [c for c in CAUSES if c.name in XPOS_MOVES and c.name not in skip]
    found = [("xpos", said), *((c.name, c.check(pair)) for c in moves)]
    return [(name, words) for name, words in found if words]


def _grid_causes(pair: Pair) -> list[tuple[str, str]]:
    """Two grid tables: the fields their readings differ in, then :data:`GRID_MOVES`.

    An offset of rows only when the readings name no difference (a class token's row is
    theirs).
    """
    said = grids.grid(pair)
    moves = [c for c in CAUSES if c.name in GRID_MOVES and not (said and c.name == "start")]
    found = [("grid", said), *((c.name, c.check(pair)) for c in moves)]
    return [(name, words) for name, words in found if words]
