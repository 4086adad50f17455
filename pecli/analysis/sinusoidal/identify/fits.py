"""Angle fits behind :mod:`pecli.analysis.sinusoidal.identify`: frequencies, first position, base.

Given the angles ``θ_j(r) = atan2(sin, cos)`` of each pair ``j`` in row ``r`` of a table, the model
is ``θ_j(r) = (start + r) · exp(-k j)`` (mod 2π), with ``k = ln C / (h - s)`` (docs/conventions.md).

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from ....core.rules import BASE_RANGE, SCHEDULES, check_schedule

__all__ = [
    "LOG_BASES",
    "ROUND",
    "NotGrowing",
    "denominator",
    "other_base",
    "readings",
    "refine_k",
    "round_base",
    "roundness",
    "schedules",
    "slopes_k",
    "start_position",
    "wrap",
]


class NotGrowing(ValueError):
    """The first pair's angle does not grow by 1 a row: another order, or an angle scale."""


def wrap(angle: np.ndarray) -> np.ndarray:
    """Angles reduced to ``[-π, π)`` (up to rounding: ``θ - 2π ⌊(θ + π) / 2π⌋``).

    With a floor rather than ``%``: NumPy's remainder calls ``fmod`` value by value, 3.6x
    the time, and ``identify`` wraps every entry of the table several times.

    >>> wrap(np.array([3.0 * np.pi, -0.5])).round(12)
    array([-3.14159265, -0.5       ])
    """
    turns = np.floor((angle + np.pi) * (0.5 / np.pi))
    wrapped: np.ndarray = angle - (2 * np.pi) * turns
    return wrapped


def slopes_k(theta: np.ndarray, rows: np.ndarray, noise: float = 0.0) -> float | None:
    """``k`` from the slope of each pair's unwrapped angle against the row.

    A pair counts when its angle moves over the rows by more than 50 ``noise`` (the storage's
    rounding; at most 0.05 rad is ever asked), so a few rows of a slow pair still tell ``k``.
    None when no pair but the first moves that much: the rows do not tell ``k``.
    """
    steps = _steps(theta, rows)
    unwrapped = np.vstack([theta[:1], theta[:1] + np.cumsum(steps, axis=0)])
    centred = rows - rows.mean()
    slope = centred @ (unwrapped - unwrapped.mean(axis=0)) / (centred @ centred)
    j = np.arange(theta.shape[1], dtype=np.float64)
    span = rows[-1] - rows[0]
    usable = (j >= 1) & (slope * span > min(0.05, max(50 * noise, 1e-6)))
    if abs(slope[0] - 1.0) > 0.05:
        raise NotGrowing(
            "angles do not grow like (start + row) ω_j with ω_0 = 1 (an angle scale, "
            "diffusers' scale or MLX's full_turns, is not fitted)"
        )
    if not usable.any():
        return None
    w = slope[usable] ** 2
    return float(np.sum(w * j[usable] * -np.log(slope[usable])) / np.sum(w * j[usable] ** 2))


