"""From the words a user types to a plan and ids: a preset with overrides, or a plan of one's own.

``--grid 4x6`` / ``4,6``, ``--widths 16,56,56``, ``--theta 10000`` or one θ per axis
``10000,256,256``; a preset's θ and layout may be overridden (to rebuild a port's mistake, or a
ComfyUI per-axis NTK θ), its widths not (they are the model). Pure; no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from ..errors import ParameterError
from .ids import ArrayIds, GridIds, check_grid, check_ids, check_text
from .mrope_presets import MROPE_PRESETS, MropePreset
from .plan import AxisPlan, check_layout, per_axis
from .presets import AXIS_PRESETS, AxisPreset, axis_preset, check_head

Preset = AxisPreset | MropePreset

__all__ = [
    "any_preset",
    "axes_for",
    "check_id_options",
    "parse_numbers",
    "parse_sizes",
    "plan_columns",
    "resolve_ids",
    "resolve_plan",
]


def parse_sizes(text: str, parameter: str) -> tuple[int, ...]:
    """``"4x6"``, ``"4,6"`` or ``"4 6"`` as ``(4, 6)``.

    >>> parse_sizes("3x4x5", "grid")
    (3, 4, 5)

    """
    words = [w for w in re.split(r"[x×,\s]+", str(text).strip().lower()) if w]
    if not words or not all(w.isdigit() for w in words):
        raise ParameterError(parameter, "must be sizes such as 4x6 or 16,56,56", text)
    return tuple(int(w) for w in words)


def parse_numbers(text: str, parameter: str) -> tuple[float, ...]:
    """``"10000"`` or ``"10000,256"`` as floats (finite).

    >>> parse_numbers("1e4, 256", "theta")
    (10000.0, 256.0)

    """
    try:
        values = tuple(float(w) for w in str(text).split(",") if w.strip())
    except ValueError:
        values = ()
    if not values or not all(np.isfinite(values)):
        raise ParameterError(parameter, "must be a number, or one per axis separated by ,", text)
    return values


def axes_for(count: int) -> tuple[str, ...]:
    """Axis names of a plan of one's own: t, h, w for 3; x, y for 2; a0, a1, … otherwise."""
    return {1: ("p",), 2: ("y", "x"), 3: ("t", "h", "w")}.get(
        count, tuple(f"a{i}" for i in range(count))
    )


def any_preset(name: str) -> Preset:
    """A grid preset (:data:`.presets.AXIS_PRESETS`) or a Qwen-VL M-RoPE one, by name.

    >>> any_preset("Qwen2.5-VL").section
    (16, 24, 24)

    """
    key = str(name).strip().lower()
    if key in MROPE_PRESETS:
        return MROPE_PRESETS[key]
    try:
        return axis_preset(key)
    except ParameterError:
        names = ", ".join([*AXIS_PRESETS, *MROPE_PRESETS])
        raise ParameterError("preset", f"must be one of {names}", name) from None


def resolve_plan(
    preset: str | None,
    *,
    head_dim: int | None = None,
    widths: str | None = None,
    theta: str | None = None,
    layout: str | None = None,
) -> tuple[AxisPlan, Preset | None]:
    """The plan of a preset (θ and layout overridable) or of ``widths`` and ``theta``.

    Examples
    --------
    >>> plan, _ = resolve_plan(None, widths="4,8", theta="100")
    >>> plan.strip(), plan.layout
    ('YYXXXX', 'interleaved')

    """
    if preset is None:
        if widths is None or theta is None:
            given = "--widths" if widths is not None else "--theta" if theta is not None else None
            missing = f"{given} without {'--theta' if widths is not None else '--widths'}"
            raise ParameterError(
                "preset", "must be given, or --widths and --theta", missing if given else "neither"
            )
        sizes = parse_sizes(widths, "widths")
        thetas = parse_numbers(theta, "theta")
        made = per_axis(
            sizes,
            theta=thetas[0] if len(thetas) == 1 else thetas,
            axes=axes_for(len(sizes)),
            layout=layout or "interleaved",
        )
        return made, None
    if widths is not None:
        raise ParameterError(
            "widths", "goes without --preset (a preset's widths are its model)", widths
        )
    chosen = any_preset(preset)
    plan = chosen.plan(head_dim)
    if theta is not None:
        thetas = parse_numbers(theta, "theta")
        plan = _with_theta(plan, thetas)
    return (dataclasses.replace(plan, layout=check_layout(layout)) if layout else plan), chosen


