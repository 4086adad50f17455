"""The fit rows of one layout: the pairs' angles, divided by their amplitude.

:func:`layout_sample` reads a table's fit rows as ``(sin θ, cos θ)`` pairs in one layout
(docs/conventions.md): the first 16 rows must be on the unit circle before the rows are
converted to float64 (:class:`OffCircle` says they are not, whatever the rows fitted, so a
search may rely on it), then the common radius of every pair (:mod:`.amplitude`) is divided out
and the angles ``θ = atan2(sin, cos)`` are taken. :mod:`.fitting` fits them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ....core.dtypes import unit_roundoff
from ....core.sinusoidal.conventions import PRESETS, layout_views
from ....core.sinusoidal.knobs import ODD_SINE
from .amplitude import amplitude_name, circle_radius
from .fits import readings

__all__ = ["OffCircle", "Sample", "layout_sample"]


@dataclass
class Sample:
    """The fit rows of one layout: pair angles, (sin, cos) views, an odd d's extra sine."""

    theta: np.ndarray  # (m, h) angles of the pairs
    rows: np.ndarray  # (m,) 0-based rows, float64
    views: tuple[np.ndarray, np.ndarray]  # the pairs' sines and cosines, (m, h) each
    extra: np.ndarray | None  # (m, 1) the last sine of an odd d (DistilBERT, Marian, tatp22)
    d: int
    layout: str
    storage: str

    @property
    def rules(self) -> tuple[str, ...]:
        """The odd-d rules this width allows."""
        return ODD_SINE if self.extra is not None else ("zero",)

    def readings(self, k: float) -> list[tuple[str, float, str]]:
        """The (schedule, base, odd-d rule) readings of ``k``, best first (:func:`.readings`)."""
        return readings(k, self.d, self.rules, _named(self.layout, self.d))


def _named(layout: str, d: int) -> Callable[[str, str], list[str]]:
    def named(schedule: str, rule: str) -> list[str]:
        return [
            p.name
            for p in PRESETS.values()
            if (p.schedule, p.layout) == (schedule, layout) and (d % 2 == 0 or p.odd_d == rule)
        ]

    return named


class OffCircle(ValueError):
    """A pairing whose first 16 rows are already off the unit circle (not this layout)."""


def layout_sample(
    sample: tuple[np.ndarray, np.ndarray], layout: str, storage: str, *, odd_sine: bool = False
) -> tuple[Sample, float | str]:
    """The fit rows ``sample`` (rows, indices) in one layout, and the pairs' amplitude.

    The pairs are divided by the amplitude; the rows are read as float64 only once their
    first 16 are on the circle (:class:`OffCircle` otherwise, ValueError for other reasons).
    ``odd_sine``: an odd ``d`` whose last sine has no cosine (``ceil(d/2)`` sines).
    """
    table, rows = sample
    sines, cosines = layout_views(table[:16].astype(np.float64), layout, odd_sine=odd_sine)
    h, d = cosines.shape[1], table.shape[1]
    try:
        circle_radius(sines[:, :h], cosines)
    except ValueError as error:
        raise OffCircle(str(error)) from None
    sines, cosines = layout_views(np.asarray(table, dtype=np.float64), layout, odd_sine=odd_sine)
    radius = circle_radius(sines[:, :h], cosines)
    amplitude = amplitude_name(radius, d, unit_roundoff(storage))
    if amplitude != 1.0:  # one factor on every column (MLX): fit the table divided by it
        factor = math.sqrt(2 / d) if amplitude == "sqrt(2/d)" else radius
        sines, cosines = sines / factor, cosines / factor
    if rows.size < 2:
        raise ValueError("fewer than 2 non-zero rows")
    pairs, extra = (sines[:, :h], cosines), (sines[:, h:] if odd_sine else None)
    return Sample(np.arctan2(*pairs), rows, pairs, extra, d, layout, storage), amplitude
