"""Which multi-axis rotary embedding made a cache: every preset that fits, each one's verdict.

Given a cache's cos and sin (or a complex ``freqs_cis``) and the tokens' ids (a grid and text
tokens, a Qwen-VL token layout, or explicit ids), every preset whose width and rows fit is
rebuilt and compared (:func:`.compare.compare_to_plan`); the reading
(:func:`.reading.read_axes`) is made in the layout of the first that matches. Pure NumPy; no
I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import ParameterError
from ...core.multiaxis.plan import AxisPlan, channel_pairs
from ...core.rope.forms import PAIR_LAYOUTS
from .compare import Comparison, compare_to_plan
from .reading import AxesReading, pair_values, read_axes

if TYPE_CHECKING:  # pragma: no cover
    from ...core.multiaxis.resolve import Preset

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
        pair = arrays["cos"].astype(np.float64), arrays["sin"].astype(np.float64)
        return (*_finite(*pair, "tensors cos and sin"), False)
    table = arrays["table"]
    if table.dtype.kind == "c":  # freqs_cis: cos + i·sin per pair, no layout
        if table.ndim != 2:
            rule = "must be a 2-D complex freqs_cis (tokens, pairs)"
            raise ParameterError("file", rule, table.shape)
        pair = table.real.astype(np.float64), table.imag.astype(np.float64)
        return (*_finite(*pair, "a complex freqs_cis"), True)
    table = table.astype(np.float64)
    if table.shape[1] % 4:
        raise ParameterError("file", "must be a [cos | sin] table, 4·pairs columns", table.shape)
    half = table.shape[1] // 2
    return table[:, :half], table[:, half:], False


def _finite(cos: np.ndarray, sin: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Cos and sin, refused (as ``file``) with a NaN or an infinity, as a real table is."""
    if not (np.isfinite(cos).all() and np.isfinite(sin).all()):
        raise ParameterError("file", "must hold finite numbers only", f"NaN or inf in {what}")
    return cos, sin


def identify_axes(
    cache: Cache,
    *,
    preset: str | Preset | None,
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
    cos = cache[0]
    shape = (cos.shape[0], cos.shape[1] if cache[2] else cos.shape[1] // 2)
    candidates = _candidates(preset, head_dim, shape, given, ids)
    _refuse_unpaired(cache, [plan for _, plan, _ in candidates])
    verdicts = {name: _verdict(cache, plan, i) for name, plan, i in candidates}
    paired = [k for k, (_, plan, _) in enumerate(candidates) if _paired(cache, plan)]
    best = next((k for k, (name, *_) in enumerate(candidates) if verdicts[name].matches), paired[0])
    _, plan, token_ids = candidates[best]
    return AxesIdentification(_reading(cache, plan, token_ids), plan, verdicts)


def _pairs(cache: Cache, plan: AxisPlan | None) -> tuple[str, np.ndarray, np.ndarray]:
    """The layout and per-pair cos and sin; the plan's layout when both layouts fit.

    A plan whose pairs are half-split inside each axis's block (Allegro) is read in its own
    channels when they repeat one value.
    """
    cos, sin, is_complex = cache
    if is_complex:
        return "complex", cos, sin
    if plan is not None and _own_pairs(cache, plan):
        first = channel_pairs(plan)[0]
        return plan.layout, cos[:, first], sin[:, first]
    return pair_values(cos, sin, plan.layout if plan else None)


def _paired(cache: Cache, plan: AxisPlan) -> bool:
    try:
        _pairs(cache, plan)
    except ParameterError:
        return False
    return True


def _own_pairs(cache: Cache, plan: AxisPlan) -> bool:
    """Whether a plan of a layout of its own (per-axis blocks) pairs these channels."""
    cos, sin, _ = cache
    if plan.layout in PAIR_LAYOUTS or cos.shape[1] != 2 * plan.pairs:
        return False
    first, second = channel_pairs(plan)
    return all(np.array_equal(t[:, first], t[:, second]) for t in (cos, sin))


def _refuse_unpaired(cache: Cache, plans: list[AxisPlan]) -> None:
    """pair_values' refusal, unless some candidate's own layout pairs the channels."""
    if not cache[2] and not any(_own_pairs(cache, plan) for plan in plans):
        pair_values(cache[0], cache[1])


def _reading(cache: Cache, plan: AxisPlan, ids: np.ndarray) -> AxesReading:
    """The cache read with these ids, in the plan's layout where both fit."""
    from ...core.dtypes import HALF_DTYPES, storage_precision

    layout, c, s = _pairs(cache, plan)
    reading = read_axes(c, s, ids, layout=layout)
    if not reading.theta and (storage := storage_precision(c)) in HALF_DTYPES:
        reading.notes.append(f"θ not fitted: {storage} values pin the slow pairs' ω too poorly")
    return reading


def _verdict(cache: Cache, plan: AxisPlan, ids: np.ndarray) -> Comparison:
    """The cache against one candidate: it matches, or what differs."""
    try:
        layout, c, s = _pairs(cache, plan)  # once: it reads the whole cache as float64
    except ParameterError:  # paired in another candidate's own layout only (Allegro's)
        note = f"(c) the channels do not pair in the preset's layout ({plan.layout})"
        return Comparison(False, "none", [note])
    return compare_to_plan(read_axes(c, s, ids, layout=layout), plan, ids, (c, s))


def _candidates(
    preset: str | Preset | None,
    head_dim: int | None,
    shape: tuple[int, ...],
    given: dict[str, Any],
    ids: np.ndarray | None,
) -> list[Candidate]:
    """The presets that fit the cache's width and rows with these ids (the named one only)."""
    from ...core.multiaxis.resolve import (
        check_id_options,
        distinct_presets,
        resolve_ids,
        resolve_plan,
    )

    check_id_options(head_dim=head_dim, ids=ids, **given)  # named, not "fits no preset"
    scaled = given.get("scale_factor") is not None  # Kandinsky 5's cache is then its own
    names = [preset] if preset else distinct_presets(scaled)  # SkyReels-V2's cache is Wan's
    found: list[Candidate] = []
    last = None
    for name in names:
        # a config's preset keeps its own head (its rotated share may be part of it)
        head = head_dim or (2 * shape[1] if isinstance(name, str) else None)
        try:
            plan, chosen = resolve_plan(name, head_dim=head)
            source = resolve_ids(plan, chosen, ids=ids, **given)
        except ParameterError as error:
            last = error
            continue
        rows = source.rows(0, source.n) if source.n == shape[0] else None
        if rows is not None and (plan.pairs == shape[1] or preset) and not _seen(found, plan, rows):
            found.append((str(getattr(chosen, "name", name)), plan, rows))
    if not found:
        if preset and last is not None:
            raise last
        rule = f"fits no preset of width {2 * shape[1]} with these ids ({shape[0]} rows)"
        if given.get("grid") is None and given.get("tokens") is None and ids is None:
            rule = (
                f"fits no preset of width {2 * shape[1]} without ids ({shape[0]} rows):"
                " give the tokens' ids with `grid` (and `text`), `tokens` or `ids`"
            )
        raise ParameterError("file", rule, "none")
    return found


def _seen(found: list[Candidate], plan: AxisPlan, ids: np.ndarray) -> bool:
    """Whether an earlier candidate makes this very cache: the first one is named.

    ChronoEdit's cache is Wan's but for an edit's two frames.
    """
    return any(p == plan and np.array_equal(i, ids) for _, p, i in found)
