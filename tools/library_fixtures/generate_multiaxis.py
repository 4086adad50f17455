"""Multi-axis rotary caches made by diffusers' and transformers' own modules (area ``multiaxis``).

Small grids only (a few dozen tokens), the modules built from tiny configs with no weights:
diffusers ``FluxPosEmbed``, ``Flux2PosEmbed``, ``HunyuanVideoRotaryPosEmbed``,
``WanRotaryPosEmbed`` and ``get_1d_rotary_pos_embed`` (fractional positions); transformers
``PixtralVisionRotaryEmbedding`` and ``Llama4VisionRotaryEmbedding``. Each table is saved as
the module returns it (float32 cos / sin, or Llama 4's complex64 ``freqs_ci``), with the ids
or grid in the provenance.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import save  # noqa: E402
from diffusers.models.embeddings import (  # noqa: E402
    apply_rotary_emb_allegro,
    get_1d_rotary_pos_embed,
    get_3d_rotary_pos_embed,
    get_3d_rotary_pos_embed_allegro,
)
from diffusers.models.transformers.transformer_cosmos import CosmosRotaryPosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_flux import FluxPosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_flux2 import Flux2PosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_hunyuan_video import HunyuanVideoRotaryPosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_qwenimage import QwenEmbedRope  # noqa: E402
from diffusers.models.transformers.transformer_wan import WanRotaryPosEmbed  # noqa: E402
from diffusers.pipelines.cogvideo.pipeline_cogvideox import get_resize_crop_region_for_grid  # noqa: E402
from rotary_embedding_torch import RotaryEmbedding  # noqa: E402
from transformers import Llama4VisionConfig, PixtralVisionConfig  # noqa: E402
from transformers.models.llama4.modeling_llama4 import Llama4VisionRotaryEmbedding  # noqa: E402
from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding  # noqa: E402

FRACTIONAL = [0.0, 0.5, 1.25, 3.0, 100.75, 4095.5, 65536.125]


def _pair(out: Path, name: str, cos: torch.Tensor, sin: torch.Tensor, **meta: object) -> None:
    for part, table in (("cos", cos), ("sin", sin)):
        save(out, f"{name}_{part}", table.numpy(), **meta)  # type: ignore[arg-type]


def _flux(out: Path) -> None:
    text, (h, w) = 3, (4, 5)
    img = torch.zeros(h, w, 3)
    img[..., 1] += torch.arange(h)[:, None]
    img[..., 2] += torch.arange(w)[None, :]
    ids = torch.cat([torch.zeros(text, 3), img.reshape(-1, 3)])
    cos, sin = FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(ids)
    _pair(
        out,
        "flux_text3_4x5",
        cos,
        sin,
        library="diffusers",
        call="FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(ids)",
        preset="flux",
        grid=[h, w],
        text=text,
        ids=ids.tolist(),
    )
    far = torch.tensor([[0.0, 1000.0, 4095.0], [0.0, 65535.0, 3.0], [7.0, 12345.0, 54321.0]])
    cos, sin = FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(far)
    _pair(
        out,
        "flux_far_ids",
        cos,
        sin,
        library="diffusers",
        call="FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(ids)",
        preset="flux",
        ids=far.tolist(),
    )


def _flux2(out: Path) -> None:
    text, (h, w) = 2, (3, 4)
    txt = torch.cartesian_prod(
        torch.arange(1), torch.arange(1), torch.arange(1), torch.arange(text)
    )
    img = torch.cartesian_prod(torch.arange(1), torch.arange(h), torch.arange(w), torch.arange(1))
    embed = Flux2PosEmbed(theta=2000, axes_dim=[32, 32, 32, 32])
    parts = [embed(txt), embed(img)]
    cos, sin = (torch.cat([p[i] for p in parts]) for i in (0, 1))
    ids = torch.cat([txt, img])
    _pair(
        out,
        "flux2_text2_3x4",
        cos,
        sin,
        library="diffusers",
        call="Flux2PosEmbed(theta=2000, axes_dim=[32]*4) of txt_ids and img_ids, text first",
        preset="flux2",
        grid=[h, w],
        text=text,
        ids=ids.tolist(),
    )


def _video(out: Path) -> None:
    frames, height, width = 3, 8, 10  # patch 1×2×2: grid 3×4×5
    x = torch.zeros(1, 4, frames, height, width)
    hunyuan = HunyuanVideoRotaryPosEmbed(
        patch_size=2, patch_size_t=1, rope_dim=[16, 56, 56], theta=256.0
    )
    cos, sin = hunyuan(x)
    _pair(
        out,
        "hunyuanvideo_3x4x5",
        cos,
        sin,
        library="diffusers",
        call="HunyuanVideoRotaryPosEmbed(2, 1, [16, 56, 56], 256.0)(zeros(1, 4, 3, 8, 10))",
        preset="hunyuanvideo",
        grid=[3, 4, 5],
    )
    for head in (128, 96):
        wan = WanRotaryPosEmbed(attention_head_dim=head, patch_size=(1, 2, 2), max_seq_len=1024)
        cos, sin = wan(x)
        _pair(
            out,
            f"wan_d{head}_3x4x5",
            cos[0, :, 0],
            sin[0, :, 0],
            library="diffusers",
            call=f"WanRotaryPosEmbed({head}, (1, 2, 2), 1024)(zeros(1, 4, 3, 8, 10))",
            preset="wan",
            head_dim=head,
            grid=[3, 4, 5],
        )


def _cosmos(out: Path) -> None:
    x = torch.zeros(1, 4, 3, 8, 10)  # patch 1×2×2: grid 3×4×5
    for fps in (None, 30):
        cos, sin = CosmosRotaryPosEmbed(hidden_size=128)(x, fps=fps)
        _pair(
            out,
            f"cosmos_3x4x5_fps{fps}",
            cos,
            sin,
            library="diffusers",
            call=f"CosmosRotaryPosEmbed(hidden_size=128)(zeros(1, 4, 3, 8, 10), fps={fps})",
            preset="cosmos",
            grid=[3, 4, 5],
            fps=fps,
        )


def _cogvideox(out: Path) -> None:
    for t, h, w in ((3, 6, 10), (2, 5, 4)):  # crops of the 30 × 45 base grid: fractional ids
        crops = get_resize_crop_region_for_grid((h, w), 45, 30)
        cos, sin = get_3d_rotary_pos_embed(64, crops, (h, w), t)
        _pair(
            out,
            f"cogvideox_{t}x{h}x{w}",
            cos,
            sin,
            library="diffusers",
            call=f"get_3d_rotary_pos_embed(64, {crops}, ({h}, {w}), {t})",
            preset="cogvideox",
            head_dim=64,
            grid=[t, h, w],
        )


def _allegro(out: Path) -> None:
    """Allegro's full cos and sin per token, read through its own apply_rotary_emb_allegro.

    With x = [1 | 0] in each third, the output is [cos | sin] of that block; with [0 | 1] it
    is [−sin | cos]: the probes give every channel without re-implementing the assembly.
    """
    t, h, w = 2, 3, 4
    tables = get_3d_rotary_pos_embed_allegro(
        96, ((0, 0), (h, w)), (h, w), t, interpolation_scale=(2.2, 2.0, 2.0)
    )
    freqs = tuple(tables[:3])
    mesh = torch.meshgrid(torch.arange(t), torch.arange(h), torch.arange(w), indexing="ij")
    positions = torch.stack([m.reshape(1, -1) for m in mesh])  # (3, 1, seq) table rows
    half = torch.cat([torch.ones(16), torch.zeros(16)]).repeat(3)
    first = apply_rotary_emb_allegro(half.expand(1, 1, t * h * w, 96).clone(), freqs, positions)
    second = apply_rotary_emb_allegro(
        (1 - half).expand(1, 1, t * h * w, 96).clone(), freqs, positions
    )[0, 0]
    first = first[0, 0]
    mask = half.bool()
    cos = torch.where(mask, first, second)
    sin = torch.where(mask, -second, first) + 0.0  # -0.0 (from −second) as +0.0
    _pair(
        out,
        f"allegro_{t}x{h}x{w}",
        cos,
        sin,
        library="diffusers",
        call="apply_rotary_emb_allegro(probe, get_3d_rotary_pos_embed_allegro(96, "
        f"((0, 0), ({h}, {w})), ({h}, {w}), {t}, (2.2, 2.0, 2.0))[:3], grid rows)",
        preset="allegro",
        head_dim=96,
        grid=[t, h, w],
    )


def _lucidrains(out: Path) -> None:
    angles = RotaryEmbedding(dim=32).get_axial_freqs(3, 5)  # (3, 5, 64): rows, then columns
    flat = angles.reshape(-1, 64)
    _pair(
        out,
        "lucidrains_axial_3x5",
        flat.cos(),
        flat.sin(),
        library="rotary-embedding-torch",
        call="RotaryEmbedding(dim=32).get_axial_freqs(3, 5), then .cos() / .sin() as "
        "apply_rotary_emb does",
        preset="lucidrains-axial",
        grid=[3, 5],
    )


def _qwen_image(out: Path) -> None:
    embed = QwenEmbedRope(theta=10000, axes_dim=[16, 56, 56], scale_rope=True)
    image, text = embed([(1, 5, 6)], device=torch.device("cpu"), max_txt_seq_len=3)
    both = torch.cat([text, image])  # joint attention: text first
    save(
        out,
        "qwen_image_text3_5x6",
        both.numpy(),
        library="diffusers",
        call="QwenEmbedRope(10000, [16, 56, 56], scale_rope=True)([(1, 5, 6)], "
        "max_txt_seq_len=3): cat([txt_freqs, vid_freqs])",
        preset="qwen-image",
        grid=[5, 6],
        text=3,
    )


def _fractional(out: Path) -> None:
    pos = np.array(FRACTIONAL)
    for dtype, name in ((torch.float64, "float64"), (torch.float32, "float32")):
        cos, sin = get_1d_rotary_pos_embed(
            16, pos, theta=10000.0, use_real=True, repeat_interleave_real=True, freqs_dtype=dtype
        )
        _pair(
            out,
            f"fractional_{name}",
            cos,
            sin,
            library="diffusers",
            call=f"get_1d_rotary_pos_embed(16, pos, 10000.0, use_real=True, freqs_dtype={name})",
            positions=FRACTIONAL,
            freqs_dtype=name,
        )


def _pixtral(out: Path) -> None:
    config = PixtralVisionConfig(hidden_size=1024, num_attention_heads=16, head_dim=64)
    embed = PixtralVisionRotaryEmbedding(config)
    h, w = 3, 5
    hh, ww = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    ids = torch.stack([hh.flatten(), ww.flatten()], dim=-1)
    cos, sin = embed(torch.zeros(1, dtype=torch.float32), ids)
    _pair(
        out,
        "pixtral_3x5",
        cos,
        sin,
        library="transformers",
        call="PixtralVisionRotaryEmbedding(PixtralVisionConfig(head_dim=64))(x, hw ids)",
        preset="pixtral",
        grid=[h, w],
        ids=ids.tolist(),
    )


def _llama4(out: Path) -> None:
    config = Llama4VisionConfig(
        hidden_size=176, num_attention_heads=2, image_size=56, patch_size=14
    )
    freqs = Llama4VisionRotaryEmbedding(config).freqs_ci
    save(
        out,
        "llama4_vision_4x4",
        freqs.reshape(freqs.shape[0], -1).numpy(),
        library="transformers",
        call="Llama4VisionRotaryEmbedding(Llama4VisionConfig(hidden_size=176, "
        "num_attention_heads=2, image_size=56, patch_size=14)).freqs_ci",
        preset="llama4-vision",
        head_dim=88,
        grid=[4],
    )


def generate(out: Path) -> None:
    """Write every multi-axis fixture into ``out``."""
    torch.set_grad_enabled(False)
    makers = (
        _flux,
        _flux2,
        _video,
        _cosmos,
        _cogvideox,
        _allegro,
        _qwen_image,
        _fractional,
        _lucidrains,
    )
    for make in (*makers, _pixtral, _llama4):
        make(out)
