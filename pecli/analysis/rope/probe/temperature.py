"""A query temperature read from the gain of each position: which form, β and L.

Two forms scale q by a factor that steps up with the position (frontier §0.3):

* Llama 4 (``modeling_llama4.Llama4TextAttention``, NoPE layers): ``1 + β·log1p(floor((p +
  1)/L))``, β = ``attn_temperature_tuning``'s ``attn_scale``, L = ``floor_scale`` (8192);
* Mistral's ``llama_4_scaling_beta`` (Ministral 3, Mistral Large 3, …;
  ``modeling_ministral3.get_llama_4_attn_scale``): ``1 + β·ln(1 + floor(p/L))``, L =
  ``original_max_position_embeddings``.

They differ by the ``+1``: at ``p = L − 1`` Llama 4's has stepped and Mistral's has not. The
positions where the gain is 1 and those where it is not bound L; the roundest L in that range
(a power of two, then a multiple of 1024, of 1000) is tried first. No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....core.median import median

__all__ = ["FORMS", "Temperature", "fit_temperature"]

#: Each form: the offset added to p before the floor, and its formula in words.
FORMS = {
    "llama4": (1, "Llama 4's 1 + β·log1p(floor((p + 1)/L)) (attn_scale β, floor_scale L)"),
    "mistral": (0, "Mistral's llama_4_scaling_beta: 1 + β·ln(1 + floor(p/L))"),
}


@dataclass(frozen=True)
class Temperature:
    """What the gains per position are: ``kind`` ``none``, ``constant``, ``stepped``.

    ``forms`` holds every form that fits (best first) as ``(name, β, L)``; empty for a
    stepped gain no form explains.
    """

    kind: str
    factor: float = 1.0
    forms: list[tuple[str, float, int]] = field(default_factory=list)


def fit_temperature(positions: np.ndarray, gain: np.ndarray, tol: np.ndarray) -> Temperature:
    """The temperature behind ``gain`` (one per token) at ``positions``, within ``tol``.

    Parameters
    ----------
    positions, gain, tol : numpy.ndarray
        Shape ``(tokens,)``: each token's position, the factor its vector was multiplied by,
        and how far that factor may be off.

    Examples
    --------
    >>> p = np.array([0.0, 8190, 8191, 8192])
    >>> g = 1 + 0.1 * np.log1p(np.floor((p + 1) / 8192))
    >>> fit_temperature(p, g, np.full(4, 1e-7)).forms  # Mistral's needs an L of 8191
    [('llama4', 0.1, 8192), ('mistral', 0.1, 8191)]

    """
    ones = np.abs(gain - 1) <= tol
    if ones.all():
        return Temperature("none")
    middle = float(median(gain))
    if np.all(np.abs(gain - middle) <= tol):
        return Temperature("constant", middle)
    found = []
    for name, (offset, _) in FORMS.items():
        fitted = _fit_form(positions + offset, gain, tol, ones)
        if fitted is not None:
            found.append((name, *fitted))
    found.sort(key=lambda f: _roundness(f[2]))
    return Temperature("stepped", forms=found)


def _fit_form(
    shifted: np.ndarray, gain: np.ndarray, tol: np.ndarray, ones: np.ndarray
) -> tuple[float, int] | None:
    """(β, L) of ``1 + β·log1p(floor(shifted/L))`` fitting ``gain``, the roundest L first."""
    if not ones.any() or np.any(gain[~ones] < 1) or np.any(shifted < 0):
        return None
    low, high = float(shifted[ones].max()), float(shifted[~ones].min())  # L in (low, high]
    if low >= high:
        return None
    for length in _lengths(low, high):
        steps = np.log1p(np.floor(shifted / length))
        beta = float(np.dot(steps, gain - 1) / np.dot(steps, steps))
        for rounded in (*(float(f"{beta:.{k}g}") for k in range(1, 7)), beta):
            if np.all(np.abs(1 + rounded * steps - gain) <= tol):
                return rounded, length
    return None


def _lengths(low: float, high: float) -> list[int]:
    """Integers L in (low, high], the roundest first, at most a few hundred."""
    first, last = math.floor(low) + 1, math.floor(high)
    twos = [2**k for k in range(0, 63) if first <= 2**k <= last]
    runs = (range(-(-first // unit) * unit, last + 1, unit) for unit in (1024, 1000))
    step = [m for run in runs for m in run[:256]]  # a range's slice: not every multiple listed
    rest = list(range(first, min(last, first + 256) + 1))
    return list(dict.fromkeys([*twos, *step[:256], *rest]))


def _roundness(length: int) -> int:
    """0 for a power of two, 1 for a multiple of 1024 or 1000, 2 otherwise.

    >>> [_roundness(n) for n in (4096, 3072, 8000, 8001)]
    [0, 1, 1, 2]
    """
    if length & (length - 1) == 0:
        return 0
    return 1 if length % 1024 == 0 or length % 1000 == 0 else 2
