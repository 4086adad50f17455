"""Named multi-axis rotary embeddings: each model's channel → axis map, θ, ids and dtype.

Every preset is read from its source (named in :attr:`AxisPreset.source`) and is an
:class:`~.plan.AxisPlan` plus a builder of position ids for a grid (and text tokens where the
model rotates them). Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from . import ids as idmod
from .plan import AxisPlan, per_axis, shared

__all__ = [
    "AXIS_PRESETS",
    "AxisPreset",
    "axis_preset",
    "check_head",
    "cosmos_plan",
    "pixtral_plan",
    "wan_widths",
]


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
        ``first``: text tokens come before the grid (FLUX); ``none``: the model does not rotate
        text tokens (they are not in the cache).
    make_plan : callable
        ``head_dim → AxisPlan``.
    make_ids : callable
        ``(grid sizes, text tokens) →`` :class:`~.ids.GridIds`.
    most : int or None
        Largest grid size the model's table holds (Wan: ``max_seq_len`` 1024).

    """

    name: str
    title: str
    source: str
    dtype: str
    head_dim: int
    grid: str
    text: str
    make_plan: Callable[[int], AxisPlan]
    make_ids: Callable[[tuple[int, ...], int, float | None], idmod.GridIds]
    most: int | None = None

    def plan(self, head_dim: int | None = None) -> AxisPlan:
        """The plan for ``head_dim`` (default: the model's)."""
        return self.make_plan(self.head_dim if head_dim is None else check_head(head_dim))

    def id_source(
        self, grid: Sequence[int], text: int = 0, fps: float | None = None
    ) -> idmod.GridIds:
        """Ids of ``text`` text tokens and a grid of ``grid`` sizes, in the model's order.

        Raises
        ------
        ParameterError
            The wrong number of sizes, a size < 1 (or > 1024 for Wan, whose table stops
            there), text tokens for a model that does not rotate them.

        """
        sizes = idmod.check_grid(grid, len(self.grid.split()), most=self.most)
        text = idmod.check_text(text)
        if text and self.text == "none":
            raise ParameterError("text", f"must be 0: {self.name} does not rotate text", text)
        if fps is not None and (self.name != "cosmos" or not 0 < fps < float("inf")):
            raise ParameterError("fps", "is Cosmos' (video frames at base_fps/fps), > 0", fps)
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


def _fixed(widths: list[int], theta: float, axes: tuple[str, ...]) -> Callable[[int], AxisPlan]:
    def make(head_dim: int) -> AxisPlan:
        if head_dim != sum(widths):
            rule = f"must be {sum(widths)} (the axes {widths} fill the head)"
            raise ParameterError("head_dim", rule, head_dim)
        return per_axis(widths, theta=theta, axes=axes)

    return make