def _steps(theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each pair's turn from one fit row to the next, across left-out zero rows too.

    Between rows one apart a pair turns by less than π (``ω_j <= 1``): the wrapped difference
    is the turn. Across a gap of ``g`` rows it turns ``g`` times that, which may pass π (the
    first pair, from 4 rows on): the per-row turn measured where rows are one apart carries it.
    """
    turns = np.diff(theta, axis=0)
    steps = wrap(turns)
    gaps = np.diff(rows)
    wide = gaps > 1
    if wide.any() and (gaps == 1).any():
        per_row = np.angle(np.exp(1j * steps[gaps == 1]).mean(axis=0))
        expected = gaps[wide, None] * per_row[None, :]
        steps[wide] = expected + wrap(turns[wide] - expected)
    return steps


def start_position(theta: np.ndarray, rows: np.ndarray, omega: np.ndarray) -> float:
    """The first position, from each pair's intercept, lowest frequency first."""
    intercept = wrap(theta - rows[:, None] * omega[None, :])
    b = np.angle(np.exp(1j * intercept).mean(axis=0))
    estimate = b[-1] / omega[-1]
    for bj, wj in zip(b[::-1], omega[::-1], strict=True):
        estimate = (bj + 2 * np.pi * np.round((estimate * wj - bj) / (2 * np.pi))) / wj
    nearest = float(np.round(estimate))
    return nearest if abs(estimate - nearest) < 0.05 else float(estimate)


def refine_k(theta: np.ndarray, positions: np.ndarray, k: float) -> float:
    """Gauss-Newton on ``k`` over every entry, with wrapped residuals.

    At most 6 steps; it stops once a step leaves ``k`` as it was (the next would be the same).
    """
    j = np.arange(theta.shape[1], dtype=np.float64)
    for _ in range(6):
        model = positions[:, None] * np.exp(-k * j)[None, :]
        jac = -j[None, :] * model
        denom = float(np.sum(jac * jac))
        if denom == 0:
            break
        moved = k + float(np.sum(jac * wrap(theta - model)) / denom)
        if moved == k:
            break
        k = moved
    return k


def roundness(base: float) -> float:
    """Distance in log from ``base`` to the nearest number with two significant digits."""
    exponent = math.floor(math.log10(base)) - 1
    rounded = round(base / 10**exponent) * 10**exponent
    return abs(math.log(base / rounded))


def round_base(base: float) -> float:
    """``base`` rounded to two significant digits."""
    exponent = math.floor(math.log10(base)) - 1
    return float(round(base / 10**exponent) * 10**exponent)


#: A base within this log-distance of a two-digit number counts as round.
ROUND = 1e-4
#: ``ln C`` of the bases ``compute`` takes (:data:`~pecli.core.rules.BASE_RANGE`): a reading
#: outside them is none (and ``exp`` of it may overflow).
LOG_BASES = (math.log(BASE_RANGE[0]), math.log(BASE_RANGE[1]))


def other_base(base: float, den: float, own: float) -> float | None:
    """``base^(den/own)``: the same frequencies with ``h - s = den`` (None outside BASE_RANGE).

    >>> round(other_base(10000.0, 3.0, 4.0), 9), other_base(1e300, 34.0, 33.0)
    (1000.0, None)
    """
    log = math.log(base) * den / own
    return math.exp(log) if LOG_BASES[0] <= log <= LOG_BASES[1] else None


def denominator(schedule: str, d: int, odd_d: str = "zero") -> float:
    """``h - s`` of ``ω_j = C^(-j/(h-s))`` for a width-``d`` table, ``d >= 2`` (positive).

    ``h`` is ``d // 2``, or ``d/2`` (``sine``: DistilBERT, HF Marian) and ``(d+1)/2``
    (``sine-d+1``: tatp22) for an odd ``d`` that ends with a sine; tensor2tensor's own
    guard ``max(h - 1, 1)`` applies (pecli.core.sinusoidal.frequencies). From ``d = 2`` on,
    ``h >= 1``: the paper's ``h`` is positive, and so is tensor2tensor's ``h - 1`` or its guard's
    1.

    >>> denominator("paper", 8), denominator("tensor2tensor", 8), denominator("tensor2tensor", 3)
    (4.0, 3.0, 1.0)
    """
    half = {"sine": d / 2, "sine-d+1": float((d + 1) // 2)}.get(odd_d, float(d // 2))
    den = half - check_schedule(schedule)
    return den if den > 0 else 1.0


def schedules(d: int, rules: tuple[str, ...]) -> Iterator[tuple[str, str, float]]:
    """Each (odd-d rule, schedule, ``h - s``) a width-``d`` table may be read with, in order.

    >>> list(schedules(8, ("zero",)))
    [('zero', 'paper', 4.0), ('zero', 'tensor2tensor', 3.0)]
    """
    for rule in rules:
        for schedule in SCHEDULES:  # paper, tensor2tensor
            yield rule, schedule, denominator(schedule, d, rule)


def readings(
    k: float, d: int, rules: tuple[str, ...], named: Callable[[str, str], list[str]]
) -> list[tuple[str, float, str]]:
    """The equivalent (schedule, base, odd-d rule) readings of ``k``, best first.

    ``rules`` are the odd-d rules the table allows (``("zero",)`` for an even one). The
    rounder base first (all bases within :data:`ROUND` of a two-digit number tie), then
    readings that name a preset, then the base nearest 10000. Only bases in
    :data:`~pecli.core.rules.BASE_RANGE` (those ``compute`` takes) are readings; ValueError
    when none is.
    """
    options: list[tuple[str, float, str]] = []
    seen: list[float] = []
    low, high = LOG_BASES
    for rule, schedule, den in schedules(d, rules):
        if den not in seen and low <= k * den <= high:  # d = 2: h - s = 1 for both
            seen.append(den)
            options.append((schedule, math.exp(k * den), rule))
    if not options:
        raise ValueError(
            f"the frequencies fall as exp(-{k:.6g} j): no base from {BASE_RANGE[0]:g} to "
            f"{BASE_RANGE[1]:g} gives them"
        )
    return sorted(
        options,
        key=lambda o: (
            max(roundness(o[1]), ROUND),
            not named(o[0], o[2]),
            abs(math.log(o[1] / 1e4)),
        ),
    )
