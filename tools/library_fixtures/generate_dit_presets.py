"""The 2025–26 image and video DiTs' rotary tables, as diffusers 0.42.1 makes them.

Area ``dit_presets`` (issue 35's list): each model's own rotary module, built with its model's
default configuration (the ``__init__`` defaults of its transformer), on a small grid with text
tokens where the model rotates them, saved as the module returns it (cos / sin, complex
``freqs_cis`` or 2 × 2 rotation matrices) with the ids or grid in the provenance:

Z-Image (the whole tiny ``ZImageTransformer2DModel``: its unified sequence's ``freqs_cis`` and
ids, read at the first main layer), HunyuanImage 2.1, HunyuanVideo 1.5, Lumina 2 (its joint
``freqs_cis`` and the position ids it builds), Kandinsky 5 (visual 3-D and text 1-D, with the
pipeline's resolution ``scale_factor``), HiDream (``axes_dims_rope`` (64, 32, 32): the code's
default (32, 32) cannot take the 3-column ids the model builds), SkyReels-V2, the Wan variants
(ChronoEdit's ``head_dim // 3`` split and its two-frame temporal skip, Wan-Animate 2's complex
``rope_params`` with offsets), CogVideoX 1.5's ``slice`` grid, Cosmos with other
``rope_scale`` values, Cosmos3's interleaved M-RoPE on the pipeline's ids, and Mochi's learned
``pos_frequencies`` (a seeded tensor saved as a checkpoint, and the module's output on it).
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import save_pair, save_tensor  # noqa: E402

_save = partial(save_tensor, library="diffusers")
_pair = partial(save_pair, library="diffusers")


def z_image(out: Path) -> None:
    """The tiny ZImageTransformer2DModel run whole: image first, then the padded caption."""
    from diffusers.models.transformers.transformer_z_image import ZImageTransformer2DModel

    torch.manual_seed(0)
    tiny = dict(dim=128, n_layers=1, n_refiner_layers=1, n_heads=1, n_kv_heads=1)
    model = ZImageTransformer2DModel(in_channels=4, cap_feat_dim=16, **tiny)
    seen: dict[str, Any] = {}
    model.layers[0].register_forward_pre_hook(lambda _m, args: seen.update(freqs=args[2]))
    image, caption = [torch.randn(4, 1, 6, 8)], [torch.randn(5, 16)]
    img_ids, cap_ids = (model.patchify_and_embed(image, caption, 2, 1)[i][0] for i in (3, 4))
    model(image, torch.tensor([0.5]), caption)
    freqs = seen["freqs"][0]
    ids = torch.cat([img_ids, cap_ids[: freqs.shape[0] - len(img_ids)]])
    call = (
        "ZImageTransformer2DModel(dim=128, n_heads=1, axes_dims=[32, 48, 48], axes_lens=[1024, "
        "512, 512], rope_theta=256)(x=[(4, 1, 6, 8)], cap_feats=[(5, 16)]): freqs_cis at layers[0]"
    )
    meta = dict(model="z-image", theta=256.0, axes=[32, 48, 48], grid=[1, 3, 4], text=5)
    _save(out, "z_image_freqs", freqs, call, ids=ids.tolist(), order="image, then caption", **meta)


def hunyuan(out: Path) -> None:
    """HunyuanImage 2.1 (patch 1 × 1, 64/64) and HunyuanVideo 1.5 (patch 1, 16/56/56), θ 256."""
    from diffusers.models.transformers.transformer_hunyuan_video15 import (
        HunyuanVideo15RotaryPosEmbed,
    )
    from diffusers.models.transformers.transformer_hunyuanimage import HunyuanImageRotaryPosEmbed

    image = HunyuanImageRotaryPosEmbed((1, 1), (64, 64), 256.0)(torch.zeros(1, 4, 4, 5))
    call = "HunyuanImageRotaryPosEmbed((1, 1), (64, 64), 256.0)(zeros(1, 4, 4, 5))"
    meta = dict(model="hunyuanimage-2.1", theta=256.0, axes=[64, 64], patch=[1, 1], grid=[4, 5])
    _pair(out, "hunyuanimage21_4x5", image, call, text="not rotated (after the image)", **meta)
    video = HunyuanVideo15RotaryPosEmbed(1, 1, [16, 56, 56], 256.0)(torch.zeros(1, 4, 3, 4, 5))
    call = "HunyuanVideo15RotaryPosEmbed(1, 1, [16, 56, 56], 256.0)(zeros(1, 4, 3, 4, 5))"
    meta = dict(model="hunyuanvideo-1.5", theta=256.0, axes=[16, 56, 56], patch=[1, 1, 1])
    _pair(out, "hunyuanvideo15_3x4x5", video, call, grid=[3, 4, 5], **meta)


def lumina2(out: Path) -> None:
    """Lumina 2: 5 caption tokens (mask 1) and 2 padding ones, then a 4 × 5 patch grid."""
    from diffusers.models.transformers.transformer_lumina2 import Lumina2RotaryPosEmbed

    rope = Lumina2RotaryPosEmbed(10000, [32, 32, 32], [300, 512, 512], 2)
    seen: dict[str, Any] = {}
    original = rope._get_freqs_cis

    def spy(ids: torch.Tensor) -> torch.Tensor:  # the position ids the module builds
        seen["ids"] = ids
        return original(ids)

    rope._get_freqs_cis = spy
    mask = torch.tensor([[1, 1, 1, 1, 1, 0, 0]])
    result = rope(torch.zeros(1, 4, 8, 10), mask)
    call = (
        "Lumina2RotaryPosEmbed(10000, [32, 32, 32], [300, 512, 512], 2)(zeros(1, 4, 8, 10), mask)"
    )
    meta = dict(model="lumina2", theta=10000.0, axes=[32, 32, 32], patch=2, grid=[4, 5], text=5)
    ids = seen["ids"][0].tolist()
    _save(out, "lumina2_freqs", result[3][0], call + ": freqs_cis (joint)", ids=ids, **meta)


def kandinsky5(out: Path) -> None:
    """Kandinsky 5: visual (16, 24, 24) 2 × 2 matrices at scale_factor (1, 1, 1) and (1, 2, 2)."""
    from diffusers.models.transformers.transformer_kandinsky import (
        Kandinsky5RoPE1D,
        Kandinsky5RoPE3D,
    )

    rope = Kandinsky5RoPE3D((16, 24, 24))
    pos = [torch.arange(2), torch.arange(3), torch.arange(4)]
    for scale in ((1.0, 1.0, 1.0), (1.0, 2.0, 2.0), (1.0, 3.16, 3.16)):
        table = rope((1, 2, 3, 4), pos, scale)[0].reshape(24, 32, 2, 2)
        call = f"Kandinsky5RoPE3D((16, 24, 24))((1, 2, 3, 4), aranges, {scale})"
        name = "kandinsky5_2x3x4_s" + "_".join(f"{s:g}".replace(".", "p") for s in scale)
        meta = dict(model="kandinsky5", theta=10000.0, axes=[16, 24, 24], patch=[1, 2, 2])
        _save(out, name, table, call, grid=[2, 3, 4], scale_factor=list(scale), **meta)
    text = Kandinsky5RoPE1D(128)(torch.arange(5))[:, 0]
    call = "Kandinsky5RoPE1D(128)(arange(5))"
    _save(out, "kandinsky5_text5", text, call, model="kandinsky5-text", theta=10000.0, d=128)


def hidream(out: Path) -> None:
    """HiDream: ids (0, row, col) for the image, then text ids 0, with axes (64, 32, 32)."""
    from diffusers.models.transformers.transformer_hidream_image import HiDreamImageEmbedND

    img = torch.zeros(3, 4, 3)
    img[..., 1] += torch.arange(3)[:, None]
    img[..., 2] += torch.arange(4)[None, :]
    ids = torch.cat([img.reshape(12, 3), torch.zeros(4, 3)])[None]
    table = HiDreamImageEmbedND(theta=10000, axes_dim=[64, 32, 32])(ids)[0, :, 0]
    call = "HiDreamImageEmbedND(10000, [64, 32, 32])(cat(img_ids, txt_ids))"
    meta = dict(model="hidream", theta=10000.0, axes=[64, 32, 32], grid=[3, 4], text=4)
    _save(out, "hidream_3x4_text4", table, call, ids=ids[0].tolist(), **meta)


def wan_variants(out: Path) -> None:
    """SkyReels-V2 (d 128), ChronoEdit (d 128 and 64, and its two-frame skip)."""
    from diffusers.models.transformers.transformer_chronoedit import ChronoEditRotaryPosEmbed
    from diffusers.models.transformers.transformer_skyreels_v2 import SkyReelsV2RotaryPosEmbed

    x = torch.zeros(1, 4, 3, 8, 10)  # patch 1 × 2 × 2: grid 3 × 4 × 5
    cos, sin = SkyReelsV2RotaryPosEmbed(128, (1, 2, 2), 1024)(x)
    call = "SkyReelsV2RotaryPosEmbed(128, (1, 2, 2), 1024)(zeros(1, 4, 3, 8, 10))"
    meta = dict(model="skyreels-v2", head_dim=128, patch=[1, 2, 2], grid=[3, 4, 5])
    _pair(out, "skyreels_v2_d128_3x4x5", (cos[0, :, 0], sin[0, :, 0]), call, **meta)
    for head, frames in ((128, 3), (64, 3), (128, 2)):
        x = torch.zeros(1, 4, frames, 8, 10)
        cos, sin = ChronoEditRotaryPosEmbed(head, (1, 2, 2), 1024, temporal_skip_len=8)(x)
        call = f"ChronoEditRotaryPosEmbed({head}, (1, 2, 2), 1024, 8)(zeros(1, 4, {frames}, 8, 10))"
        meta = dict(model="chronoedit", head_dim=head, patch=[1, 2, 2], grid=[frames, 4, 5])
        name = f"chronoedit_d{head}_{frames}x4x5"
        _pair(out, name, (cos[0, :, 0], sin[0, :, 0]), call, temporal_skip_len=8, **meta)
    _wan_animate2(out)


def _wan_animate2(out: Path) -> None:
    """Wan-Animate 2: its model's ``_rope_freqs(offsets)`` read through ``rope_apply``.

    ``rope_apply`` multiplies the complex query by the table; a query whose every pair is
    (1, 0) comes back as (cos, sin) of each pair, so the probe gives the table the model uses.
    """
    from diffusers.models.transformers import transformer_wan_animate_2 as wa2

    for head, offsets, stride in ((128, (0, 0, 0), 1), (128, (1, 0, 5), 2), (64, (0, 0, 0), 1)):
        fake = SimpleNamespace(config=SimpleNamespace(dim=head, num_heads=1), rope_freqs_cache={})
        freqs = wa2.WanAnimate2Transformer3DModel._rope_freqs(fake, offsets, torch.device("cpu"))
        probe = torch.zeros(1, 60, 1, head)
        probe[..., 0::2] = 1.0
        rotated = wa2.rope_apply(probe, torch.tensor([[3, 4, 5]]), freqs, stride)[0, :, 0]
        call = (
            f"rope_apply(pairs (1, 0), grid (3, 4, 5), WanAnimate2Transformer3DModel._rope_freqs"
            f"(dim/heads={head}, offsets={offsets}), time_stride={stride})"
        )
        meta = dict(model="wan-animate-2", head_dim=head, offsets=list(offsets), stride=stride)
        name = f"wan_animate2_d{head}_off{''.join(map(str, offsets))}_s{stride}"
        cos_sin = (rotated[:, 0::2], rotated[:, 1::2])
        _pair(out, name, cos_sin, call, grid=[3, 4, 5], form="half", **meta)


def cogvideox15(out: Path) -> None:
    """CogVideoX 1.5's grid_type='slice' (integer ids; p 2, p_t 2: the pipeline's grid)."""
    from diffusers.models.embeddings import get_3d_rotary_pos_embed

    cos, sin = get_3d_rotary_pos_embed(
        64, None, (4, 5), 3, grid_type="slice", max_size=(150, 150), use_real=True
    )
    call = "get_3d_rotary_pos_embed(64, None, (4, 5), 3, grid_type='slice', max_size=(150, 150))"
    meta = dict(model="cogvideox-1.5", head_dim=64, grid=[3, 4, 5], patch=[2, 2, 2])
    _pair(out, "cogvideox15_3x4x5", (cos, sin), call, **meta)


def cosmos_scales(out: Path) -> None:
    """Cosmos with rope_scale other than (2, 1, 1): θ per axis 1e4 · s^(d/(d−2))."""
    from diffusers.models.transformers.transformer_cosmos import CosmosRotaryPosEmbed

    x = torch.zeros(1, 4, 3, 8, 10)
    for scale, fps in (((1.0, 3.0, 3.0), 24), ((1.0, 4.0, 4.0), None), ((2.0, 2.0, 2.0), 30)):
        rope = CosmosRotaryPosEmbed(hidden_size=128, rope_scale=scale)
        factors = [rope.t_ntk_factor, rope.h_ntk_factor, rope.w_ntk_factor]
        call = f"CosmosRotaryPosEmbed(128, rope_scale={scale})(zeros(1, 4, 3, 8, 10), fps={fps})"
        meta = dict(model="cosmos", rope_scale=list(scale), fps=fps, grid=[3, 4, 5])
        meta |= dict(ntk_factors=factors, theta=[1e4 * f for f in factors])
        name = "cosmos_s" + "_".join(f"{s:g}" for s in scale) + f"_fps{fps}"
        _pair(out, name, rope(x, fps=fps), call, **meta)


def cosmos3(out: Path) -> None:
    """Cosmos3: text ids, then a video's ids (fps 30) after the modality margin 15000."""
    from diffusers.models.transformers.transformer_cosmos3 import Cosmos3VLTextRotaryEmbedding
    from diffusers.pipelines.cosmos import pipeline_cosmos3_omni as omni

    text, offset = omni.get_3d_mrope_ids_text_tokens(5, 0, use_float_positions=True)
    rope = Cosmos3VLTextRotaryEmbedding(128, 5000000.0, (24, 20, 20))
    for name, grid, fps in (("video", (3, 2, 3), 30.0), ("image", (1, 2, 3), 30.0)):
        vision, _ = omni.get_3d_mrope_ids_vae_tokens(
            *grid, offset + 15000, True, fps=fps, base_fps=24.0, temporal_compression_factor=4
        )
        ids = torch.cat([text, vision.to(torch.float32)], dim=1)
        cos, sin = rope(ids[:, None, :], torch.device("cpu"), torch.float32)
        call = (
            "Cosmos3VLTextRotaryEmbedding(128, 5e6, (24, 20, 20))(ids): ids = "
            f"get_3d_mrope_ids_text_tokens(5, 0, True) + get_3d_mrope_ids_vae_tokens({grid}, "
            f"offset 5 + 15000, reset_spatial_indices=True, fps={fps}, base_fps=24, tcf=4)"
        )
        meta = dict(model="cosmos3", theta=5e6, mrope_section=[24, 20, 20], grid=list(grid))
        _pair(out, f"cosmos3_text5_{name}", (cos[0], sin[0]), call, ids=ids.tolist(), **meta)


