"""Recognise a RoPE ``inv_freq`` vector: θ, rotated width, rope type and its parameters.

A vector found in a checkpoint (``…rotary_emb.inv_freq``) or dumped from a model is compared
with the unscaled ``1/θ^(2i/dim)``: the leading pairs that no scaling touches give θ (a
least-squares fit of ``ln ω_i`` against ``i``), and the ratio ``q_i = ω_i / (1/θ^(2i/dim))``
tells the type: 1 everywhere (default), one constant below 1 (linear), 1 then ``1/f`` with a
ramp linear in ``i`` between (yarn) or linear in ``ω_i`` (llama3), trailing zeros
(proportional). The tolerance follows the storage dtype (float32 values carry float32
rounding, as transformers computes them). Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.dtypes import storage_precision, unit_roundoff
from ...core.errors import ParameterError

__all__ = ["RopeGuess", "fit_theta", "identify_inv_freq"]

#: Relative tolerance per storage dtype: transformers' float32 pow loses ~15 ulps.
_TOLERANCE = {
    "float64": 1e-9,
    "float32": 4e-6,
    "float16": 4 * unit_roundoff("float16"),
    "bfloat16": 4 * unit_roundoff("bfloat16"),
}


@dataclass(frozen=True)
class RopeGuess:
    """What an ``inv_freq`` vector is, as far as it determines it."""

    rope_type: str
    theta: float
    rotary_dim: int
    storage: str
    parameters: dict[str, float] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)


def identify_inv_freq(values: np.ndarray, *, tolerance: np.ndarray | None = None) -> RopeGuess:
    """Recognise the rope type, θ and scaling of an ``inv_freq`` vector.

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(rotary_dim/2,)`` (any float dtype): the inverse frequencies, pair 0 first.
    tolerance : numpy.ndarray, optional, keyword-only
        Shape ``(rotary_dim/2,)``: the relative error of each value, for frequencies measured
        from a cos/sin cache (:mod:`pecli.analysis.rope.cache`). Default: the storage dtype's.

    Returns
    -------
    RopeGuess
        ``rope_type`` (``default``, ``linear``, ``yarn``, ``llama3``, ``proportional`` or
        ``unknown``), θ (rounded to a round number when that fits), the rotated width,
        the storage dtype, what the values determine of the type's parameters (yarn's ramp
        bounds, llama3's ``original_max_position_embeddings`` and ``high_freq_factor``
        assuming ``low_freq_factor`` 1) and findings.

    Raises
    ------
    ParameterError
        ``values`` (as ``file``) is not a 1-D vector of at least 3 finite numbers >= 0
        starting with a positive one.

    Examples
    --------
    >>> inv = 1 / 500000.0 ** (np.arange(0, 128, 2) / 128)
    >>> guess = identify_inv_freq(inv)
    >>> guess.rope_type, guess.theta, guess.rotary_dim
    ('default', 500000.0, 128)

    """
    v = np.asarray(values)
    storage = storage_precision(v.astype(np.float64))  # bfloat16 arrays have kind "V"
    w = _check(v.astype(np.float64))
    h = int(np.count_nonzero(w))
    tol = np.full(w.size, _TOLERANCE[storage]) if tolerance is None else np.asarray(tolerance)
    if tolerance is None and storage == "float16":  # subnormals: a spacing of 2^-24, not u
        tol = np.maximum(tol, np.divide(2.0**-23, w, out=tol.copy(), where=w > 0))
    dim = 2 * w.size
    findings: list[str] = []
    if h < 3:  # [1, 0, 0]: no ratio to fit θ on
        findings.append(f"{h} nonzero of {w.size} frequencies: too few to fit θ (3 needed)")
        return RopeGuess("unknown", math.nan, dim, storage, {}, findings)
    theta, scale, run = fit_theta(w[:h], dim, tol[:h])
    if run < 3 or not theta > 1:
        findings.append(_no_theta(theta, run))
        return RopeGuess("unknown", math.nan, dim, storage, {}, findings)
    base = theta ** (-np.arange(h) * 2.0 / dim)
    q = w[:h] / base
    if h < w.size:
        findings.append(f"{w.size - h} trailing zero frequencies: pass-through pairs")
        return RopeGuess(
            "proportional",
            theta,
            dim,
            storage,
            {"rope_angles": h, "factor": _snap_factor(1 / scale)},
            findings,
        )
    if np.all(np.abs(q / scale - 1) < tol[:h]):
        return _uniform(w, theta, scale, storage, tol, findings, measured=tolerance is not None)
    return _ramp(q, base, theta, dim, storage, tol, findings)


def _no_theta(theta: float, run: int) -> str:
    """Why no θ > 1 fits: ratios that vary at once, or frequencies that rise (θ < 1)."""
    if run < 3:
        return (
            "the ratios ω_(i+1)/ω_i vary from the first pairs on: per-pair factors "
            "(longrope?) that θ cannot be separated from"
        )
    trend = (  # θ = 1: equal frequencies (all ones, or one factor on all), which no θ > 1 makes
        f"increase with the pair index (θ = {theta:.6g} < 1)"
        if theta < 1
        else f"are all equal (θ = {theta:.6g})"
    )
    return f"the frequencies {trend}: not an inv_freq vector, whose ω_i = θ^(-2i/dim) fall"


def _uniform(
    w: np.ndarray,
    theta: float,
    scale: float,
    storage: str,
    tol: np.ndarray,
    findings: list[str],
    *,
    measured: bool,
) -> RopeGuess:
    """Every pair scaled alike: ``default`` (no scaling) or ``linear`` (one factor)."""
    dim = 2 * w.size
    if abs(scale - 1) >= tol[0]:
        factor = _snap_factor(1 / scale)
        if factor >= 1:
            return RopeGuess("linear", theta, dim, storage, {"factor": factor}, findings)
        findings.append(
            f"every frequency is {scale:.6g} times θ's own (inv_freq[0] = {w[0]:.6g}, not 1): "
            f"a linear factor of {factor:.6g}, below 1, which transformers warns about and "
            "pecli does not compute"
        )
        return RopeGuess("unknown", theta, dim, storage, {"factor": factor}, findings)
    if not measured:  # a measured ω_0 is 1 only within its error
        _first_is_one(w, findings)
    if len(f"{theta:.9g}".replace(".", "").strip("0")) > 3:
        findings.append("θ is not a round number: dynamic NTK scaling gives such θ'")
    return RopeGuess("default", theta, dim, storage, {}, findings)


def _check(w: np.ndarray) -> np.ndarray:
    """``w`` if it is an inv_freq vector; the error names its shape, else its first bad value."""
    rule = "must hold one inv_freq vector: >= 3 finite numbers >= 0, the first > 0"
    if w.ndim != 1 or w.size < 3:
        raise ParameterError("file", rule, f"shape {w.shape}")
    bad = ~np.isfinite(w) | (w < 0)
    bad[0] |= not w[0] > 0
    if bad.any():
        at = int(np.argmax(bad))
        raise ParameterError("file", rule, f"inv_freq[{at}] = {w[at]:g}")
    return w


def fit_theta(w: np.ndarray, dim: int, tol: np.ndarray) -> tuple[float, float, int]:
    """θ, ``ω_0`` and the length of the leading run of constant ratios ``ω_{i+1}/ω_i``.

    θ comes from a least-squares fit of ``ln ω_i`` on that run and is replaced by the roundest
    number (fewest significant digits) that still fits every value of the run within ``tol``.

    Parameters
    ----------
    w : numpy.ndarray
        Shape ``(m,)``, float64 > 0: the leading frequencies (``m <= dim/2``).
    dim : int
        The rotated width (``ω_i = θ^(-2i/dim)``).
    tol : numpy.ndarray
        Shape ``(m,)``: the relative error allowed for each frequency.

    Examples
    --------
    >>> fit_theta(1e4 ** (-np.arange(4) * 2 / 64), 64, np.full(4, 1e-9))
    (10000.0, 1.0, 4)

    """
    logs = np.log(w)
    steps = np.diff(logs)
    run = 1
    while run < steps.size and abs(steps[run] - steps[0]) < 4 * max(tol[0], tol[run + 1]) * max(
        1.0, abs(logs[run + 1])
    ):
        run += 1
    i = np.arange(run + 1)
    slope, intercept = np.polyfit(i, logs[: run + 1], 1)
    theta, scale = math.exp(-slope * dim / 2), math.exp(intercept)
    for digits in range(1, 10):
        rounded = float(f"{theta:.{digits}g}")
        fit = w[: run + 1] / (scale * rounded ** (-i * 2.0 / dim))
        if np.all(np.abs(fit - 1) < tol[: run + 1]):
            return rounded, scale, run + 1
    return theta, scale, run + 1


def _snap(x: float) -> float:
    """The nearest integer if within 1e-3 relative (float32 data), else ``x``."""
    return float(round(x)) if abs(x - round(x)) <= 1e-3 * max(1.0, abs(x)) else float(x)


def _snap_factor(f: float) -> float:
    """A scaling factor snapped where round factors live: ``n`` above 1, ``1/n`` below it.

    >>> _snap_factor(7.9999995), _snap_factor(0.24999999936661904), _snap_factor(0.3)
    (8.0, 0.25, 0.3)
    """
    if f >= 1:
        return _snap(f)
    n = _snap(1 / f)
    return 1 / n if n == int(n) else f


def _first_is_one(w: np.ndarray, findings: list[str]) -> None:
    if w[0] != 1.0:
        findings.append(
            f"inv_freq[0] is {w[0]!r}, not exactly 1: a damaged or re-initialised buffer?"
        )


def _ramp(
    q: np.ndarray,
    base: np.ndarray,
    theta: float,
    dim: int,
    storage: str,
    tol: np.ndarray,
    findings: list[str],
) -> RopeGuess:
    """Types that keep the fast pairs and divide the slow ones by f, with a transition."""
    f = 1 / q[-1]
    kept, divided = np.abs(q - 1) < tol, np.abs(q * f - 1) < tol
    if q[0] > 1 + tol[0] or f <= 1 or not kept[0] or np.any(np.diff(q) > tol[1:]):
        findings.append("per-pair factors (longrope?): " + ", ".join(f"{1 / x:.6g}" for x in q))
        return RopeGuess("unknown", theta, dim, storage, {}, findings)
    idx = np.flatnonzero(~(kept | divided))
    params = {
        "factor": _snap(f),
        "unchanged": int(kept.sum()),
        "smoothed": int(idx.size),
        "interpolated": int(divided.sum()),
    }
    if idx.size < 2:
        findings.append("too few smoothed pairs to tell yarn from llama3")
        return RopeGuess("unknown", theta, dim, storage, params, findings)
    s = (q - 1 / f) / (1 - 1 / f)  # 1 where kept, 0 where divided
    kind, fitted = _transition(idx, base[idx], s[idx], findings)
    return RopeGuess(kind, theta, dim, storage, params | fitted, findings)


def _transition(
    idx: np.ndarray, omega: np.ndarray, s: np.ndarray, findings: list[str]
) -> tuple[str, dict[str, float]]:
    """The type of the transition: yarn if linear in the pair index, llama3 if in the unscaled ω.

    Two smoothed pairs fit both lines exactly (a tie): only integer ramp bounds (yarn's
    default truncation) tell yarn; otherwise the type is not determined and both readings
    are given.
    """
    yarn = np.polyfit(idx, s, 1, full=True)
    llama = np.polyfit(omega, s, 1, full=True)
    err_yarn = float(yarn[1][0]) if yarn[1].size else 0.0
    err_llama = float(llama[1][0]) if llama[1].size else 0.0
    slope, intercept = yarn[0]  # s = 1 − (i − low)/(high − low): 1 at low, 0 at high
    low, high = _snap((1 - intercept) / slope), _snap(-intercept / slope)
    whole = low == int(low) and high == int(high)
    length, high_freq = _llama3_reading(llama[0])
    if idx.size == 2 and not whole:
        findings.append(
            f"two smoothed pairs fit yarn (ramp {low:.6g} … {high:.6g}, truncate "
            f"false) and llama3 (L = {length:.6g}, high_freq_factor {high_freq:.6g}) "
            "alike: the type is not determined"
        )
        return "unknown", {}
    if err_yarn <= err_llama:
        findings.append(
            f"ramp bounds {'are' if whole else 'are not'} integers: truncate "
            f"{'true (the default)' if whole else 'false'}"
        )
        return "yarn", {"ramp_low": low, "ramp_high": high}
    findings.append("llama3: L and high_freq_factor assume low_freq_factor = 1")
    whole_length = int(length) if length.is_integer() else length  # a context length: 8192
    return "llama3", {
        "original_max_position_embeddings": whole_length,
        "high_freq_factor": high_freq,
    }


def _llama3_reading(line: np.ndarray) -> tuple[float, float]:
    """L and high_freq_factor from ``s = a·ω + b`` = (L·ω/(2π) − low)/(high − low), low = 1."""
    a, b = line
    high = 1 - 1 / b
    return _snap(a * 2 * math.pi * (high - 1)), _snap(high)
