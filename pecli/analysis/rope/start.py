"""The first position of a cos/sin cache that starts far from 0, exact or framework float32.

Each pair's phase at the first row is ``s·ω_i`` (mod 2π): ``s`` modulo the pair's period.
Once the ``ω_i`` are known well enough (``s·δω_i ≪ π``), the pairs combine like the Chinese
remainder theorem (:func:`pecli.analysis.sinusoidal.identify.phases.candidate_starts`, as
``identify`` finds the first position of a 1-D table) and each candidate is checked against
every row.

Two readings are tried. An *exact* cache (pecli's ``rope cache``): the phases of the rows
relative to the first hold ``k·ω_i`` to the storage's rounding whatever ``s`` is, which pins
``ω_i`` to ``ε/k``. A *framework* cache (transformers' rotary modules): the angles are
``fl32(p · ω32_i)``, each off by up to ``2^-24·p·ω_i``, so at ``s = 10^5`` no measurement pins
``ω_i`` to ``1/s``; the measured ``ω`` is read as a rope type
(:func:`~pecli.analysis.rope.inv_freq.identify_inv_freq`, its tolerance widened for the
drift), transformers' float32 ``inv_freq`` of that reading
(:func:`pecli.core.rope.framework.transformers_inv_freq`) is taken as ``ω32``, and the rows
are checked against ``fl32(fl32(s + k) · ω32)``.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.dtypes import float32_steps
from ...core.errors import ParameterError
from ...core.rope import RopeSpec, rope_frequencies
from ...core.rope.framework import transformers_inv_freq
from ..sinusoidal.identify.fits import wrap
from ..sinusoidal.identify.phases import FRAMEWORK_DRIFT, best_phase_fits, candidate_starts, measure
from .inv_freq import RopeGuess, identify_inv_freq

__all__ = ["exact_start", "framework_start", "slopes"]

_F32 = np.float32
#: Allowed phase error of a row, in units of the storage's rounding ε (cos and sin rounded).
ROW_TOLERANCE = 8


def exact_start(
    z: np.ndarray, rows: np.ndarray, omega: np.ndarray, err: np.ndarray, eps: float
) -> int | None:
    """The first position of an exact cache, from ``ω`` measured to ``err``.

    ``z`` ``(m, h)``: ``cos + i·sin`` of the rows ``rows`` (offsets from the first row, the
    first 0), divided by the attention factor; ``eps``: the storage's rounding. None when no
    start in ``0 … 2^24`` reproduces every row, or more than one does.
    """
    usable = (omega > 0) & (err < 1e-3 * omega)
    if usable.sum() < 2:
        return None
    z, omega, err = z[:, usable], omega[usable], err[usable]
    drift = float(np.max(err / omega))

    def angles(start: int) -> tuple[np.ndarray, np.ndarray]:
        p = (start + rows)[:, None]
        return p * omega[None, :], ROW_TOLERANCE * eps + p * err[None, :]

    return _search(z, rows, omega, drift, eps, angles)


def framework_start(z: np.ndarray, rows: np.ndarray, eps: float) -> tuple[int, np.ndarray] | None:
    """The first position and ``ω32`` of a cache computed in float32 as transformers does.

    ``ω`` is first measured by :func:`slopes` on the leading consecutive rows, read as a rope
    type, and replaced by transformers' float32 ``inv_freq`` of that reading. None when that
    reading reproduces the rows from no start, or from more than one.
    """
    omega, err = slopes(z, rows)
    for model in _models(omega, err):
        live = model > 0
        phases = np.angle(z[:, live])

        def angles(
            start: int, model: np.ndarray = model, phases: np.ndarray = phases
        ) -> tuple[np.ndarray, np.ndarray]:
            picked = nearest_port(phases, rows, start, model[model > 0])
            p = np.float32(start) + rows.astype(np.float32)  # positions in float32, exact < 2^24
            theta = (p[:, None] * picked[None, :]).astype(np.float64)  # one product
            return theta, np.full(theta.shape, ROW_TOLERANCE * eps)

        wide = model[live].astype(np.float64)
        start = _search(z[:, live], rows, wide, FRAMEWORK_DRIFT, eps, angles)
        if start is not None:
            found = model.copy()
            found[live] = nearest_port(phases, rows, start, model[live])
            return start, found.astype(np.float64)
    return None


#: How many float32 steps either side of a model's ``ω32_i`` a port's own ``pow`` may land.
PORT_ULPS = 4


def nearest_port(phases: np.ndarray, rows: np.ndarray, start: int, model: np.ndarray) -> np.ndarray:
    """Per pair, the float32 ``ω`` within :data:`PORT_ULPS` steps of ``model`` that fits best.

    Any engine's float32 ``pow`` (NumPy's, torch's, a GPU's) may round an ``inv_freq`` to either
    neighbour of the exact value, or a few steps off it: a faithful port is read by trying, for
    each pair alone (its angles depend on its own ``ω`` only), the float32 numbers around the
    model's and keeping the one whose angles ``fl32(fl32(s + k)·ω)`` are closest to the rows'.
    ``phases`` ``(m, h)``: the rows' angles; ``model`` ``(h,)`` float32 > 0.
    """
    steps = np.arange(-PORT_ULPS, PORT_ULPS + 1)
    m32 = np.asarray(model, np.float32)
    tried = np.stack([float32_steps(m32, int(k)) for k in steps])  # (K, h)
    p = np.float32(start) + rows.astype(np.float32)
    rebuilt = (p[None, :, None] * tried[:, None, :]).astype(np.float64)  # (K, m, h)
    miss = np.max(np.abs(wrap(phases[None] - rebuilt)), axis=1)  # (K, h)
    order = np.argsort(np.abs(steps), kind="stable")  # ties go to the model's own value
    best = order[np.argmin(miss[order], axis=0)]
    picked: np.ndarray = tried[best, np.arange(m32.size)]
    return picked


def slopes(z: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ω`` and its error from a least-squares line through the leading consecutive rows.

    The phase steps from row to row are ``ω_i`` plus the angles' float32 errors (below 1 rad
    for first positions below 2^24), so with every ``ω_i <= 1`` they unwrap without doubt;
    the error is four standard errors of the slope.

    >>> p = np.arange(100.0)
    >>> omega, err = slopes(np.exp(1j * np.outer(p + 7.0, [1.0, 0.01])), p)
    >>> np.round(omega, 12).tolist(), bool(np.all(err < 1e-12))
    ([1.0, 0.01], True)

    """
    m = int(np.argmin(rows == np.arange(rows.size))) or rows.size  # leading consecutive rows
    steps = np.angle(z[1:m] * np.conj(z[: m - 1]))
    phase = np.concatenate([np.zeros((1, z.shape[1])), np.cumsum(steps, axis=0)])
    r = np.arange(m, dtype=np.float64)
    centred = r - r.mean()
    slope = centred @ (phase - phase.mean(axis=0)) / (centred @ centred)
    residual = phase - phase.mean(axis=0) - np.outer(centred, slope)
    spread = np.sqrt(np.sum(residual**2, axis=0) / max(m - 2, 1))
    return slope, 4 * spread / math.sqrt(centred @ centred) + 1e-15


