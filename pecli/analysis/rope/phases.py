"""The frequencies of a RoPE cos/sin cache, measured by following each pair's phase.

Row ``k`` of a cache holds ``a·cos(p_k ω_i)`` and ``a·sin(p_k ω_i)``. The phase of a row pins
``ω_i`` to within ``ε/p_k`` (``ε`` the storage's rounding), once the ``2π`` ambiguity is
resolved by the estimate from the rows before: each row at a larger position refines ``ω_i``
while ``p_k`` times the current error stays below π/2. All ``ω_i`` are at most 1 (every
``rope_type`` divides ``1/θ^(2i/dim)``), which starts the chain at the first positions.
Pure NumPy; used by :func:`pecli.analysis.rope.cache.identify_cache`.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.median import median, unique
from .start import exact_start, framework_start

__all__ = ["ladder", "measure_complex", "measure_single"]

TWO_PI = 2 * math.pi
#: Relative error of an angle computed in float32, as transformers computes ``p·ω``.
ETA = 2.0**-23


def refine(
    positions: np.ndarray,
    candidates: np.ndarray,
    errors: np.ndarray,
    omega: np.ndarray | None = None,
    err: np.ndarray | None = None,
    *,
    eta: float = ETA,
    offset: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """``ω_i`` and its absolute error from phases at ``positions`` (> 0, increasing).

    With ``offset`` > 0 the phases are relative, ``φ(s + k) − φ(s)`` at offsets ``k`` from a
    first position ``s`` of at most ``offset``: each of the two float32 angles is off by up
    to ``eta·(s + k)·ω``, so ``eta·|kω|·(1 + 2·offset/k)`` is allowed.

    ``candidates`` ``(m, K, h)``: the phases (mod 2π) each row allows, ``K`` = 1 from cos and
    sin, 2 from cos alone (±φ) or sin alone (φ, π − φ); ``errors`` ``(m, K, h)``: their errors
    from the stored values, to which the angle's own rounding (relative ``eta``) is added.
    """
    h = candidates.shape[2]
    omega = np.full(h, 0.5) if omega is None else omega.copy()
    err = np.full(h, 0.5) if err is None else err.copy()
    if candidates.shape[1] == 1:  # one phase per row: nothing to pick
        return _refine_one(positions, candidates[:, 0], errors[:, 0], omega, err, eta, offset)
    for p, cands, errs in zip(positions, candidates, errors, strict=True):
        pred, spread = p * omega, p * err
        full = cands + TWO_PI * np.round((pred - cands) / TWO_PI)
        errs = errs + eta * np.abs(full) * (1 + 2 * offset / p)  # p·ω rounded in float32
        # a candidate is possible inside the window the estimate allows, and not below 0 (ω >= 0)
        possible = (np.abs(full - pred) <= spread + errs) & (full >= -errs)
        pick = np.argmin(np.abs(full - pred) + np.where(possible, 0.0, np.inf), axis=0)[None]
        phase = np.take_along_axis(full, pick, axis=0)[0]
        e = np.take_along_axis(errs, pick, axis=0)[0]
        if cands.shape[0] == 2:  # both candidates possible: the gap between them is the error
            e = np.where(possible.all(axis=0), e + np.abs(full[0] - full[1]), e)
        better = (spread < math.pi / 2) & (e / p < err) & possible.any(axis=0)
        omega, err = np.where(better, phase / p, omega), np.where(better, e / p, err)
    return omega, err


def _refine_one(
    positions: np.ndarray,
    phases: np.ndarray,
    errors: np.ndarray,
    omega: np.ndarray,
    err: np.ndarray,
    eta: float,
    offset: float,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`refine` with one candidate phase per row ``(m, h)``: nothing to choose.

    The same steps and arithmetic, with about half of each row's NumPy calls.
    """
    half_pi = math.pi / 2
    for p, phase, e in zip(positions.tolist(), phases, errors, strict=True):
        pred, spread = p * omega, p * err
        full = phase + TWO_PI * np.rint((pred - phase) / TWO_PI)
        e = e + eta * np.abs(full) * (1 + 2 * offset / p)  # p·ω rounded in float32
        possible = (np.abs(full - pred) <= spread + e) & (full >= -e)
        better = (spread < half_pi) & (e / p < err) & possible
        omega, err = np.where(better, full / p, omega), np.where(better, e / p, err)
    return omega, err


