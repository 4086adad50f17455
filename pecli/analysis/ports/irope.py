"""``pecli rope irope``'s report: Llama 4's layer map in words and the NoPE temperature table.

The settings are read by :func:`pecli.core.ports.llama4.irope_settings`; this module says
which layers rotate, the chunk size and the temperature's formula, and tabulates the
temperature per position (1 everywhere when ``attn_temperature_tuning`` is false). No I/O.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.ports.llama4 import rope_layers, temperatures

__all__ = ["irope_lines", "temperature_table"]


def temperature_table(settings: dict[str, Any], points: np.ndarray) -> dict[str, np.ndarray]:
    """The columns ``position`` and ``nope_temperature`` (the factor on the NoPE queries).

    >>> from pecli.core.ports.llama4 import irope_settings
    >>> temperature_table(irope_settings(None), np.array([0]))["nope_temperature"].tolist()
    [1.0]
    """
    scales = temperatures(points, settings)
    if not settings["tuning"]:  # attn_temperature_tuning false: the queries are not scaled
        scales = np.ones_like(scales)
    return {"position": points, "nope_temperature": scales}


def irope_lines(settings: dict[str, Any], layers: int | None = None) -> list[str]:
    """The layer map and the temperature's formula in words (``layers``: the interval's map).

    >>> from pecli.core.ports.llama4 import irope_settings
    >>> irope_lines(irope_settings(None), 8)[1]
    'NoPE layers: 3 7'
    """
    given = None if layers else settings["no_rope_layers"]  # layers: the interval's map
    flags = rope_layers(layers or settings["layers"], settings["interval"], given=given)
    nope = [str(i) for i, rotates in enumerate(flags) if not rotates]
    chunk = settings["chunk"]
    attention = f"chunked attention, chunks of {chunk}" if chunk else "full attention, no chunks"
    lines = [
        f"{len(flags)} layers: {len(flags) - len(nope)} RoPE layers ({attention}), "
        f"{len(nope)} NoPE layers (global, no rotation"
        + (", temperature-tuned queries)" if settings["tuning"] else ")"),
        "NoPE layers: " + (" ".join(nope) or "none"),
        f"temperature = log(floor((p + 1) / {settings['floor_scale']:g}) + 1) · "
        f"{settings['attn_scale']:g} + 1",
    ]
    if not settings["tuning"]:
        lines[-1] = "attn_temperature_tuning false: the NoPE layers' queries are not scaled (1)"
    if settings["missing"]:
        lines.append(
            "note: not in the config, Llama 4's defaults used: " + ", ".join(settings["missing"])
        )
    return lines