def _with_theta(plan: AxisPlan, thetas: tuple[float, ...]) -> AxisPlan:
    if len(thetas) not in (1, len(plan.axes)):
        raise ParameterError("theta", f"must be one number or {len(plan.axes)}", thetas)
    per = thetas * len(plan.axes) if len(thetas) == 1 else thetas
    for value in per:
        if value <= 1:
            raise ParameterError("theta", "must be > 1", value)
    return dataclasses.replace(plan, theta=tuple(float(per[a]) for a in plan.axis))


def resolve_ids(
    plan: AxisPlan,
    preset: Preset | None,
    *,
    grid: str | None,
    text: int,
    ids: np.ndarray | None,
    tokens: str | None = None,
    fps: float | None = None,
    **rules: Any,
) -> GridIds | ArrayIds:
    """The ids: explicit ``ids``, a preset's ``grid`` (and ``text``), ``tokens``, or a grid.

    ``tokens`` is the layout of an M-RoPE preset (``rules``: ``release``, ``tokens_per_second``,
    ``spatial_merge_size``); without a preset, ``grid`` gives a plain row-major grid.
    """
    given = [
        name
        for name, value in (("grid", grid), ("tokens", tokens), ("ids", ids))
        if value is not None
    ]
    if len(given) > 1 or (ids is not None and text):
        raise ParameterError(given[-1], f"goes without --{given[0]} (give one of them)", "both")
    if ids is not None:
        if isinstance(preset, MropePreset) and ids.ndim == 2 and ids.shape[0] == 3 != ids.shape[1]:
            ids = ids.T  # transformers' (3, seq): rows t, h, w
        return check_ids(ids, len(plan.axes))
    if fps is not None and not isinstance(preset, AxisPreset):
        raise ParameterError("fps", "goes with --preset cosmos only", fps)
    if isinstance(preset, MropePreset):
        if tokens is None or text:
            raise ParameterError("tokens", "must describe the sequence (M-RoPE has no grid)", grid)
        return preset.token_ids(tokens, **rules)[0]
    if tokens is not None:
        raise ParameterError("tokens", "goes with a Qwen-VL preset only", tokens)
    if grid is None:
        raise ParameterError("grid", "must be given, or --ids", "neither")
    sizes = parse_sizes(grid, "grid")
    if preset is not None:
        return preset.id_source(sizes, text, fps)
    if text:
        raise ParameterError("text", "needs a --preset (which says where text tokens go)", text)
    sizes = check_grid(sizes, len(plan.axes))
    return GridIds(sizes, axes=len(sizes), columns=tuple(range(len(sizes))))


def check_id_options(
    *,
    head_dim: int | None,
    grid: str | None,
    text: int,
    tokens: str | None = None,
    fps: float | None = None,
    tokens_per_second: int = 2,
    **_: Any,
) -> None:
    """The rules of the ids' options that hold whatever the preset, checked before any is tried.

    ``rope identify-axes`` tries every preset; a value none could take (``--text -3``, a grid
    size 0, ``--fps 0``) is named by this check instead of "fits no preset".

    >>> check_id_options(head_dim=None, grid="4x4", text=-3)
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: text must be an integer from 0 to 2^40 (got -3)

    """
    if head_dim is not None and check_head(head_dim) % 2:
        raise ParameterError("head_dim", "must be even (rotary pairs)", head_dim)
    if grid is not None:
        check_grid(sizes := parse_sizes(grid, "grid"), len(sizes))
    check_text(text)
    if fps is not None and not 0 < fps < float("inf"):
        raise ParameterError("fps", "must be a number > 0 (video frames at base_fps/fps)", fps)
    if tokens is not None:
        from .mrope import parse_tokens

        parse_tokens(tokens)
    if not 1 <= tokens_per_second <= 1 << 20:
        rule = "must be an integer from 1 to 2^20"
        raise ParameterError("tokens_per_second", rule, tokens_per_second)


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
        "axis": np.array([plan.axes[a] for a in plan.axis]),
        "k": np.array(plan.index),
        "D": np.array(plan.denominator),
        "theta": np.array(plan.theta),
        "inv_freq": omega,
        "wavelength": 2 * np.pi / omega,
    }
