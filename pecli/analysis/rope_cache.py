"""RoPE cos/sin caches as files: the metadata ``rope cache`` writes, and recognising a cache.

``pecli rope cache -o cache.safetensors`` stores tensors ``cos`` and ``sin`` with string
metadata (:data:`CACHE_FIELDS`) from which the cache can be rebuilt. Pure Python/NumPy; no I/O.
"""

from __future__ import annotations

import json

from ..core.rope import RopeFrequencies

__all__ = ["CACHE_FIELDS", "cache_metadata"]

#: The metadata fields of a cache written by pecli, in order.
CACHE_FIELDS = (
    "pecli_version", "kind", "rope_type", "theta", "head_dim", "rotary_dim", "layout", "start",
    "n", "attention_factor", "dtype", "rope_parameters",
)  # fmt: skip


def cache_metadata(
    freqs: RopeFrequencies, *, n: int, start: int, layout: str, dtype: str, version: str
) -> dict[str, str]:
    """The string metadata of a cos/sin cache (safetensors holds strings only).

    ``rope_parameters`` is the JSON of every field of the spec that was given, so the cache
    can be rebuilt; ``attention_factor`` is the factor that multiplies the stored cos and sin.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> meta = cache_metadata(rope_frequencies(RopeSpec(head_dim=8)), n=4, start=0,
    ...                       layout="half-split", dtype="bfloat16", version="0.1.0")
    >>> meta["kind"], meta["theta"], meta["rotary_dim"], meta["attention_factor"]
    ('rope_cache', '10000.0', '8', '1.0')

    """
    spec = freqs.spec
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in spec.given().items()}
    values = {
        "pecli_version": version, "kind": "rope_cache", "rope_type": spec.rope_type,
        "theta": repr(float(spec.theta)), "head_dim": str(spec.head_dim),
        "rotary_dim": str(spec.rotary_dim), "layout": layout, "start": str(start), "n": str(n),
        "attention_factor": repr(float(freqs.attention_factor)), "dtype": dtype,
        "rope_parameters": json.dumps(given, sort_keys=True),
    }  # fmt: skip
    return {name: values[name] for name in CACHE_FIELDS}