def wan_widths(head_dim: int) -> list[int]:
    """Wan's t/h/w widths ``head − 4·(head//6)``, ``2·(head//6)``, ``2·(head//6)``.

    >>> wan_widths(128)
    [44, 42, 42]

    """
    if head_dim < 12 or head_dim % 2:
        raise ParameterError("head_dim", "must be an even integer >= 12 for Wan", head_dim)
    side = 2 * (head_dim // 6)
    return [head_dim - 2 * side, side, side]


def pixtral_plan(head_dim: int, theta: float = 10000.0) -> AxisPlan:
    """Pixtral: ``θ^(-2k/d)``, even ``k`` → rows (first quarter), odd ``k`` → columns, half-split.

    transformers ``models/pixtral/modeling_pixtral.py`` ``PixtralVisionRotaryEmbedding``:
    ``inv_freq_2d = cat([inv_freq[0::2], inv_freq[1::2]])``, rows take the first chunk and
    columns the second (``recomposition_frequencies``), ``cat([freq_hw, freq_hw])``.

    >>> pixtral_plan(16).index, pixtral_plan(16).strip()
    ((0, 2, 4, 6, 1, 3, 5, 7), 'HHHHWWWW')

    """
    if head_dim % 4:
        raise ParameterError("head_dim", "must be a multiple of 4 for Pixtral", head_dim)
    q = head_dim // 4
    order = list(range(0, 2 * q, 2)) + list(range(1, 2 * q, 2))
    return shared([0] * q + [1] * q, theta=theta, axes=("h", "w"), order=order)


def _rows_cols(head_dim: int) -> AxisPlan:
    if head_dim % 4:
        raise ParameterError("head_dim", "must be a multiple of 4", head_dim)
    return per_axis([head_dim // 2] * 2, theta=10000.0, axes=("h", "w"))


def _two_axes(theta: float) -> Callable[[int], AxisPlan]:
    def make(head_dim: int) -> AxisPlan:
        if head_dim % 4:
            raise ParameterError("head_dim", "must be a multiple of 4", head_dim)
        return per_axis([head_dim // 2] * 2, theta=theta, axes=("x", "y"))

    return make


def _cogvideox_plan(head_dim: int) -> AxisPlan:
    if head_dim % 8:
        raise ParameterError("head_dim", "must be a multiple of 8 for CogVideoX", head_dim)
    return per_axis([head_dim // 4, head_dim // 8 * 3, head_dim // 8 * 3], theta=10000.0)


def cosmos_plan(
    head_dim: int, rope_scale: tuple[float, float, float] = (2.0, 1.0, 1.0)
) -> AxisPlan:
    """Cosmos 1.0: Wan's widths, θ per axis ``10000 · s^(w/(w−2))`` (NTK), ``[t h w]`` twice.

    diffusers ``transformer_cosmos.py`` ``CosmosRotaryPosEmbed``: ``cat([t, h, w] * 2)`` is the
    half-split layout over the whole head.

    >>> round(cosmos_plan(128).theta[0], 4)
    20671.1557

    """
    widths = wan_widths(head_dim)
    thetas = [10000.0 * s ** (w / (w - 2)) for s, w in zip(rope_scale, widths, strict=True)]
    return per_axis(widths, theta=thetas, layout="half-split")


_D = "diffusers models/transformers/"
AXIS_PRESETS: dict[str, AxisPreset] = {
    p.name: p
    for p in (
        AxisPreset(
            "flux",
            "FLUX.1: axes [16, 56, 56], θ 10000, text ids 0, interleaved",
            _D + "transformer_flux.py FluxPosEmbed; BFL flux/modules/layers.py EmbedND",
            "float64",
            128,
            "H W",
            "first",
            _fixed([16, 56, 56], 10000.0, ("t", "h", "w")),
            idmod.flux_ids,
        ),
        AxisPreset(
            "flux2",
            "FLUX.2: 4 axes of 32 (t, h, w, l), θ 2000, text on l",
            _D + "transformer_flux2.py Flux2PosEmbed; pipeline_flux2.py _prepare_*_ids",
            "float64",
            128,
            "H W",
            "first",
            _fixed([32] * 4, 2000.0, ("t", "h", "w", "l")),
            idmod.flux2_ids,
        ),
        AxisPreset(
            "hunyuanvideo",
            "HunyuanVideo: axes [16, 56, 56], θ 256, interleaved",
            _D + "transformer_hunyuan_video.py HunyuanVideoRotaryPosEmbed",
            "float32",
            128,
            "T H W",
            "none",
            _fixed([16, 56, 56], 256.0, ("t", "h", "w")),
            idmod.grid_ids,
        ),
        AxisPreset(
            "wan",
            "Wan 2.1/2.2: widths d−4(d//6), 2(d//6), 2(d//6), own schedule each",
            _D + "transformer_wan.py WanRotaryPosEmbed",
            "float64",
            128,
            "F H W",
            "none",
            lambda d: per_axis(wan_widths(d), theta=10000.0),
            idmod.grid_ids,
            most=1024,
        ),
        AxisPreset(
            "cogvideox",
            "CogVideoX 1.0: t/h/w d/4, 3d/8, 3d/8, linspace crops of 30×45",
            "diffusers models/embeddings.py get_3d_rotary_pos_embed (linspace); "
            "pipeline_cogvideox.py get_resizecrop_region_for_grid",
            "float32",
            64,
            "T H W",
            "none",
            _cogvideox_plan,
            idmod.cogvideox_ids,
        ),
        AxisPreset(
            "allegro",
            "Allegro: thirds t/h/w, each half-split in its block, scaled grids",
            "diffusers models/embeddings.py get_3d_rotary_pos_embed_allegro, "
            "apply_rotary_emb_allegro",
            "float32",
            96,
            "T H W",
            "none",
            lambda d: per_axis([d // 3] * 3, theta=10000.0, layout="half-split-per-axis"),
            idmod.allegro_ids,
        ),
        AxisPreset(
            "cosmos",
            "Cosmos 1.0: widths as Wan, NTK θ per axis (t 20671.16), [t h w] twice",
            _D + "transformer_cosmos.py CosmosRotaryPosEmbed",
            "float32",
            128,
            "T H W",
            "none",
            cosmos_plan,
            idmod.cosmos_ids,
        ),
        AxisPreset(
            "qwen-image",
            "Qwen-Image: axes [16, 56, 56], θ 10000, centred rows/columns",
            _D + "transformer_qwenimage.py QwenEmbedRope (scale_rope=True)",
            "float32",
            128,
            "H W",
            "first",
            _fixed([16, 56, 56], 10000.0, ("t", "h", "w")),
            idmod.qwen_image_ids,
        ),
        AxisPreset(
            "pixtral",
            "Pixtral: shared θ 10000, even frequencies → rows, odd → columns",
            "transformers models/pixtral/modeling_pixtral.py PixtralVisionRotaryEmbedding",
            "float32",
            64,
            "H W",
            "none",
            pixtral_plan,
            idmod.grid_ids,
        ),
        AxisPreset(
            "llama4-vision",
            "Llama 4 vision: x then y, 1-based, class token last at 0",
            "transformers models/llama4/modeling_llama4.py Llama4VisionRotaryEmbedding",
            "float32",
            88,
            "SIDE",
            "none",
            _two_axes(10000.0),
            idmod.llama4_ids,
        ),
        AxisPreset(
            "lucidrains-axial",
            "rotary-embedding-torch get_axial_freqs: rows then columns",
            "rotary-embedding-torch rotary_embedding_torch.py RotaryEmbedding.get_axial_freqs "
            "(freqs_for='lang')",
            "float32",
            64,
            "H W",
            "none",
            _rows_cols,
            idmod.grid_ids,
        ),
        AxisPreset(
            "rope-vit-axial",
            "RoPE-ViT axial: x then y, θ 100, complex freqs_cis",
            "naver-ai/rope-vit models/vit_rope.py compute_axial_cis, init_t_xy",
            "float32",
            64,
            "H W",
            "none",
            _two_axes(100.0),
            idmod.xy_ids,
        ),
    )
}


def axis_preset(name: str) -> AxisPreset:
    """The preset called ``name`` (case-insensitive; ``flux.1``, ``flux1`` mean ``flux``).

    Examples
    --------
    >>> axis_preset("FLUX.1").plan().strip().count("H")
    28

    """
    key = str(name).strip().lower().replace("flux.1", "flux").replace("flux1", "flux")
    key = key.replace("flux.2", "flux2")
    if key not in AXIS_PRESETS:
        raise ParameterError("preset", f"must be one of {', '.join(AXIS_PRESETS)}", name)
    return AXIS_PRESETS[key]
