"""What ``rope identify`` reads in one table of a diff, or the reading of an xPos table."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.errors import ParameterError

__all__ = ["reading"]


def reading(table: np.ndarray) -> dict[str, Any] | None:
    """Identify's reading of a vector (``inv_freq``) or a cache (``[cos | sin]``, cos, sin).

    An xPos scale table (``pecli xpos``) gets its own reading, kind ``xpos``
    (:func:`pecli.analysis.zoo.xpos.read_xpos`): its pairs of equal positive channels would
    otherwise read as a cache. Returns None when identify reads nothing (too few rows, not a
    rotary table).
    """
    from ..rope.cache import identify_cache, split_cache
    from ..rope.inv_freq import identify_inv_freq
    from ..zoo.xpos import read_xpos

    xpos = read_xpos(table) if table.ndim == 2 else None
    if xpos is not None:  # positive scales ζ_i^(±p/γ): no cos/sin cache has them all
        return xpos.as_dict()
    try:
        if table.ndim == 1 or (table.ndim == 2 and 1 in table.shape):
            guess = identify_inv_freq(np.asarray(table).reshape(-1))
            return {
                "kind": "inv_freq",
                "rope_type": guess.rope_type,
                "theta": _number(guess.theta),
                "rotary_dim": guess.rotary_dim,
                "storage": guess.storage,
                **guess.parameters,
            }
        if table.ndim != 2:
            return None
        cache = identify_cache(*split_cache(table))
    except (ParameterError, ValueError, FloatingPointError):
        return None
    rope = cache.rope
    return {
        "kind": "cache",
        "layout": cache.layout,
        "start": cache.start,
        "attention_factor": cache.attention_factor,
        "storage": cache.storage,
        "theta": _number(cache.theta),
        "rotary_dim": cache.rotary_dim,
        "rope_type": rope.rope_type if rope else None,
        **(rope.parameters if rope else {}),
    }


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)
