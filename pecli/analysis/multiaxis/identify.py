"""Which multi-axis rotary embedding made a cache: every preset that fits, each one's verdict.

Given a cache's cos and sin (or a complex ``freqs_cis``) and the tokens' ids (a grid and text
tokens, a Qwen-VL token layout, or explicit ids), every preset whose width and rows fit is
rebuilt and compared (:func:`.compare.compare_to_plan`); the reading
(:func:`.reading.read_axes`) is made in the layout of the first that matches. Pure NumPy; no
I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.dtypes import FLOAT_DTYPES, storage_precision
from ...core.errors import ParameterError
from ...core.multiaxis.plan import AxisPlan, channel_pairs
from ...core.rope.forms import PAIR_LAYOUTS
from .compare import Comparison, compare_to_plan
from .reading import AxesReading, chosen_pairs, paired_layouts, read_axes

if TYPE_CHECKING:  # pragma: no cover
    from ...core.multiaxis.resolve import Preset

__all__ = ["AxesIdentification", "Cache", "cache_pairs", "identify_axes"]

#: A cache's cos and sin ``(n, width)`` (float32 when the file held float32, else float64),
#: whether they are a complex freqs_cis's, and the dtype the file held them in (``float32``
#: for ``complex64``).
Cache = tuple[np.ndarray, np.ndarray, bool, str]
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
    """Cos and sin ``(n, width)`` of a file's arrays: float32 as stored, else float64.

    Tensors ``cos`` and ``sin``, or one ``table`` (a ``.npy`` or CSV file): a complex
    ``freqs_cis`` (cos + i·sin per pair) or ``[cos | sin]``. A float32 cache stays float32
    (every reader widens what it computes with, exactly): no whole-cache float64 copy.

    Raises
    ------
    ParameterError
        (as ``file``) for tensors without cos and sin or of two shapes, a complex array that
        is not 2-D, a table whose width is not 4·pairs.

    Examples
    --------
    >>> cos, sin, is_complex, stored = cache_pairs({"table": np.ones((3, 8), np.float32)})
    >>> cos.shape, sin.shape, is_complex, stored
    ((3, 4), (3, 4), False, 'float32')

    """
    if arrays.keys() != {"table"}:
        if not {"cos", "sin"} <= arrays.keys():
            raise ParameterError("file", "must hold tensors cos and sin", sorted(arrays))
        if arrays["cos"].shape != arrays["sin"].shape:  # each row of cos pairs a row of sin
            shapes = f"cos {arrays['cos'].shape}, sin {arrays['sin'].shape}"
            raise ParameterError("file", "must hold tensors cos and sin of one shape", shapes)
        pair = _held(arrays["cos"]), _held(arrays["sin"])
        stored = _stored(arrays["cos"], arrays["sin"])
        return (*_finite(*pair, "tensors cos and sin"), False, stored)
    table = arrays["table"]
    if table.dtype.kind == "c":  # freqs_cis: cos + i·sin per pair, no layout
        if table.ndim != 2:
            rule = "must be a 2-D complex freqs_cis (tokens, pairs)"
            raise ParameterError("file", rule, table.shape)
        pair = _held(table.real), _held(table.imag)
        return (*_finite(*pair, "a complex freqs_cis"), True, _stored(table.real))
    stored = _stored(table)
    table = _held(table)
    if table.shape[1] % 4:
        raise ParameterError("file", "must be a [cos | sin] table, 4·pairs columns", table.shape)
    half = table.shape[1] // 2
    return table[:, :half], table[:, half:], False, stored


def _held(values: np.ndarray) -> np.ndarray:
    """``values`` float32 if they are float32, else float64 (exact either way).

    Laid out as ``astype`` lays out a copy (a strided view, the real part of a complex
    array, is compacted): each row the same strides in elements as a float64 copy's.
    """
    dtype = np.float32 if values.dtype == np.float32 else np.float64
    compact = values.flags.c_contiguous or values.flags.f_contiguous
    return values.astype(dtype, copy=not compact)


def _stored(*arrays: np.ndarray) -> str:
    """The float dtype every array was held in (their values are exact in it), else float64."""
    names = {a.dtype.name for a in arrays}
    return names.pop() if len(names) == 1 and names <= set(FLOAT_DTYPES) else "float64"


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
    paired = _Paired(cache)
    if not cache[2] and not any(paired.own(plan) for _, plan, _ in candidates):
        paired.fits()  # pair_values' refusal, unless some candidate's own layout pairs them
    verdicts = {name: _verdict(paired, plan, i) for name, plan, i in candidates}
    best = next((k for k, (name, *_) in enumerate(candidates) if verdicts[name].matches), None)
    if best is None:
        best = next(k for k, (_, plan, _) in enumerate(candidates) if paired.pairs_at_all(plan))
    _, plan, token_ids = candidates[best]
    return AxesIdentification(_reading(paired, plan, token_ids), plan, verdicts)


#: A pairing's key (its layout, and a layout of its own's first channels), layout, cos, sin.
Pairing = tuple[tuple[str, bytes], str, np.ndarray, np.ndarray]


class _Paired:
    """The cache's channels paired, and read, once per pairing for all candidates.

    Whether a layout pairs the channels compares the whole cache, reading it takes an
    ``arctan2`` of every value, and its storage dtype is found on every value: each depends
    on the pairing (and the ids) only, so the candidates that share them share the work.
    """

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self._fits: tuple[str, ...] | ParameterError | None = None
        self._own: dict[tuple[str, bytes], bool] = {}
        self._pairs: dict[tuple[str, bytes], Pairing] = {}
        self._readings: list[tuple[tuple[str, bytes], np.ndarray, AxesReading]] = []
        self._storage: str | None = None

    def fits(self) -> tuple[str, ...]:
        """The layouts of :data:`PAIR_LAYOUTS` that pair the channels (once), or the refusal."""
        if self._fits is None:
            try:
                self._fits = paired_layouts(self.cache[0], self.cache[1])
            except ParameterError as error:
                self._fits = error
        if isinstance(self._fits, ParameterError):
            raise self._fits
        return self._fits

    def own(self, plan: AxisPlan) -> bool:
        """Whether a plan of a layout of its own (per-axis blocks) pairs these channels."""
        cos, sin, *_ = self.cache
        if plan.layout in PAIR_LAYOUTS or cos.shape[1] != 2 * plan.pairs:
            return False
        first, second = channel_pairs(plan)
        key = (plan.layout, first.tobytes())
        if key not in self._own:
            self._own[key] = all(np.array_equal(t[:, first], t[:, second]) for t in (cos, sin))
        return self._own[key]

    def pairs(self, plan: AxisPlan) -> Pairing:
        """The layout and per-pair cos and sin; the plan's layout when both layouts fit.

        A plan whose pairs are half-split inside each axis's block (Allegro) is read in its
        own channels when they repeat one value.
        """
        cos, sin, is_complex, _ = self.cache
        if is_complex:
            key = ("complex", b"")
        elif self.own(plan):
            key = (plan.layout, channel_pairs(plan)[0].tobytes())
        else:
            fits = self.fits()
            key = (plan.layout if plan.layout in fits else fits[0], b"")
        if key not in self._pairs:
            if is_complex:
                layout, c, s = "complex", cos, sin
            elif key[1]:
                first = channel_pairs(plan)[0]
                layout, c, s = plan.layout, cos[:, first], sin[:, first]
            else:
                layout, c, s = chosen_pairs(cos, sin, self.fits(), key[0])
            self._pairs[key] = (key, layout, c, s)
        return self._pairs[key]

    def pairs_at_all(self, plan: AxisPlan) -> bool:
        try:
            self.pairs(plan)
        except ParameterError:
            return False
        return True

    def read(self, plan: AxisPlan, ids: np.ndarray) -> tuple[AxesReading, Pairing]:
        """The cache read with these ids in the plan's pairing (each pairing and ids once)."""
        pairing = self.pairs(plan)
        key, layout, c, s = pairing
        for seen, seen_ids, reading in self._readings:
            if seen == key and np.array_equal(seen_ids, ids):
                return reading, pairing
        reading = read_axes(c, s, ids, layout=layout)
        self._readings.append((key, ids, reading))
        return reading, pairing

    @property
    def storage(self) -> str:
        """The coarsest dtype holding every cos value exactly (any pairing's: the same values)."""
        if self._storage is None:
            self._storage = storage_precision(self.cache[0], stored=self.cache[3])
        return self._storage


def _reading(paired: _Paired, plan: AxisPlan, ids: np.ndarray) -> AxesReading:
    """The cache read with these ids, in the plan's layout where both fit."""
    from ...core.dtypes import HALF_DTYPES

    shared, _ = paired.read(plan, ids)
    reading = dataclasses.replace(shared, notes=list(shared.notes))
    if not reading.theta and paired.storage in HALF_DTYPES:
        note = f"θ not fitted: {paired.storage} values pin the slow pairs' ω too poorly"
        reading.notes.append(note)
    return reading


def _verdict(paired: _Paired, plan: AxisPlan, ids: np.ndarray) -> Comparison:
    """The cache against one candidate: it matches, or what differs."""
    try:
        reading, (_, _, c, s) = paired.read(plan, ids)
    except ParameterError:  # paired in another candidate's own layout only (Allegro's)
        note = f"(c) the channels do not pair in the preset's layout ({plan.layout})"
        return Comparison(False, "none", [note])
    return compare_to_plan(reading, plan, ids, (c, s), paired.storage)


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
