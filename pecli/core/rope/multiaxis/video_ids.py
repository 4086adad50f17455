"""Position ids of the video and image presets whose grids are not plain ``0 … n−1``.

Qwen-Image centres its rows and columns; Cosmos scales frames by ``base_fps / fps``; CogVideoX
and Allegro take ``torch.linspace`` grids over a crop (and Allegro divides them by its
interpolation scales), all in float32 as diffusers computes them. Pure NumPy; no I/O.
"""

from __future__ import annotations

import numpy as np

from . import ids as idmod

__all__ = ["allegro_ids", "cogvideox_ids", "cosmos_ids", "crop_region", "qwen_image_ids"]


def qwen_image_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> idmod.GridIds:
    """Qwen-Image (``scale_rope``): rows ``−(h − h//2) … h//2 − 1``, columns alike, frame 0.

    Text comes first, at ``max(h//2, w//2) + k`` on all three axes.
    """
    h, w = sizes
    offsets = (-(h - h // 2), -(w - w // 2))
    return idmod.GridIds(
        sizes,
        axes=3,
        columns=(1, 2),
        text=text,
        text_axes=(0, 1, 2),
        offsets=offsets,
        text_base=max(h // 2, w // 2),
    )


def cosmos_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> idmod.GridIds:
    """Cosmos: frames at ``k`` (images) or ``k / fps · base_fps`` (videos, base_fps 24, float32)."""
    return idmod.GridIds(sizes, axes=3, columns=(0, 1, 2), fps=fps)


def cogvideox_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> idmod.GridIds:
    """CogVideoX 1.0: ``linspace`` grids over the crop of the 30 × 45 base grid, in float32.

    diffusers ``embeddings.py`` ``get_3d_rotary_pos_embed(grid_type="linspace")`` with the
    pipeline's ``get_resizecrop_region_for_grid((H, W), 45, 30)``.
    """
    t, h, w = sizes
    (top, left), (bottom, right) = crop_region(h, w, 45, 30)
    coords = (
        idmod.torch_linspace(0, t * (t - 1) / t, t),
        idmod.torch_linspace(top, bottom * (h - 1) / h, h),
        idmod.torch_linspace(left, right * (w - 1) / w, w),
    )
    return idmod.GridIds(
        sizes, axes=3, columns=(0, 1, 2), coords=tuple(tuple(c.tolist()) for c in coords)
    )


def allegro_ids(sizes: tuple[int, ...], text: int, fps: float | None = None) -> idmod.GridIds:
    """Allegro: ``linspace`` grids divided by ``interpolation_scale`` (2.2, 2.0, 2.0), float32.

    diffusers ``embeddings.py`` ``get_3d_rotary_pos_embed_allegro`` with the pipeline's crop
    ``(0, 0)``–``(H, W)``.
    """
    f = np.float32
    scales = (2.2, 2.0, 2.0)
    grids = [
        idmod.torch_linspace(0, n * (n - 1) / n, n).astype(f) / f(s)
        for n, s in zip(sizes, scales, strict=True)
    ]
    coords = tuple(tuple(g.astype(np.float64).tolist()) for g in grids)
    return idmod.GridIds(sizes, axes=3, columns=(0, 1, 2), coords=coords)


def crop_region(h: int, w: int, tw: int, th: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The CogVideoX pipelines' ``get_resizecrop_region_for_grid`` (Python's ``round``)."""
    if h / w > th / tw:
        rh, rw = th, round(th / h * w)
    else:
        rw, rh = tw, round(tw / w * h)
    top, left = round((th - rh) / 2.0), round((tw - rw) / 2.0)
    return (top, left), (top + rh, left + rw)
