"""Causes that move values without changing them: layout, transposition, offset, width, swap.

Each check takes a :class:`~.tables.Pair` and returns the sentence naming the mistake, or None.
Pure NumPy.
"""

from __future__ import annotations

import numpy as np

from ..compare import as_rows
from .tables import HEAD_ROWS, Pair, close, parts, to_half_split, to_interleaved

__all__ = ["kinds", "layout", "offset", "sin_cos", "slice_end", "transposed", "width"]


def layout_moves(b: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """B's columns put in each pair order, per ``[cos | sin]`` block (and as one block)."""
    out = []
    for count in (2, 1):
        pb = parts(b, count)
        if pb is None:
            continue
        for name, move in (("half-split", to_half_split), ("interleaved", to_interleaved)):
            out.append((name, np.concatenate([move(p) for p in pb], axis=1)))
    return out


def layout(pair: Pair) -> str | None:
    """Pair layout swapped: rotate_half's ``(i, i + d/2)`` against interleaved ``(2i, 2i + 1)``."""
    if pair.a.shape != pair.b.shape:
        return None
    a = as_rows(pair.a)
    for k, (name, head) in enumerate(layout_moves(as_rows(pair.b)[:256])):
        if not close(head, a[:256], pair.dtype):  # the first rows moved first: most fail here
            continue
        if close(layout_moves(pair.b)[k][1], a, pair.dtype):
            return (
                f"pair layout swapped: B's columns put in the {name} order are A "
                "(rotate_half pairs (i, i + d/2) against interleaved (2i, 2i + 1))"
            )
    return None


def transposed(pair: Pair) -> str | None:
    """Rows and columns exchanged (a ``(d, n)`` table against ``(n, d)``)."""
    a, b = pair.whole_a, pair.whole_b
    if a.ndim != 2 or a.shape == b.shape or a.shape != b.shape[::-1]:
        return None
    rows = min(a.shape[0], HEAD_ROWS)  # A's first rows are B's first columns
    if close(a[:rows], b[:, :rows].T, pair.dtype):
        return f"rows transposed: B is A transposed ({a.shape} against {b.shape})"
    return None


def sin_cos(pair: Pair) -> str | None:
    """The cos half where the sin half should be."""
    pa, pb = parts(pair.a, 2), parts(pair.b, 2)
    if pa is None or pb is None or pair.a.shape != pair.b.shape:
        return None
    if close(pa[0], pb[1], pair.dtype) and close(pa[1], pb[0], pair.dtype):
        return "sin/cos swapped: A's cos half is B's sin half and the other way round"
    return None


def shift(x: np.ndarray, y: np.ndarray, dtype: str) -> tuple[int, str, str] | None:
    """``(k, first, second)``: row k of the first table is row 0 of the second, k > 0."""
    if x.shape[1] != y.shape[1] or min(len(x), len(y)) < 2:
        return None
    for first, second, names in ((x, y, ("A", "B")), (y, x, ("B", "A"))):
        gaps = np.abs(first.astype(np.float64) - second[0].astype(np.float64)).max(axis=1)
        for k in np.argsort(gaps, kind="stable")[:3]:
            n = min(len(first) - k, len(second))
            m = min(n, 256)  # the first rows first: most candidates fail there
            head = k and n >= 2 and close(first[k : k + m], second[:m], dtype)
            if head and close(first[k : k + n], second[:n], dtype):
                return int(k), *names
    return None


def offset(pair: Pair) -> str | None:
    """The first position off by k: one table's row k is the other's row 0."""
    found = shift(as_rows(pair.a), as_rows(pair.b), pair.dtype)
    return None if found is None else offset_words(*found)


def offset_words(k: int, first: str, second: str) -> str:
    """The sentence of an offset."""
    return (
        f"first position off by {k}: {first}'s row {k} is {second}'s row 0 ({second} starts "
        f"{k} position{'s' if k > 1 else ''} later)"
    )


def width(pair: Pair) -> str | None:
    """Each pair's value once (``(n, d/2)`` per part) against twice (``(n, d)``)."""
    x, y = as_rows(pair.a), as_rows(pair.b)
    widths = sorted((x.shape[1], y.shape[1]))
    if x.shape[0] != y.shape[0] or widths[1] != 2 * widths[0]:
        return None
    wide, narrow, names = (x, y, ("A", "B")) if x.shape[1] > y.shape[1] else (y, x, ("B", "A"))
    for count in (2, 1):
        blocks = parts(wide, count)
        for name, step in (("half-split", 1), ("interleaved", 2)):
            first = [p[:, : p.shape[1] // 2] if step == 1 else p[:, 0::2] for p in blocks or []]
            second = [p[:, p.shape[1] // 2 :] if step == 1 else p[:, 1::2] for p in blocks or []]
            if blocks and all(
                close(np.concatenate(copy, axis=1), narrow, pair.dtype) for copy in (first, second)
            ):  # each pair's value twice: both copies are the narrow table's
                return (
                    f"half width against full width: {names[0]} repeats each pair's value "
                    f"twice ({name}, the whole head), {names[1]} holds it once per pair"
                )
    return None


def kinds(pair: Pair) -> str | None:
    """An ``inv_freq`` vector against a cos/sin cache (or an xPos, sinusoidal or grid table)."""
    ra, rb = pair.ra, pair.rb
    if ra and rb and ra.get("kind") != rb.get("kind"):
        names = {
            "inv_freq": "a vector (inv_freq, or frequency factors)",
            "cache": "a cos/sin cache",
            "xpos": "an xPos scale table",
            "sinusoidal": "a sinusoidal position-encoding table",
            "grid": "a grid's position table (ViT)",
        }
        return f"not the same kind of table: A is {names[ra['kind']]}, B {names[rb['kind']]}"
    return None


def _passed(table: np.ndarray) -> np.ndarray | None:
    """Per channel of a ``[cos | sin]`` table, whether it passes through (cos 1, sin 0)."""
    halves = parts(table, 2)
    if halves is None:
        return None
    cos, sin = halves
    mask: np.ndarray = np.all(cos == 1, axis=0) & np.all(sin == 0, axis=0)
    return mask


def slice_end(pair: Pair) -> str | None:
    """The rotated slice at the other end of the head: the pass-through channels moved."""
    a, b = as_rows(pair.a), as_rows(pair.b)
    ma, mb = _passed(a), _passed(b)
    if a.shape != b.shape or ma is None or mb is None or np.array_equal(ma, mb):
        return None
    if ma.sum() != mb.sum() or not ma.any() or ma.all():
        return None
    ha, hb = parts(a, 2), parts(b, 2)
    if ha is None or hb is None:
        return None
    rotated_a = np.concatenate([h[:, ~ma] for h in ha], axis=1)
    rotated_b = np.concatenate([h[:, ~mb] for h in hb], axis=1)
    if not close(rotated_a, rotated_b, pair.dtype):
        return None
    return (
        f"rotated slice at the wrong end: A rotates channels {_span(~ma)} and passes the "
        f"rest through, B rotates {_span(~mb)} (the slice taken from the other end of the head)"
    )


def _span(mask: np.ndarray) -> str:
    where = np.flatnonzero(mask)
    return f"{where[0]}…{where[-1]}" if where.size == where[-1] - where[0] + 1 else "several runs"
