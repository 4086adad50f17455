"""ω of each rotating pair, from the angle it turned at each position: unwrapped and fitted.

The angle a pair turned at position ``p`` is ``ω·p`` modulo 2π, read within ``σ`` (the
storage's rounding, and float32 angles ``fl32(p·ω)`` as the frameworks compute them). Short
baselines (consecutive positions, the smallest position) pin ω roughly and longer ones refine
it, each winding ``k`` chosen within the current uncertainty; where a baseline allows several
windings every one is followed, and the readings that survive every baseline are the
answer: one (ω determined), several (not determined: the positions share a divisor, or are too
few), none (the angles are no ``ω·p``). The candidates of every pair are one flat array, so the
whole search is vectorised. ``|ω| < π`` is assumed (RoPE's fastest pair has ω = 1). No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["OmegaFit", "fit_omega", "measurements", "pair_angles"]

#: The rounding of a float32 angle ``fl32(p·ω)``, relative to ``|ω·p|`` (one product, one cast).
ANGLE_ROUNDING = 2.0**-23
#: An angle's noise in units of the storage's unit roundoff: cos and sin rounded to the
#: dtype, two products, a sum and the stored result, each relative to the pair's norm
#: (transformers' bf16 rotation of the probe fixtures stays within 1 unit).
ANGLE_UNITS = 4.0
#: Readings followed per pair before ω is called not determined.
MAX_READINGS = 4096
#: Successive baselines used to unwrap grow by at least this factor (all are used to fit).
GROWTH = 1.25
TAU = 2 * math.pi


def pair_angles(
    x: np.ndarray, y: np.ndarray, pre: np.ndarray, post: np.ndarray, unit: float
) -> tuple[np.ndarray, np.ndarray]:
    """The angle each pair turned in each row, over the heads, and its noise.

    Parameters
    ----------
    x, y : numpy.ndarray
        Shape ``(rows, heads, channels)``, float64: before and after.
    pre, post : numpy.ndarray
        Shape ``(2, pairs)``: each pair's channels before and after.
    unit : float
        The storage's unit roundoff ``u``.

    Returns
    -------
    angles, sigma : numpy.ndarray
        Shape ``(rows, pairs)``: ``atan2`` of the cross and dot products summed over the heads
        (each head weighted by its pair's norm squared), and its noise: :data:`ANGLE_UNITS`
        ``u`` (each rounding of ``x·cos − x'·sin`` is relative to the pair's norm), ∞ for a
        pair that is 0 in every head.

    Examples
    --------
    >>> x = np.array([[[1.0, 0.0]]]); y = np.array([[[0.0, 1.0]]])
    >>> a, s = pair_angles(x, y, np.array([[0], [1]]), np.array([[0], [1]]), 2.0**-24)
    >>> float(a[0, 0]) == math.pi / 2
    True

    """
    xa, xb = x[..., pre[0]], x[..., pre[1]]
    ya, yb = y[..., post[0]], y[..., post[1]]
    angles = np.arctan2((xa * yb - xb * ya).sum(axis=1), (xa * ya + xb * yb).sum(axis=1))
    moving = (np.hypot(xa, xb) > 0).any(axis=1) & (np.hypot(ya, yb) > 0).any(axis=1)
    return angles, np.where(moving, ANGLE_UNITS * unit, np.inf)


@dataclass(frozen=True)
class OmegaFit:
    """ω per pair, shape ``(pairs,)``; NaN where it is not determined.

    ``error`` is ω's uncertainty (absolute, rad/position); ``readings`` how many values of ω fit
    every angle (1: determined; 0: none fits; more: ambiguous); ``worst`` the largest angle
    residual in units of its ``σ`` (at most 2 for a consistent pair).
    """

    omega: np.ndarray
    error: np.ndarray
    readings: np.ndarray
    worst: np.ndarray


@dataclass(frozen=True)
class Measurements:
    """Baselines ``b > 0`` (positions or position differences), their angles and noise.

    ``psi`` and ``sigma`` are ``(measurements, pairs)``; ``span`` is ``|p| + |p'|`` of the two
    positions (the float32 angle rounding grows with it); ``zero`` the angles at position 0
    (``(tokens at 0, pairs)``: they must be 0).
    """

    b: np.ndarray
    psi: np.ndarray
    sigma: np.ndarray
    span: np.ndarray
    zero: np.ndarray
    zero_sigma: np.ndarray


def measurements(
    positions: np.ndarray, angles: np.ndarray, sigma: np.ndarray, *, absolute: bool = True
) -> Measurements:
    """The baselines of one axis: each position (``absolute``) and consecutive differences.

    Parameters
    ----------
    positions : numpy.ndarray
        Shape ``(tokens,)``, float64.
    angles, sigma : numpy.ndarray
        Shape ``(tokens, pairs)``: each pair's angle in (−π, π] and its noise (rad).
    absolute : bool, keyword-only
        Use the positions themselves (the angle at position 0 is 0); False: only differences,
        for positions offset by an unknown constant.

    Examples
    --------
    >>> m = measurements(np.array([0.0, 1.0, 3.0]), np.zeros((3, 1)), np.full((3, 1), 1e-6))
    >>> m.b.tolist(), m.span.tolist(), m.zero.shape  # 1 and 3; 1 - 0 (span 1), 3 - 1 (span 4)
    ([1.0, 3.0, 1.0, 2.0], [1.0, 3.0, 1.0, 4.0], (1, 1))

    """
    order = np.argsort(positions, kind="stable")
    p, phi, s = positions[order], angles[order], sigma[order]
    step = np.diff(p)
    moved = step > 0
    diff_psi = _wrap(phi[1:] - phi[:-1])[moved]
    diff_sigma = (s[1:] + s[:-1])[moved]
    diff_span = (np.abs(p[1:]) + np.abs(p[:-1]))[moved]
    at = p != 0 if absolute else np.zeros(p.size, dtype=bool)
    sign = np.sign(p[at])[:, None]
    zero = p == 0 if absolute else np.zeros(p.size, dtype=bool)
    return Measurements(
        b=np.concatenate([np.abs(p[at]), step[moved]]),
        psi=np.concatenate([sign * phi[at], diff_psi]),
        sigma=np.concatenate([s[at], diff_sigma]),
        span=np.concatenate([np.abs(p[at]), diff_span]),
        zero=phi[zero],
        zero_sigma=s[zero],
    )


def fit_omega(m: Measurements) -> OmegaFit:
    """ω of every pair from its measurements: unwrapped, then a weighted least-squares fit.

    Every reading that survives the unwrapping is refitted on all the baselines and kept if
    each angle lies within 2σ of it; a pair is determined when exactly one reading is kept.

    Examples
    --------
    >>> p = np.array([0.0, 1.0, 7.0, 100.0, 4095.0])
    >>> omega = np.array([1.0, 0.01, -0.3])
    >>> angles = np.angle(np.exp(1j * p[:, None] * omega))
    >>> fit = fit_omega(measurements(p, angles, np.full((5, 3), 1e-9)))
    >>> np.allclose(fit.omega, omega), fit.readings.tolist()
    (True, [1, 1, 1])

    """
    pairs = m.psi.shape[1]
    nan = np.full(pairs, np.nan)
    if m.b.size == 0:
        return OmegaFit(nan, nan, np.full(pairs, MAX_READINGS + 1), nan)
    dropped = np.zeros(pairs, dtype=bool)
    pid, rough, _ = _unwrap(m, _thinned(m.b), dropped)
    omega, error, worst = _refine(m, pid, rough)
    kept = worst <= 2
    pid_k, omega_k, error_k = _merged(pid[kept], omega[kept], error[kept])
    readings = np.where(dropped, MAX_READINGS + 1, np.bincount(pid_k, minlength=pairs))
    one = readings[pid_k] == 1
    fitted, err = nan.copy(), nan.copy()
    fitted[pid_k[one]], err[pid_k[one]] = omega_k[one], error_k[one]
    least = np.full(pairs, np.inf)
    np.minimum.at(least, pid, np.where(np.isnan(worst), np.inf, worst))
    return OmegaFit(fitted, err, readings, np.where(np.isinf(least), np.nan, least))


def _thinned(b: np.ndarray) -> np.ndarray:
    """Indices of baselines growing by :data:`GROWTH` at least, the shortest first.

    >>> _thinned(np.array([4.0, 1.0, 5.0, 5.5])).tolist()  # 1, 4, 5 = 1.25·4; 5.5 < 1.25·5
    [1, 0, 2]
    """
    order = np.argsort(b, kind="stable")
    chosen, last = [], 0.0
    for i in order:
        if b[i] >= GROWTH * last:
            chosen.append(i)
            last = b[i]
    return np.asarray(chosen, dtype=int)


def _unwrap(
    m: Measurements, chosen: np.ndarray, dropped: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every reading of ω that fits the chosen baselines: pair ids, ω, uncertainty.

    The prior ``ω = 0 ± π/2`` (doubled in the window: ``|ω| < π``) starts each pair; the
    pairs with too many readings are marked in ``dropped``.
    """
    pairs = m.psi.shape[1]
    pid = np.arange(pairs)
    sbb = np.full(pairs, 4 / math.pi**2)
    sbp = np.zeros(pairs)
    for i in chosen:
        omega, error = sbp / sbb, 1 / np.sqrt(sbb)
        noise = m.sigma[i, pid] + ANGLE_ROUNDING * (np.abs(omega) + error) * m.span[i]
        informative = noise < math.pi / 4
        window = 2 * noise + 2 * m.b[i] * error
        centre = (omega * m.b[i] - m.psi[i, pid]) / TAU
        low = np.where(informative, np.ceil(centre - window / TAU), 0)
        count = np.where(informative, np.floor(centre + window / TAU) - low + 1, 1).astype(int)
        count = np.maximum(count, 0)
        keep = np.repeat(np.arange(pid.size), count)
        winding = low[keep] + (np.arange(keep.size) - np.repeat(np.cumsum(count) - count, count))
        weight = np.where(informative, 1 / np.maximum(noise, 1e-300) ** 2, 0.0)[keep]
        pid = pid[keep]
        sbb = sbb[keep] + weight * m.b[i] ** 2
        sbp = sbp[keep] + weight * m.b[i] * (m.psi[i, pid] + TAU * winding)
        pid, sbb, sbp = _capped(pid, sbb, sbp, dropped)
    return _merged(pid, sbp / sbb, 1 / np.sqrt(sbb))


def _capped(
    pid: np.ndarray, sbb: np.ndarray, sbp: np.ndarray, dropped: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop every reading of a pair that has more than :data:`MAX_READINGS` (marked dropped)."""
    counts = np.bincount(pid, minlength=dropped.size)
    many = counts > MAX_READINGS
    if not many.any():
        return pid, sbb, sbp
    dropped |= many
    keep = ~many[pid]
    return pid[keep], sbb[keep], sbp[keep]


def _merged(
    pid: np.ndarray, omega: np.ndarray, error: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Readings of one pair closer than their uncertainties are one reading (the surest)."""
    if pid.size == 0:
        return pid, omega, error
    order = np.lexsort((error, omega, pid))
    pid, omega, error = pid[order], omega[order], error[order]
    same = (pid[1:] == pid[:-1]) & (np.abs(np.diff(omega)) <= 2 * (error[1:] + error[:-1]))
    keep = np.concatenate([[True], ~same])
    return pid[keep], omega[keep], error[keep]


def _refine(
    m: Measurements, pid: np.ndarray, rough: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each reading refitted on every baseline: ω, its uncertainty, the worst residual / σ."""
    sigma, psi = m.sigma[:, pid], m.psi[:, pid]
    noise = sigma + ANGLE_ROUNDING * np.abs(rough)[None, :] * m.span[:, None]
    weight = np.where(noise < math.pi / 4, 1 / np.maximum(noise, 1e-300) ** 2, 0.0)
    b = m.b[:, None]
    unwrapped = psi + TAU * np.round((rough * b - psi) / TAU)
    sbb = (weight * b**2).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        omega = (weight * b * unwrapped).sum(axis=0) / sbb
        error = 1 / np.sqrt(sbb)
        residual = np.where(weight > 0, np.abs(unwrapped - omega * b) / noise, 0.0)
        worst = residual.max(axis=0, initial=0.0)
        if m.zero.size:
            worst = np.maximum(worst, (np.abs(m.zero[:, pid]) / m.zero_sigma[:, pid]).max(axis=0))
    return omega, error, np.where(np.isfinite(omega), worst, np.nan)


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles into (−π, π]."""
    return np.angle(np.exp(1j * angle))
