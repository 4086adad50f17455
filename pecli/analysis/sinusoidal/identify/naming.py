"""Which presets build a fitted table, and the ``compute`` arguments that rebuild it.

A preset is named when its own table (``encoding_table(**preset.table_kwargs())``, at the fitted
base, start and width) equals the fitted table: whatever presets exist, and whatever their
knobs (layout, schedule, padding row, odd width), are compared by their numbers. The base the
command gives is the shortest decimal that reproduces the table as well as the fitted one
(:func:`short_base`): ``7321``, not the ``7321.000000000008`` the angles measure.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from ....core.errors import ParameterError
from ....core.rules import BASE_RANGE, number_text
from ....core.sinusoidal.conventions import PRESETS, Convention, convention
from ....core.sinusoidal.encoding import encoding_table
from ....core.sinusoidal.knobs import ODD_SINE
from ...rebuild import Argument, Rebuild, named
from .fits import ROUND, denominator, other_base, round_base, roundness, schedules
from .fitting import Fit, Zeros
from .residuals import RESIDUAL_ROWS, exact_error, rebuild, residual

__all__ = ["PresetReading", "command", "preset_names", "short_base"]

#: Rows compared (more when a padding row lies further down).
COMPARE_ROWS = 64
#: Rows compared first: most presets differ there, and their 64 rows are not built.
PROBE_ROWS = 2
#: Most significant digits of a decimal tried in place of the fitted base (and its integer).
SHORT_DIGITS = 15
#: Rows a shorter base is compared on first, before every row.
SHORT_PROBE = 64
#: diffusers' knobs, tried on every preset that takes them: (argument as written, its value).
KNOBS: tuple[tuple[Argument, Any], ...] = (
    (("flip_sin_to_cos", True), True),
    (("downscale_freq_shift", "0"), 0),
)


def _variants() -> Iterator[tuple[str, tuple[Argument, ...], Convention, Convention]]:
    """Every preset, then each with the knobs it accepts.

    Each as (name, those knobs, convention, the convention ``compute`` builds for them:
    :func:`_as_compute_builds`).
    """
    for name, preset in PRESETS.items():
        yield name, (), preset, _as_compute_builds(name, {})
        seen = [preset.table_kwargs()]
        for flags in ([KNOBS[0]], [KNOBS[1]], list(KNOBS)):
            knobs = {arg[0]: value for arg, value in flags}
            try:
                variant = convention(name, **knobs)
            except ParameterError:
                continue
            if variant.table_kwargs() not in seen:
                seen.append(variant.table_kwargs())
                yield name, tuple(arg for arg, _ in flags), variant, _as_compute_builds(name, knobs)


def _as_compute_builds(name: str, knobs: dict[str, Any]) -> Convention:
    """The convention ``pecli compute --convention name`` with ``knobs`` builds.

    diffusers' ``downscale_freq_shift`` left out is its default, 1, as if typed (the command
    line's rule): at d = 2 and 3 that divides by ``d // 2 - 1 <= 0`` and is refused, where the
    preset's tensor2tensor schedule builds a table. A rebuild command must run.
    """
    if name == "diffusers" and "downscale_freq_shift" not in knobs:
        return convention(name, **knobs, downscale_freq_shift=1.0)
    return convention(name, **knobs)


def _base_for(preset: Convention, fit: Fit, d: int) -> float | None:
    """The base that gives the fitted frequencies under the preset's schedule and odd-d rule.

    None when it is not a round number (a preset whose rule cannot make this odd width is
    refused by its own table, :func:`_builds`).
    """
    rule = preset.odd_d if d % 2 else fit.odd_d
    own, other = denominator(fit.schedule, d, fit.odd_d), denominator(preset.schedule, d, rule)
    if other == own or (d // 2 <= 1 and d % 2 == 0):  # d = 2: any base
        return fit.base
    base = other_base(fit.base, other, own)
    return round_base(base) if base is not None and roundness(base) <= ROUND else None


def short_base(fit: Fit, table: np.ndarray, zeros: Zeros, storage: str) -> None:
    """Give ``fit`` the shortest base that reproduces ``table`` as well as its own (in place).

    The base measured from the angles carries their last bits (``7321.000000000008``). Each
    equivalent reading (paper ``C``, tensor2tensor ``C^((h-1)/h)``, each odd-d rule) offers
    its base rounded to 1 … :data:`SHORT_DIGITS` significant digits and to an integer,
    shortest first (:func:`_shorter`). The first that rebuilds the table exactly (residual
    0), from those or from the measured base's digits (``base_fit``: the fitter may have
    taken a round base near it), replaces the fitted reading; failing that, when the fitted
    base does not rebuild it exactly either, the first within the fit's own error (to the
    storage's rounding, :func:`.residuals.exact_error`, or no further than the fitted base)
    that still matches. A base already as short, one the rows leave open, or a single pair
    is kept.

    Examples
    --------
    >>> from pecli import encoding_table
    >>> from pecli.analysis.sinusoidal.identify import identify_table
    >>> identify_table(encoding_table(d=16, n=40, base=7321, dtype="float64")).base
    7321.0

    """
    d = table.shape[1]
    if fit.base_open or d // 2 <= 1:
        return
    own, length = denominator(fit.schedule, d, fit.odd_d), _digits(number_text(fit.base))
    shorter = _shorter(fit, d, own, fit.base, length)
    # the measured base's digits too: the fitter's round 100000 is 5e-6 off a float64 table
    # made at 99999 (d = 8), and 12345 beats a shorter 152400000 an ulp off (whisper, d = 4)
    kept: Option = (length, -1.0, own, fit.odd_d, fit.schedule, fit.base)
    measured = _shorter(fit, d, own, fit.base_fit, SHORT_DIGITS + 2)
    exact = sorted({o[2::3]: o for o in [*measured, *shorter, kept]}.values())
    for tier, options in enumerate((exact, shorter)):  # as compute writes it, else within rounding
        for _, _, den, rule, schedule, base in options:
            trial = dataclasses.replace(fit, schedule=schedule, odd_d=rule, base=base)
            if _rebuilds(table, trial, zeros, storage, exactly=tier == 0):
                fit.base_fit = fit.base_fit ** (den / own)
                fit.schedule, fit.odd_d, fit.base = schedule, rule, base
                return


def _rebuilds(table: np.ndarray, trial: Fit, zeros: Zeros, storage: str, *, exactly: bool) -> bool:
    """Whether ``trial`` rebuilds ``table``: its first rows, then all of them.

    ``exactly``: as ``pecli compute`` writes it (each value rounded once to the storage; a
    float64 table to :func:`.residuals.exact_error`, another float64 arithmetic's ulps);
    else within :func:`.residuals.exact_error` or the fit's own residual, and a match.
    """
    n, width = table.shape
    exact = exact_error(storage, trial.start, n)
    limit, most = max(exact, trial.residual), exact if storage == "float64" else 0.0
    for rows in dict.fromkeys((min(n, SHORT_PROBE), n)):
        if not exactly:
            worst, score = residual(table[:rows], trial, zeros, storage)
            if score > 1 or worst > limit:
                return False
            continue
        row = 0
        for block in rebuild(trial, (rows, width), zeros, dtype=storage, rows=RESIDUAL_ROWS):
            if np.abs(table[row : row + len(block)] - block.astype(np.float64)).max() > most:
                return False
            row += len(block)
    return True


Option = tuple[int, float, float, str, str, float]


def _shorter(fit: Fit, d: int, own: float, measured: float, longest: int) -> list[Option]:
    """(digits, distance, h - s, odd-d rule, schedule, base) of bases shorter than ``longest``.

    Each reading's ``measured`` base (``fit``'s reading) rounded to 1 … :data:`SHORT_DIGITS`
    digits and to an integer, best first: fewer significant digits; among as many, the
    nearest to the base the angles measure for its reading (12345 before tensor2tensor's
    9196.7 for a table made at 12345).
    """
    odd = fit.odd_d in ODD_SINE
    rules = (fit.odd_d, *(r for r in ODD_SINE if r != fit.odd_d)) if odd else (fit.odd_d,)
    found: dict[tuple[float, float], Option] = {}
    if not math.isfinite(measured) or measured <= 0:
        return []
    for rule, schedule, den in schedules(d, rules):
        exact = other_base(measured, den, own)
        if exact is None:
            continue
        for text in [f"{exact:.{p}g}" for p in range(1, SHORT_DIGITS + 1)] + [f"{round(exact)}"]:
            base = float(text)
            digits = _digits(number_text(base))
            if BASE_RANGE[0] <= base <= BASE_RANGE[1] and digits < longest:
                off = abs(math.log(base / exact))
                found.setdefault((den, base), (digits, off, den, rule, schedule, base))
    return sorted(found.values())


def _digits(text: str) -> int:
    """Significant digits of a number's text: ``7321.000000000008`` has 16, ``1e+20`` one."""
    return len(text.split("e")[0].lstrip("-").replace(".", "").strip("0")) or 1


