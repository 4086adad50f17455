"""A preset with overrides, or a plan of one's own; and the ids of its tokens.

A preset's θ and layout may be overridden (to rebuild a port's mistake, or a ComfyUI per-axis
NTK θ), its widths not (they are the model). Without a preset, ``widths`` and ``theta`` make a
per-axis plan. The ids come from explicit ``ids``, a preset's grid (and text tokens), a Qwen-VL
token layout, or a plain grid. Rules name the other parameters they mention in backquotes.
Pure; no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..rope.number_rules import check_theta
from .dit_ids import SequenceIds
from .ids import ArrayIds, GridIds, check_grid, check_ids, check_text
from .mrope_presets import MROPE_PRESETS, MropePreset, readers
from .omni import OMNI_PRESETS
from .plan import AxisPlan, check_layout, per_axis
from .presets import AXIS_PRESETS, AxisPreset, axis_preset, check_head
from .vl_presets import VL_PRESETS

Preset = AxisPreset | MropePreset
IdSource = GridIds | ArrayIds | SequenceIds

__all__ = [
    "PRESETS",
    "any_preset",
    "axes_for",
    "check_id_options",
    "distinct_presets",
    "latent_grid",
    "plan_columns",
    "plan_data",
    "preset_columns",
    "resolve_ids",
    "resolve_plan",
]

#: Every preset by name: the image and video models, then Qwen-VL's M-RoPE and the other VLs'.
TEXT_PRESETS: dict[str, MropePreset] = {**MROPE_PRESETS, **VL_PRESETS, **OMNI_PRESETS}
PRESETS: dict[str, Preset] = {**AXIS_PRESETS, **TEXT_PRESETS}


def axes_for(count: int) -> tuple[str, ...]:
    """Axis names of a plan of one's own: t, h, w for 3; x, y for 2; a0, a1, … otherwise."""
    return {1: ("p",), 2: ("y", "x"), 3: ("t", "h", "w")}.get(
        count, tuple(f"a{i}" for i in range(count))
    )


def distinct_presets(scaled: bool = False) -> list[str]:
    """The presets whose caches are their own (not another's under a second name).

    ``scaled``: the presets whose positions take a scale (their caches are then their own).

    >>> "skyreels-v2" in distinct_presets(), "wan" in distinct_presets()
    (False, True)
    >>> distinct_presets(scaled=True)
    ['kandinsky5']

    """
    if scaled:
        return [name for name, p in PRESETS.items() if getattr(p, "scale_factor", False)]
    return [name for name, p in PRESETS.items() if not getattr(p, "cache_of", "")]


def any_preset(name: str) -> Preset:
    """A grid preset (:data:`.presets.AXIS_PRESETS`) or a Qwen-VL M-RoPE one, by name.

    >>> any_preset("Qwen2.5-VL").section
    (16, 24, 24)

    """
    key = str(name).strip().lower()
    if key in TEXT_PRESETS:
        return TEXT_PRESETS[key]
    try:
        return axis_preset(key)
    except ParameterError:
        raise ParameterError("preset", f"must be one of {', '.join(PRESETS)}", name) from None


