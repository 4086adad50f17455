"""Named multi-axis rotary embeddings: each model's channel → axis map, θ, ids and dtype.

Every preset is read from its source (named in :attr:`AxisPreset.source`) and is an
:class:`~.plan.AxisPlan` plus a builder of position ids for a grid (and text tokens where the
model rotates them): one :class:`~.record.AxisPreset` record each, these and the 2025–26 DiTs'
(:mod:`.dit_presets`). Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ParameterError
from . import ids as idmod
from .dit_presets import DIT_PRESETS
from .plan import AxisPlan, per_axis, shared
from .record import AxisPreset, check_head
from .widths import cogvideox_plan, cosmos_plan, fixed, wan_widths

__all__ = [
    "AXIS_PRESETS",
    "AxisPreset",
    "axis_preset",
    "check_head",
    "cosmos_plan",
    "pixtral_plan",
    "wan_widths",
]


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
            fixed([16, 56, 56], 10000.0, ("t", "h", "w")),
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
            fixed([32] * 4, 2000.0, ("t", "h", "w", "l")),
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
            fixed([16, 56, 56], 256.0, ("t", "h", "w")),
            idmod.grid_ids,
            patch=(1, 2, 2),
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
            patch=(1, 2, 2),
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
            cogvideox_plan,
            idmod.cogvideox_ids,
            patch=(1, 2, 2),
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
            patch=(1, 2, 2),
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
            patch=(1, 2, 2),
            fps=True,
            scales=3,
        ),
        AxisPreset(
            "qwen-image",
            "Qwen-Image: axes [16, 56, 56], θ 10000, centred rows/columns",
            _D + "transformer_qwenimage.py QwenEmbedRope (scale_rope=True)",
            "float32",
            128,
            "H W",
            "first",
            fixed([16, 56, 56], 10000.0, ("t", "h", "w")),
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
AXIS_PRESETS.update(DIT_PRESETS)


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
