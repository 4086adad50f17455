"""cos/sin caches of a multi-axis rotary embedding for position ids, in each engine's form.

Row ``r`` is token ``r`` with position ids ``ids[r]`` (one column per axis, any finite float64,
fractional or negative too); pair ``j`` turns by ``ids[r, axis(j)] · ω_j``
(:class:`~.plan.AxisPlan`). ``exact`` angles are double-doubles (the position times the exact
frequency, :func:`pecli.core.direct.fill_sin_cos_direct`) and every value is rounded once to
the output dtype; ``float64`` / ``float32`` repeat a model's own arithmetic instead (frequency,
angle, cos and sin each rounded to that dtype, as torch does). Forms: ``full`` (the rotated
width, each value on both channels of its pair), ``half`` (one column per pair: GPT-J, gpt-oss,
FLUX-style), ``complex`` (``cos + i·sin``, Meta / Mistral ``freqs_cis``), ``matrix`` (BFL's 2×2
rotation ``[[cos, −sin], [sin, cos]]`` per pair). Pure NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

from .. import direct
from ..dtypes import HALF_DTYPES, round_once
from ..errors import ParameterError
from ..rope.forms import FORMS, FormTable, check_form, form_table, reform
from ..rules import check_table_dtype
from ..turns import fill_turns
from .dit_ids import SequenceIds
from .ids import ArrayIds, GridIds, check_ids, torch_linspace
from .plan import AxisPlan, channel_pairs, plan_frequencies, plan_turn_rates

IdSource = GridIds | ArrayIds | SequenceIds

__all__ = [
    "ARITHMETICS",
    "FORMS",
    "AxesSpec",
    "axes_cache",
    "axes_cache_blocks",
    "axes_metadata",
    "axes_table",
    "model_frequencies",
]

#: ``exact`` (rounded once) or a model's own compute dtype.
ARITHMETICS = ("exact", "float64", "float32")
#: Values per block of the streamed cache.
BLOCK_CELLS = 1 << 19


def model_frequencies(plan: AxisPlan, dtype: DTypeLike) -> np.ndarray:
    """``1.0 / θ ** (arange(0, D, 2)/D)`` as torch computes it in ``dtype``, per pair.

    The exponent ``2k/D`` is rounded to ``dtype``, the power is rounded once from float64 (torch's
    CPU ``pow`` is within 1 ulp of that), then the reciprocal in ``dtype``.

    Examples
    --------
    >>> from .plan import per_axis
    >>> model_frequencies(per_axis([4], theta=100.0, axes=("x",)), np.float32)
    array([1. , 0.1], dtype=float32)

    """
    f = np.dtype(dtype).type
    if plan.schedule == "ladder-float32":  # LTX-Video: float32 linspace, pow, × π, / 2
        return ladder_float32(plan).astype(f)
    if plan.schedule != "inverse" or 0 in plan.denominator:  # LTX-2: the float64 ladder, cast
        return plan_frequencies(plan)[0].astype(f)
    k = np.array(plan.index, dtype=f)
    x = (f(2) * k) / np.array(plan.denominator, dtype=f)
    power = np.power(np.array(plan.theta), x.astype(np.float64)).astype(f)
    inv: np.ndarray = (f(1) / power).astype(f)
    return inv


def ladder_float32(plan: AxisPlan) -> np.ndarray:
    """LTX-Video's ladder as it computes it: ``θ ** linspace(0, 1, n)`` in float32, ``× π / 2``.

    diffusers ``transformer_ltx.py`` ``LTXVideoRotaryPosEmbed.forward``; padding pairs 0.

    >>> from .ladder import ladder_plan
    >>> ladder_float32(ladder_plan(2048, ladder="float32"))[:3].tolist()
    [0.0, 1.5707963705062866, 1.5707963705062866]

    """
    f = np.float32
    n = max(plan.denominator) + 1
    x = torch_linspace(0.0, 1.0, n).astype(f)
    phi = (np.power(np.float64(plan.theta[0]), x.astype(np.float64)).astype(f) * f(math.pi)) / f(2)
    k = np.array(plan.index)
    return np.where(np.array(plan.denominator) == 0, f(0), phi.astype(f)[k]).astype(f)


def _source(plan: AxisPlan, ids: IdSource | np.ndarray) -> IdSource:
    if isinstance(ids, np.ndarray | list | tuple):
        return check_ids(np.asarray(ids), len(plan.axes))
    if ids.axes != len(plan.axes):
        rule = f"must have one column per axis ({len(plan.axes)})"
        raise ParameterError("ids", rule, f"{ids.axes} columns")
    return ids


@dataclass(frozen=True, eq=False)
class AxesSpec:
    """One multi-axis cache: the plan, the tokens' ids, the form, part, dtype and arithmetic.

    Every cache function takes one (:func:`axes_cache_blocks`, :func:`axes_cache`,
    :func:`axes_table`), checked when it is made (``ids`` then an id source, ``dtype`` a
    :class:`numpy.dtype`).

    Attributes
    ----------
    plan : AxisPlan
        The channel → axis map and frequencies.
    ids : numpy.ndarray or id source
        Shape ``(tokens, len(plan.axes))``: each token's position on each axis; or a
        :class:`~.ids.GridIds` / :class:`~.ids.ArrayIds`, whose rows are made a block at a time.
    form : str
        One of :data:`FORMS`.
    part : str
        ``both`` (cos columns then sin columns), ``cos`` or ``sin``; ``complex`` and
        ``matrix`` hold both.
    dtype : numpy.dtype
        float32, float64, float16 or bfloat16; ``complex``: float32 gives complex64, float64
        complex128.
    arithmetic : str
        One of :data:`ARITHMETICS`.
    rows : int, optional
        Rows per block (default: about half a million values).

    Raises
    ------
    ParameterError
        Ids of the wrong shape or not finite; an unknown form, part or arithmetic; a dtype
        the form cannot hold.

    """

    plan: AxisPlan
    ids: IdSource | np.ndarray
    form: str = "full"
    part: str = "both"
    dtype: DTypeLike = np.float32
    arithmetic: str = "exact"
    rows: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", _source(self.plan, self.ids))
        stored = _check_form(self.form, self.part, self.dtype, self.arithmetic)
        object.__setattr__(self, "dtype", stored)

    @property
    def source(self) -> IdSource:
        """The ids, as an id source."""
        return _source(self.plan, self.ids)  # already one: __post_init__ made it


def axes_cache_blocks(spec: AxesSpec) -> Iterator[np.ndarray]:
    """The cache in row blocks, for streaming.

    Yields
    ------
    numpy.ndarray
        ``full``: ``(m, rotary_dim·parts)``; ``half``: ``(m, h·parts)``; ``complex``:
        ``(m, h)``; ``matrix``: ``(m, h, 2, 2)``.

    """
    step = spec.rows or max(1, BLOCK_CELLS // spec.plan.rotary_dim)
    stored = np.dtype(spec.dtype)
    return _blocks(spec.plan, spec.source, spec.form, spec.part, stored, spec.arithmetic, step)


def axes_table(spec: AxesSpec) -> FormTable:
    """The cache as a writer takes it: shape, dtype, columns, tensors and row blocks.

    Examples
    --------
    >>> from .plan import per_axis
    >>> spec = AxesSpec(per_axis([2, 2], theta=100.0, axes=("h", "w")), np.zeros((3, 2)))
    >>> table = axes_table(spec)
    >>> table.shape, table.columns[:3], table.tensors
    ((3, 8), ['cos_0', 'cos_1', 'cos_2'], ('cos', 'sin'))

    """

    def make(part: str) -> Iterator[np.ndarray]:
        return axes_cache_blocks(dataclasses.replace(spec, part=part))

    n, h, stored = spec.source.n, spec.plan.pairs, np.dtype(spec.dtype)
    return form_table(make, n=n, h=h, form=spec.form, part=spec.part, stored=stored)


def axes_metadata(spec: AxesSpec, *, preset: str, version: str) -> dict[str, str]:
    """What a ``.safetensors`` cache is: the preset, the channel → axis map, θ, k/D, the form.

    >>> from .plan import per_axis
    >>> spec = AxesSpec(per_axis([2, 2], theta=100.0, axes=("h", "w")), np.zeros((3, 2)))
    >>> meta = axes_metadata(spec, preset="", version="0.1.0")
    >>> meta["channel_axis"], meta["theta"], meta["dtype"]
    ('HW', '[100.0, 100.0]', 'float32')

    """
    plan = spec.plan
    return {
        "pecli": version,
        "kind": "multi-axis rotary cache",
        "preset": preset,
        "axes": ",".join(plan.axes),
        "channel_axis": plan.strip(),
        "theta": json.dumps(list(plan.theta)),
        "index": json.dumps(list(plan.index)),
        "denominator": json.dumps(list(plan.denominator)),
        "layout": plan.layout,
        "form": spec.form,
        "arithmetic": spec.arithmetic,
        "dtype": np.dtype(spec.dtype).name,
    }


def _check_form(form: str, part: str, dtype: DTypeLike, arithmetic: str) -> np.dtype:
    if arithmetic not in ARITHMETICS:
        raise ParameterError("arithmetic", f"must be one of {', '.join(ARITHMETICS)}", arithmetic)
    if part not in ("both", "cos", "sin"):
        raise ParameterError("part", "must be both, cos or sin", part)
    stored = check_table_dtype(dtype)
    check_form(form, part, stored)
    return stored


def _blocks(
    plan: AxisPlan,
    ids: IdSource,
    form: str,
    part: str,
    stored: np.dtype,
    arithmetic: str,
    step: int,
) -> Iterator[np.ndarray]:
    for row in range(0, ids.n, step):
        block = ids.rows(row, min(row + step, ids.n))
        if arithmetic == "exact" and form == "full":
            yield _exact_full(plan, block, part, stored)
            continue
        if arithmetic == "exact":
            cos, sin = _exact_pairs(plan, block, stored)
        else:
            cos, sin = _model_pairs(plan, block, np.dtype(arithmetic))
        yield _shape(plan, cos, sin, form, part, stored)


def _exact_pairs(
    plan: AxisPlan, ids: np.ndarray, stored: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    """Cos and sin ``(m, h)`` of the exact angles, as float64 holding values of ``stored``.

    Each value is rounded to ``stored`` under the certificate (docs/exactness.md), so the
    form's own rounding to ``stored`` leaves it as it is; float64: within the direct
    kernel's bound. Each axis's distinct positions are evaluated once (a grid's block repeats
    a few rows and columns thousands of times) and gathered: the same bits as one evaluation
    per token.
    """
    axis = np.array(plan.axis)
    cos = np.empty((ids.shape[0], plan.pairs))
    sin = np.empty_like(cos)
    for a in range(len(plan.axes)):
        cols = np.flatnonzero(axis == a)
        if cols.size:
            where, back = np.unique(ids[:, a], return_inverse=True)
            s, c = _axis_sin_cos(plan, where, cols, stored)
            cos[:, cols], sin[:, cols] = c[back], s[back]  # exact in float64
    return cos, sin


def _exact_full(plan: AxisPlan, ids: np.ndarray, part: str, stored: np.dtype) -> np.ndarray:
    """:func:`_exact_pairs` then :func:`_shape` (``full``), without the per-token float64 pairs.

    Each axis's distinct positions' cos and sin are rounded to ``stored`` under the
    certificate (the kernel writes ``stored``) and gathered per token straight into the
    channels: the same bits.
    """
    axis, (first, second) = np.array(plan.axis), channel_pairs(plan)
    names, width = ("cos", "sin") if part == "both" else (part,), plan.rotary_dim
    out = np.empty((ids.shape[0], width * len(names)), dtype=stored)
    for a in range(len(plan.axes)):
        cols = np.flatnonzero(axis == a)
        if cols.size:
            where, back = np.unique(ids[:, a], return_inverse=True)
            s, c = _axis_sin_cos(plan, where, cols, stored)
            channels = np.concatenate([first[cols], second[cols]])
            order = np.argsort(channels, kind="stable")
            for k, name in enumerate(names):
                small = c if name == "cos" else s
                values = np.concatenate([small, small], axis=1)[:, order][back.reshape(-1)]
                _spread(out[:, k * width : (k + 1) * width], channels[order], values)
    return out


def _axis_sin_cos(
    plan: AxisPlan, where: np.ndarray, cols: np.ndarray, stored: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    """Sin and cos ``(len(where), len(cols))`` of one axis's positions, in ``stored``, certified.

    Pairs at a rational number of half turns (a ladder's ``π/2``) are exact at whole quarter
    turns (:func:`pecli.core.turns.fill_turns`), the others from the direct kernel.
    """
    omega, residual = plan_frequencies(plan)
    rates = plan_turn_rates(plan)
    s, c = (np.empty((where.size, cols.size), dtype=stored) for _ in "sc")
    plain = np.flatnonzero([int(j) not in rates for j in cols])
    if plain.size == cols.size:
        direct.fill_sin_cos_direct(s, c, where, omega[cols], residual[cols], workers=1)
        return s, c
    if plain.size:
        ps, pc = (np.empty((where.size, plain.size), dtype=stored) for _ in "sc")
        picked = cols[plain]
        direct.fill_sin_cos_direct(ps, pc, where, omega[picked], residual[picked], workers=1)
        s[:, plain], c[:, plain] = ps, pc
    for i in np.flatnonzero([int(j) in rates for j in cols]):
        j = int(cols[i])
        fill_turns((s[:, i], c[:, i]), where, rates[j], (float(omega[j]), float(residual[j])))
    return s, c


def _spread(out: np.ndarray, channels: np.ndarray, values: np.ndarray) -> None:
    """``out[:, channels] = values`` for sorted ``channels``, one slice per contiguous run."""
    starts = np.r_[0, np.flatnonzero(np.diff(channels) != 1) + 1, channels.size]
    for i0, i1 in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        out[:, channels[i0] : channels[i0] + i1 - i0] = values[:, i0:i1]


def _model_pairs(plan: AxisPlan, ids: np.ndarray, model: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Cos and sin ``(m, h)`` with every step rounded to the model's dtype."""
    inv = model_frequencies(plan, model)
    positions = ids[:, np.array(plan.axis)].astype(model)
    angles = (positions * inv[None, :]).astype(model).astype(np.float64)
    return np.cos(angles).astype(model), np.sin(angles).astype(model)


def _shape(
    plan: AxisPlan, cos: np.ndarray, sin: np.ndarray, form: str, part: str, stored: np.dtype
) -> np.ndarray:
    """One block in the form, rounded once to ``stored``."""
    if form != "full":
        return reform(cos, sin, form, part, stored)
    names = ("cos", "sin") if part == "both" else (part,)
    chosen = [cos if name == "cos" else sin for name in names]
    width, half = plan.rotary_dim, stored.name in HALF_DTYPES
    out = np.empty((cos.shape[0], width * len(chosen)), dtype=np.float64 if half else stored)
    for k, values in enumerate(chosen):  # assigned float64 → stored: each value rounded once
        part_out = out[:, k * width : (k + 1) * width]
        for (a, b), (j0, j1) in _runs(plan):
            part_out[:, a] = part_out[:, b] = values[:, j0:j1]
    return round_once(out, stored) if half else out


def _runs(plan: AxisPlan) -> list[tuple[tuple[slice, slice], tuple[int, int]]]:
    """Channel slices ``(first, second)`` of runs of pairs ``j0 … j1−1`` (the layout's rule)."""
    h = plan.pairs
    if plan.layout == "interleaved":
        return [((slice(0, 2 * h, 2), slice(1, 2 * h, 2)), (0, h))]
    if plan.layout == "half-split":
        return [((slice(0, h), slice(h, 2 * h)), (0, h))]
    first, second = channel_pairs(plan)
    runs, j0 = [], 0
    while j0 < h:  # half-split inside each axis's block: contiguous channel runs per block
        j1 = j0 + 1
        while j1 < h and plan.axis[j1] == plan.axis[j0]:
            j1 += 1
        a, b = int(first[j0]), int(second[j0])
        runs.append(((slice(a, a + j1 - j0), slice(b, b + j1 - j0)), (j0, j1)))
        j0 = j1
    return runs


def axes_cache(spec: AxesSpec) -> np.ndarray:
    """The whole cache at once (:func:`axes_cache_blocks` concatenated).

    Examples
    --------
    >>> from .plan import per_axis
    >>> plan = per_axis([2, 2], theta=100.0, axes=("h", "w"))
    >>> axes_cache(AxesSpec(plan, np.array([[1.0, 2.0]]), form="half", dtype="float64")).round(6)
    array([[ 0.540302, -0.416147,  0.841471,  0.909297]])

    """
    return np.concatenate(list(axes_cache_blocks(spec)))
