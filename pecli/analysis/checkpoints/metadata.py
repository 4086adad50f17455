"""pecli's metadata in a ``.safetensors`` file, written with a table and checked against it.

``compute -o pe.safetensors`` stores, as strings, everything needed to rebuild the table:
``pecli_version``, ``key`` (the tensor it describes), ``convention``, ``d``, ``n``, ``base``,
``start``, ``schedule``, ``layout``, ``padding_idx`` (empty for none), ``odd_d``,
``angle_scale``, ``full_turns`` (``true`` / ``false``), ``amplitude`` and ``dtype``.
``identify`` rebuilds the table from them with :func:`pecli.core.sinusoidal.encoding.encoding_table`
and says whether the stored numbers agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import number_text
from ...core.sinusoidal.conventions import PRESETS
from ...core.sinusoidal.encoding import encoding_table
from ..rebuild import Argument, Rebuild

if TYPE_CHECKING:  # pragma: no cover
    from ...core.sinusoidal.conventions import Convention

__all__ = [
    "METADATA_FIELDS",
    "check_metadata",
    "describes",
    "rebuild_command",
    "table_metadata",
]

#: The fields pecli writes, in order.
METADATA_FIELDS = (
    "pecli_version",
    "key",
    "convention",
    "d",
    "n",
    "base",
    "start",
    "schedule",
    "layout",
    "padding_idx",
    "odd_d",
    "angle_scale",
    "full_turns",
    "amplitude",
    "dtype",
)


def table_metadata(
    *, key: str, d: int, n: int, base: float, dtype: str, convention: Convention, version: str
) -> dict[str, str]:
    """The string metadata describing a table written under ``key``.

    Examples
    --------
    >>> from pecli.core.sinusoidal.conventions import convention
    >>> meta = table_metadata(key="pe", d=8, n=4, base=1e4, dtype="float16",
    ...                       convention=convention("pytorch"), version="0.1.0")
    >>> meta["convention"], meta["start"], meta["base"], meta["padding_idx"]
    ('pytorch', '0', '10000.0', '')

    """
    knobs = convention.table_kwargs()
    padding = knobs["padding_idx"]
    values = {
        "pecli_version": version,
        "key": key,
        "convention": convention.name,
        "d": str(d),
        "n": str(n),
        "base": repr(float(base)),
        "start": str(knobs["start"]),
        "schedule": str(knobs["schedule"]),
        "layout": knobs["layout"],
        "padding_idx": "" if padding is None else str(padding),
        "odd_d": knobs["odd_d"],
        "angle_scale": repr(float(knobs["angle_scale"])),
        "full_turns": "true" if knobs["full_turns"] else "false",
        "amplitude": _number_or_name(knobs["amplitude"]),
        "dtype": dtype,
    }
    return {name: values[name] for name in METADATA_FIELDS}


def describes(metadata: dict[str, str], key: str) -> bool:
    """Whether ``metadata`` is pecli's and describes tensor ``key``."""
    return "pecli_version" in metadata and metadata.get("key") == key