def resolve_plan(
    preset: str | Preset | None,
    *,
    head_dim: int | None = None,
    widths: Sequence[int] | None = None,
    theta: float | Sequence[float] | None = None,
    layout: str | None = None,
    rope_scale: Sequence[float] | None = None,
) -> tuple[AxisPlan, Preset | None]:
    """The plan of a preset (θ and layout overridable) or of ``widths`` and ``theta``.

    ``preset``: a name of :data:`PRESETS`, or a preset record (one a config describes).

    ``theta``: one θ, or one per axis; each under the rule of every θ
    (:func:`pecli.core.rope.number_rules.check_theta`). ``rope_scale``: Cosmos' NTK scale per
    axis (θ_a = 10000 · s_a^(w_a/(w_a − 2))), for a preset that takes one.

    Examples
    --------
    >>> plan, _ = resolve_plan(None, widths=(4, 8), theta=100.0)
    >>> plan.strip(), plan.layout
    ('YYXXXX', 'interleaved')
    >>> resolve_plan("wan", theta=(1e4, 2e4, 2e4))[0].theta[-1]
    20000.0

    """
    thetas = None if theta is None else tuple(np.atleast_1d(theta).tolist())
    if preset is None and rope_scale is not None:
        raise ParameterError("rope_scale", "goes with `preset` cosmos only", rope_scale)
    if preset is None:
        if widths is None or thetas is None:
            given = "widths" if widths is not None else "theta" if thetas is not None else None
            missing = f"`{given}` without `{'theta' if widths is not None else 'widths'}`"
            rule = "must be given, or `widths` and `theta`"
            raise ParameterError("preset", rule, missing if given else "neither")
        made = per_axis(
            widths,
            theta=thetas[0] if len(thetas) == 1 else thetas,
            axes=axes_for(len(widths)),
            layout="interleaved" if layout is None else layout,
        )
        return made, None
    if widths is not None:
        rule = "goes without `preset` (a preset's widths are its model)"
        raise ParameterError("widths", rule, ",".join(str(w) for w in widths))
    chosen = preset if isinstance(preset, AxisPreset | MropePreset) else any_preset(preset)
    if rope_scale is not None and not isinstance(chosen, AxisPreset):
        raise ParameterError("rope_scale", "goes with `preset` cosmos only", rope_scale)
    if isinstance(chosen, AxisPreset):
        plan = chosen.plan(head_dim, rope_scale)
    else:
        plan = chosen.plan(head_dim)
    if thetas is not None:
        plan = _with_theta(plan, thetas)
    if layout is None:  # an empty one is refused by check_layout, as a misspelt one is
        return plan, chosen
    return dataclasses.replace(plan, layout=check_layout(layout)), chosen


