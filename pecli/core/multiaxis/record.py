"""The record of one multi-axis rotary preset: its plan, its ids and what it takes.

Every image and video model (:mod:`.presets`, :mod:`.dit_presets`) is one
:class:`AxisPreset`; the command line's choices and help, ``pecli rope axis-map``'s list and
docs/multiaxis.md's table derive from these records. Pure NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from . import ids as idmod
from .dit_ids import SequenceIds
from .plan import AxisPlan

__all__ = ["AxisPreset", "IdMaker", "check_head"]

#: ``(grid sizes, text tokens, fps) → ids``.
IdMaker = Callable[[tuple[int, ...], int, float | None], idmod.GridIds | SequenceIds]


@dataclass(frozen=True)
class AxisPreset:
    """One model's multi-axis rotary embedding.

    Attributes
    ----------
    name, title : str
        The preset's name on the command line and a one-line description.
    source : str
        The library file and function it follows.
    dtype : str
        The dtype the model computes its frequencies and angles in (``float64``/``float32``).
    head_dim : int
        The model's head width (the default).
    grid : str
        What the grid's sizes are, e.g. ``"H W"`` (latent patches).
    text : str
        ``first``: text tokens come before the grid (FLUX); ``after``: after it (Z-Image,
        HiDream); ``none``: the model does not rotate text tokens (they are not in the cache).
    make_plan : callable
        ``head_dim → AxisPlan`` (``(head_dim, rope_scale) → AxisPlan`` when ``scales``).
    make_ids : callable
        ``(grid sizes, text tokens, fps) →`` an id source (:class:`~.ids.GridIds` or a
        concatenation of them).
    most : int or None
        Largest grid size the model's table holds (Wan: ``max_seq_len`` 1024).
    patch : tuple of int or None
        The model's patch (latent cells per token along each grid dimension), which turns a
        latent size into the grid (``latent // patch``, as the models floor it).
    fps : bool
        Whether the ids take a video's frame rate (Cosmos).
    scales : int
        How many ``rope_scale`` numbers the plan takes (Cosmos: 3, one per axis), 0 for none.
    cache_of : str
        The preset whose cache this one's equals, plan and ids (SkyReels-V2: ``wan``), which
        ``rope identify-axes`` names for both; empty for a cache of its own.
    scale_factor : bool
        Whether the ids take a scale per grid dimension, each position divided by it
        (Kandinsky 5's ``scale_factor``: ``args / scale_factor``).

    """

    name: str
    title: str
    source: str
    dtype: str
    head_dim: int
    grid: str
    text: str
    make_plan: Callable[..., AxisPlan]
    make_ids: IdMaker
    most: int | None = None
    patch: tuple[int, ...] | None = None
    fps: bool = False
    scales: int = 0
    cache_of: str = ""
    scale_factor: bool = False

    def plan(
        self, head_dim: int | None = None, rope_scale: Sequence[float] | None = None
    ) -> AxisPlan:
        """The plan for ``head_dim`` (default: the model's) and ``rope_scale`` (if it takes one).

        Raises
        ------
        ParameterError
            A ``rope_scale`` for a preset without one, or not one finite number > 0 per axis.

        """
        head = self.head_dim if head_dim is None else check_head(head_dim)
        if rope_scale is None:
            return self.make_plan(head)
        if not self.scales:
            shown = ",".join(f"{s:g}" for s in rope_scale)
            raise ParameterError("rope_scale", f"does not apply to {self.name}", shown)
        scale = tuple(float(s) for s in rope_scale)
        if len(scale) != self.scales or not all(0 < s < float("inf") for s in scale):
            rule = f"must be {self.scales} numbers > 0 (one per axis)"
            raise ParameterError("rope_scale", rule, ",".join(map(str, rope_scale)))
        return self.make_plan(head, scale)

    def id_source(
        self,
        grid: Sequence[int],
        text: int = 0,
        fps: float | None = None,
        scale: Sequence[float] | None = None,
    ) -> idmod.GridIds | SequenceIds:
        """Ids of ``text`` text tokens and a grid of ``grid`` sizes, in the model's order.

        ``scale``: each grid dimension's positions divided by it (presets with
        ``scale_factor`` only).

        Raises
        ------
        ParameterError
            The wrong number of sizes, a size < 1 (or > 1024 for Wan, whose table stops
            there), text tokens for a model that does not rotate them; a ``scale`` (as
            ``scale_factor``) for another preset, or not one finite number > 0 per dimension.

        """
        source = self._ids(grid, text, fps)
        if scale is None:
            return source
        values = tuple(float(s) for s in scale)
        shown = ",".join(f"{s:g}" for s in values)
        if not self.scale_factor or not isinstance(source, idmod.GridIds) or source.coords:
            raise ParameterError("scale_factor", "goes with `preset` kandinsky5 only", shown)
        if len(values) != len(source.sizes) or not all(0 < s < float("inf") for s in values):
            rule = f"must be {len(source.sizes)} numbers > 0 (one per grid dimension)"
            raise ParameterError("scale_factor", rule, shown)
        coords = tuple(
            tuple((np.arange(n, dtype=np.float64) / s).tolist())
            for n, s in zip(source.sizes, values, strict=True)
        )
        return dataclasses.replace(source, coords=coords)

    def _ids(
        self, grid: Sequence[int], text: int, fps: float | None
    ) -> idmod.GridIds | SequenceIds:
        sizes = idmod.check_grid(grid, len(self.grid.split()), most=self.most)
        text = idmod.check_text(text)
        if text and self.text == "none":
            raise ParameterError("text", f"must be 0: {self.name} does not rotate text", text)
        if fps is not None and (not self.fps or not 0 < fps < float("inf")):
            rule = "is a video preset's frame rate (cosmos, cosmos3, ltx-video, ltx-2), > 0"
            raise ParameterError("fps", rule, fps)
        return self.make_ids(sizes, text, fps)

    def ids(self, grid: Sequence[int], text: int = 0, fps: float | None = None) -> np.ndarray:
        """:meth:`id_source` as one array ``(tokens, axes)``, float64."""
        source = self.id_source(grid, text, fps)
        return source.rows(0, source.n)


def check_head(head_dim: object) -> int:
    """A head width any preset could take: an integer from 4 to 65536."""
    if not isinstance(head_dim, int | np.integer) or head_dim < 4 or head_dim > 1 << 16:
        raise ParameterError("head_dim", "must be an integer from 4 to 65536", head_dim)
    return int(head_dim)
