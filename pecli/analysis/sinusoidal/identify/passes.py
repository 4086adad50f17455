"""Every layout of a table tried, in both orientations, on its first rows first.

The fits of :mod:`.fitting` measure a table on its first :data:`FIT_ROWS` non-zero rows (a
slow pair must move beyond the storage's rounding for its slope to tell the base), and each
reading is checked against every row (:mod:`.residuals`). Most tables are told by far fewer
rows: a quick pass fits the first :data:`QUICK_ROWS`, the rows on which the candidate starts
are compared anyway (:data:`.phases.VERIFY_ROWS`), and still checks every row. It stands only
when it is *settled*: in each orientation, every layout either fails on its first 16 rows
(:class:`.samples.OffCircle`, the same words whatever the rows fitted) or gives as its first
reading one integer start (no other start fits as well), a two-digit base, an amplitude of 1 or
``sqrt(2/d)``, that reproduces the whole table to the storage's rounding. That is the reading
the full fit finds first and keeps, with the same words and residual. Anything else (no
match, a start the rows leave open, a base or start measured rather than rounded, a float16
window too short to move its slow pairs) is fitted again on :data:`FIT_ROWS` rows. Only the
base the rows measure (``base_fit``, a diagnostic beside the rounded base) is then measured
on fewer rows: the same to 1e-9 in float32, to about 1e-5 in bfloat16.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ....core.dtypes import unit_roundoff
from ....core.rules import LAYOUTS
from ....core.sinusoidal.knobs import ODD_SINE
from .fits import LOG_BASES, ROUND, NotGrowing, denominator, roundness, schedules
from .fitting import FIT_ROWS, Fit, Zeros, fit_layout
from .identifiable import coarse
from .phases import VERIFY_ROWS
from .residuals import exact_error, residual
from .result import Candidate
from .samples import OffCircle

__all__ = ["QUICK_ROWS", "Tried", "nonzero_lines", "search"]

#: Rows of the quick pass: those the candidate starts are compared on.
QUICK_ROWS = VERIFY_ROWS
#: The layout whose pairs are the same columns in the other order.
MIRROR = {"interleaved": "", "sin-cos": "cos-sin", "cos-sin": "sin-cos"}


@dataclass
class Tried:
    """One orientation's readings: the best, every candidate, the zeros, and if it is settled."""

    table: np.ndarray  # rows = positions
    live: np.ndarray  # its rows that are not all zero
    zeros: Zeros
    settled: bool  # the full fit would find the same (see the module's notes)
    best: Fit | None = None
    candidates: list[Candidate] = field(default_factory=list)


