"""Shared by the fixture generators: save one table with its provenance.

Each generator module ``generate_<area>.py`` in this folder defines ``generate(out)`` and
writes its tables into ``out / <area>`` with :func:`save`. They run in the real-libraries
environment (``make library-fixtures``), never in ``make test``.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import numpy as np


def version(distribution: str) -> str:
    """The installed version of a PyPI distribution (for the provenance file)."""
    return importlib.metadata.version(distribution)


def save(folder: Path, name: str, table: Any, *, library: str, call: str, **params: Any) -> None:
    """Write ``folder/name.npy`` and its provenance ``folder/name.json``.

    The array is saved exactly as the library returned it (converted to NumPy); the JSON
    holds the library, its version, the call that made the table and its parameters.
    """
    folder.mkdir(parents=True, exist_ok=True)
    array = np.asarray(table)
    np.save(folder / f"{name}.npy", array, allow_pickle=False)
    provenance = {
        "library": library,
        "version": version(library),
        "call": call,
        "dtype": str(array.dtype),
        "shape": list(array.shape),
        "params": params,
    }
    text = json.dumps(provenance, indent=2, sort_keys=True) + "\n"
    (folder / f"{name}.json").write_text(text, encoding="utf-8")


def save_tensor(
    folder: Path, name: str, table: Any, call: str, *, library: str, **params: Any
) -> None:
    """:func:`save` for a torch tensor (detached, on the CPU) or anything NumPy reads."""
    if hasattr(table, "detach"):
        table = table.detach().cpu().numpy()
    save(folder, name, table, library=library, call=call, **params)


def save_pair(
    folder: Path, name: str, cos_sin: Any, call: str, *, library: str, **params: Any
) -> None:
    """A rotary module's ``(cos, sin)`` as ``name_cos`` and ``name_sin`` (params ``part``)."""
    for part, table in zip(("cos", "sin"), cos_sin, strict=True):
        save_tensor(folder, f"{name}_{part}", table, call, library=library, part=part, **params)
