"""Which presets build a fitted table, and the ``pecli compute`` command that rebuilds it.

A preset is named when its own table (``encoding_table(**preset.table_kwargs())``, at the fitted
base, start and width) equals the fitted table: whatever presets exist, and whatever their
knobs (layout, schedule, padding row, odd width), are compared by their numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ...core.conventions import PRESETS, Convention, convention
from ...core.encoding import encoding_table
from ...core.errors import ParameterError
from ...core.rules import check_schedule
from .fits import ROUND, round_base, roundness
from .fitting import Fit, Zeros, rebuild

__all__ = ["command", "preset_names"]

#: Rows compared (more when a padding row lies further down).
COMPARE_ROWS = 64
#: diffusers' knobs, as ``pecli compute`` spells them, tried on every preset that takes them.
KNOBS = (
    ("--flip-sin-to-cos", {"flip_sin_to_cos": True}),
    ("--downscale-freq-shift 0", {"downscale_freq_shift": 0}),
)


def _variants() -> Iterator[tuple[str, Convention]]:
    """Every preset, then each with the knobs it accepts (labelled as on the command line)."""
    for name, preset in PRESETS.items():
        yield name, preset
        seen = [preset.table_kwargs()]
        for flags in ([KNOBS[0]], [KNOBS[1]], list(KNOBS)):
            try:
                variant = convention(name, **{k: v for _, kw in flags for k, v in kw.items()})
            except ParameterError:
                continue
            if variant.table_kwargs() not in seen:
                seen.append(variant.table_kwargs())
                yield " ".join([name, *(label for label, _ in flags)]), variant


def _base_for(schedule: str, fit: Fit, h: int) -> tuple[float, str] | None:
    """The base that gives the fitted frequencies under ``schedule``, and an ``(as …)`` note."""
    shift = check_schedule(schedule)
    if schedule == fit.schedule or h <= max(shift, 1):  # d = 2: any base
        return fit.base, ""
    exponent = (h - shift) / (h - check_schedule(fit.schedule))
    base = math.exp(math.log(fit.base) * exponent)
    if roundness(base) > ROUND:
        return None
    base = round_base(base)
    return base, f" (as {schedule}, C = {base:.6g})"


def preset_names(fit: Fit, shape: tuple[int, int], zeros: Zeros) -> list[str]:
    """The presets that build the fitted table ``shape = (n, d)``, with their flags.

    Presets that give it from their own first position come first and alone; when none does,
    those that give it with ``--start`` (a window of their table) are listed with it.
    """
    n, d = shape
    m = min(n, max(COMPARE_ROWS, 1 + max(zeros.padding, default=0)))
    reference = np.concatenate(list(rebuild(fit, (m, d), zeros)))
    own: list[str] = []
    moved: list[str] = []
    for label, preset in _variants():
        base = _base_for(preset.schedule, fit, d // 2)
        if base is None or not _builds(preset, fit, (m, d), base[0], reference):
            continue
        if preset.start == fit.start:
            own.append(label + base[1])
        else:
            moved.append(f"{label} --start {fit.start:.0f}{base[1]}")
    return own or moved


def _builds(
    preset: Convention, fit: Fit, shape: tuple[int, int], base: float, reference: np.ndarray
) -> bool:
    kwargs = {**preset.table_kwargs(), "start": fit.start}
    try:
        table = encoding_table(d=shape[1], n=shape[0], base=base, dtype="float64", **kwargs)
    except ParameterError:  # an odd d it refuses, a padding row beyond the table, …
        return False
    return bool(np.allclose(table, reference, rtol=0, atol=1e-9))


def command(fit: Fit, shape: tuple[int, int], zeros: Zeros, presets: list[str], storage: str) -> str:
    """A ``pecli compute`` command that writes this table (before float16 / bfloat16 rounding).

    Empty when ``compute`` could not take it: a start that is not an integer.
    """
    if not float(fit.start).is_integer():
        return ""
    n, d = shape
    size = f"--d {d} --n {n} --base {fit.base:.10g}"
    if storage == "float64":
        size += " --dtype float64"
    if presets and "(as" not in presets[0]:
        return f"pecli compute --convention {presets[0]} {size}"
    parts = [f"pecli compute {size}"]
    parts.append(f"--start {fit.start:.0f} --layout {fit.layout} --schedule {fit.schedule}")
    if len(zeros.padding) == 1:
        parts.append(f"--padding-idx {zeros.padding[0]}")
    if zeros.odd:
        parts.append("--convention tensor2tensor")
    return " ".join(parts)
