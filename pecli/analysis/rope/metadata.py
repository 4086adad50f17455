"""The metadata pecli writes beside a RoPE cache, and whether it rebuilds the cache's values.

``pecli rope cache -o cache.safetensors`` stores tensors ``cos`` and ``sin`` with string
metadata (:data:`CACHE_FIELDS`) from which the cache can be rebuilt; ``rope identify``
rebuilds it (:func:`metadata_findings`) and says whether it is the file's values bit for bit.
Pure NumPy; no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from ...core.ports.arithmetic import ARITHMETICS
from ...core.rope import RopeSpec, rope_frequencies
from ...core.rope.cache_spec import CacheSpec

__all__ = ["AGREES", "CACHE_FIELDS", "cache_metadata", "metadata_findings"]

#: How the finding of metadata that rebuilds the values bit for bit begins.
AGREES = "pecli's metadata agrees"

#: The metadata fields of a cache written by pecli, in order.
CACHE_FIELDS = (
    "pecli_version",
    "kind",
    "rope_type",
    "theta",
    "head_dim",
    "rotary_dim",
    "layout",
    "start",
    "n",
    "attention_factor",
    "dtype",
    "arithmetic",
    "rope_parameters",
)


def cache_metadata(spec: CacheSpec, *, version: str, arithmetic: str = "exact") -> dict[str, str]:
    """The string metadata of a cos/sin cache (safetensors holds strings only).

    ``rope_parameters`` is the JSON of every field of the rope spec that was given, so the
    cache can be rebuilt; ``attention_factor`` is the factor that multiplies the stored cos
    and sin; ``arithmetic`` is ``exact``, ``transformers`` or ``llama.cpp`` (their float32
    steps).

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> cache = CacheSpec(rope_frequencies(RopeSpec(head_dim=8)), 4, dtype="bfloat16")
    >>> meta = cache_metadata(cache, version="0.1.0")
    >>> meta["kind"], meta["theta"], meta["rotary_dim"], meta["attention_factor"]
    ('rope_cache', '10000.0', '8', '1.0')

    """
    rope = spec.freqs.spec
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in rope.given().items()}
    values = {
        "pecli_version": version,
        "kind": "rope_cache",
        "rope_type": rope.rope_type,
        "theta": repr(float(rope.theta)),
        "head_dim": str(rope.head_dim),
        "rotary_dim": str(rope.rotary_dim),
        "layout": spec.layout,
        "start": str(spec.start),
        "n": str(spec.n),
        "attention_factor": repr(float(spec.freqs.attention_factor)),
        "dtype": spec.stored.name,
        "arithmetic": arithmetic,
        "rope_parameters": json.dumps(given, sort_keys=True),
    }
    return {name: values[name] for name in CACHE_FIELDS}


def metadata_findings(arrays: dict[str, np.ndarray], metadata: dict[str, str]) -> list[str]:
    """Whether pecli's metadata (``rope cache -o NAME.safetensors``) rebuilds these values.

    The cache the metadata describes is rebuilt and compared bit for bit: a fitted θ may be
    undetermined (a short bf16 cache) where the values are exactly what pecli wrote. No
    finding for a file without pecli's metadata.
    """
    if metadata.get("kind") != "rope_cache":
        return []
    keys = ["rope_type", "theta", "layout", "start"]
    if metadata.get("arithmetic", "exact") != "exact":  # llama.cpp's or transformers' float32
        keys.append("arithmetic")
    said = ", ".join(f"{k} {metadata.get(k)}" for k in keys)
    try:
        same = _rebuilds(metadata, arrays)
    except (ValueError, KeyError, TypeError) as error:
        return [f"pecli's metadata describes no cache pecli can rebuild ({error}): it says {said}"]
    if same:
        return [f"{AGREES}: the cache it describes ({said}) is these values, bit for bit"]
    return [f"pecli's metadata disagrees with the values: it says {said}", *_why(metadata, arrays)]


def _why(metadata: dict[str, str], arrays: dict[str, np.ndarray]) -> list[str]:
    """``pecli diff``'s causes between the cache the metadata describes (A) and the values (B).

    Tested on the first :data:`~pecli.analysis.ports.causes.tables.HEAD_ROWS` rows of each part
    (``[cos | sin]`` when both are there), as ``diff`` does.
    """
    from ..ports.causes import named_causes
    from ..ports.causes.tables import HEAD_ROWS
    from ..ports.compare import coarser

    parts = [name for name in ("cos", "sin") if name in arrays]
    n = min(int(metadata["n"]), HEAD_ROWS)
    mine = np.concatenate(
        [np.concatenate(list(_metadata_blocks(metadata, n, part))) for part in parts], axis=1
    )
    theirs = np.concatenate([arrays[part][:HEAD_ROWS] for part in parts], axis=1)
    named = named_causes(mine, theirs, coarser(mine, theirs), start=int(metadata["start"]))
    return [f"why (A the metadata's cache, B the values): {words}" for _, words in named]


def _rebuilds(metadata: dict[str, str], arrays: dict[str, np.ndarray]) -> bool:
    """Whether the cache that pecli's metadata describes is ``arrays``, bit for bit.

    Rebuilt block by block (memory stays a block). Raises ValueError, KeyError or TypeError
    if the metadata describes no cache (ParameterError is a ValueError).
    """
    n = int(metadata["n"])
    for name, table in arrays.items():
        if name not in ("cos", "sin"):
            continue
        if table.shape[0] != n:
            return False
        row = 0
        for block in _metadata_blocks(metadata, n, name):
            if not _same_bits(table[row : row + len(block)], block):
                return False
            row += len(block)
    return True


def _metadata_blocks(metadata: dict[str, str], n: int, part: str) -> Iterator[np.ndarray]:
    """The row blocks of ``part`` of the cache the metadata describes (as rope cache made them).

    The top-level fields (rope_type, theta, head_dim, layout, start, dtype, arithmetic) win
    over ``rope_parameters`` (the other fields of the spec).
    """
    fields = json.loads(metadata["rope_parameters"])
    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    given |= {
        "rope_type": metadata["rope_type"],
        "theta": float(metadata["theta"]),
        "head_dim": int(metadata["head_dim"]),
    }
    how = ARITHMETICS.get(metadata.get("arithmetic", "exact"), ARITHMETICS["exact"])
    freqs = rope_frequencies(RopeSpec(**given))
    start, layout, dtype = int(metadata["start"]), metadata["layout"], metadata["dtype"]
    return how.blocks(CacheSpec(freqs, n, start=start, layout=layout, dtype=dtype, part=part))


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