def _with_theta(plan: AxisPlan, thetas: tuple[Any, ...]) -> AxisPlan:
    if len(thetas) not in (1, len(plan.axes)):
        raise ParameterError("theta", f"must be one number or {len(plan.axes)}", thetas)
    per = [check_theta(value) for value in thetas * (len(plan.axes) // len(thetas))]
    return dataclasses.replace(plan, theta=tuple(per[a] for a in plan.axis))


def resolve_ids(
    plan: AxisPlan,
    preset: Preset | None,
    *,
    grid: Sequence[int] | None,
    text: int,
    ids: np.ndarray | None,
    tokens: str | None = None,
    fps: float | None = None,
    patch: Sequence[int] | str | None = None,
    scale_factor: Sequence[float] | None = None,
    **rules: Any,
) -> IdSource:
    """The ids: explicit ``ids``, a preset's ``grid`` (and ``text``), ``tokens``, or a grid.

    ``tokens`` is the layout of an M-RoPE preset (``rules``: ``release``, ``tokens_per_second``,
    ``spatial_merge_size``); without a preset, ``grid`` gives a plain row-major grid. With
    ``patch`` (sizes, or ``"model"``: the preset's), ``grid`` is the latent's size
    (:func:`latent_grid`); ``scale_factor`` divides the grid's positions (Kandinsky 5).

    >>> plan, preset = resolve_plan("flux")
    >>> resolve_ids(plan, preset, grid=(2, 3), text=1, ids=None).n
    7
    """
    _one_source(grid, tokens, ids, text)
    for name, value in (("patch", patch), ("scale_factor", scale_factor)):
        if value is not None and grid is None:
            raise ParameterError(name, "goes with `grid` (the latent's size)", value)
    _check_layout_rules(tokens, rules)
    if ids is not None:
        if isinstance(preset, MropePreset) and ids.ndim == 2 and ids.shape[0] == 3 != ids.shape[1]:
            ids = ids.T  # transformers' (3, seq): rows t, h, w
        return check_ids(ids, len(plan.axes))
    if fps is not None and not isinstance(preset, AxisPreset):
        raise ParameterError("fps", "goes with `preset` cosmos only", fps)
    if isinstance(preset, MropePreset):
        if tokens is None or text:
            shown = None if grid is None else "x".join(str(g) for g in grid)
            raise ParameterError("tokens", "must describe the sequence (M-RoPE has no grid)", shown)
        return preset.token_ids(tokens, **{k: v for k, v in rules.items() if v is not None})[0]
    if tokens is not None:
        raise ParameterError("tokens", "goes with a Qwen-VL preset only", tokens)
    if grid is None:
        raise ParameterError("grid", "must be given, or `ids`", "neither")
    if patch is not None:
        grid = latent_grid(grid, preset, None if isinstance(patch, str) else tuple(patch))
    if preset is not None:
        return preset.id_source(grid, text, fps, scale_factor)
    if scale_factor is not None:
        raise ParameterError("scale_factor", "goes with `preset` kandinsky5 only", scale_factor)
    if text:
        raise ParameterError("text", "needs a `preset` (which says where text tokens go)", text)
    sizes = check_grid(grid, len(plan.axes))
    return GridIds(sizes, axes=len(sizes), columns=tuple(range(len(sizes))))


def latent_grid(
    latent: Sequence[int], preset: Preset | None, patch: Sequence[int] | None
) -> tuple[int, ...]:
    """The grid of patches of a latent: ``latent // patch`` per dimension.

    ``patch`` defaults to the preset's (Wan ``1×2×2``, CogVideoX 1.5 ``2×2×2``). A latent size
    that is not a multiple of its patch is refused (the models floor it, dropping cells, or pad
    it first, as CogVideoX 1.5's pipeline pads frames: give the padded size).

    Raises
    ------
    ParameterError
        (as ``patch``) no patch known, one of the wrong length or < 1, a size not a multiple.

    Examples
    --------
    >>> latent_grid((21, 60, 104), None, (1, 2, 2))
    (21, 30, 52)

    """
    own = preset.patch if isinstance(preset, AxisPreset) else None
    sizes = tuple(patch) if patch is not None else own
    if sizes is None:
        raise ParameterError("patch", "must be given as sizes (this preset has no patch)", "model")
    shown = _check_patch(sizes, len(latent))
    if any(g % s for g, s in zip(latent, sizes, strict=True)):
        seen = "x".join(str(g) for g in latent)
        raise ParameterError("patch", f"must divide the latent size {seen} (patch {shown})", shown)
    return tuple(g // s for g, s in zip(latent, sizes, strict=True))


def _one_source(grid: object, tokens: object, ids: object, text: int) -> None:
    """Refuse a second source of ids: ``grid``, ``tokens`` and ``ids`` (with ``text``)."""
    given = [
        name
        for name, value in (("grid", grid), ("tokens", tokens), ("ids", ids))
        if value is not None
    ]
    if len(given) > 1 or (ids is not None and text):
        given = given if len(given) > 1 else ["text", "ids"]
        raise ParameterError(given[-1], f"goes without `{given[0]}` (give one of them)", "both")


def check_id_options(
    *,
    head_dim: int | None,
    grid: Sequence[int] | None,
    text: int,
    ids: np.ndarray | None = None,
    tokens: str | None = None,
    fps: float | None = None,
    tokens_per_second: int | None = None,
    release: str | None = None,
    spatial_merge_size: int | None = None,
    patch: Sequence[int] | str | None = None,
    scale_factor: Sequence[float] | None = None,
    **_: Any,
) -> None:
    """The rules of the ids' options that hold whatever the preset, checked before any is tried.

    Identifying a cache tries every preset; a value none could take (``text`` -3, a grid size
    0, ``fps`` 0) is named by this check instead of "fits no preset".

    >>> check_id_options(head_dim=None, grid=(4, 4), text=-3)
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: text must be an integer from 0 to 2^40 (got -3)

    """
    _one_source(grid, tokens, ids, text)  # before any preset is tried: not "fits no preset"
    if head_dim is not None and check_head(head_dim) % 2:
        raise ParameterError("head_dim", "must be even (rotary pairs)", head_dim)
    if grid is not None:
        check_grid(grid, len(grid))
    check_text(text)
    if fps is not None and not 0 < fps < float("inf"):
        raise ParameterError("fps", "must be a number > 0 (video frames at base_fps/fps)", fps)
    if tokens is not None:
        _check_tokens(tokens)
    for name, value in (
        ("tokens_per_second", tokens_per_second),
        ("spatial_merge_size", spatial_merge_size),
    ):
        if value is not None and not 1 <= value <= 1 << 20:
            raise ParameterError(name, "must be an integer from 1 to 2^20", value)
    knobs = {"tokens_per_second": tokens_per_second, "release": release}
    _check_layout_rules(tokens, {**knobs, "spatial_merge_size": spatial_merge_size})
    if grid is not None and patch is not None and not isinstance(patch, str):
        _check_patch(tuple(patch), len(grid))
    if grid is not None and scale_factor is not None:
        values = tuple(float(s) for s in scale_factor)
        if len(values) != len(grid) or not all(0 < s < float("inf") for s in values):
            rule = f"must be {len(grid)} numbers > 0 (one per grid dimension)"
            raise ParameterError("scale_factor", rule, ",".join(f"{s:g}" for s in values))


def _check_patch(sizes: tuple[int, ...], dims: int) -> str:
    """``sizes`` as shown (``1x2x2``); refused unless ``dims`` sizes >= 1."""
    shown = "x".join(str(s) for s in sizes)
    if len(sizes) != dims or not all(isinstance(s, int) and s >= 1 for s in sizes):
        raise ParameterError("patch", f"must be {dims} sizes >= 1, one per grid size", shown)
    return shown


def _check_layout_rules(tokens: str | None, rules: dict[str, Any]) -> None:
    """``release`` and ``tokens_per_second`` are a token layout's: without ``tokens``, refused."""
    if tokens is not None:
        return
    if rules.get("tokens_per_second") is not None:
        rule = f"goes with `tokens` and {readers('tokens_per_second')} only (its video times)"
        raise ParameterError("tokens_per_second", rule, rules["tokens_per_second"])
    for name in ("release", "spatial_merge_size"):
        if rules.get(name) is not None:
            rule = "goes with `tokens` only (whose get_rope_index places a Qwen-VL layout)"
            raise ParameterError(name, rule, rules[name])


def _check_tokens(tokens: str) -> None:
    """A layout some M-RoPE preset reads: Qwen-VL's words, or the Omni ones (``audio:MEL``)."""
    from .mrope import parse_tokens
    from .omni import parse_omni

    try:
        parse_tokens(tokens)
    except ParameterError:
        try:
            parse_omni(tokens)
        except ParameterError:
            parse_tokens(tokens)  # Qwen-VL's rule names the word


def plan_columns(plan: AxisPlan) -> dict[str, np.ndarray]:
    """One row per pair: its channels, axis, ``k``, ``D``, θ, ω and wavelength ``λ = 2π/ω``.

    Examples
    --------
    >>> cols = plan_columns(per_axis([2, 4], theta=100.0, axes=("x", "y")))
    >>> cols["axis"].tolist(), cols["inv_freq"].tolist()
    (['x', 'y', 'y'], [1.0, 1.0, 0.1])

    """
    from .plan import channel_pairs, plan_frequencies

    omega = plan_frequencies(plan)[0]
    first, second = channel_pairs(plan)
    return {
        "pair": np.arange(plan.pairs),
        "channel_a": first,
        "channel_b": second,
        "axis": np.array(
            [plan.axes[a] if d else "-" for a, d in zip(plan.axis, plan.denominator, strict=True)]
        ),
        "k": np.array(plan.index),
        "D": np.array(plan.denominator),
        "theta": np.array(plan.theta),
        "inv_freq": omega,
        "wavelength": np.divide(2 * np.pi, omega, out=np.full_like(omega, np.inf), where=omega > 0),
    }


def plan_data(plan: AxisPlan) -> tuple[np.ndarray, list[str]]:
    """The pairs' table as numbers (pair, axis as its index, k, D, ω, λ) and its column names.

    A padding pair (``D = 0``, LTX's) has axis −1.

    >>> table, names = plan_data(per_axis([2, 4], theta=100.0, axes=("x", "y")))
    >>> names, table[:, 1].tolist()
    (['pair', 'axis', 'k', 'D', 'inv_freq', 'wavelength'], [0.0, 1.0, 1.0])
    """
    columns = plan_columns(plan)
    names = ["pair", "axis", "k", "D", "inv_freq", "wavelength"]
    axis = np.where(np.array(plan.denominator) == 0, -1, np.array(plan.axis))
    values = {**columns, "axis": axis}
    return np.column_stack([values[name] for name in names]), names


def preset_columns() -> dict[str, np.ndarray]:
    """One row per preset (:data:`PRESETS`): name, head, grid, dtype, what it is, source."""
    rows = list(PRESETS.values())
    return {
        "preset": np.array([p.name for p in rows]),
        "head_dim": np.array([p.head_dim for p in rows]),
        "grid": np.array([p.grid for p in rows]),
        "dtype": np.array([p.dtype for p in rows]),
        "what": np.array([p.title for p in rows]),
        "source": np.array([p.source for p in rows]),
    }
