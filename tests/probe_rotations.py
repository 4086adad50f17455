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