def check_metadata(table: np.ndarray, metadata: dict[str, str]) -> str:
    """Whether the numbers of ``table`` (``n × d``) agree with pecli's ``metadata``: one line.

    The table is rebuilt from the metadata in the tensor's own dtype and compared entry by
    entry: ``"agrees (bit for bit)"``, or ``"disagrees: …"`` naming the first difference
    (shape, dtype, then the largest difference of values).

    Examples
    --------
    >>> from pecli.core.sinusoidal.conventions import convention
    >>> meta = table_metadata(key="pe", d=8, n=4, base=1e4, dtype="float32",
    ...                       convention=convention("pytorch"), version="0.1.0")
    >>> check_metadata(encoding_table(d=8, n=4, start=0), meta)
    'agrees (bit for bit)'
    >>> check_metadata(encoding_table(d=8, n=4, start=1), meta)[:30]
    'disagrees: values differ by up'

    """
    n, d = table.shape
    try:
        knobs = _knobs(metadata)
    except (KeyError, ValueError):
        return "unreadable: " + ", ".join(f"{k}={metadata.get(k, '?')}" for k in METADATA_FIELDS)
    if (knobs["d"], knobs["n"]) != (d, n):
        return f"disagrees: metadata says d = {knobs['d']}, n = {knobs['n']}; stored {n} × {d}"
    if metadata["dtype"] != table.dtype.name:
        return f"disagrees: metadata says dtype {metadata['dtype']}, stored {table.dtype.name}"
    try:
        rebuilt = encoding_table(dtype=table.dtype, **knobs)
    except ParameterError as error:
        return f"disagrees: the metadata is no table pecli makes ({error})"
    difference = np.abs(rebuilt.astype(np.float64) - table.astype(np.float64))
    if np.array_equal(rebuilt.view(np.uint8), np.ascontiguousarray(table).view(np.uint8)):
        return "agrees (bit for bit)"
    row, column = np.unravel_index(int(np.argmax(difference)), difference.shape)
    return f"disagrees: values differ by up to {difference.max():.3g} (row {row}, column {column})"


def _knobs(metadata: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of :func:`encoding_table` that ``metadata`` records."""
    padding = metadata["padding_idx"]
    return {
        "d": int(metadata["d"]),
        "n": int(metadata["n"]),
        "base": float(metadata["base"]),
        "start": float(metadata["start"]),
        "schedule": metadata["schedule"],
        "layout": metadata["layout"],
        "padding_idx": int(padding) if padding else None,
        "odd_d": metadata["odd_d"],
        "angle_scale": float(metadata["angle_scale"]),
        "full_turns": metadata["full_turns"] == "true",
        "amplitude": _parse_amplitude(metadata["amplitude"]),
    }


def _number_or_name(amplitude: float | str) -> str:
    """An amplitude as text: a number (``repr``) or its name (``sqrt(2/d)``)."""
    return amplitude if isinstance(amplitude, str) else repr(float(amplitude))


def _parse_amplitude(text: str) -> float | str:
    """The amplitude recorded by :func:`_number_or_name`."""
    try:
        return float(text)
    except ValueError:
        return text


def rebuild_command(metadata: dict[str, str]) -> Rebuild:
    """The ``compute`` arguments that rebuild the table pecli's ``metadata`` describes.

    A preset's name with its size, base, start and dtype; every knob spelled out for a custom
    table (and for diffusers, whose flags change its layout and schedule under its name).

    >>> from pecli.core.sinusoidal.conventions import convention
    >>> meta = table_metadata(key="pe", d=8, n=3, base=1e4, dtype="bfloat16",
    ...                       convention=convention("vaswani"), version="0.1.0")
    >>> [name for name, _ in rebuild_command(meta).arguments]
    ['convention', 'd', 'n', 'base', 'start', 'dtype', 'output', 'key']
    """
    knobs = _knobs(metadata)
    name = metadata["convention"]
    parts: list[Argument] = [("convention", name)] if name in PRESETS else []
    parts += [("d", str(knobs["d"])), ("n", str(knobs["n"])), ("base", number_text(knobs["base"]))]
    parts.append(("start", number_text(knobs["start"])))
    if name not in PRESETS or name == "diffusers":
        parts += [("schedule", knobs["schedule"]), ("layout", knobs["layout"])]
        parts += [("odd_d", knobs["odd_d"]), ("angle_scale", number_text(knobs["angle_scale"]))]
        parts += [("full_turns", True)] if knobs["full_turns"] else []
        parts.append(("amplitude", metadata["amplitude"]))
        if knobs["padding_idx"] is not None:
            parts.append(("padding_idx", str(knobs["padding_idx"])))
    parts += [("dtype", metadata["dtype"]), ("output", "pe.safetensors"), ("key", metadata["key"])]
    return Rebuild("encoding", (), tuple(parts))