class PresetReading(NamedTuple):
    """A preset that builds the table: the arguments it needs, its schedule, base, odd-d rule."""

    name: str
    arguments: tuple[Argument, ...]
    schedule: str
    base: float
    odd_d: str

    def at(self, fit: Fit) -> bool:
        """The reading is the fit's own (not an equivalent one under another schedule)."""
        return (self.schedule, self.base) == (fit.schedule, fit.base)

    def label(self, fit: Fit) -> str:
        """``pytorch `start` 49900``; ``(as tensor2tensor, C = 100)`` when not at the fit."""
        own = "" if self.at(fit) else f" (as {self.schedule}, C = {self.base:.6g})"
        return named(self.name, self.arguments) + own


def preset_names(fit: Fit, shape: tuple[int, int], zeros: Zeros) -> list[PresetReading]:
    """The presets that build the fitted table ``shape = (n, d)``, with their arguments.

    Presets that give it from their own first position come first and alone; when none does,
    those that give it with another ``start`` (a window of their table) are listed with it.
    Those at the fitted reading (its base the rounder one) come before those at an equivalent
    one (``(as …, C = …)``); when only an equivalent reading names presets (tensor2tensor's
    C = 1000 for the paper's C = 10000 at d = 8), ``fit`` takes that reading.
    """
    found = _readings(fit, shape, zeros)
    at_fit = [r.at(fit) for r in found]
    found = [r for r, same in zip(found, at_fit, strict=True) if same] + [
        r for r, same in zip(found, at_fit, strict=True) if not same
    ]
    if found and not any(at_fit):
        first = found[0]
        if fit.base != 1.0:
            fit.base_fit = fit.base_fit ** (math.log(first.base) / math.log(fit.base))
        fit.schedule, fit.base, fit.odd_d = first.schedule, first.base, first.odd_d
    return found


