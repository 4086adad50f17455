"""Which multi-axis rotary embedding made a cache: every preset that fits, each one's verdict.

Given a cache's cos and sin (or a complex ``freqs_cis``) and the tokens' ids (a grid and text
tokens, a Qwen-VL token layout, or explicit ids), every preset whose width and rows fit is
rebuilt and compared (:func:`.compare.compare_to_plan`); the reading
(:func:`.reading.read_axes`) is made in the layout of the first that matches. Pure NumPy; no
I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ...core.multiaxis.plan import AxisPlan
from ...core.rope.forms import pair_columns
from .compare import Comparison, compare_to_plan
from .reading import AxesReading, pair_fits, read_axes

__all__ = ["AxesIdentification", "Cache", "cache_pairs", "identify_axes"]

#: A cache's cos and sin ``(n, width)``, and whether they are a complex freqs_cis's.
Cache = tuple[np.ndarray, np.ndarray, bool]
#: (preset name, plan, ids) of one candidate.
Candidate = tuple[str, AxisPlan, np.ndarray]


@dataclass
class AxesIdentification:
    """The reading of a cache (in the first matching preset's plan) and each preset's verdict."""

    reading: AxesReading
    plan: AxisPlan
    verdicts: dict[str, Comparison]

    @property
    def matches(self) -> bool:
        """Whether some preset made the cache."""
        return any(v.matches for v in self.verdicts.values())

    def record(self) -> dict[str, Any]:
        """The report as plain data: layout, pairs, schedule, θ per axis, map, notes, verdicts."""
        reading, plan = self.reading, self.plan
        return {
            "layout": reading.layout,
            "pairs": len(reading.axis),
            "schedule": reading.schedule,
            "theta": {plan.axes[int(a)]: round(t, 6) for a, t in reading.theta.items()},
            "channel_axis": reading.strip(plan.axes),
            "notes": reading.notes,
            "presets": {
                name: {
                    "matches": v.matches,
                    "arithmetic": v.arithmetic,
                    "differences": v.differences,
                }
                for name, v in self.verdicts.items()
            },
        }


def cache_pairs(arrays: dict[str, np.ndarray]) -> Cache:
    """Cos and sin ``(n, width)`` (float64) of a file's arrays.

    Tensors ``cos`` and ``sin``, or one ``table`` (a ``.npy`` or CSV file): a complex
    ``freqs_cis`` (cos + i·sin per pair) or ``[cos | sin]``.

    Raises
    ------
    ParameterError
        (as ``file``) for tensors without cos and sin, a complex array that is not 2-D, a
        table whose width is not 4·pairs.

    Examples
    --------
    >>> cos, sin, is_complex = cache_pairs({"table": np.ones((3, 8))})
    >>> cos.shape, sin.shape, is_complex
    ((3, 4), (3, 4), False)

    """
    if arrays.keys() != {"table"}:
        if not {"cos", "sin"} <= arrays.keys():
            raise ParameterError("file", "must hold tensors cos and sin", sorted(arrays))
        return arrays["cos"].astype(np.float64), arrays["sin"].astype(np.float64), False
    table = arrays["table"]
    if table.dtype.kind == "c":  # freqs_cis: cos + i·sin per pair, no layout
        if table.ndim != 2:
            rule = "must be a 2-D complex freqs_cis (tokens, pairs)"
            raise ParameterError("file", rule, table.shape)
        return table.real.astype(np.float64), table.imag.astype(np.float64), True
    table = table.astype(np.float64)
    if table.shape[1] % 4:
        raise ParameterError("file", "must be a [cos | sin] table, 4·pairs columns", table.shape)
    half = table.shape[1] // 2
    return table[:, :half], table[:, half:], False


def identify_axes(
    cache: Cache,
    *,
    preset: str | None,
    head_dim: int | None,
    ids: np.ndarray | None,
    **given: Any,
) -> AxesIdentification:
    """Every preset that fits the cache's width and rows (the named one only) against it.

    ``given``: the ids' other parameters (``grid`` sizes, ``text``, ``tokens``, ``release``,
    ``tokens_per_second``, ``fps``), as :func:`pecli.core.multiaxis.resolve.resolve_ids`
    takes them.

    Raises
    ------
    ParameterError
        A value no preset could take (named before any is tried); ids that fit no preset of
        the cache's width and rows (as ``file``); the named preset's own refusal.

    """
    pairs = _Pairs(cache)
    _, c, _ = pairs(None)  # refuses a table that pairs no channels
    candidates = _candidates(preset, head_dim, c.shape, given, ids)
    read = {name: _verdict(pairs, plan, i) for name, plan, i in candidates}
    verdicts = {name: comparison for name, (_, comparison) in read.items()}
    best = next((k for k, (name, *_) in enumerate(candidates) if verdicts[name].matches), 0)
    name, plan, _ = candidates[best]
    return AxesIdentification(read[name][0], plan, verdicts)


class _Pairs:
    """The layout and per-pair cos and sin of a cache, in a preset's layout when both fit.

    The layouts that fit are found once (each check reads the whole cache).
    """

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.fits: tuple[str, ...] = ()

    def __call__(self, plan: AxisPlan | None) -> tuple[str, np.ndarray, np.ndarray]:
        cos, sin, is_complex = self.cache
        if is_complex:
            return "complex", cos, sin
        if not self.fits:
            self.fits = pair_fits(cos, sin)
        prefer = plan.layout if plan else None
        layout = prefer if prefer in self.fits else self.fits[0]
        return layout, pair_columns(cos, layout), pair_columns(sin, layout)


def _verdict(pairs: _Pairs, plan: AxisPlan, ids: np.ndarray) -> tuple[AxesReading, Comparison]:
    """The cache read with one candidate's ids, in its layout, and its verdict on the cache."""
    layout, c, s = pairs(plan)
    reading = read_axes(c, s, ids, layout=layout)
    return reading, compare_to_plan(reading, plan, ids, (c, s))


def _candidates(
    preset: str | None,
    head_dim: int | None,
    shape: tuple[int, ...],
    given: dict[str, Any],
    ids: np.ndarray | None,
) -> list[Candidate]:
    """The presets that fit the cache's width and rows with these ids (the named one only)."""
    from ...core.multiaxis.resolve import PRESETS, check_id_options, resolve_ids, resolve_plan

    check_id_options(head_dim=head_dim, **given)  # a value no preset takes is named, not "fits"
    names = [preset] if preset else list(PRESETS)
    found, last = [], None
    for name in names:
        try:
            plan, chosen = resolve_plan(name, head_dim=head_dim or 2 * shape[1])
            source = resolve_ids(plan, chosen, ids=ids, **given)
        except ParameterError as error:
            last = error
            continue
        if source.n == shape[0] and (plan.pairs == shape[1] or preset):
            found.append((str(getattr(chosen, "name", name)), plan, source.rows(0, source.n)))
    if not found:
        if preset and last is not None:
            raise last
        rule = f"fits no preset of width {2 * shape[1]} with these ids ({shape[0]} rows)"
        raise ParameterError("file", rule, "none")
    return found
