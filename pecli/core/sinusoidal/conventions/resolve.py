"""One preset, with explicit knobs applied: :func:`convention`.

An explicit knob always applies, and a preset changed by it is named ``custom``; two options
that set the same knob (``--layout`` and diffusers' ``--flip-sin-to-cos``, ``--schedule`` and
``--downscale-freq-shift``) are a usage error rather than one silently winning.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...errors import ParameterError
from ...rules import SCHEDULES, check_layout, check_schedule, number_text, schedule_name
from ..knobs import check_amplitude, check_angle_scale, check_odd_d
from .presets import ALIASES, PRESETS, Convention

__all__ = ["convention"]


def convention(
    name: str = "vaswani",
    *,
    flip_sin_to_cos: bool | None = None,
    downscale_freq_shift: float | None = None,
    **knobs: Any,
) -> Convention:
    """A preset (or an alias of one), with diffusers' two knobs and any other knob applied.

    Parameters
    ----------
    name : str
        One of :data:`PRESETS` or :data:`ALIASES`.
    flip_sin_to_cos, downscale_freq_shift : keyword-only
        diffusers' ``get_timestep_embedding`` arguments (cosines first; the shift ``s``);
        only with ``name="diffusers"``.
    **knobs : keyword-only
        ``schedule``, ``layout``, ``start``, ``padding_idx``, ``odd_d``, ``angle_scale``,
        ``full_turns``, ``amplitude``: override the preset's value when given (not None).

    Returns
    -------
    Convention
        Named ``custom`` when a knob changes the preset.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an unknown name or knob, a diffusers knob on another preset,
        a diffusers knob together with the knob it sets (``layout``, ``schedule``), or an
        invalid value.

    Examples
    --------
    >>> convention("diffusers", flip_sin_to_cos=True, downscale_freq_shift=0).layout
    'cos-sin'
    >>> convention("stable-diffusion").name, convention("pytorch", odd_d="sine").name
    ('ldm', 'custom')

    """
    chosen = _preset(name)
    changes = {knob: _checked(knob, value) for knob, value in knobs.items() if value is not None}
    for knob, value, sets in (
        ("flip_sin_to_cos", flip_sin_to_cos, "layout"),
        ("downscale_freq_shift", downscale_freq_shift, "schedule"),
    ):
        if value is None:
            continue
        if chosen.name != "diffusers":
            raise ParameterError(knob, "applies only to `convention` diffusers", value)
        if sets in changes:
            raise ParameterError(knob, f"sets the {sets}: give it or `{sets}`, not both", value)
        update: dict[str, Any] = {sets: _diffusers(knob, value)}
        chosen = dataclasses.replace(chosen, **update)
    if any(getattr(chosen, knob) != value for knob, value in changes.items()):
        changes["name"] = "custom"
    return dataclasses.replace(chosen, **changes)


def _preset(name: str) -> Convention:
    if name in ALIASES:
        return PRESETS[ALIASES[name]]
    if name not in PRESETS:
        raise ParameterError("convention", f"must be one of {', '.join(PRESETS)}", name)
    return PRESETS[name]


def _diffusers(knob: str, value: object) -> str:
    if knob == "flip_sin_to_cos":
        return "cos-sin" if value else "sin-cos"
    number = None if isinstance(value, str) else value  # a number, not a schedule's name
    try:  # any finite shift S (check_schedule takes a number as S); d // 2 - S > 0 is d's rule
        shift = check_schedule(number)
    except ParameterError:
        raise ParameterError("downscale_freq_shift", "must be a finite number", value) from None
    # S = 1 stays shift:1, not tensor2tensor: diffusers divides by d // 2 - S with no guard
    return (
        f"shift:{number_text(shift)}"
        if shift == SCHEDULES["tensor2tensor"]
        else schedule_name(shift)
    )


def _checked(knob: str, value: Any) -> Any:
    """A knob's value in the form :class:`Convention` keeps, checked now."""
    checks: dict[str, Any] = {
        "schedule": lambda v: schedule_name(check_schedule(v)),
        "layout": check_layout,
        "start": lambda v: v,
        "padding_idx": lambda v: v,
        "odd_d": check_odd_d,
        "angle_scale": lambda v: check_angle_scale(v)[0],
        "full_turns": bool,
        "amplitude": lambda v: v if check_amplitude(v, 2) and v == "sqrt(2/d)" else float(v),
    }
    if knob not in checks:
        raise ParameterError("knob", f"must be one of {', '.join(checks)}", knob)
    return checks[knob](value)
