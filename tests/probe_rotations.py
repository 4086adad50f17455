"""Activations turned by RoPE by hand, for the probe's tests: the rotation in float64.

Nothing here imports pecli. ``q`` is (tokens, heads, dim); ``angle`` is (tokens, pairs), each
token's angle p·ω_j of each pair.
"""

from __future__ import annotations

import numpy as np


def half_split(q: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """q turned by ``angle`` over all of its channels, pair j = channels (j, j + dim/2)."""
    h = q.shape[-1] // 2
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    return np.concatenate([q[..., :h] * c - q[..., h:] * s, q[..., h:] * c + q[..., :h] * s], -1)


def interleaved(q: np.ndarray, angle: np.ndarray, stop: int) -> np.ndarray:
    """q turned by ``angle`` over channels 0 … stop − 1, pair j = (2j, 2j + 1); the rest kept."""
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    post = q.copy()
    post[..., 0:stop:2] = q[..., 0:stop:2] * c - q[..., 1:stop:2] * s
    post[..., 1:stop:2] = q[..., 1:stop:2] * c + q[..., 0:stop:2] * s
    return post


#: Six tokens' (t, h, w) position ids, far enough apart to tell the three axes apart.
THW_IDS = np.array([[0, 0, 0], [1, 1, 1], [2, 5, 3], [3, 2, 9], [40, 17, 11], [700, 33, 90]])


def turned_by_axes(axes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q (6 tokens, 2 heads, 32 channels), q turned half-split with ω_j = 10^4^(−j/16), pair j
    by the id of axis ``axes[j]`` of :data:`THW_IDS` (16 entries), and those ids as floats."""
    q = np.random.default_rng(2).standard_normal((6, 2, 32))
    post = half_split(q, THW_IDS[:, axes] * 1e4 ** (-np.arange(16) / 16))
    return q, post, THW_IDS.astype(np.float64)
