"""Position ids of the 2025–26 image DiTs whose sequences are not "text, then a grid".

Z-Image puts the image first (its frame id after the padded caption), pads it to a multiple of
32 with tokens at 0, then the caption at ``1 … C``; HiDream puts its text, all at 0, after the
image; Lumina 2 counts its caption ``(k, 0, 0)`` and puts the image at ``(L, row, col)``. Each
is a :class:`SequenceIds`: id sources one after another, made a range of rows at a time.
Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .ids import GridIds

__all__ = ["SequenceIds", "cosmos3_ids", "hidream_ids", "lumina2_ids", "z_image_ids"]

#: Cosmos3's ``unified_3d_mrope_temporal_modality_margin``: vision ids start this far after text.
COSMOS3_MARGIN = 15000

#: Z-Image pads its caption and its image to a multiple of this (``SEQ_MULTI_OF``).
Z_IMAGE_MULTIPLE = 32


@dataclass(frozen=True)
class SequenceIds:
    """Id sources one after another (each with ``n``, ``axes`` and ``rows(start, stop)``).

    Examples
    --------
    >>> first, second = GridIds((2,), axes=2, columns=(0,)), GridIds((1,), axes=2, columns=(1,))
    >>> both = SequenceIds((first, second))
    >>> both.n, both.rows(0, 3).tolist()
    (3, [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])

    """

    parts: tuple[GridIds, ...]

    @property
    def n(self) -> int:
        """Tokens in all."""
        return sum(part.n for part in self.parts)

    @property
    def axes(self) -> int:
        """Id columns."""
        return self.parts[0].axes

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Ids of tokens ``start … stop−1``, shape ``(stop − start, axes)``, float64."""
        blocks, first = [], 0
        for part in self.parts:
            low, high = max(start, first), min(stop, first + part.n)
            if low < high:
                blocks.append(part.rows(low - first, high - first))
            first += part.n
        return np.concatenate(blocks) if blocks else np.zeros((0, self.axes))


def _padded(count: int, multiple: int) -> int:
    return count + (-count) % multiple


def z_image_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> SequenceIds:
    """Z-Image: the image ``(C + 1, row, col)``, its padding at 0, then the caption ``1 … C``.

    ``C`` is the caption's length padded to a multiple of 32; the image is padded to a multiple
    of 32 tokens with ids ``(0, 0, 0)``; the caption's padding tokens keep their ids. diffusers
    ``transformer_z_image.py`` ``ZImageTransformer2DModel.patchify_and_embed`` and ``forward``
    (the unified sequence: image, then caption).

    >>> ids = z_image_ids((3, 4), 5)
    >>> ids.n, ids.rows(0, 1).tolist(), ids.rows(12, 13).tolist(), ids.rows(32, 33).tolist()
    (64, [[33.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[1.0, 0.0, 0.0]])

    """
    caption = _padded(text, Z_IMAGE_MULTIPLE)
    cells = int(np.prod(sizes, dtype=object))
    image = GridIds(
        (1, *sizes),
        axes=3,
        columns=(0, 1, 2),
        offsets=(float(caption + 1), 0.0, 0.0),
        tail=_padded(cells, Z_IMAGE_MULTIPLE) - cells,
    )
    if not caption:
        return SequenceIds((image,))
    return SequenceIds((image, GridIds((caption,), axes=3, columns=(0,), base=1.0)))


def hidream_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> GridIds:
    """HiDream: the image ``(0, row, col)``, then the text tokens, all at ``(0, 0, 0)``.

    diffusers ``transformer_hidream_image.py`` ``HiDreamImageTransformer2DModel.forward``
    (``img_ids``, ``txt_ids`` zeros, ``cat((img_ids, txt_ids))``).

    >>> hidream_ids((2, 2), 1).rows(0, 5)[:, 1:].tolist()
    [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]

    """
    return GridIds(tuple(sizes), axes=3, columns=(1, 2), tail=text)


def lumina2_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> SequenceIds:
    """Lumina 2: caption tokens ``(k, 0, 0)``, then the image ``(L, row, col)``, L captions.

    diffusers ``transformer_lumina2.py`` ``Lumina2RotaryPosEmbed.forward`` (``position_ids``
    of the caption's real tokens, then the patches).

    >>> lumina2_ids((1, 2), 2).rows(0, 4).tolist()
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 1.0]]

    """
    image = GridIds((1, *sizes), axes=3, columns=(0, 1, 2), offsets=(float(text), 0.0, 0.0))
    if not text:
        return SequenceIds((image,))
    return SequenceIds((GridIds((text,), axes=3, columns=(0,)), image))


def cosmos3_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> GridIds:
    """Cosmos3: text ``(k, k, k)``, then the latent grid at ``t = L + 15000 + …``, rows from 0.

    A video (``fps`` given, more than one latent frame) has frame ``k`` at ``k / (fps/4) · 6 +
    offset`` in float32 (base fps 24, temporal compression 4); otherwise ``k + offset``.
    diffusers ``pipelines/cosmos/pipeline_cosmos3_omni.py`` ``get_3d_mrope_ids_text_tokens``,
    ``get_3d_mrope_ids_vae_tokens`` (``reset_spatial_indices=True``).

    >>> [round(v, 4) for v in cosmos3_ids((3, 1, 1), 5, 30.0).rows(5, 8)[:, 0].tolist()]
    [15005.0, 15005.7998, 15006.5996]

    """
    f = np.float32
    offset = text + COSMOS3_MARGIN
    k = np.arange(sizes[0], dtype=f)
    if fps is not None and sizes[0] > 1:
        times = (k / f(fps / 4)).astype(f) * f(24.0 / 4)
        t = (times.astype(f) + f(offset)).astype(f)
    else:
        t = k + f(offset)
    spatial = [tuple(float(i) for i in range(n)) for n in sizes[1:]]
    coords = (tuple(t.astype(np.float64).tolist()), *spatial)
    return GridIds(
        tuple(sizes), axes=3, columns=(0, 1, 2), text=text, text_axes=(0, 1, 2), coords=coords
    )


#: ChronoEdit's ``rope_temporal_skip_len`` (its transformer's default).
CHRONOEDIT_SKIP = 8


def chronoedit_ids(sizes: Sequence[int], text: int, fps: float | None = None) -> GridIds:
    """ChronoEdit: Wan's ``(frame, row, col)``; a two-frame grid's frames at 0 and ``skip − 1``.

    The pipeline edits an image as 2 latent frames (the input and the edit, 5 video frames);
    the model then reads its temporal table at rows ``0`` and ``temporal_skip_len − 1`` (7).
    diffusers ``transformer_chronoedit.py`` ``ChronoEditRotaryPosEmbed.forward``.

    >>> chronoedit_ids((2, 1, 2), 0).rows(0, 4)[:, 0].tolist()
    [0.0, 0.0, 7.0, 7.0]

    """
    if sizes[0] != 2:
        return GridIds(tuple(sizes), axes=3, columns=(0, 1, 2))
    spatial = [tuple(float(i) for i in range(n)) for n in sizes[1:]]
    coords = ((0.0, float(CHRONOEDIT_SKIP - 1)), *spatial)
    return GridIds(tuple(sizes), axes=3, columns=(0, 1, 2), coords=coords)