def _models(omega: np.ndarray, err: np.ndarray) -> list[np.ndarray]:
    """The float32 ``inv_freq`` transformers computes for each reading of the measured ``ω``.

    Read with the tolerance the measurement allows, then 10 and 100 times tighter: θ is
    rounded to the fewest digits that fit, so a looser reading gives the rounder θ (10000) and
    a tighter one the θ the rows may need (10001). Each reading gives transformers' float32
    steps and the exact values rounded once to float32 (code that computes ``inv_freq`` in
    float64). Types pecli does not rebuild give none.
    """
    if not (np.all(omega > 0) and omega.size >= 3):
        return []
    u = err / omega
    if np.any(u > 0.05):
        return []
    models: list[np.ndarray] = []
    for tighter in (1, 10, 100):
        # one tolerance for all pairs: the row-to-row float32 errors are not independent, and
        # a reading too loose is refused by the rows themselves (framework_start)
        tolerance = np.full(u.size, (8 * u.max() + 4e-6) / tighter)
        try:
            spec = _spec(identify_inv_freq(omega, tolerance=tolerance))
            found = [transformers_inv_freq(spec), rope_frequencies(spec).inv_freq.astype(_F32)]
        except (ParameterError, KeyError, TypeError):  # a type pecli does not rebuild
            continue
        models += [m for m in found if not any(np.array_equal(m, known) for known in models)]
    return models


def _spec(guess: RopeGuess) -> RopeSpec:
    """The spec of a reading: default, linear or llama3 (assumes low_freq_factor 1)."""
    p = guess.parameters
    fields: dict[str, object] = {"theta": guess.theta, "head_dim": guess.rotary_dim}
    if guess.rope_type == "linear":
        fields |= {"rope_type": "linear", "factor": p["factor"]}
    elif guess.rope_type == "llama3":
        length = int(p["original_max_position_embeddings"])
        fields |= {
            "rope_type": "llama3",
            "factor": p["factor"],
            "low_freq_factor": 1.0,
            "high_freq_factor": p["high_freq_factor"],
            "original_max_position_embeddings": length,
        }
    elif guess.rope_type != "default":
        raise KeyError(guess.rope_type)
    return RopeSpec(**fields)  # type: ignore[arg-type]


def _search(
    z: np.ndarray,
    rows: np.ndarray,
    omega: np.ndarray,
    drift: float,
    eps: float,
    angles: object,
) -> int | None:
    """The one start in ``0 … 2^24`` whose rebuilt angles ``angles(s)`` match every row."""
    theta = np.angle(z)
    phases = measure(theta, rows, omega, ROW_TOLERANCE * eps)
    starts = candidate_starts(phases, omega, drift)
    if starts is None or starts.size == 0:
        return None
    fits = []
    for start in best_phase_fits(starts, phases, omega).tolist():
        rebuilt, allowed = angles(int(start))  # type: ignore[operator]
        if np.all(np.abs(wrap(theta - rebuilt)) <= allowed):
            fits.append(int(start))
    return fits[0] if len(fits) == 1 else None