def mochi(out: Path) -> None:
    """Mochi: a seeded pos_frequencies (3, 24, 64) as a checkpoint, and MochiRoPE on it."""
    from diffusers.models.transformers.transformer_mochi import MochiRoPE
    from safetensors.torch import save_file

    torch.manual_seed(35)
    freqs = torch.randn(3, 24, 64) * 0.1
    out.mkdir(parents=True, exist_ok=True)
    save_file({"pos_frequencies": freqs}, str(out / "mochi_pos_frequencies.safetensors"))
    rope = MochiRoPE()
    positions = rope._get_positions(2, 3, 4, dtype=torch.float32)
    cos, sin = rope(freqs, 2, 3, 4, dtype=torch.float32)
    call = "MochiRoPE()(pos_frequencies, 2, 3, 4, dtype=float32) (post-patch grid, patch 2)"
    meta = dict(model="mochi", checkpoint="mochi_pos_frequencies.safetensors", grid=[2, 3, 4])
    _pair(out, "mochi_2x3x4", (cos, sin), call, heads=24, pairs=64, **meta)
    _save(out, "mochi_positions_2x3x4", positions, "MochiRoPE()._get_positions(2, 3, 4)", **meta)


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    torch.set_grad_enabled(False)
    for make in (z_image, hunyuan, lumina2, kandinsky5, hidream, wan_variants, cogvideox15):
        make(out)
    for make in (cosmos_scales, cosmos3, mochi):
        make(out)
