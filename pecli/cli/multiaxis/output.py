"""``pecli rope axes`` to ``.safetensors``: tensors ``cos``, ``sin`` (or ``rotation``), the plan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ...io import formats

if TYPE_CHECKING:  # pragma: no cover
    from ...core.multiaxis.plan import AxisPlan
    from ...core.multiaxis.resolve import Preset


def axes_metadata(
    plan: AxisPlan, preset: Preset | None, *, form: str, arithmetic: str, dtype: str
) -> dict[str, str]:
    """What the cache is: the preset, the channel → axis map, θ and k/D per pair, the form."""
    from ... import __version__

    return {
        "pecli": __version__,
        "kind": "multi-axis rotary cache",
        "preset": preset.name if preset else "",
        "axes": ",".join(plan.axes),
        "channel_axis": plan.strip(),
        "theta": json.dumps(list(plan.theta)),
        "index": json.dumps(list(plan.index)),
        "denominator": json.dumps(list(plan.denominator)),
        "layout": plan.layout,
        "form": form,
        "arithmetic": arithmetic,
        "dtype": dtype,
    }


def write_tensors(
    blocks: Iterator[np.ndarray], *, output: str, names: tuple[str, ...], meta: dict[str, str]
) -> None:
    """Gather the blocks (the table is at most 1 GiB) and write one tensor per name, atomically."""
    from ...io.tensors import safetensors_bytes, write_safetensors

    table = np.concatenate(list(blocks))
    parts = np.split(table, len(names), axis=1) if len(names) > 1 else [table]
    tensors = {name: np.ascontiguousarray(part) for name, part in zip(names, parts, strict=True)}
    heads = [(name, part.dtype, part.shape) for name, part in tensors.items()]
    formats.check_room(output, safetensors_bytes(heads, meta))
    write_safetensors(tensors, output=output, metadata=meta)
