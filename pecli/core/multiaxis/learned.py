"""Learned multi-axis rotary frequencies (Mochi): each pair turns by a mix of the axes.

Mochi's ``pos_frequencies`` is a trained ``(3, heads, pairs)`` tensor: pair ``f`` of head
``h`` turns token ``n`` by ``Σ_a pos[n, a] · freqs[a, h, f]``, so no axis owns a pair and no
θ exists to compute — the frequencies must be read from the checkpoint. The positions are
frames ``0 … T−1`` and the centres of ``H`` (``W``) equal cells spanning ``±H·s/2``,
``s = sqrt(192·192 / (H·W))`` (diffusers ``transformer_mochi.py`` ``MochiRoPE._get_positions``,
``_centers``, ``_create_rope``). Here positions and sums are in float64 (the model works in
float32). Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ParameterError
from .ids import check_grid

__all__ = ["learned_angles", "mochi_position_rows", "mochi_positions"]

#: Mochi's ``base_height · base_width``.
MOCHI_AREA = 192 * 192


def mochi_positions(grid: Sequence[int]) -> np.ndarray:
    """Positions ``(T·H·W, 3)`` of Mochi's latent grid (after its 2 × 2 patches), float64.

    >>> mochi_positions((1, 2, 2)).tolist()[:2]
    [[0.0, -48.0, -48.0], [0.0, -48.0, 48.0]]

    """
    t, h, w = check_grid(grid, 3)
    return mochi_position_rows((t, h, w), 0, t * h * w)


def mochi_position_rows(grid: Sequence[int], first: int, count: int) -> np.ndarray:
    """Rows ``first … first + count − 1`` of :func:`mochi_positions`, made alone (streaming).

    >>> mochi_position_rows((1, 2, 2), 1, 2).tolist()
    [[0.0, -48.0, 48.0], [0.0, 48.0, -48.0]]

    """
    t, h, w = check_grid(grid, 3)
    scale = (MOCHI_AREA / (h * w)) ** 0.5
    frame, row, col = np.unravel_index(np.arange(first, first + count), (t, h, w))
    rows, cols = ((i + 0.5 - n / 2) * scale for i, n in ((row, h), (col, w)))
    return np.stack([frame.astype(np.float64), rows, cols], axis=1)


def learned_angles(positions: np.ndarray, freqs: np.ndarray) -> np.ndarray:
    """Angles ``(tokens, heads, pairs)``: ``Σ_a positions[n, a] · freqs[a, h, f]``, float64.

    Raises
    ------
    ParameterError
        (as ``key``) frequencies that are not ``(axes, heads, pairs)`` with one row per
        position axis and at least one head and pair, or not finite.

    Examples
    --------
    >>> learned_angles(np.array([[1.0, 2.0]]), np.ones((2, 1, 3))).tolist()
    [[[3.0, 3.0, 3.0]]]

    """
    freqs = np.asarray(freqs, dtype=np.float64)
    shaped = freqs.ndim == 3 and freqs.shape[0] == positions.shape[1] and 0 not in freqs.shape
    if not shaped or not np.isfinite(freqs).all():
        rule = f"must be finite frequencies (axes {positions.shape[1]}, heads >= 1, pairs >= 1)"
        raise ParameterError("key", rule, freqs.shape)
    angles: np.ndarray = np.einsum("nd,dhf->nhf", positions, freqs)
    return angles
