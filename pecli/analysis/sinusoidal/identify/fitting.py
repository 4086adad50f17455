"""One layout's fit behind :func:`pecli.analysis.sinusoidal.identify.identify_table`.

For rows = positions: the columns are paired into ``(sin θ, cos θ)`` by the layout (an odd
``d`` without a zero column keeps its last sine aside: DistilBERT, HF Marian, tatp22), divided
by their common radius (an amplitude, :mod:`.amplitude`); ``k`` of ``ω_j = exp(-k j)`` comes
from the slopes; then the first position, preferably as an integer found from the phases of
every pair (:mod:`.phases`) with the base rounded to two significant digits, else as a real
number from the intercepts (low frequencies first) with a fitted base. The residual is in
:mod:`.residuals`.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ....core.dtypes import float_dtype, unit_roundoff
from ....core.median import unique
from ....core.sinusoidal.frequencies import DEFAULT_BASE, frequencies_with_residuals
from . import phases
from .fits import (
    ROUND,
    denominator,
    refine_k,
    round_base,
    roundness,
    slopes_k,
    start_position,
)
from .identifiable import coarse
from .samples import Sample, layout_sample

__all__ = ["FIT_ROWS", "Fit", "Zeros", "fit_layout", "measured_base"]

#: Rows used for the fit (the residual is checked on every row).
FIT_ROWS = 2048
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
    odd_d: str = "zero"  # an odd d: a zero last column, or a last sine (sine, sine-d+1)
    amplitude: float | str = 1.0  # the factor on every value (MLX: sqrt(2/d))
    real: bool = False  # the start fitted as a real number (not an integer from the phases)
    k: float = math.nan  # the slopes' k (ω_j = exp(-k j)) its base was rounded from
    residual: float = math.inf
    score: float = math.inf


def _omega(sample: Sample, base: float, schedule: str, rule: str) -> np.ndarray:
    """``ω_j`` of the pairs and of the extra sine (exactly as pecli computes them)."""
    omega, _ = frequencies_with_residuals(sample.d, base, schedule, rule)
    return omega


def _integer_fit(
    sample: Sample, k: float | None, reading: tuple[str, float, str] | None = None
) -> Fit | None:
    """An integer start from the phases, or None when there are none.

    The base is ``k``'s best reading rounded to two significant digits, the given
    ``reading`` (schedule, base, odd-d rule), or any base when ``k`` is None (one pair).
    """
    h = sample.theta.shape[1]
    if reading is not None:
        schedule, base, rule = reading
        base_fit = base
    elif k is None:  # only ω_0 = 1: any base and schedule give this table
        schedule, base, base_fit, rule = "paper", 1e4, math.nan, sample.rules[0]
    else:
        (schedule, base_fit, rule), *_ = sample.readings(k)
        if roundness(base_fit) > SLOPE_ROUND:
            return None
        base = round_base(base_fit)
    omega = _omega(sample, base, schedule, rule)
    ties = _starts(sample, omega)
    if ties.size == 0:
        return None
    start = float(ties[0])
    if h > 1:  # the base as the window measures it, now that the positions are known
        base_fit = measured_base(sample, schedule, base, rule, start)
    fit = Fit(sample.layout, schedule, base, base_fit, start, starts=[float(s) for s in ties])
    fit.odd_d = rule
    return fit


def _starts(sample: Sample, omega: np.ndarray) -> np.ndarray:
    """The integer starts that reproduce the fit rows best (pairs and extra sine), ascending."""
    theta, rows, storage, h = sample.theta, sample.rows, sample.storage, sample.theta.shape[1]
    found = phases.measure(theta, rows, omega[:h], 4 * unit_roundoff(storage))
    tried = [np.empty(0, np.int64)]
    for drift in (0.0, phases.FRAMEWORK_DRIFT):  # exact tables, then framework arithmetic
        starts = phases.candidate_starts(found, omega[:h], drift)
        if starts is not None:
            tried.append(phases.best_phase_fits(starts, found, omega[:h]))
    starts = unique(np.concatenate(tried))
    if starts.size == 0:
        return starts
    squares = phases.verify(starts, sample.views, rows, omega[:h], storage)
    if sample.extra is not None:  # the last sine tells starts apart that the pairs do not
        squares = np.hstack([squares, _extra_squares(sample, starts, float(omega[h]))])
    entries = min(rows.size, phases.VERIFY_ROWS) * (2 * h + (sample.extra is not None))
    return phases.ties(starts, squares, TIE * unit_roundoff(storage), entries)


def _extra_squares(sample: Sample, starts: np.ndarray, omega: float) -> np.ndarray:
    """Mean square of the extra sine column against its rebuild from each start."""
    assert sample.extra is not None
    column = sample.extra[: phases.VERIFY_ROWS, 0]
    rows = sample.rows[: phases.VERIFY_ROWS]
    rebuilt = np.sin((starts[:, None] + rows[None, :]) * omega)
    rebuilt = rebuilt.astype(float_dtype(sample.storage)).astype(np.float64)
    squares: np.ndarray = np.mean((rebuilt - column[None, :]) ** 2, axis=1, keepdims=True)
    return squares


def _real_fit(sample: Sample, k: float) -> Fit:
    """A real start from the intercepts and a base fitted over every entry (near position 0)."""
    theta, rows, h = sample.theta, sample.rows, sample.theta.shape[1]
    j = np.arange(h, dtype=np.float64)
    for _ in range(2):
        start = start_position(theta, rows, np.exp(-k * j))
        k = refine_k(theta, start + rows, k) if h > 1 else k
    start += 0.0  # no -0
    if h == 1 and sample.extra is None:
        return Fit(sample.layout, "paper", 1e4, math.nan, start, starts=[start], real=True)
    (schedule, base_fit, rule), *_ = sample.readings(k)
    base = round_base(base_fit) if roundness(base_fit) <= ROUND else base_fit
    fit = Fit(sample.layout, schedule, base, base_fit, start, starts=[start], real=True)
    fit.odd_d = rule
    return fit


def fit_layout(
    sample: tuple[np.ndarray, np.ndarray], layout: str, storage: str, *, odd_sine: bool = False
) -> Iterator[Fit]:
    """The readings of the fit rows ``sample`` in one layout, best first (ValueError: none)."""
    fits, amplitude = layout_sample(sample, layout, storage, odd_sine=odd_sine)
    for fit in _fits(fits):
        fit.amplitude = amplitude
        yield fit


def measured_base(sample: Sample, schedule: str, base: float, rule: str, start: float) -> float:
    """The base the rows measure once their positions are known (from ``base``'s ``k``)."""
    den = denominator(schedule, sample.d, rule)
    return math.exp(refine_k(sample.theta, start + sample.rows, math.log(base) / den) * den)


def _fits(fits: Sample) -> Iterator[Fit]:
    """The readings of one layout's pairs (see :func:`fit_layout`)."""
    rows, storage, h = fits.rows, fits.storage, fits.theta.shape[1]
    if h == 1:
        yield from _narrow(fits)
        return
    k = slopes_k(fits.theta, rows, unit_roundoff(storage))
    if k is None:  # the slow pairs stay within the rounding: try the default base C = 10000
        for fit in _default_bases(fits):
            fit.base_open = True
            yield fit
        raise ValueError("no pair but the first moves beyond the rounding in these rows")
    exact = _integer_fit(fits, k)
    if exact is not None:
        exact.k = k
        yield exact
    reading = fits.readings(k)[0]
    if roundness(reading[1]) > ROUND:  # a base that is no round number: integer starts at it
        unrounded = _integer_fit(fits, None, reading)
        if unrounded is not None:
            yield unrounded
    yield _real_fit(fits, k)
    if coarse(storage, rows.size):  # a few coarse rows measure k badly: C = 10000 may fit
        yield from _default_bases(fits)


def _default_bases(sample: Sample) -> Iterator[Fit]:
    """Integer fits with C = 10000 under every schedule and odd-d rule."""
    for rule in sample.rules:
        for schedule in ("tensor2tensor", "paper"):
            fit = _integer_fit(sample, None, (schedule, DEFAULT_BASE, rule))
            if fit is not None:
                yield fit


def _narrow(sample: Sample) -> Iterator[Fit]:
    """One pair (``ω_0 = 1``): any base, unless an extra sine (d = 3) tells it."""
    if sample.extra is None:
        fit = _integer_fit(sample, None)
        if fit is not None:
            yield fit
        yield _real_fit(sample, 0.0)
        return
    yield from _default_bases(sample)  # C = 10000 first: d = 3 leaves k to one column
    k = _extra_k(sample)
    if k is not None:
        (schedule, base, rule), *_ = sample.readings(k)
        fit = _integer_fit(sample, None, (schedule, round_base(base), rule))
        if fit is not None:
            fit.base_fit = base
            yield fit


def _extra_k(sample: Sample) -> float | None:
    """``k = -ln ω_1`` from the extra sine of d = 3: ``y(p+1) + y(p-1) = 2 cos ω · y(p)``."""
    assert sample.extra is not None
    y, rows = sample.extra[:, 0], sample.rows
    inner = np.flatnonzero((np.diff(rows)[:-1] == 1) & (np.diff(rows)[1:] == 1)) + 1
    if inner.size == 0 or not np.any(y[inner]):
        return None
    cos = np.sum(y[inner] * (y[inner - 1] + y[inner + 1])) / (2 * np.sum(y[inner] ** 2))
    omega = float(np.arccos(np.clip(cos, -1.0, 1.0)))
    return -math.log(omega) if omega > 0 else None
