"""Why two rotary tables differ, in words: each known porting mistake tested on the values.

Each test undoes one mistake on one table and checks that the other appears (entries within a
few ulps of the coarser dtype): pair layout swapped, rows transposed, first position off by k,
sin/cos swapped, half width against full width, an attention factor missing, values stored
or computed in bf16; identify's readings of both add θ (base) and scaling past L. Pure NumPy
(and identify's readings, passed in).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.dtypes import exact_in, float_dtype
from .compare import as_rows, ulp

__all__ = ["likely_causes"]

Reading = dict[str, Any] | None
#: Rows of each table the mistakes are tested on.
HEAD_ROWS = 8192


def _close(x: np.ndarray, y: np.ndarray, dtype: str) -> bool:
    if x.shape != y.shape or x.size == 0:
        return False
    p, q = x.astype(np.float64), y.astype(np.float64)
    scale = float(np.max(np.abs(q), initial=0.0))
    allowed = 4 * ulp(np.maximum(np.abs(p), np.abs(q)), dtype) + 4 * ulp(np.array(scale), dtype)
    return bool(np.all(np.abs(p - q) <= allowed))


def _parts(table: np.ndarray, count: int) -> list[np.ndarray] | None:
    rows = as_rows(table)
    if rows.shape[1] % (2 * count):
        return None
    return np.split(rows, count, axis=1)


def _to_half_split(part: np.ndarray) -> np.ndarray:
    return np.concatenate([part[:, 0::2], part[:, 1::2]], axis=1)


def _to_interleaved(part: np.ndarray) -> np.ndarray:
    h = part.shape[1] // 2
    out = np.empty_like(part)
    out[:, 0::2], out[:, 1::2] = part[:, :h], part[:, h:]
    return out


def _layout(a: np.ndarray, b: np.ndarray, dtype: str, *_: Reading) -> str | None:
    for count in (2, 1):
        pa, pb = _parts(a, count), _parts(b, count)
        if pa is None or pb is None or a.shape != b.shape:
            continue
        for name, move in (("half-split", _to_half_split), ("interleaved", _to_interleaved)):
            if _close(np.concatenate([move(p) for p in pb], axis=1), as_rows(a), dtype):
                return (
                    f"pair layout swapped: B's columns put in the {name} order are A "
                    "(rotate_half pairs (i, i + d/2) against interleaved (2i, 2i + 1))"
                )
    return None


def _transposed(a: np.ndarray, b: np.ndarray, dtype: str, *_: Reading) -> str | None:
    if a.ndim != 2 or a.shape == b.shape or a.shape != b.shape[::-1]:
        return None
    rows = min(a.shape[0], HEAD_ROWS)  # A's first rows are B's first columns
    if _close(a[:rows], b[:, :rows].T, dtype):
        return f"rows transposed: B is A transposed ({a.shape} against {b.shape})"
    return None


def _sin_cos(a: np.ndarray, b: np.ndarray, dtype: str, *_: Reading) -> str | None:
    pa, pb = _parts(a, 2), _parts(b, 2)
    if pa is None or pb is None or a.shape != b.shape:
        return None
    if _close(pa[0], pb[1], dtype) and _close(pa[1], pb[0], dtype):
        return "sin/cos swapped: A's cos half is B's sin half and the other way round"
    return None


def _offset(a: np.ndarray, b: np.ndarray, dtype: str, *_: Reading) -> str | None:
    x, y = as_rows(a), as_rows(b)
    if x.shape[1] != y.shape[1] or min(len(x), len(y)) < 2:
        return None
    for first, second, names in ((x, y, ("A", "B")), (y, x, ("B", "A"))):
        gaps = np.abs(first.astype(np.float64) - second[0].astype(np.float64)).max(axis=1)
        for k in np.argsort(gaps, kind="stable")[:3]:
            n = min(len(first) - k, len(second))
            if k and n >= 2 and _close(first[k : k + n], second[:n], dtype):
                return (
                    f"first position off by {k}: {names[0]}'s row {k} is {names[1]}'s row "
                    f"0 ({names[1]} starts {k} position{'s' if k > 1 else ''} later)"
                )
    return None


def _width(a: np.ndarray, b: np.ndarray, dtype: str, *_: Reading) -> str | None:
    x, y = as_rows(a), as_rows(b)
    widths = sorted((x.shape[1], y.shape[1]))
    if x.shape[0] != y.shape[0] or widths[1] != 2 * widths[0]:
        return None
    wide, narrow, names = (x, y, ("A", "B")) if x.shape[1] > y.shape[1] else (y, x, ("B", "A"))
    for count in (2, 1):
        parts = _parts(wide, count)
        for name, step in (("half-split", 1), ("interleaved", 2)):
            picked = [p[:, : p.shape[1] // 2] if step == 1 else p[:, 0::2] for p in parts or []]
            if parts and _close(np.concatenate(picked, axis=1), narrow, dtype):
                return (
                    f"half width against full width: {names[0]} repeats each pair's value "
                    f"twice ({name}, the whole head), {names[1]} holds it once per pair"
                )
    return None


def _factor(a: np.ndarray, b: np.ndarray, dtype: str, ra: Reading, rb: Reading) -> str | None:
    if a.shape != b.shape:
        return None
    p, q = as_rows(a).astype(np.float64), as_rows(b).astype(np.float64)
    big = np.abs(q) > 0.25 * np.max(np.abs(q), initial=0.0)
    if not big.any():
        return None
    ratio = float(np.median(p[big] / q[big]))
    if abs(ratio - 1) < 1e-3 or not _close(p, q * ratio, dtype):
        return None
    return (
        f"attention factor missing: A = {ratio:.7g} × B (the factor transformers puts on "
        "cos and sin for yarn / longrope is in one table only)"
    )


def _bf16(a: np.ndarray, b: np.ndarray, dtype: str, *_: Reading) -> str | None:
    if a.shape != b.shape:
        return None
    for first, second, names in ((a, b, ("B", "A")), (b, a, ("A", "B"))):
        if not exact_in(second, "bfloat16"):  # on the bits: ml_dtypes (0.5 s) only if so
            continue
        bf16 = float_dtype("bfloat16")
        if np.array_equal(first.astype(np.float64).astype(bf16), second):
            return f"stored in bf16: {names[0]} is {names[1]} rounded once to bfloat16"
        return (
            f"computed in bf16: {names[0]}'s values are all bfloat16 numbers but not "
            f"{names[1]}'s rounded (the error grows with the position: bf16 arithmetic)"
        )
    return None


def _kinds(a: np.ndarray, b: np.ndarray, dtype: str, ra: Reading, rb: Reading) -> str | None:
    if ra and rb and ra.get("kind") != rb.get("kind"):
        names = {
            "inv_freq": "a vector (inv_freq, or frequency factors)",
            "cache": "a cos/sin cache",
        }
        return f"not the same kind of table: A is {names[ra['kind']]}, B {names[rb['kind']]}"
    return None


def _same_kind(ra: Reading, rb: Reading) -> bool:
    return bool(ra and rb and ra.get("kind") == rb.get("kind"))


def _theta(a: np.ndarray, b: np.ndarray, dtype: str, ra: Reading, rb: Reading) -> str | None:
    if not _same_kind(ra, rb):
        return None
    ta, tb = (r.get("theta") if r else None for r in (ra, rb))
    storages = {r.get("storage") for r in (ra, rb) if r}
    tolerance = 2e-2 if "bfloat16" in storages else 2e-3 if "float16" in storages else 1e-6
    if ta and tb and abs(ta - tb) > tolerance * tb:
        return f"θ (base, rope_theta) differs: A reads as θ = {ta:.10g}, B as θ = {tb:.10g}"
    return None


def _scaling(a: np.ndarray, b: np.ndarray, dtype: str, ra: Reading, rb: Reading) -> str | None:
    if not ra or not rb or not _same_kind(ra, rb) or ra.get("rope_type") == rb.get("rope_type"):
        return None
    kinds = {ra.get("rope_type"), rb.get("rope_type")}
    if "default" not in kinds or None in kinds:
        return None
    scaled, name = (ra, "A") if ra.get("rope_type") != "default" else (rb, "B")
    fields = ", ".join(
        f"{label} {scaled[k]:g}"
        for k, label in (("factor", "factor"), ("original_max_position_embeddings", "L ="))
        if isinstance(scaled.get(k), float | int)
    )
    kind = scaled["rope_type"] if scaled["rope_type"] != "unknown" else "scaled"
    return (
        f"scaling missing past L: {name} is {kind} ({fields or 'no known type'}), "
        "the other unscaled: they agree at short wavelengths and part past the original "
        "context length"
    )


_CHECKS: tuple[Callable[..., str | None], ...] = (
    _kinds,
    _transposed,
    _width,
    _layout,
    _sin_cos,
    _offset,
    _factor,
    _bf16,
    _theta,
    _scaling,
)


def likely_causes(
    a: np.ndarray, b: np.ndarray, dtype: str, ra: Reading = None, rb: Reading = None
) -> list[str]:
    """Each known mistake that explains the difference, in words (empty: none found).

    The values are tested on the first :data:`HEAD_ROWS` rows of each table (the readings
    come from whole tables): every mistake listed shows there, and memory stays bounded.
    """
    x, y = _head(a), _head(b)
    found = [_transposed(a, b, dtype)]
    found += [check(x, y, dtype, ra, rb) for check in _CHECKS if check is not _transposed]
    return [cause for cause in found if cause]


def _head(table: np.ndarray) -> np.ndarray:
    return table[:HEAD_ROWS] if table.ndim == 2 else table