def measure_complex(
    cos: np.ndarray, sin: np.ndarray, scale: float, eps: float, positions: np.ndarray, known: bool
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """``ω``, its error and the first position, from cos and sin ``(m, h)`` per pair.

    ``positions``: the rows' positions if ``known``, else their offsets from the first row
    (which the first position is then found for).
    """
    z = (cos + 1j * sin) / scale
    k = positions - positions[0]
    if known:
        start = int(positions[0])
        omega, err = _absolute(z, k + start, eps, *_relative(z, k, eps, start))
        framework = None if np.all(err < 1e-3 * omega) else framework_start(z, k, eps)
        if framework is not None and framework[0] == start:  # far out: read as float32 angles
            return framework[1], framework[1] * ETA, start
        return omega, err, start
    return _unknown_start(z, k, eps)


def _relative(
    z: np.ndarray, k: np.ndarray, eps: float, offset: float, eta: float = ETA
) -> tuple[np.ndarray, np.ndarray]:
    """``ω`` from the phases relative to the first row, for first positions <= ``offset``."""
    phases = np.angle(z[1:] * np.conj(z[0]))[:, None]  # k·ω_i whatever the first position
    return refine(k[1:], phases, np.full(phases.shape, 2 * eps), eta=eta, offset=offset)


def _unknown_start(
    z: np.ndarray, k: np.ndarray, eps: float
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """Near 0 from the slowest pair; else exact angles by the CRT; else float32 angles."""
    omega, err = _relative(z, k, eps, 0.0)
    start = _start(np.angle(z[0]), omega, err, eps)
    if start is None:  # angles exact: ω pinned without the float32 drift
        start = exact_start(z, k, *_relative(z, k, eps, 0.0, eta=0.0), eps)
    if start is None:
        framework = framework_start(z, k, eps)
        if framework is None:
            return omega, err, None
        return framework[1], framework[1] * ETA, framework[0]
    omega, err = _absolute(z, k + start, eps, omega, err)
    return omega, err, start


def ladder(n: int, first: int = 16, growth: float = 1.25) -> np.ndarray:
    """Row indices that suffice to follow the phases: the first rows, then geometric to the last.

    Each row's position is at most ``growth`` times the one before, so the estimate from the
    rows before always resolves its 2π ambiguity; a long cache costs O(log n) rows.

    >>> ladder(40).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 18, 22, 27, 32, 39]
    """
    if n <= first:
        return np.arange(n)
    count = math.ceil(math.log((n - 1) / (first - 1)) / math.log(growth))  # intervals
    steps = np.geomspace(first - 1, n - 1, count + 1).round().astype(np.int64)
    return unique(np.concatenate([np.arange(first), steps]))


def _absolute(
    z: np.ndarray,
    positions: np.ndarray,
    eps: float,
    omega: np.ndarray | None = None,
    err: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    rows = positions > 0
    phases = np.angle(z[rows])[:, None]
    return refine(positions[rows], phases, np.full(phases.shape, eps), omega, err)


def _start(phi0: np.ndarray, omega: np.ndarray, err: np.ndarray, eps: float) -> int | None:
    """The first position ``s`` from ``s·ω_i ≡ φ_i (mod 2π)``, slowest pairs first."""
    usable = np.flatnonzero((omega > 0) & (err < 1e-2 * omega))
    s, s_err = math.inf, math.inf
    for i in usable[np.argsort(omega[usable])]:
        if math.isinf(s):
            s = float(np.mod(phi0[i], TWO_PI) / omega[i])  # s·ω < 2π for the slowest pair
        elif s_err * omega[i] >= math.pi / 2:
            break
        else:
            s = float(phi0[i] + TWO_PI * np.round((s * omega[i] - phi0[i]) / TWO_PI)) / omega[i]
        s_err = min(s_err, (eps + s * err[i]) / omega[i])
    if math.isinf(s) or s_err > 0.25:
        return None
    start = round(s)
    miss = np.angle(np.exp(1j * (phi0[usable] - start * omega[usable])))
    return start if np.all(np.abs(miss) <= 8 * (eps + start * err[usable]) + 1e-12) else None


def measure_single(
    values: np.ndarray, part: str, scale: float, eps: float, positions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """``ω``, its error and the attention factor from a cos or a sin table ``(m, h)`` per pair.

    The table starts at position 0. A sin table's attention factor (first estimated from two
    rows) is measured again from every well-conditioned value once ``ω`` is known.
    """
    p = positions
    omega, err = _single(values[p > 0], part, scale, eps, p[p > 0])
    if part == "sin":
        angle = np.outer(p[p > 0], omega)
        wave = np.sin(angle)  # angles small enough that their float32 rounding does not count
        good = (np.abs(wave) > 0.5) & (angle * ETA < eps)
        if good.any():
            scale = float(median(values[p > 0][good] / wave[good]))
            omega, err = _single(values[p > 0], part, scale, eps, p[p > 0])
    return omega, err, scale


def _single(
    values: np.ndarray, part: str, scale: float, eps: float, p: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    y = np.clip(values / scale, -1.0, 1.0)
    if part == "cos":
        phi = np.arccos(y)
        cands, slope = np.stack([phi, -phi], axis=1), np.abs(np.sin(phi))
    else:
        phi = np.arcsin(y)
        cands, slope = np.stack([phi, math.pi - phi], axis=1), np.abs(np.cos(phi))
    e = eps / np.maximum(slope, math.sqrt(eps))
    return refine(p, cands, np.stack([e, e], axis=1))
