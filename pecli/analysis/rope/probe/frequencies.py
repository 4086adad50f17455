"""From each pair's ω to what a port needs: the axis of each pair, θ, scaling, sections.

θ and the scaling come from pecli's own ``inv_freq`` reading
(:func:`pecli.analysis.rope.inv_freq.identify_inv_freq`), given the measured ω and their
uncertainties; θ is also fitted here on the unscaled leading pairs, weighted, with its own
uncertainty. With several ids per token, each pair is fitted on every axis: the axes whose ids
explain its angles are its candidates, and the runs of axes along the pairs are the M-RoPE
sections. No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....core.dtypes import unit_roundoff
from ..inv_freq import RopeGuess, identify_inv_freq
from .omega import OmegaFit

__all__ = ["Frequencies", "Theta", "axis_runs", "inv_freq_dtype", "read_frequencies"]

#: The relative error of a float32 inv_freq computed through a float32 pow (identify's own).
FLOAT32_INV_FREQ = 4e-6


@dataclass(frozen=True)
class Theta:
    """θ as the ω give it.

    ``theta`` (to report), the raw weighted fit and its relative
    uncertainty, the leading pairs ``run`` it was fitted on, identify's reading ``guess``
    (None when too few ω are known, or it disagrees with the fit) and the dtype the ω are
    numbers of (``inv_freq_dtype``: a buffer cast to bfloat16), if any.
    """

    guess: RopeGuess | None
    theta: float
    fitted: float
    error: float
    run: int
    inv_freq_dtype: str | None


@dataclass(frozen=True)
class Frequencies:
    """ω per pair (NaN: not determined), its uncertainty, and what the ω say of θ.

    ``axes`` is ``(pairs, axes)`` bool: which id axes explain the pair's angles;
    ``readings`` how many values of ω fit each pair's angles (1: determined).
    """

    omega: np.ndarray
    error: np.ndarray
    axes: np.ndarray
    readings: np.ndarray
    theta: Theta
    findings: list[str] = field(default_factory=list)


def read_frequencies(fits: list[OmegaFit]) -> Frequencies:
    """Combine the fits of every id axis and read θ and scaling from the ω.

    A pair's ω is taken from the first axis that explains it (the axes that explain it give
    the same ω on the tokens where their ids differ).

    Examples
    --------
    >>> from pecli.analysis.rope.probe.omega import OmegaFit
    >>> w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    >>> one = np.ones(8, dtype=int)
    >>> f = read_frequencies([OmegaFit(w, 1e-12 * w, one, np.zeros(8))])
    >>> f.theta.theta, f.theta.guess.rope_type
    (10000.0, 'default')

    """
    fits_ok = np.stack([(f.readings == 1) & (f.worst <= 2) & np.isfinite(f.omega) for f in fits], 1)
    pairs = fits_ok.shape[0]
    first = np.where(fits_ok.any(axis=1), fits_ok.argmax(axis=1), 0)
    pick = np.arange(pairs)
    omega = np.stack([f.omega for f in fits], 1)[pick, first]
    error = np.stack([f.error for f in fits], 1)[pick, first]
    known = fits_ok.any(axis=1)
    omega, error = np.where(known, omega, np.nan), np.where(known, error, np.nan)
    readings = np.stack([f.readings for f in fits], 1)[pick, first]
    findings: list[str] = []
    theta = _theta(omega, error, findings)
    return Frequencies(omega, error, fits_ok, readings, theta, findings)


def _theta(omega: np.ndarray, error: np.ndarray, findings: list[str]) -> Theta:
    """θ fitted on the leading pairs, identify's reading of the ω, and the θ to report.

    identify's θ is reported when it lies within 3 uncertainties of the fit; otherwise the
    roundest number within them, and identify's reading is dropped (a finding says why).
    """
    known = np.isfinite(omega) & (omega != 0)
    lead = int(np.argmin(known)) if not known.all() else omega.size
    if lead < 3:
        findings.append("fewer than 3 leading pairs have a known ω: θ is not determined")
        return Theta(None, math.nan, math.nan, math.nan, 0, None)
    w = np.abs(omega[:lead])
    tol = np.maximum(4 * error[:lead] / w, FLOAT32_INV_FREQ)
    stored = inv_freq_dtype(w, error[:lead])
    if stored is not None:
        tol = np.maximum(tol, 2 * unit_roundoff(stored))
    dim = 2 * omega.size
    run = _leading_run(w, tol)
    fitted, spread = _weighted_theta(w[:run], tol[:run], dim)
    # identify divides every ω by the last pair's factor: that pair's error reaches them all
    guess = identify_inv_freq(w, tolerance=tol + tol[-1]) if lead == omega.size else None
    if lead < omega.size:
        findings.append(
            f"ω of pairs {lead}–{omega.size - 1} are not determined: θ comes from pairs "
            f"0–{lead - 1}, and the scaling is not read"
        )
    if guess is not None and abs(guess.theta / fitted - 1) <= 3 * spread:
        return Theta(guess, guess.theta, fitted, spread, run, stored)
    if guess is not None:
        findings.append(
            f"identify reads the ω as {guess.rope_type} with θ {guess.theta:.6g}, which the "
            f"leading {run} pairs do not support (θ {fitted:.6g} ± {spread:.2g}): the "
            "scaling is not read"
        )
    return Theta(None, _roundest(fitted, 3 * spread), fitted, spread, run, stored)


def _leading_run(w: np.ndarray, tol: np.ndarray) -> int:
    """How many leading pairs lie on one line ``ln ω_j = c − s·j`` (the unscaled pairs).

    >>> w = 1e4 ** (-np.arange(8) / 8); w[5:] /= 4
    >>> _leading_run(w, np.full(8, 1e-6))
    5
    """
    logs, j = np.log(w), np.arange(w.size, dtype=np.float64)
    run = min(3, w.size)
    while run < w.size:
        slope, intercept = np.polyfit(j[:run], logs[:run], 1, w=1 / tol[:run])
        if abs(logs[run] - intercept - slope * run) > 3 * tol[run]:
            break
        run += 1
    return run


def _roundest(value: float, rel: float) -> float:
    """The number of fewest significant digits within ``rel`` (relative) of ``value``.

    >>> _roundest(501125.3, 0.03), _roundest(9999.9996, 1e-6)
    (500000.0, 10000.0)
    """
    for digits in range(1, 17):
        rounded = float(f"{value:.{digits}g}")
        if abs(rounded / value - 1) <= rel:
            return rounded
    return value


def inv_freq_dtype(w: np.ndarray, error: np.ndarray) -> str | None:
    """``bfloat16`` or ``float16`` if every ω measured finely enough is a number of that dtype.

    A pair counts when its uncertainty is below 1/64 of the dtype's spacing; at least 4 must,
    so that a chance agreement (under 1/10 a pair) is rare.

    >>> w = np.array([1.0, 0.81640625, 0.6640625, 0.5390625])
    >>> inv_freq_dtype(w, np.full(4, 1e-9)), inv_freq_dtype(w + 1e-4, np.full(4, 1e-9))
    ('bfloat16', None)
    """
    for name in ("bfloat16", "float16"):
        fine = (error < w * unit_roundoff(name) / 32) & (w > 0)
        if fine.sum() < 4:
            continue
        near = _nearest(w[fine], name)
        if np.all(np.abs(near - w[fine]) <= 3 * error[fine] + 1e-300):
            return name
    return None


def _nearest(w: np.ndarray, name: str) -> np.ndarray:
    """The nearest ``name`` number to each positive ``w`` (a neighbour of its float32)."""
    if name == "float16":
        return w.astype(np.float16).astype(np.float64)
    bits = w.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    low = bits.view(np.float32).astype(np.float64)
    high = (bits + np.uint32(0x10000)).view(np.float32).astype(np.float64)
    return np.where(np.abs(w - low) <= np.abs(high - w), low, high)


def _weighted_theta(w: np.ndarray, rel: np.ndarray, dim: int) -> tuple[float, float]:
    """θ from ``ln ω_j = c − (2j/dim)·ln θ`` weighted by ``1/rel²``, and its relative error."""
    j = np.arange(w.size, dtype=np.float64)
    weight = 1 / rel**2
    mean = np.sum(weight * j) / np.sum(weight)
    spread = np.sum(weight * (j - mean) ** 2)
    slope = np.sum(weight * (j - mean) * np.log(w)) / spread
    return math.exp(-slope * dim / 2), dim / 2 / math.sqrt(spread)


def axis_runs(axes: np.ndarray, names: list[str]) -> list[tuple[str, int, int]]:
    """The runs of pairs explained by the same axes, as ``(names, first, last)``.

    A pair that several axes explain gets the names joined by ``|``; one that none explains
    ``?``.

    >>> axis_runs(np.array([[1, 0], [1, 0], [0, 1], [1, 1]], bool), ["t", "h"])
    [('t', 0, 1), ('h', 2, 2), ('t|h', 3, 3)]
    """
    labels = ["|".join(n for n, ok in zip(names, row, strict=True) if ok) or "?" for row in axes]
    runs: list[tuple[str, int, int]] = []
    for j, label in enumerate(labels):
        if runs and runs[-1][0] == label:
            runs[-1] = (label, runs[-1][1], j)
        else:
            runs.append((label, j, j))
    return runs
