"""What ``rope identify`` reads in a file's arrays: an inv_freq vector or a cos/sin cache.

A vector is read by :func:`~.inv_freq.identify_inv_freq`; a cache (tensors ``cos`` and/or
``sin``, or one ``[cos | sin]`` table) by :func:`~.cache.identify_cache`, and pecli's own
metadata beside it is checked against the values (:func:`~.metadata.metadata_findings`).
Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ...core.median import median
from .cache import identify_cache, split_cache
from .inv_freq import identify_inv_freq
from .metadata import AGREES, metadata_findings

__all__ = ["identify_rope", "type_known"]


def identify_rope(
    arrays: dict[str, np.ndarray], metadata: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """The report (``rope_type`` ``unknown`` when no type matches) and the findings.

    ``arrays``: a file's tensors ``cos`` and/or ``sin``, or one table (a vector, one row or
    column, or a cache); ``metadata``: the file's string metadata.

    Examples
    --------
    >>> report, findings = identify_rope({"table": 10000.0 ** -(np.arange(8) / 8)}, {})
    >>> report["rope_type"], report["theta"], report["rotary_dim"]
    ('default', 10000.0, 16)

    """
    if {"cos", "sin"} & arrays.keys():
        report, findings = _cache_report(arrays.get("cos"), arrays.get("sin"))
        findings += metadata_findings(arrays, metadata)
        return _typed_by_metadata(report, findings, metadata), findings
    (table,) = arrays.values()
    if table.ndim == 1 or (table.ndim == 2 and 1 in table.shape):
        return _inv_freq_report(table.reshape(-1))
    _not_xpos(table)
    return _cache_report(*split_cache(table))


def type_known(report: dict[str, Any], findings: list[str]) -> bool:
    """Whether :func:`identify_rope`'s reading establishes a rope type (else: status 1).

    The values name one (not ``unknown``, not ``not determined``), or pecli's metadata beside
    them rebuilds them bit for bit, so the type it says is the values' own: a short or
    bfloat16 cache that leaves the type open, or a type the values are not read for
    (``longrope``, whose per-pair factors θ cannot be separated from).

    Examples
    --------
    >>> type_known({"rope_type": "default"}, []), type_known({"rope_type": "unknown"}, [])
    (True, False)
    >>> [type_known({"rope_type": t}, [AGREES + ": …"]) for t in ("not determined", "unknown")]
    [True, True]

    """
    if any(finding.startswith(AGREES) for finding in findings):
        return True
    return report["rope_type"] not in ("unknown", "not determined")


def _typed_by_metadata(
    report: dict[str, Any], findings: list[str], metadata: dict[str, str]
) -> dict[str, Any]:
    """The report, with the metadata's rope type where the values leave the type open.

    Only when the values read ``unknown`` or ``not determined`` and the metadata rebuilds
    them bit for bit; ``rope_type_from`` then says so.
    """
    if report["rope_type"] not in ("unknown", "not determined"):
        return report
    if not any(finding.startswith(AGREES) for finding in findings):
        return report
    read = f"pecli's metadata (the values alone: {report['rope_type']})"
    return {**report, "rope_type": metadata["rope_type"], "rope_type_from": read}


def _not_xpos(table: np.ndarray) -> None:
    """Refuse an xPos scale table (its equal, positive pairs would read as a cache)."""
    from ..zoo.xpos import read_xpos

    found = read_xpos(table) if table.ndim == 2 else None
    if found is not None:
        side = "keys' ζ_i^(−p/γ)" if found.keys else "queries' ζ_i^(p/γ)"
        rule = (
            f"must be a RoPE inv_freq vector or a cos/sin cache, not an xPos scale table (the "
            f"{side}, γ {found.scale_base:g}, first centred position "
            f"{found.first_position}: pecli diff reads it)"
        )
        raise ParameterError("file", rule, " × ".join(map(str, table.shape)))


def _inv_freq_report(vector: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    guess = identify_inv_freq(vector)
    report = {
        "rope_type": guess.rope_type,
        "theta": _number(guess.theta),
        "rotary_dim": guess.rotary_dim,
        "storage": guess.storage,
        **guess.parameters,
    }
    return report, guess.findings


def _cache_report(
    cos: np.ndarray | None, sin: np.ndarray | None
) -> tuple[dict[str, Any], list[str]]:
    guess = identify_cache(cos, sin)
    rope = guess.rope
    tables = " and ".join(k for k, v in (("cos", cos), ("sin", sin)) if v is not None)
    report = {
        "cache": tables,
        "layout": guess.layout,
        "start": guess.start,
        "attention_factor": guess.attention_factor,
        "storage": guess.storage,
        "rotary_dim": guess.rotary_dim,
        "theta": _number(guess.theta),
        "rope_type": rope.rope_type if rope else "not determined",
        **(rope.parameters if rope else {}),
    }
    return report, guess.findings + (rope.findings if rope else []) + _row_factors(
        cos, sin, guess.start
    )


def _row_factors(cos: np.ndarray | None, sin: np.ndarray | None, start: int | None) -> list[str]:
    """Rows of their own ``cos² + sin²``: ``pecli diff``'s causes, against the rows unscaled.

    A query temperature (Llama 4's ``1 + β·ln(1 + ⌊(p + 1)/s⌋)``) multiplies each position's
    row by its own factor; the table (A) against itself with each row's factor divided out
    (B) is read by the causes registry, which names the form, s and β. Row r is position
    ``start + r`` (the first position read, 0 if none); the first ``HEAD_ROWS`` rows are read.
    """
    from ..ports.causes import named_causes
    from ..ports.causes.tables import HEAD_ROWS
    from ..ports.compare import coarser

    if cos is None or sin is None or cos.shape != sin.shape or cos.ndim != 2:
        return []
    table = np.concatenate([cos[:HEAD_ROWS], sin[:HEAD_ROWS]], axis=1)
    norms = median(np.hypot(cos[:HEAD_ROWS], sin[:HEAD_ROWS]).astype(np.float64), axis=1)
    if len(norms) < 3 or np.ptp(norms) <= 1e-4 * float(norms.max()):
        return []  # one factor for every row: the attention factor, already reported
    unscaled = (table.astype(np.float64) / norms[:, None]).astype(table.dtype)
    named = named_causes(table, unscaled, coarser(table, unscaled), start=start or 0)
    return [f"why (A these values, B each row's factor divided out): {w}" for _, w in named]


def _number(value: float) -> float | None:
    """None for NaN: not determined (JSON has no NaN)."""
    return None if math.isnan(value) else value
