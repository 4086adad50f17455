"""The curves of ``plot-similarity`` and ``plot-spectrum``: what each draws, with its legend.

One curve per source (a convention preset's schedule, or a schedule) and base C, labelled as
the legend names it (a paper's preset by the paper), with the name of its data column; and a
rotary embedding's wavelengths before and after its scaling. Nothing here draws (the figures
are :mod:`.similarity` and :mod:`.spectrum`); importing it imports matplotlib as every module
of :mod:`pecli.figures` does, so the commands import it inside their functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_schedule, schedule_name
from ...core.sinusoidal.frequencies import DEFAULT_BASE

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeFrequencies

__all__ = ["MAX_CURVES", "column_name", "curves_asked", "rope_wavelengths"]

#: Most curves in one figure.
MAX_CURVES = 12

Curve = tuple[str, str, float]  # (label, schedule, base)
#: Legend names of the presets that are a paper's: the reader's name for them.
CITED = {"vaswani": "Vaswani et al. 2017"}


def curves_asked(
    conventions: Sequence[str] | None, schedules: list[str] | None, bases: list[float] | None
) -> list[Curve]:
    """One curve per source (a preset's schedule, or a schedule) and base, in the given order.

    Raises
    ------
    ParameterError
        (``convention``) for more than :data:`MAX_CURVES` curves.

    Examples
    --------
    >>> curves_asked(None, None, [100.0])
    [('Vaswani et al. 2017, C = 100', 'paper', 100.0)]

    """
    from ...core.sinusoidal.conventions import convention

    sources = [(str(name), convention(str(name)).schedule) for name in conventions or []]
    sources += [(text, schedule_name(check_schedule(text))) for text in schedules or []]
    chosen = [
        (CITED.get(name) or (f"{name} ({sched})" if name != sched else f"{sched} schedule"), sched)
        for name, sched in sources or [("vaswani", "paper")]
    ]
    wanted = [
        (f"{name}, C = {base:g}", sched, base)
        for name, sched in chosen
        for base in bases or [DEFAULT_BASE]
    ]
    if len(wanted) > MAX_CURVES:
        rule = f"with `schedule` and `base` must give at most {MAX_CURVES} curves"
        raise ParameterError("convention", rule, f"{len(wanted)} curves")
    return wanted


def column_name(label: str) -> str:
    """A data column's name from a curve label: ``pytorch (paper), C = 100`` → ``pytorch_C100``.

    >>> column_name("Vaswani et al. 2017, C = 10000")
    'vaswani_C10000'
    """
    name = next((k for k, v in CITED.items() if label.startswith(v + ",")), label.split(" ")[0])
    return name + "_C" + label.rsplit("= ", 1)[1]


def rope_wavelengths(freqs: RopeFrequencies) -> tuple[dict[str, np.ndarray], np.ndarray, list[str]]:
    """A rotary embedding's wavelengths unscaled and scaled: the curves, the data and its columns.

    The curves are labelled by θ and by the rope type and factor; the data has one row per
    pair (from 0): ``pair``, ``unscaled_wavelength``, ``wavelength``.
    """
    from ...core.rope.frequencies import unscaled_inv_freq

    spec = freqs.spec
    with np.errstate(divide="ignore"):
        unscaled = 2 * np.pi / unscaled_inv_freq(spec)
    factor = f", f = {spec.factor:g}" if spec.factor is not None else ""
    curves = {
        f"unscaled, θ = {spec.theta:g}": unscaled,
        f"{spec.rope_type}{factor}": freqs.wavelengths,
    }
    table = np.column_stack([np.arange(freqs.inv_freq.size), unscaled, freqs.wavelengths])
    return curves, table, ["pair", "unscaled_wavelength", "wavelength"]
