"""One layout's fit behind :func:`pecli.analysis.identify.identify_table`, and its residual.

For rows = positions: the columns are paired into ``(sin θ, cos θ)`` by the layout; ``k`` of
``ω_j = exp(-k j)`` comes from the slopes; then the first position, preferably as an integer
found from the phases of every pair (:mod:`.phases`) with the base rounded to two significant
digits, else as a real number from the intercepts (low frequencies first) with a fitted base.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ...core.conventions import PRESETS, layout_views
from ...core.dtypes import float_dtype
from ...core.encoding import table_blocks
from ...core.frequencies import DEFAULT_BASE, angular_frequencies
from ...core.rules import check_schedule
from ..precision import unit_roundoff
from . import phases
from .fits import ROUND, readings, refine_k, round_base, roundness, slopes_k, start_position

__all__ = ["FIT_ROWS", "Fit", "Zeros", "fit_layout", "fit_rows", "rebuild", "residual"]

#: Rows used for the fit (the residual is checked on every row).
FIT_ROWS = 2048
#: Largest ``|sin² + cos² - 1|`` for a pairing to count as sine/cosine pairs.
CIRCLE_TOLERANCE = 0.05
#: Error allowed for float32 arithmetic in the producing framework, per unit of position.
FLOAT32_ANGLE_ERROR = 2.0**-22
#: A pair's mean square below (this · the storage's rounding)² counts as exact when starts
#: are compared (:func:`.phases.ties`).
TIE = 0.05
#: A base from the slopes within this log-distance of a two-digit number is tried rounded.
SLOPE_ROUND = 1e-2


@dataclass
class Zeros:
    """All-zero rows (0-based) and whether the last column of an odd width is all zero."""

    padding: list[int]
    odd: bool


@dataclass
class Fit:
    """One reading of the table: layout, schedule, base, first position(s), residual."""

    layout: str
    schedule: str
    base: float
    base_fit: float
    start: float
    equivalent: str = ""
    starts: list[float] = field(default_factory=list)  # every start that fits as well
    base_open: bool = False  # the rows do not tell the base (slow pairs within the rounding)
    order: int = 0  # 0 for the first reading tried in its layout
    residual: float = math.inf
    score: float = math.inf


def _shift(schedule: str) -> float:
    return check_schedule(schedule)


def _k_of(base: float, schedule: str, h: int) -> float:
    return math.log(base) / (h - _shift(schedule))


def _named(layout: str) -> Callable[[str], list[str]]:
    def named(schedule: str) -> list[str]:
        return [p.name for p in PRESETS.values() if (p.schedule, p.layout) == (schedule, layout)]

    return named


def _integer_fit(
    theta: np.ndarray, rows: np.ndarray, views: tuple[np.ndarray, np.ndarray], k: float,
    layout: str, storage: str,
) -> Fit | None:  # fmt: skip
    """A round base and an integer start from the phases, or None when there are none."""
    h = theta.shape[1]
    if h == 1:  # only ω_0 = 1: any base and schedule give this table
        schedule, base, base_fit = "paper", 1e4, math.nan
    else:
        (schedule, base_fit), *_ = readings(k, h, _named(layout))
        if roundness(base_fit) > SLOPE_ROUND:
            return None
        base = round_base(base_fit)
    omega = angular_frequencies(2 * h, base=base, schedule=schedule if h > 1 else "paper")
    found = phases.measure(theta, rows, omega, 4 * unit_roundoff(storage))
    tried = [np.empty(0, np.int64)]
    for drift in (0.0, phases.FRAMEWORK_DRIFT):  # exact tables, then framework arithmetic
        starts = phases.candidate_starts(found, omega, drift)
        if starts is not None:
            tried.append(phases.best_phase_fits(starts, found, omega))
    starts = np.unique(np.concatenate(tried))
    if starts.size == 0:
        return None
    squares = phases.verify(starts, views, rows, omega, storage)
    entries = min(rows.size, phases.VERIFY_ROWS) * 2 * h
    ties = phases.ties(starts, squares, TIE * unit_roundoff(storage), entries)
    start = float(ties[0])
    if h > 1:  # the base as the window measures it, now that the positions are known
        k = refine_k(theta, start + rows, _k_of(base, schedule, h))
        base_fit = math.exp(k * (h - _shift(schedule)))
    return Fit(layout, schedule, base, base_fit, start, starts=[float(s) for s in ties])


def _real_fit(theta: np.ndarray, rows: np.ndarray, k: float, layout: str) -> Fit:
    """A real start from the intercepts and a base fitted over every entry (near position 0)."""
    h = theta.shape[1]
    j = np.arange(h, dtype=np.float64)
    for _ in range(2):
        start = start_position(theta, rows, np.exp(-k * j))
        k = refine_k(theta, start + rows, k) if h > 1 else 0.0
    start += 0.0  # no -0
    if h == 1:
        return Fit(layout, "paper", 1e4, math.nan, start, starts=[start])
    (schedule, base_fit), *_ = readings(k, h, _named(layout))
    base = round_base(base_fit) if roundness(base_fit) <= ROUND else base_fit
    return Fit(layout, schedule, base, base_fit, start, starts=[start])


def fit_rows(table: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows used for the fit (the first :data:`FIT_ROWS` non-zero ones) and their indices."""
    chosen = live[:FIT_ROWS]
    if chosen.size and chosen[-1] - chosen[0] == chosen.size - 1:  # a run: a view, no copy
        return table[chosen[0] : chosen[-1] + 1], chosen.astype(np.float64)
    return table[chosen], chosen.astype(np.float64)


