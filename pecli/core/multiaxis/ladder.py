"""LTX-Video's and LTX-2's rotary embedding: one ascending ladder over fractional coordinates.

LTX turns each token by ``u · φ_k`` with ``u = 2x − 1 ∈ [−1, 1)`` (``x`` the coordinate as a
fraction of a base size, so the origin is not the identity rotation) and ``φ_k = θ^(k/(n−1)) ·
π/2``, ``k = 0 … n−1``, ``n = dim // (2 · axes)``, for every axis. Its channels run
frequency-major, axis-minor (``φ_0·u_t, φ_0·u_h, φ_0·u_w, φ_1·u_t, …``), each angle on two
neighbouring channels, after ``dim % (2 · axes)`` padding channels (cos 1, sin 0) at the front;
the table covers the whole inner dimension before the head split, so each head gets its own
slice of the ladder. LTX-2's ``rope_type="split"`` keeps one value per angle (the ``half``
form), padding first, and hands head ``h`` the columns ``h·dim/(2·heads) …``.

Here that is an :class:`~.plan.AxisPlan` with the ``ladder`` schedule (padding pairs have
``D = 0``: ``ω = 0``), and id makers that give ``u`` as the models compute it in float32:

* LTX-Video (diffusers ``transformer_ltx.py`` ``LTXVideoRotaryPosEmbed._prepare_video_coords``
  and ``forward``; ``pipeline_ltx.py``'s ``rope_interpolation_scale = (8/fps, 32, 32)``):
  ``x_t = f · (8/fps) / 20``, ``x_h = r · 32 / 2048``, ``x_w = c · 32 / 2048``;
* LTX-2 (``transformer_ltx2.py`` ``LTX2AudioVideoRotaryPosEmbed.prepare_video_coords``,
  ``prepare_audio_coords``, ``forward``): patch midpoints in pixels, time in seconds with the
  causal offset (``max(8f + 1 − 8, 0) / fps``), over 20 s and 2048 pixels; audio latent ``k``
  at mel frames ``max(4k + 1 − 4, 0) … max(4k + 4 + 1 − 4, 0)``, hop 160 at 16 kHz.

Pure NumPy and :mod:`decimal`; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ParameterError
from .ids import GridIds
from .plan import AxisPlan, check_layout

__all__ = ["ladder_plan", "ltx2_audio_ids", "ltx2_video_ids", "ltx_video_ids"]

F32 = np.float32


def ladder_plan(
    dim: int, axes: Sequence[str] = ("t", "h", "w"), theta: float = 1e4, ladder: str = "float64"
) -> AxisPlan:
    """LTX's plan for an inner dimension ``dim``: padding pairs, then frequency-major pairs.

    ``ladder``: how the model computes the ladder (its exact values are the same): ``float64``
    then cast once (LTX-2, schedule ``ladder``) or ``float32`` throughout (LTX-Video, schedule
    ``ladder-float32``); it matters only to ``--arithmetic model``.

    Raises
    ------
    ParameterError
        (as ``head_dim``) an odd ``dim``, or one that leaves fewer than 2 frequencies per axis.

    Examples
    --------
    >>> plan = ladder_plan(2048)
    >>> plan.pairs, plan.strip()[:7], plan.index[1:5], plan.denominator[1]
    (1024, '-THWTHW', (0, 0, 0, 1), 340)

    """
    n = dim // (2 * len(axes))
    if dim % 2 or n < 2:
        rule = f"must be even and >= {4 * len(axes)} for LTX ({len(axes)} axes)"
        raise ParameterError("head_dim", rule, dim)
    pad = (dim % (2 * len(axes))) // 2
    count = n * len(axes)
    axis = [0] * pad + [j % len(axes) for j in range(count)]
    index = [0] * pad + [j // len(axes) for j in range(count)]
    denominator = [0] * pad + [n - 1] * count
    return AxisPlan(
        tuple(axes),
        tuple(axis),
        tuple(index),
        tuple(denominator),
        (float(theta),) * (pad + count),
        check_layout("interleaved"),
        "ladder" if ladder == "float64" else "ladder-float32",
    )


def _u(x: np.ndarray) -> tuple[float, ...]:
    """``2x − 1`` in float32, as the models compute it."""
    return tuple((x.astype(F32) * F32(2) - F32(1)).astype(np.float64).tolist())


def ltx_video_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> GridIds:
    """LTX-Video's ``u`` of a latent grid ``(frames, rows, cols)``, float32 steps (fps 25).

    >>> ltx_video_ids((2, 3, 4), 0).rows(17, 18).tolist()  # token (f, r, c) = (1, 1, 1)
    [[-0.9679999947547913, -0.96875, -0.96875]]

    """
    rate = 25.0 if fps is None else fps
    f, h, w = (np.arange(n, dtype=F32) for n in sizes)
    x_t = (f * F32(8 / rate)) * F32(1) / F32(20)  # grid · scale[0] · patch_size_t / 20
    x_h, x_w = (g * F32(32) * F32(1) / F32(2048) for g in (h, w))
    coords = tuple(_u(x) for x in (x_t, x_h, x_w))
    return GridIds(tuple(sizes), axes=3, columns=(0, 1, 2), coords=coords)


def _midpoint(start: np.ndarray, end: np.ndarray, base: float) -> np.ndarray:
    return np.asarray(((start + end) / F32(2)) / F32(base), dtype=F32)


def ltx2_video_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> GridIds:
    """LTX-2's ``u`` of a latent grid: pixel-space patch midpoints over 20 s, 2048 px (fps 24).

    >>> [round(float(v), 7) for v in ltx2_video_ids((2, 2, 3), 0).rows(0, 1)[0]]
    [-0.9979166, -0.984375, -0.984375]

    """
    rate = F32(24.0 if fps is None else fps)
    f, h, w = (np.arange(n, dtype=F32) for n in sizes)

    def seconds(frames: np.ndarray) -> np.ndarray:  # causal offset 1, VAE stride 8
        return np.asarray(np.maximum(frames * F32(8) + F32(1) - F32(8), F32(0)) / rate, F32)

    x_t = _midpoint(seconds(f), seconds(f + F32(1)), 20.0)
    x_h, x_w = (_midpoint(g * F32(32), (g + F32(1)) * F32(32), 2048.0) for g in (h, w))
    coords = tuple(_u(x) for x in (x_t, x_h, x_w))
    return GridIds(tuple(sizes), axes=3, columns=(0, 1, 2), coords=coords)


def ltx2_audio_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> GridIds:
    """LTX-2's audio ``u``: latent ``k``'s mel frames in seconds (hop 160, 16 kHz), over 20 s.

    >>> [round(float(v), 7) for v in ltx2_audio_ids((3,), 0).rows(0, 3)[:, 0]]
    [-0.9995, -0.997, -0.993]

    """
    k = np.arange(sizes[0], dtype=F32)

    def seconds(latent: np.ndarray) -> np.ndarray:  # causal offset 1, 4 mel frames a latent
        mel = np.maximum(latent * F32(4) + F32(1) - F32(4), F32(0))
        return np.asarray(mel * F32(160) / F32(16000), dtype=F32)

    x = _midpoint(seconds(k), seconds(k + F32(1)), 20.0)
    return GridIds(tuple(sizes), axes=1, columns=(0,), coords=(_u(x),))
