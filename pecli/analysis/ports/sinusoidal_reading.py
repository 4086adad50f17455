"""A sinusoidal table's reading in a diff: the convention ``pecli identify`` names, as a record.

``rope identify`` reads rotary caches; a table it leaves unread may be a sinusoidal position
encoding. :func:`sinusoidal_reading` then runs the sinusoidal identify
(:func:`pecli.analysis.sinusoidal.identify.identify_table`) and, when it names a convention,
gives that convention's record (:class:`~pecli.core.sinusoidal.conventions.Convention`, as
the ``compute`` arguments that rebuild the table resolve it) with the base, so that two
readings compare field by field (:mod:`.causes.conventions`). :func:`short_reading` words it
as ``pecli identify`` would, in one line. Pure NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from ...core.sinusoidal.conventions import Convention
    from ..sinusoidal.identify import Identification

__all__ = ["RECORD_FIELDS", "short_reading", "sinusoidal_reading", "value_text"]

#: The fields of a convention's record that are not how it builds the table.
_DESCRIPTIVE = ("name", "users")
#: The ``compute`` arguments that are knobs of a convention, and how each is read back.
_KNOBS: dict[str, Any] = {
    "start": int,
    "padding_idx": int,
    "layout": str,
    "schedule": str,
    "odd_d": str,
    "amplitude": lambda v: v if v == "sqrt(2/d)" else float(v),
    "flip_sin_to_cos": bool,
    "downscale_freq_shift": float,
}


def _record_fields() -> tuple[str, ...]:
    from ...core.sinusoidal.conventions import Convention

    names = [f.name for f in dataclasses.fields(Convention) if f.name not in _DESCRIPTIVE]
    return (*names, "base")


#: The fields a reading holds of its convention's record, in the record's order, and the base.
RECORD_FIELDS: tuple[str, ...] = _record_fields()


def sinusoidal_reading(table: np.ndarray) -> dict[str, Any] | None:
    """The sinusoidal identify's reading of ``table``, when it names a convention; else None.

    Tried only on what ``pecli identify`` reads: a 2-D table of real numbers with at least
    :data:`~pecli.analysis.sinusoidal.identify.identifiable.MIN_IDENTIFY_ROWS` rows and
    columns (and as many not all zero: identify refuses the rest); a table no convention
    rebuilds within identify's tolerance reads as None.

    Parameters
    ----------
    table : numpy.ndarray
        Rows = positions, or transposed (``d × n``); any float dtype.

    Returns
    -------
    dict or None
        ``kind`` ``sinusoidal``; ``convention`` (the first preset that builds the table,
        ``custom`` when none does) and ``presets`` (every one, as identify lists them); the
        :data:`RECORD_FIELDS` of that convention's record (``schedule``, ``layout``,
        ``start``, ``padding_idx``, ``odd_d``, ``angle_scale``, ``full_turns``,
        ``amplitude``, ``base``); ``d``, ``storage``, ``transposed``, ``padding_rows`` and
        ``zero_components`` as identify reads them.

    Examples
    --------
    >>> p, i = np.arange(1.0, 11.0)[:, None], np.arange(4)
    >>> angle = p * 10000.0 ** (-2 * i / 8)
    >>> table = np.stack([np.sin(angle), np.cos(angle)], axis=2).reshape(10, 8)
    >>> found = sinusoidal_reading(table)
    >>> found["convention"], found["layout"], found["schedule"], found["start"], found["base"]
    ('vaswani', 'interleaved', 'paper', 1, 10000.0)
    >>> sinusoidal_reading(np.ones((10, 1))) is None  # one column: identify refuses it
    True

    """
    from ..sinusoidal.identify import identify_table
    from ..sinusoidal.identify.identifiable import MIN_IDENTIFY_ROWS

    if table.ndim != 2 or min(table.shape) < MIN_IDENTIFY_ROWS or table.dtype.kind == "c":
        return None
    try:
        found = identify_table(table)
        if not found.matched:
            return None
        record, base = _record(found)
    except (ParameterError, ValueError, FloatingPointError):  # all zero, too few live rows
        return None
    return {
        "kind": "sinusoidal",
        "convention": found.convention,
        "presets": list(found.presets),
        **{name: getattr(record, name) for name in RECORD_FIELDS if name != "base"},
        "base": base,
        "d": found.shape[0] if found.transposed else found.shape[1],
        "storage": found.storage,
        "transposed": found.transposed,
        "padding_rows": list(found.padding_rows),
        "zero_components": list(found.zero_components),
    }


def _record(found: Identification) -> tuple[Convention, float]:
    """The convention record and base the ``compute`` arguments that rebuild it resolve to.

    Without those arguments (a start that is not an integer), the fields identify reads
    (layout, schedule, start, a single padding row) on the default convention's record.
    """
    from ...core.sinusoidal.conventions import convention

    arguments = dict(found.command.arguments)
    name = str(arguments.pop("convention", "vaswani"))
    knobs = {k: read(arguments[k]) for k, read in _KNOBS.items() if k in arguments}
    if not found.command:
        knobs = {"layout": found.layout, "schedule": found.schedule, "start": found.start}
        if len(found.padding_rows) == 1:
            knobs["padding_idx"] = found.padding_rows[0]
    base = float(arguments["base"]) if "base" in arguments else float(found.base)
    return convention(name, **knobs), base


def short_reading(seen: dict[str, Any]) -> str:
    """A sinusoidal reading in one line: the presets, then what identify reads.

    Parameters in backticks (``pytorch `start` 49900``), as identify's preset labels hold them.

    Examples
    --------
    >>> short_reading({"presets": ["vaswani"], "layout": "interleaved", "schedule": "paper",
    ...                "base": 10000.0, "start": 1, "storage": "float32"})
    'sinusoidal table, vaswani: interleaved, paper schedule, C = 10000, first position 1, float32'

    """
    names = seen.get("presets") or [seen.get("convention") or "custom"]
    more = f" (or {', '.join(names[1:])})" if len(names) > 1 else ""
    words = [
        str(seen["layout"]),
        f"{seen['schedule']} schedule",
        f"C = {value_text(seen['base'])}",
        f"first position {value_text(seen['start'])}",
    ]
    rows, columns = seen.get("padding_rows") or [], seen.get("zero_components") or []
    plural = "s" if len(rows) > 1 else ""
    words += [f"padding row{plural} {', '.join(map(str, rows))} (0-based)"] if rows else []
    words += [f"zero component {', '.join(map(str, columns))}"] if columns else []
    amplitude = seen.get("amplitude", 1.0)
    words += [f"amplitude {value_text(amplitude)}"] if amplitude != 1.0 else []
    words += [str(seen["storage"])] + (["transposed (d × n)"] if seen.get("transposed") else [])
    return f"sinusoidal table, {names[0]}{more}: {', '.join(words)}"


def value_text(value: object) -> str:
    """A field's value for a reader: a number in at most 10 significant digits, None as none.

    >>> value_text(10000.0), value_text(None), value_text("sqrt(2/d)"), value_text(True)
    ('10000', 'none', 'sqrt(2/d)', 'True')
    """
    if value is None:
        return "none"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.10g}"
    return str(value)
