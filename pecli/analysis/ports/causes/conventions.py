"""Two sinusoidal tables of different conventions: which fields of their records differ.

Each side's reading (:func:`~pecli.analysis.ports.sinusoidal_reading.sinusoidal_reading`)
holds the record of the convention ``pecli identify`` names, with its base; the cause compares
them field by field, in the record's order
(:data:`~pecli.analysis.ports.sinusoidal_reading.RECORD_FIELDS`), and words each field that
differs. Pure Python.
"""

from __future__ import annotations

import math
from typing import Any

from ..sinusoidal_reading import RECORD_FIELDS, value_text
from .tables import Pair, Reading

__all__ = ["convention", "convention_fields"]

#: How a field of the record is named for a reader (the others by their own name).
LABELS = {
    "start": "first position",
    "padding_idx": "padding row (0-based)",
    "odd_d": "odd d",
    "angle_scale": "angle scale",
    "full_turns": "angles in full turns",
    "base": "base C",
}


def convention_fields(ra: Reading, rb: Reading) -> list[str]:
    """The fields of two sinusoidal readings' records that differ, in the record's order.

    ``odd_d`` only when a table has an odd width (an even one has no odd column to build);
    the bases within 1e-9 of each other are the same. Empty unless both are sinusoidal.

    Examples
    --------
    >>> a = {"kind": "sinusoidal", "layout": "interleaved", "odd_d": "error", "d": 16}
    >>> convention_fields(a, {**a, "layout": "sin-cos", "odd_d": "zero"})
    ['layout']

    """
    if not ra or not rb or ra.get("kind") != "sinusoidal" or rb.get("kind") != "sinusoidal":
        return []
    odd = ra.get("d", 0) % 2 == 1 or rb.get("d", 0) % 2 == 1
    return [
        name
        for name in RECORD_FIELDS
        if (odd or name != "odd_d") and not _same(ra.get(name), rb.get(name))
    ]


def _same(x: Any, y: Any) -> bool:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (x, y))
    return bool(math.isclose(x, y, rel_tol=1e-9)) if numbers else x == y


def convention(pair: Pair) -> str | None:
    """Both tables read as sinusoidal conventions whose records differ: each field, A and B.

    The schedule is worded with its exponent, ``C^(−2j/d)`` (paper) against
    ``C^(−j/(d/2 − 1))`` (tensor2tensor), and each side's denominator for its width.
    """
    ra, rb = pair.ra or {}, pair.rb or {}
    fields = convention_fields(ra, rb)
    if not fields:
        return None
    words = [_field_words(name, ra, rb) for name in fields]
    a, b = _name(ra), _name(rb)
    names = f"both {a}" if a == b else f"A {a}, B {b}"
    return f"sinusoidal conventions differ ({names}): {'; '.join(words)}"


def _name(seen: dict[str, Any]) -> str:
    """The first preset named without arguments (``ldm``, not diffusers with two knobs)."""
    plain = [name for name in seen.get("presets", []) if "`" not in name]
    return plain[0] if plain else str(seen["convention"])


def _field_words(name: str, ra: dict[str, Any], rb: dict[str, Any]) -> str:
    if name == "schedule":
        return (
            f"schedule {ra['schedule']} in A ({_exponent(ra)}), "
            f"{rb['schedule']} in B ({_exponent(rb)})"
        )
    label = LABELS.get(name, name)
    return f"{label} {value_text(ra.get(name))} in A, {value_text(rb.get(name))} in B"


def _exponent(seen: dict[str, Any]) -> str:
    """``ω_j = C^(−2j/d), d = 16`` or ``ω_j = C^(−j/(d/2 − 1)), d/2 − 1 = 7`` for a reading.

    ``h`` is the number the odd-d rule halves the width to (``d // 2``, or ``d/2`` and
    ``(d + 1)/2`` for an odd width ending with a sine); the shift ``s`` is the schedule's.
    """
    from ....core.rules import check_schedule
    from ...sinusoidal.identify.fits import denominator

    d, rule, shift = seen["d"], seen.get("odd_d") or "zero", check_schedule(seen["schedule"])
    half = {"sine": d / 2, "sine-d+1": float((d + 1) // 2)}.get(rule, float(d // 2))
    den = denominator(seen["schedule"], d, rule)
    if shift == 0:
        width = {d: "d", d - 1: "d − 1", d + 1: "d + 1"}[int(2 * half)]
        return f"ω_j = C^(−2j/{width}), {width} = {2 * half:g}"
    halves = {d / 2: "d/2", (d - 1) / 2: "(d − 1)/2", (d + 1) / 2: "(d + 1)/2"}[half]
    symbol = f"{halves} − {shift:g}"
    symbol = symbol if half - shift == den else f"max({symbol}, 1)"  # tensor2tensor's guard
    return f"ω_j = C^(−j/({symbol})), {symbol} = {den:g}"
