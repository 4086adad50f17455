"""Recognise which convention produced a table: layout, schedule, base, first position, storage.

The fit, for rows = positions (and again for the transposed table):

1. all-zero rows are padding rows, an all-zero last column of an odd-width table is the
   zero column of tensor2tensor / fairseq / diffusers;
2. a layout pairs columns into ``(sin θ, cos θ)``: only the right pairing puts every pair on
   the unit circle, and only the right sine/cosine order makes θ grow with the row;
3. the angles ``θ_j(r) = (start + r) ω_j`` with ``ω_j = exp(-k j)`` give ``k`` (from the slopes,
   then a Gauss-Newton fit over all entries) and ``start`` (from the intercepts, low frequencies
   first);
4. ``k = ln C / (h - s)`` alone is what a table determines: the paper schedule with base ``C``
   and tensor2tensor's with ``C^((h-1)/h)`` are the same table. The reading whose base is the
   rounder number is reported first, the other as equivalent;
5. the table is rebuilt with :func:`pecli.core.encoding.table_blocks`, rounded to the storage
   precision, and compared entry by entry.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core.conventions import PRESETS, layout_views
from ..core.dtypes import float_dtype
from ..core.encoding import table_blocks
from ..core.rules import LAYOUTS
from .fits import (
    ROUND,
    readings,
    refine_k,
    round_base,
    roundness,
    slopes_k,
    start_position,
)
from .precision import storage_precision, unit_roundoff

__all__ = ["Candidate", "Identification", "identify_table"]

#: Rows used for the fit (the residual is checked on every row).
FIT_ROWS = 2048
#: Largest ``|sin² + cos² - 1|`` for a pairing to count as sine/cosine pairs.
CIRCLE_TOLERANCE = 0.05
#: Error allowed for float32 arithmetic in the producing framework, per unit of position.
FLOAT32_ANGLE_ERROR = 2.0**-22


@dataclass
class Candidate:
    """One reading of the table and how far the table is from it."""

    description: str
    residual: float
    score: float


@dataclass
class Identification:
    """What :func:`identify_table` found; ``matched`` says whether it reproduces the table.

    ``padding_rows`` are 0-based row indices, as ``--padding-idx`` takes them (fairseq's
    ``padding_idx``); ``zero_components`` are 1-based component numbers, as in docs/encoding.md's
    ``pe(pos)[1 … d]`` (the zero column that pads an odd ``d`` is component ``d``).
    """

    matched: bool
    shape: tuple[int, int]
    transposed: bool = False
    storage: str = "float64"
    layout: str = ""
    schedule: str = ""
    base: float = math.nan
    base_fit: float = math.nan
    start: float = math.nan
    padding_rows: list[int] = field(default_factory=list)
    zero_components: list[int] = field(default_factory=list)
    residual: float = math.inf
    relative_residual: float = math.inf  # residual / allowed error: <= 1 is a match
    presets: list[str] = field(default_factory=list)
    equivalent: str = ""
    command: str = ""
    candidates: list[Candidate] = field(default_factory=list)


@dataclass
class _Zeros:
    padding: list[int]
    odd: bool


@dataclass
class _Fit:
    layout: str
    schedule: str
    base: float
    base_fit: float
    start: float
    equivalent: str
    presets: list[str]
    residual: float = math.inf
    score: float = math.inf


def _fit_layout(table: np.ndarray, live: np.ndarray, layout: str, zeros: _Zeros) -> _Fit:
    """Fit schedule, base and start for one layout (raises ValueError when it cannot)."""
    rows = live[:FIT_ROWS].astype(np.float64)
    sines, cosines = layout_views(table[live[:FIT_ROWS]], layout)
    circle = float(np.max(np.abs(sines**2 + cosines**2 - 1.0)))
    if circle > CIRCLE_TOLERANCE:
        raise ValueError(
            f"columns are not sine/cosine pairs (|sin² + cos² - 1| up to {circle:.2g})"
        )
    if rows.size < 3:
        raise ValueError("fewer than 3 non-zero rows")
    theta = np.arctan2(sines, cosines)
    h = theta.shape[1]
    k = slopes_k(theta, rows) if h > 1 else 0.0
    j = np.arange(h, dtype=np.float64)
    for _ in range(2):
        start = start_position(theta, rows, np.exp(-k * j))
        k = refine_k(theta, start + rows, k) if h > 1 else 0.0
    start += 0.0  # no -0

    def named(schedule: str) -> list[str]:
        return _presets(layout, schedule, start, zeros)

    if h == 1:  # only ω_0 = 1: any base and schedule give this table
        return _Fit(layout, "paper", 1e4, math.nan, start, "any base (d = 2)", named("paper"))
    (schedule, base_fit), *others = readings(k, h, named)
    equivalent = ", ".join(f"{name} schedule with C = {c:.6g}" for name, c in others)
    presets = named(schedule) + [
        f"{p} (as {name}, C = {c:.6g})" for name, c in others if roundness(c) <= ROUND
        for p in named(name)
    ]  # fmt: skip
    return _Fit(layout, schedule, round_base(base_fit), base_fit, start, equivalent, presets)


def _residual(
    table: np.ndarray, fit: _Fit, padding: list[int], odd: bool, storage: str
) -> tuple[float, float]:
    """(max |table - rebuilt|, the same relative to the allowed error: <= 1 is a match)."""
    n, d = table.shape
    blocks = table_blocks(
        d=d, n=n, start=fit.start, base=fit.base, dtype="float64", schedule=fit.schedule,
        layout=fit.layout, pad_odd_d=odd, rows=4096,
    )  # fmt: skip
    worst, score, row = 0.0, 0.0, 0
    for block in blocks:
        block[np.isin(np.arange(row, row + len(block)), padding)] = 0
        stored = _round_to(block, storage)
        error = np.abs(table[row : row + len(block)] - stored)
        positions = np.abs(fit.start + np.arange(row, row + len(block)))
        allowed = 2 * unit_roundoff(storage) + FLOAT32_ANGLE_ERROR * (1 + positions)
        worst = max(worst, float(error.max()))
        score = max(score, float((error / allowed[:, None]).max()))
        row += len(block)
    return worst, score


def _round_to(values: np.ndarray, storage: str) -> np.ndarray:
    rounded: np.ndarray = values.astype(float_dtype(storage)).astype(np.float64)
    return rounded


def _best_fit(table: np.ndarray, storage: str) -> tuple[_Fit | None, list[Candidate], _Zeros]:
    """Try every layout on ``table`` (rows = positions); the best fit and all candidates."""
    d = table.shape[1]
    odd = d % 2 == 1 and not table[:, -1].any()
    live = np.flatnonzero(table.any(axis=1))
    found = _Zeros([int(r) for r in np.flatnonzero(~table.any(axis=1))], odd)
    candidates, fits = [], []
    for layout in LAYOUTS:
        try:
            if d % 2 == 1 and not odd:
                raise ValueError("odd width without a zero last column")
            fit = _fit_layout(table, live, layout, found)
            fit.residual, fit.score = _residual(table, fit, found.padding, odd, storage)
            coarse = math.isfinite(fit.base_fit) and fit.base != fit.base_fit
            if fit.score > 1 and coarse:  # the rounded base may be too coarse
                fit.base = fit.base_fit
                fit.residual, fit.score = _residual(table, fit, found.padding, odd, storage)
        except ValueError as reason:
            candidates.append(Candidate(f"{layout}: {reason}", math.inf, math.inf))
            continue
        fits.append(fit)
        text = f"{layout}, {fit.schedule} schedule, C = {fit.base:.6g}, start {fit.start:g}"
        candidates.append(Candidate(text, fit.residual, fit.score))
    best = min(fits, key=lambda f: f.score, default=None)
    return best, candidates, found


def identify_table(table: np.ndarray) -> Identification:
    """Which convention produced ``table``: layout, schedule, base, start, padding, storage.

    Parameters
    ----------
    table : numpy.ndarray
        2-D, rows = positions, or transposed (``d × n``), of any float dtype (bfloat16 from
        ``ml_dtypes`` included).

    Returns
    -------
    Identification
        ``matched`` is true when the rebuilt table, rounded to the detected storage
        precision, is within the allowed error of every entry (one unit in the last place
        of the storage, plus float32 arithmetic of the producing framework, ``2^-22`` per
        unit of position). Otherwise ``candidates`` lists the closest readings.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5; docs/conventions.md (the conventions).

    Examples
    --------
    >>> from pecli import encoding_table
    >>> found = identify_table(encoding_table(d=64, n=50, start=0, layout="sin-cos",
    ...                                       schedule="tensor2tensor", base=1000))
    >>> found.matched, found.layout, found.schedule, found.base, found.start, found.storage
    (True, 'sin-cos', 'tensor2tensor', 1000.0, 0.0, 'float32')

    """
    values = np.asarray(table).astype(np.float64)
    storage = storage_precision(values)
    result = Identification(False, (values.shape[0], values.shape[1]), storage=storage)
    best: tuple[float, _Fit | None, _Zeros, bool] = (math.inf, None, _Zeros([], False), False)
    for transposed, oriented in ((False, values), (True, values.T)):
        fit, candidates, found = _best_fit(oriented, storage)
        note = " (transposed)" if transposed else ""
        result.candidates += [
            Candidate(c.description + note, c.residual, c.score) for c in candidates
        ]
        if fit is not None and fit.score < best[0]:
            best = (fit.score, fit, found, transposed)
    result.candidates.sort(key=lambda c: c.score)
    score, fit, found, transposed = best
    if fit is None:
        return result
    result.matched, result.transposed = score <= 1.0, transposed
    result.layout, result.schedule, result.start = fit.layout, fit.schedule, fit.start
    result.base, result.base_fit, result.equivalent = fit.base, fit.base_fit, fit.equivalent
    result.padding_rows, result.residual, result.relative_residual = (
        found.padding,
        fit.residual,
        score,
    )
    d = values.shape[0] if transposed else values.shape[1]
    result.zero_components = [d] if found.odd else []
    result.presets = fit.presets
    result.command = _command(result, d, values.shape[1] if transposed else values.shape[0])
    return result


def _presets(layout: str, schedule: str, start: float, zeros: _Zeros) -> list[str]:
    """The presets (with diffusers' flags) that give this table; empty for a custom one."""
    if len(zeros.padding) > 1:
        return []
    padding = zeros.padding[0] if zeros.padding else None
    names = []
    for preset in PRESETS.values():
        if preset.start != start or preset.padding_idx != padding:
            continue
        if (zeros.odd and not preset.pad_odd_d) or preset.factors():  # mlx: amplitude ≠ 1
            continue
        if preset.name == "diffusers" and layout != "interleaved":
            flags = ["--flip-sin-to-cos"] if layout == "cos-sin" else []
            flags += ["--downscale-freq-shift 0"] if schedule == "paper" else []
            names.append(" ".join(["diffusers", *flags]))
        elif (preset.schedule, preset.layout) == (schedule, layout):
            names.append(preset.name)
    return names


def _command(found: Identification, d: int, n: int) -> str:
    """A ``pecli compute`` command that writes this table (before float16 / bfloat16 rounding)."""
    size = f"--d {d} --n {n} --base {found.base:.10g}"
    if found.storage == "float64":
        size += " --dtype float64"
    if found.presets and "(as" not in found.presets[0]:
        return f"pecli compute --convention {found.presets[0]} {size}"
    parts = [f"pecli compute {size}"]
    parts.append(f"--start {found.start:g} --layout {found.layout} --schedule {found.schedule}")
    if len(found.padding_rows) == 1:
        parts.append(f"--padding-idx {found.padding_rows[0]}")
    if found.zero_components:
        parts.append("--convention tensor2tensor")
    return " ".join(parts)