def nonzero_lines(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which rows and which columns of ``values`` are not all zero (two boolean vectors)."""
    return np.asarray(values.any(axis=1)), np.asarray(values.any(axis=0))


def search(
    values: np.ndarray, storage: str, nonzero: tuple[np.ndarray, np.ndarray] | None = None
) -> list[Tried]:
    """Both orientations (rows = positions, then transposed): the quick pass, else the full.

    ``nonzero``: :func:`nonzero_lines` of ``values``, if the caller has them.
    """
    rows, columns = nonzero or nonzero_lines(values)
    oriented = ((values, rows), (values.T, columns))
    quick = [_best_fit(table, live, storage, QUICK_ROWS) for table, live in oriented]
    if all(t.settled for t in quick):
        return quick
    return [_best_fit(table, live, storage, FIT_ROWS) for table, live in oriented]


def fit_rows(table: np.ndarray, live: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows used for the fit (the first ``rows`` non-zero ones) and their indices."""
    chosen = live[:rows]
    if chosen.size and chosen[-1] - chosen[0] == chosen.size - 1:  # a run: a view, no copy
        return table[chosen[0] : chosen[-1] + 1], chosen.astype(np.float64)
    return table[chosen], chosen.astype(np.float64)


def _best_fit(table: np.ndarray, nonzero: np.ndarray, storage: str, rows: int) -> Tried:
    """Try every layout on ``table`` (rows = positions, ``nonzero`` its non-zero rows)."""
    d = table.shape[1]
    zeros = Zeros([int(r) for r in np.flatnonzero(~nonzero)], d % 2 == 1 and not table[:, -1].any())
    tried = Tried(table, np.flatnonzero(nonzero), zeros, settled=True)
    sample = fit_rows(table, tried.live, rows)
    fits: list[Fit] = []
    status = {layout: _layout(tried, fits, sample, layout, storage) for layout in LAYOUTS}
    tried.settled = tried.live.size <= rows or all(  # every row fitted: this is the full fit
        found in ("off", "exact") or (found == "reversed" and status.get(MIRROR[layout]) == "exact")
        for layout, found in status.items()
    )
    tried.best = min(fits, key=_rank(storage, table.shape[0]), default=None)
    return tried


def _layout(
    tried: Tried, fits: list[Fit], sample: tuple[np.ndarray, np.ndarray], layout: str, storage: str
) -> str:
    """One layout's readings into ``fits`` and ``tried.candidates``, and how it ended.

    "off": not pairs on the first 16 rows; "exact": its first reading reproduces every row as
    the full fit would find it; "reversed": the angles run backwards (the mirror layout's
    pairs, read in the other order: the same words on any rows); "" for anything else.
    """
    table, zeros = tried.table, tried.zeros
    few = coarse(storage, len(sample[1]))  # two readings may be within rounding: try on
    odd_sine = table.shape[1] % 2 == 1 and not zeros.odd  # DistilBERT, HF Marian, tatp22
    try:
        for order, fit in enumerate(fit_layout(sample, layout, storage, odd_sine=odd_sine)):
            fits.append(_score(table, fit, zeros, storage))
            fit.order = order
            text = f"{layout}, {fit.schedule} schedule, C = {fit.base:.6g}, start {fit.start:g}"
            text += "" if fit.amplitude == 1.0 else f", amplitude {fit.amplitude}"
            tried.candidates.append(Candidate(text, fit.residual, fit.score))
            exact = 0 if few else exact_error(storage, fit.start, table.shape[0])
            if fit.score <= 1 and fit.residual <= exact:  # no need for the next reading
                rules = ODD_SINE if odd_sine else ("zero",)
                return "exact" if order == 0 and _rounded(fit, table.shape[1], rules) else ""
    except ValueError as reason:
        tried.candidates.append(Candidate(f"{layout}: {reason}", math.inf, math.inf))
        return {OffCircle: "off", NotGrowing: "reversed"}.get(type(reason), "")
    return ""


def _rounded(fit: Fit, d: int, rules: tuple[str, ...]) -> bool:
    """A reading the full fit finds as it is: one integer start, a round base, a set amplitude."""
    return (
        not fit.real
        and not fit.base_open
        and len(fit.starts) == 1
        and fit.amplitude in (1.0, "sqrt(2/d)")
        and roundness(fit.base) <= ROUND
        and _steady(fit, d, rules)
    )


def _steady(fit: Fit, d: int, rules: tuple[str, ...]) -> bool:
    """Whether the full fit's slopes would order the readings of ``k`` the same way.

    The readings (paper or tensor2tensor, each odd-d rule) are ordered by how round their base
    is, all within :data:`.fits.ROUND` tying; a reading whose roundness is near ROUND, within
    10 times what the quick rows leave open of ``k`` (the slopes' ``k`` against the one the rows
    measure once the positions are known), could fall on the other side with more rows.
    """
    if not math.isfinite(fit.k):  # one pair: the base is not read from k
        return True
    gap = abs(fit.k - math.log(fit.base_fit) / denominator(fit.schedule, d, fit.odd_d))
    dens = [
        den for _, _, den in schedules(d, rules) if LOG_BASES[0] <= fit.k * den <= LOG_BASES[1]
    ]  # the readings that are bases
    return not any(
        abs(roundness(math.exp(fit.k * den)) - ROUND) <= 10 * den * gap + 1e-12 for den in dens
    )


def _score(table: np.ndarray, fit: Fit, zeros: Zeros, storage: str) -> Fit:
    """Fill the fit's residual; a rounded base that is too coarse is replaced by the fitted one."""
    fit.residual, fit.score = residual(table, fit, zeros, storage)
    if fit.score > 1 and math.isfinite(fit.base_fit) and fit.base != fit.base_fit:
        base = fit.base
        fit.base = fit.base_fit
        worst, score = residual(table, fit, zeros, storage)
        if score < fit.score:
            fit.residual, fit.score = worst, score
        else:
            fit.base = base
    return fit


def _rank(storage: str, n: int) -> Callable[[Fit], tuple[float, ...]]:
    """Order of preference: matches, those exact to the storage's rounding, then as tried.

    The integer start is tried first and kept over the real one (which may fit a window's
    framework noise more closely from a start that no table has), unless only the real one
    reproduces the rows exactly (a start that is not an integer: a far integer start may be
    within the large float32 error allowed there). Among integer starts that match within
    the framework allowance only, the closer one wins (a base rounded to two digits may find
    a far start whose large float32 allowance lets it through). Among readings exact to a
    float16 or bfloat16 storage, fewer ulps of residual win (a few such rows may fit a far
    start within two ulps when the table's own start fits with none). Exact is within
    :func:`.residuals.exact_error` (a float64 table: its producer's float64 arithmetic too).
    A reading that does not match ranks as an inexact real start whose score, above 1, is
    above every match's.
    """
    unit = unit_roundoff(storage)

    def rank(fit: Fit) -> tuple[float, ...]:
        if fit.score > 1:
            return (True, True, fit.score)
        if fit.residual > exact_error(storage, fit.start, n):
            return (True, fit.real, fit.score)
        ulps = round(fit.residual / unit) if storage in ("float16", "bfloat16") else 0
        return (False, fit.real, ulps, fit.order)

    return rank
