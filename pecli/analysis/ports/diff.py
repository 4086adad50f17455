"""``pecli diff`` in one call: two tables compared, each read by identify, the mistakes tested.

:func:`diff` compares two tables entry by entry (:func:`.compare.compare`), reads each as
``rope identify`` does (:func:`.readings.reading`), or as ``pecli identify`` does a
sinusoidal table that reading leaves unread (:func:`.sinusoidal_reading.sinusoidal_reading`),
and, when they differ, tests each known porting mistake on the values (:func:`.causes.
likely_causes`), two sinusoidal conventions among them; :func:`one_table` picks the table of
a file's arrays. Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import PositionRangeError, check_positions
from .causes import closest_move, named_causes
from .compare import Comparison, as_rows, compare
from .readings import reading

__all__ = [
    "Diff",
    "diff",
    "first_position",
    "headline",
    "one_table",
    "readings_and_causes",
]


@dataclass
class Diff:
    """Two tables compared: the comparison, identify's reading of each, the likely causes."""

    comparison: Comparison
    reading_a: dict[str, Any] | None
    reading_b: dict[str, Any] | None
    causes: list[str]
    start: int
    transformations: list[str] = field(default_factory=list)
    closest: str | None = None
    reference: str | None = None

    @property
    def equal(self) -> bool:
        """Equal within the tolerance."""
        return self.comparison.equal

    def record(self) -> dict[str, Any]:
        """The report as plain data (what the JSON report holds)."""
        result = self.comparison
        return {
            "equal": result.equal,
            "shape_a": list(result.shape_a),
            "shape_b": list(result.shape_b),
            "dtype": result.dtype,
            "differing": result.differing,
            "max_ulps": result.max_ulps,
            "max_abs": result.max_abs,
            "start": self.start,
            "first": None
            if result.first is None
            else {"row": result.first[0], "column": result.first[1]},
            "decades": [vars(d) for d in result.decades],
            "reading_a": self.reading_a,
            "reading_b": self.reading_b,
            "causes": self.causes,
            "transformations": self.transformations,
            "closest": self.closest,
            "reference": self.reference,
        }


def one_table(
    arrays: dict[str, np.ndarray], *, parameter: str, tensor_parameter: str
) -> np.ndarray:
    """The table of a file's arrays: tensors ``cos`` and ``sin`` as ``[cos | sin]``, or the one.

    Raises
    ------
    ParameterError
        (as ``parameter``) for several tensors and no name among them (``tensor_parameter``
        names one), an array of no values, or one of integers.

    Examples
    --------
    >>> pair = {"cos": np.ones((2, 4)), "sin": np.zeros((2, 4))}
    >>> one_table(pair, parameter="a", tensor_parameter="tensor_a").shape
    (2, 8)

    """
    cos, sin = arrays.get("cos"), arrays.get("sin")
    if cos is not None and sin is not None and cos.shape == sin.shape and cos.ndim == 2:
        return _values(np.concatenate([cos, sin], axis=1), parameter)
    if len(arrays) != 1:
        rule = f"holds {len(arrays)} tensors: name one with `{tensor_parameter}`"
        raise ParameterError(parameter, rule, ", ".join(list(arrays)[:8]))
    (table,) = arrays.values()
    if table.ndim == 0 or table.size == 0:  # a 0-d .npy, an empty one: nothing to compare
        rule = "must hold a vector or a table of at least one value"
        raise ParameterError(parameter, rule, f"shape {table.shape}")
    return _values(table, parameter)


def _values(table: np.ndarray, parameter: str) -> np.ndarray:
    """``table`` if it holds floating-point numbers (bfloat16 and complex too).

    NaN is allowed: a port's NaN is a difference to find. An int32 tensor had been read as
    bfloat16 arithmetic's (small integers are bfloat16 numbers).
    """
    if table.dtype.kind not in "fc" and table.dtype.name != "bfloat16":
        raise ParameterError(parameter, "must hold floating-point values", f"dtype {table.dtype}")
    return table


def diff(
    a: np.ndarray,
    b: np.ndarray,
    *,
    start: int | None = None,
    ulps: float = 1.0,
    atol: float = 0.0,
    reference: str | None = None,
) -> Diff:
    """Compare ``a`` and ``b`` (rows are positions from ``start``) and explain a difference.

    ``start`` None: the first position the readings find (:func:`first_position`), else 0.
    ``reference``: ``"A"`` or ``"B"``, the table known to be right, or None; a cause that
    reads two ways (the rotated width: a factor applied twice, or none) then names one.

    Raises
    ------
    ParameterError
        ``ulps`` or ``atol`` NaN or infinite (it would make every entry equal);
        ``reference`` neither ``"A"`` nor ``"B"``; ``start`` whose last row,
        ``start + rows - 1``, is past 2^53 (:class:`~pecli.core.rules.PositionRangeError`).

    Examples
    --------
    >>> table = np.cos(np.arange(20.0)[:, None] * np.array([1.0, 0.1]))
    >>> found = diff(table, table)
    >>> found.equal, found.causes
    (True, [])

    """
    for name, value in (("ulps", ulps), ("atol", atol)):
        if not math.isfinite(value):  # NaN or inf: every entry would be equal
            raise ParameterError(name, "must be a finite number >= 0", value)
    if reference not in (None, "A", "B"):
        raise ParameterError("reference", "must be A or B (the table known to be right)", reference)
    rows = max(as_rows(a).shape[0], as_rows(b).shape[0])
    if start is not None:  # refused before any reading
        if start < 0:
            raise PositionRangeError("start", "must be 0 or more (a row's position)", start)
        check_positions(start, rows)
    ra, rb = _reading(a), _reading(b)
    if start is None:  # the readings' (below 2^24: the last row stays within 2^53)
        start = first_position(ra, rb)
    result = compare(a, b, start=start, ulps=ulps, atol=atol)
    named = (
        []
        if result.equal
        else named_causes(a, b, result.dtype, ra, rb, start=start, reference=reference)
    )
    near = closest_move(a, b, result.dtype) if not result.equal and not named else None
    words, names = [w for _, w in named], [n for n, _ in named]
    return Diff(result, ra, rb, words, start, names, near, reference)


