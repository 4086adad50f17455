"""Two grid tables (ViT position tables) read as grid presets: which fields of theirs differ.

Each side's reading (:func:`~pecli.analysis.ports.grid_reading.grid_reading`) holds the
grid, its leading all-zero rows, the width and the record of the preset ``pecli identify``
names, with the axis order read off the table; the cause compares them field by field, in
:data:`~pecli.analysis.ports.grid_reading.GRID_FIELDS`' order, and words each that differs.
Sides swapped (``H × W`` against ``W × H``) are named as such, and with the axis order
swapped too as B's tokens in column-major order. Pure Python.
"""

from __future__ import annotations

from typing import Any

from ..grid_reading import GRID_FIELDS
from .tables import Pair, Reading

__all__ = ["grid", "grid_fields"]

#: How a field is named for a reader (the others by their own name).
LABELS = {
    "extra_tokens": "all-zero rows first (class or extra tokens)",
    "d": "width d",
    "order": "axis order",
    "width": "width rule",
    "pairs": "pairs per axis",
    "base_size": "diffusers' base_size / interpolation_scale",
}
#: What each layout of the records puts where.
LAYOUTS = {
    "blocks": "each axis's sines then its cosines, axis after axis",
    "sines-first": "every axis's sines, then every axis's cosines",
    "interleaved": "sin and cos alternating in each axis's block",
}


def grid_fields(ra: Reading, rb: Reading) -> list[str]:
    """The fields of two grid readings that differ, in :data:`GRID_FIELDS`' order.

    The width rule only when the pairs per axis differ too (``quarter``, ``floor`` and
    ``ceil`` split a multiple of 4 alike). Empty unless both are grid readings.

    Examples
    --------
    >>> a = {"kind": "grid", "grid": [4, 4], "order": "col-first", "width": "quarter",
    ...      "pairs": [8, 8]}
    >>> grid_fields(a, {**a, "order": "row-first", "width": "floor"})
    ['order']

    """
    if not ra or not rb or ra.get("kind") != "grid" or rb.get("kind") != "grid":
        return []
    return [
        name
        for name in GRID_FIELDS
        if ra.get(name) != rb.get(name) and (name != "width" or ra["pairs"] != rb["pairs"])
    ]


def grid(pair: Pair) -> str | None:
    """Both tables read as grid presets whose fields differ: each field, A's value and B's."""
    ra, rb = pair.ra or {}, pair.rb or {}
    fields = grid_fields(ra, rb)
    if not fields:
        return None
    names = f"both {ra['preset']}" if ra["preset"] == rb["preset"] else None
    names = names or f"A {ra['preset']}, B {rb['preset']}"
    words = [_field_words(name, ra, rb) for name in fields if name != "order" or not _major(ra, rb)]
    return f"grid tables differ ({names}): {'; '.join(words)}"


def _major(ra: dict[str, Any], rb: dict[str, Any]) -> bool:
    """Sides and 2-D axis order both swapped: B's tokens are A's in column-major order."""
    swapped = ra["grid"] == rb["grid"][::-1] != rb["grid"]
    return swapped and len(ra["grid"]) == 2 and ra["order"] != rb["order"]


def _field_words(name: str, ra: dict[str, Any], rb: dict[str, Any]) -> str:
    if name == "grid":
        return _grid_words(ra, rb)
    if name == "order":
        return f"axis order {ra['first']} in A, {rb['first']} in B"
    if name == "layout":
        return (
            f"layout {ra['layout']} in A ({LAYOUTS[ra['layout']]}), "
            f"{rb['layout']} in B ({LAYOUTS[rb['layout']]})"
        )
    if name == "schedule":
        return (
            f"schedule {ra['schedule']} in A ({_omega(ra)}), {rb['schedule']} in B ({_omega(rb)})"
        )
    label = LABELS.get(name, name)
    return f"{label} {_value(name, ra.get(name))} in A, {_value(name, rb.get(name))} in B"


def _grid_words(ra: dict[str, Any], rb: dict[str, Any]) -> str:
    a, b = _value("grid", ra["grid"]), _value("grid", rb["grid"])
    if _major(ra, rb):
        return (
            f"grid {a} in A, {b} in B, and axis order {ra['first']} in A, {rb['first']} in B: "
            "B's tokens are A's in column-major order (the grid flattened with H and W swapped)"
        )
    if ra["grid"] == rb["grid"][::-1]:
        return f"grid {a} in A, {b} in B (H and W swapped)"
    return f"grid {a} in A, {b} in B"


def _value(name: str, value: Any) -> str:
    if value is None:
        return "none (integer positions)" if name == "base_size" else "none"
    if name == "grid":
        return " × ".join(map(str, value))
    if name == "pairs":
        return " + ".join(map(str, value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def _omega(seen: dict[str, Any]) -> str:
    """``ω_j = C^(−j/h), h = 8`` (paper) or ``ω_j = C^(−j/(h − 1)), h − 1 = 7`` (tensor2tensor).

    Blocks of their own widths (cogvideox) give each ``h``: ``h = 4, 6, 6``.

    >>> _omega({"schedule": "paper", "pairs": [4, 6, 6]})
    'ω_j = C^(−j/h), h = 4, 6, 6'
    """
    shift = 1 if seen["schedule"] == "tensor2tensor" else 0
    values = seen["pairs"][:1] if len(set(seen["pairs"])) == 1 else seen["pairs"]
    numbers = ", ".join(str(h - shift) for h in values)
    if shift:
        return f"ω_j = C^(−j/(h − 1)), h − 1 = {numbers}"
    return f"ω_j = C^(−j/h), h = {numbers}"