def _readings(fit: Fit, shape: tuple[int, int], zeros: Zeros) -> list[PresetReading]:
    """Every preset that builds the table, own start first."""
    n, d = shape
    m = min(n, max(COMPARE_ROWS, 1 + max(zeros.padding, default=0)))
    reference = np.concatenate(list(rebuild(fit, (m, d), zeros)))
    own: list[PresetReading] = []
    moved: list[PresetReading] = []
    # a window: presets that count from 0, as most frameworks do, before the article's
    for name, knobs, preset, built in sorted(
        _variants(), key=lambda v: v[2].start != fit.start and v[2].start
    ):
        base = _base_for(preset, fit, d)
        if base is None or not _builds(built, fit, (m, d), base, reference):
            continue
        any_base = d // 2 == 1 and fit.odd_d not in ODD_SINE  # one pair, ω_0 = 1
        schedule = fit.schedule if any_base else preset.schedule
        rule = preset.odd_d if d % 2 else fit.odd_d
        if preset.start == fit.start:
            own.append(PresetReading(name, knobs, schedule, base, rule))
        else:
            start = (*knobs, ("start", f"{fit.start:.10g}"))
            moved.append(PresetReading(name, start, schedule, base, rule))
    return own or moved


def _builds(
    preset: Convention, fit: Fit, shape: tuple[int, int], base: float, reference: np.ndarray
) -> bool:
    kwargs = {**preset.table_kwargs(), "start": fit.start}
    for rows in dict.fromkeys((min(PROBE_ROWS, shape[0]), shape[0])):  # the first rows first
        try:
            table = encoding_table(d=shape[1], n=rows, base=base, dtype="float64", **kwargs)
        except ParameterError:  # an odd d it refuses, a padding row beyond the table, …
            if rows < shape[0]:
                continue
            return False
        if not np.allclose(table, reference[:rows], rtol=0, atol=1e-9):
            return False
    return True


def command(
    fit: Fit, shape: tuple[int, int], zeros: Zeros, presets: list[PresetReading], storage: str
) -> Rebuild:
    """The ``compute`` arguments that write this table, in its storage dtype.

    float16 and bfloat16 tables get ``dtype`` (rounded once from the exact value, as
    ``compute`` does); bfloat16 also ``output`` ``pe.safetensors``, since ``.npy`` cannot hold
    it. Empty when ``compute`` could not take it: a start that is not an integer.
    """
    if not float(fit.start).is_integer():
        return Rebuild()
    n, d = shape
    size: list[Argument] = [("d", str(d)), ("n", str(n)), ("base", number_text(fit.base))]
    if storage != "float32":
        size.append(("dtype", storage))
    if storage == "bfloat16":
        size.append(("output", "pe.safetensors"))
    if presets and presets[0].at(fit):
        first = presets[0]
        return Rebuild("encoding", (), (("convention", first.name), *first.arguments, *size))
    parts = [*size, ("start", f"{fit.start:.0f}"), ("layout", fit.layout)]
    parts.append(("schedule", fit.schedule))
    if len(zeros.padding) == 1:
        parts.append(("padding_idx", str(zeros.padding[0])))
    if zeros.odd:
        parts.append(("convention", "tensor2tensor"))
    elif d % 2:
        parts.append(("odd_d", fit.odd_d))
    if fit.amplitude != 1.0:
        parts.append(("amplitude", str(fit.amplitude)))
    return Rebuild("encoding", (), tuple(parts))