def first_position(ra: dict[str, Any] | None, rb: dict[str, Any] | None) -> int:
    """The first row's position both readings find, where they can pin it; else 0.

    A sinusoidal table of pecli's starts at position 1 and a rope cache at the position its
    angles give. The tables read (one, or both agreeing; a table too far off is not read)
    must be stored in float32 or float64 and give a whole position below 2^24: a float16
    cache at position 2048 is read as starting at 163, and a float32 one past 2^24 one off,
    so a position read there would number the rows wrongly and silently. Else 0, as
    ``--start``'s default: an offset between the readings is the ``start`` cause's to name.

    Examples
    --------
    >>> f32 = {"storage": "float32"}
    >>> first_position({**f32, "start": 1}, {**f32, "start": 1})
    1
    >>> first_position({**f32, "start": 1}, None), first_position({**f32, "start": 1},
    ...     {**f32, "start": 4})
    (1, 0)
    >>> first_position({"storage": "float16", "start": 163}, {"storage": "float16", "start": 163})
    0
    >>> first_position({**f32, "start": 2**24}, {**f32, "start": 2**24})
    0

    """
    read = [r for r in (ra, rb) if r]
    if not read or any(r.get("storage") not in PINNING_STORAGES for r in read):
        return 0
    starts = {r.get("start") for r in read}
    if len(starts) != 1:
        return 0
    (start,) = starts
    if not isinstance(start, int | float) or not math.isfinite(start) or start != int(start):
        return 0
    return int(start) if 0 <= start < PINNED_BELOW else 0


#: Storages whose values pin a first position (a 16-bit one blurs large positions together).
PINNING_STORAGES = ("float32", "float64")
#: Positions read below this only: float32's consecutive integers (a float32 cache at
#: 2^24 + 1 is read one off).
PINNED_BELOW = 2**24


def _reading(table: np.ndarray) -> dict[str, Any] | None:
    """``rope identify``'s reading, else (a table it leaves unread) the sinusoidal identify's.

    A rotary cache is read by the first, and never pays for the others; a grid table (ViT)
    that neither reads is tried last, by the grid identify.
    """
    from .grid_reading import grid_reading
    from .sinusoidal_reading import sinusoidal_reading

    return reading(table) or sinusoidal_reading(table) or grid_reading(table)


def headline(found: Diff) -> list[str]:
    """The lines above the table of decades: the shapes, and where the first difference is."""
    result, first = found.comparison, found.comparison.first
    lines = [f"A {result.shape_a}, B {result.shape_b}; ulps of {result.dtype}"]
    if not result.comparable:
        lines.append("shapes differ: nothing compared entry by entry")
    elif result.equal or first is None:
        lines.append("equal within the tolerance")
    else:
        where = f"row {first[0]} (position {found.start + first[0]})"
        count = "1 entry differs" if result.differing == 1 else f"{result.differing} entries differ"
        lines.append(f"{count}, first at {where}, column {first[1]}")
    return lines


def readings_and_causes(found: Diff) -> list[str]:
    """The lines below the table: each table's reading, the likely causes (or none), a hint.

    A parameter is named in backticks (``hint: `atol` 0.0012 accepts …``).
    """
    from .causes import CAUSES

    readings = [
        f"reading of {name}: {_reading_words(seen)}"
        for name, seen in (("A", found.reading_a), ("B", found.reading_b))
    ]
    causes = [f"likely cause: {c}" for c in found.causes]
    if not found.equal and not causes:
        tried = ", ".join(c.name for c in CAUSES)
        causes = [f"likely cause: none of the known mistakes explains it (tried: {tried})"]
        causes += [found.closest] if found.closest else []
    if "arithmetic" in found.transformations:
        causes.append(
            f"hint: `atol` {found.comparison.max_abs:.2g} accepts the arithmetic's difference"
        )
    return readings + causes


def _reading_words(seen: dict[str, Any] | None) -> str:
    """A reading in one line: a sinusoidal or grid table's as identify names it, else by field."""
    from .grid_reading import short_grid_reading
    from .sinusoidal_reading import short_reading

    if not seen:
        return "none"
    if seen.get("kind") == "sinusoidal":
        return short_reading(seen)
    if seen.get("kind") == "grid":
        return short_grid_reading(seen)
    return ", ".join(f"{k} {v}" for k, v in seen.items() if v is not None)