def _check_circle(sines: np.ndarray, cosines: np.ndarray) -> None:
    """Raise ValueError unless every (sin, cos) pair lies on the unit circle (a few rows first)."""
    for part in (slice(0, 16), slice(None)):
        circle = float(np.max(np.abs(sines[part] ** 2 + cosines[part] ** 2 - 1.0), initial=0))
        if circle > CIRCLE_TOLERANCE:
            raise ValueError(
                f"columns are not sine/cosine pairs (|sin² + cos² - 1| up to {circle:.2g})"
            )


def fit_layout(sample: tuple[np.ndarray, np.ndarray], layout: str, storage: str) -> Iterator[Fit]:
    """The readings of the fit rows ``sample`` in one layout, best first (ValueError: none)."""
    table, rows = sample
    sines, cosines = layout_views(table, layout)
    _check_circle(sines, cosines)
    if rows.size < 2:
        raise ValueError("fewer than 2 non-zero rows")
    theta = np.arctan2(sines, cosines)
    h = theta.shape[1]
    k = slopes_k(theta, rows, unit_roundoff(storage)) if h > 1 else 0.0
    if k is None:  # the slow pairs stay within the rounding: try the default base C = 10000
        for schedule in ("tensor2tensor", "paper"):
            guess = _k_of(DEFAULT_BASE, schedule, h)
            fit = _integer_fit(theta, rows, (sines, cosines), guess, layout, storage)
            if fit is not None:
                fit.base_open = True
                yield fit
        raise ValueError("no pair but the first moves beyond the rounding in these rows")
    exact = _integer_fit(theta, rows, (sines, cosines), k, layout, storage)
    if exact is not None:
        yield exact
    yield _real_fit(theta, rows, k, layout)


def rebuild(
    fit: Fit, shape: tuple[int, int], zeros: Zeros, *, dtype: str = "float64", rows: int = 4096
) -> Iterator[np.ndarray]:
    """The table of ``fit`` (padding rows zeroed) in blocks of at most ``rows`` rows."""
    n, d = shape
    blocks = table_blocks(
        d=d, n=n, start=fit.start, base=fit.base, dtype=dtype, schedule=fit.schedule,
        layout=fit.layout, pad_odd_d=zeros.odd, rows=rows,
    )  # fmt: skip
    row = 0
    for block in blocks:
        block[np.isin(np.arange(row, row + len(block)), zeros.padding)] = 0
        yield block
        row += len(block)


def residual(table: np.ndarray, fit: Fit, zeros: Zeros, storage: str) -> tuple[float, float]:
    """(max |table - rebuilt|, the same relative to the allowed error: <= 1 is a match)."""
    worst, score, row = 0.0, 0.0, 0
    dtype = "float64" if storage == "float64" else "float32"  # float32: the fast kernel
    for block in rebuild(fit, (table.shape[0], table.shape[1]), zeros, dtype=dtype):
        stored = block.astype(float_dtype(storage)).astype(np.float64)
        error = np.abs(table[row : row + len(block)] - stored)
        positions = np.abs(fit.start + np.arange(row, row + len(block)))
        allowed = 2 * unit_roundoff(storage) + FLOAT32_ANGLE_ERROR * (1 + positions)
        worst = max(worst, float(error.max()))
        score = max(score, float((error / allowed[:, None]).max()))
        row += len(block)
    return worst, score
