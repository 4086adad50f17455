"""How alike two positions' encodings are, as a function of their offset (docs/figures.md).

The normalised dot product of ``pe(p)`` and ``pe(p + k)`` does not depend on ``p``: each pair
contributes ``sin(pω)sin((p+k)ω) + cos(pω)cos((p+k)ω) = cos(kω)``, and ``|pe(p)|² = d/2``, so

    s(k) = pe(p)·pe(p+k) / (|pe(p)| |pe(p+k)|) = (2/d) Σ_i cos(k ω_i)

for every layout (a permutation of the components changes no dot product) and every first
position. Pure NumPy, arrays in and arrays out.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..rules import MAX_POSITION
from .frequencies import DEFAULT_BASE, angular_frequencies

__all__ = ["MAX_OFFSET", "first_offset_below", "offset_similarity"]

#: Largest |k|, as for positions: beyond 2^53 integer offsets are no longer exact.
MAX_OFFSET = MAX_POSITION
#: Cosines evaluated at once (offsets × pairs), so memory stays flat for any length.
_BLOCK = 1 << 20


def offset_similarity(
    offsets: np.ndarray | list[float],
    d: int,
    *,
    base: float = DEFAULT_BASE,
    schedule: str | float = "paper",
) -> np.ndarray:
    """Cosine similarity ``s(k) = (2/d) Σ_i cos(k ω_i)`` of ``pe(p)`` and ``pe(p + k)``.

    Parameters
    ----------
    offsets : array_like
        Offsets ``k`` in positions (real, ``|k| <= 2^53``), shape ``(m,)``.
    d : int
        Width of the encoding, even, 2 … 131072.
    base : float, keyword-only
        The base ``C``.
    schedule : {"paper", "tensor2tensor", "shift:S"} or float, keyword-only
        The frequency schedule (docs/conventions.md).

    Returns
    -------
    numpy.ndarray
        Shape ``(m,)``, float64, in ``[-1, 1]``; ``s(0) = 1`` and ``s(-k) = s(k)``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``base`` or schedule, or an offset that is
        not finite or beyond ``±2^53``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5 (the sum follows from
    ``sin a sin b + cos a cos b = cos(a - b)``).

    Examples
    --------
    >>> offset_similarity([0, 1, 10, 100], 512).round(4)
    array([1.    , 0.9731, 0.6789, 0.4373])

    """
    omega = angular_frequencies(d, base=base, schedule=schedule)
    k = np.atleast_1d(np.asarray(offsets, dtype=np.float64))
    if k.ndim != 1 or not np.all(np.abs(k) <= MAX_OFFSET):  # NaN fails too
        rule = "must be finite numbers within ±2^53, one axis"
        raise ParameterError("offsets", rule, f"shape {k.shape}")
    rows = max(1, _BLOCK // omega.size)
    parts = [
        np.cos(np.multiply.outer(k[s : s + rows], omega)).mean(axis=1)
        for s in range(0, k.size, rows)
    ]
    result: np.ndarray = np.concatenate(parts) if parts else np.zeros(0)
    return result


def first_offset_below(
    threshold: float,
    d: int,
    *,
    base: float = DEFAULT_BASE,
    schedule: str | float = "paper",
    most: int = 1_000_000,
) -> int | None:
    """The smallest integer offset ``k >= 1`` with ``s(k) < threshold``, or None up to ``most``.

    Parameters
    ----------
    threshold : float
        The similarity to fall below.
    d, base, schedule :
        As in :func:`offset_similarity`.
    most : int, keyword-only
        Largest offset searched, 1 … 2^53.

    Returns
    -------
    int or None

    Raises
    ------
    ParameterError
        As :func:`offset_similarity`, or for ``most`` out of range.

    Examples
    --------
    >>> first_offset_below(0.5, 512)
    54

    """
    if not 1 <= most <= MAX_OFFSET:
        raise ParameterError("most", "must be an integer from 1 to 2^53", most)
    step = 4096
    for first in range(1, most + 1, step):
        k = np.arange(first, min(first + step, most + 1), dtype=np.float64)
        below = np.flatnonzero(offset_similarity(k, d, base=base, schedule=schedule) < threshold)
        if below.size:
            return first + int(below[0])
    return None
