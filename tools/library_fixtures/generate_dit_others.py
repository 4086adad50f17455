"""Rotary tables of diffusers 0.42.1 transformers that no pecli preset expresses yet.

Area ``dit_others`` (the sweep of ``models/transformers/*.py`` beyond issue 35's list; see the
notes for the full table). Each module is built with its model's default configuration, on ids
made by the model's or pipeline's own code where it has a function for them:

* Ernie-Image ``ErnieImageEmbedND3`` (θ 256, 32/48/48): it returns the *angles*, each repeated
  on two neighbouring channels, and its attention applies them with ``rotate_half``;
* Qwen-Image 2.1 ``QwenImage21Rope`` (text advances t, h, w together; an image freezes t and
  centres h, w; complex64);
* Krea 2 ``Krea2RotaryPosEmbed`` (θ 1000, 32/48/48) on ``Krea2Pipeline.prepare_position_ids``;
* FLUX.3 ``Flux3PosEmbed`` (θ 10000, 4 × 32) on the modular pipeline's text ids and image ids
  scaled by ``image_rope_scale`` 0.5;
* CogView4 ``CogView4RotaryPosEmbed`` (2-D half-split, ids ``i · 256 // H``) and GLM-Image
  ``GlmImageRotaryPosEmbed`` (2-D half-split, plain ids);
* MiniMax-H3 ``MiniMaxH3RotaryPosEmbed`` (one 16-frequency schedule shared by t, h, w);
* Helios ``HeliosRotaryPosEmbed`` (44/42/42, explicit frame indices, ``[cos t h w | sin t h w]``);
* Ideogram 4 ``Ideogram4MRoPE`` (interleaved M-RoPE, θ 5e6, head 256) on
  ``Ideogram4Pipeline._prepare_ids`` (image ids offset by 65536);
* HunyuanDiT ``get_2d_rotary_pos_embed`` on the pipeline's crop of the 32 × 32 base grid.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import save_pair, save_tensor  # noqa: E402

_save = partial(save_tensor, library="diffusers")
_pair = partial(save_pair, library="diffusers")


def ernie_image(out: Path) -> None:
    """Image ids (text_len, row, col) first, then text ids (k, 0, 0), as the model builds them."""
    from diffusers.models.transformers.transformer_ernie_image import ErnieImageEmbedND3

    text, rows, cols = 4, 3, 4
    grid = torch.stack(
        torch.meshgrid(torch.arange(rows * 1.0), torch.arange(cols * 1.0), indexing="ij"), -1
    ).reshape(-1, 2)
    image_ids = torch.cat([torch.full((rows * cols, 1), float(text)), grid], dim=1)
    text_ids = torch.cat([torch.arange(text * 1.0)[:, None], torch.zeros(text, 2)], dim=1)
    ids = torch.cat([image_ids, text_ids])[None]
    angles = ErnieImageEmbedND3(128, 256, (32, 48, 48))(ids)[0, :, 0]
    call = "ErnieImageEmbedND3(128, 256, (32, 48, 48))(cat(image_ids, text_ids)): angles"
    meta = dict(model="ernie-image", theta=256.0, axes=[32, 48, 48], grid=[rows, cols], text=text)
    _save(out, "ernie_image_angles", angles, call, ids=ids[0].tolist(), **meta)


def qwen_image21(out: Path) -> None:
    """3 text tokens, a 3 × 4 image, 2 text tokens: the pad mask says which are image tokens."""
    from diffusers.models.transformers.transformer_qwenimage21 import QwenImage21Rope

    mask = torch.tensor([False] * 3 + [True] * 12 + [False] * 2)
    freqs = QwenImage21Rope(10000, [16, 56, 56])([(1, 3, 4)], mask, torch.device("cpu"))
    call = "QwenImage21Rope(10000, [16, 56, 56])([(1, 3, 4)], mask 3 text + 12 image + 2 text)"
    meta = dict(model="qwen-image-2.1", theta=1e4, axes=[16, 56, 56], layout=[3, 12, 2])
    _save(out, "qwen_image21_text3_3x4_text2", freqs, call, image_mask=mask.tolist(), **meta)


def flux_family(out: Path) -> None:
    """Krea 2 (θ 1000) and FLUX.3 (θ 10000, image ids × 0.5) on their pipelines' ids."""
    from diffusers.models.transformers.transformer_flux3 import Flux3PosEmbed
    from diffusers.models.transformers.transformer_krea2 import Krea2RotaryPosEmbed
    from diffusers.modular_pipelines.flux3 import before_denoise as flux3
    from diffusers.pipelines.krea2.pipeline_krea2 import Krea2Pipeline

    ids = Krea2Pipeline.prepare_position_ids(4, 3, 4, torch.device("cpu"))
    call = "Krea2RotaryPosEmbed(1000, [32, 48, 48])(Krea2Pipeline.prepare_position_ids(4, 3, 4))"
    meta = dict(model="krea2", theta=1000.0, axes=[32, 48, 48], grid=[3, 4], text=4)
    _pair(out, "krea2_text4_3x4", Krea2RotaryPosEmbed(1000, [32, 48, 48])(ids), call, **meta)
    text = flux3.Flux3TextRoPEInputsStep._prepare_text_ids(torch.zeros(1, 3, 8))
    image = flux3._prepare_image_ids(3, 4, 0.5)
    ids = torch.cat([text, image])
    call = (
        "Flux3PosEmbed(10000, [32] * 4)(cat(_prepare_text_ids(3), _prepare_image_ids(3, 4, 0.5)))"
    )
    meta = dict(model="flux3", theta=1e4, axes=[32] * 4, grid=[3, 4], text=3, image_rope_scale=0.5)
    embed = Flux3PosEmbed(10000, [32, 32, 32, 32])
    _pair(out, "flux3_text3_3x4", embed(ids), call, ids=ids.tolist(), **meta)


def two_d(out: Path) -> None:
    """CogView4 and GLM-Image (half-split, h | w), HunyuanDiT (interleaved, crop grid)."""
    from diffusers.models.embeddings import get_2d_rotary_pos_embed
    from diffusers.models.transformers.transformer_cogview4 import CogView4RotaryPosEmbed
    from diffusers.models.transformers.transformer_glm_image import GlmImageRotaryPosEmbed
    from diffusers.pipelines.hunyuandit.pipeline_hunyuandit import get_resize_crop_region_for_grid

    x = torch.zeros(1, 4, 8, 10)  # patch 2: a 4 × 5 grid
    table = CogView4RotaryPosEmbed(128, 2, (256, 256), 10000.0)(x)
    call = "CogView4RotaryPosEmbed(128, 2, (256, 256), 1e4)(zeros(1, 4, 8, 10))"
    _pair(out, "cogview4_4x5", table, call, model="cogview4", grid=[4, 5], rope_axes_dim=[256, 256])
    table = GlmImageRotaryPosEmbed(128, 2, 10000.0)(x)
    call = "GlmImageRotaryPosEmbed(128, 2, 1e4)(zeros(1, 4, 8, 10))"
    _pair(out, "glm_image_4x5", table, call, model="glm-image", grid=[4, 5])
    crops = get_resize_crop_region_for_grid((4, 5), 32)
    table = get_2d_rotary_pos_embed(88, crops, (4, 5))
    call = f"get_2d_rotary_pos_embed(88, {crops}, (4, 5)) (HunyuanDiT: base 512 // 8 // 2 = 32)"
    _pair(out, "hunyuandit_4x5", table, call, model="hunyuandit", grid=[4, 5], crops=list(crops))


def shared_and_helios(out: Path) -> None:
    """MiniMax-H3 (one schedule for t, h, w) and Helios (frames given, cos block then sin)."""
    from diffusers.models.transformers.transformer_helios import HeliosRotaryPosEmbed
    from diffusers.models.transformers.transformer_minimax_h3 import MiniMaxH3RotaryPosEmbed

    mesh = torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing="ij")
    ids = torch.stack([m.reshape(-1) for m in mesh], dim=1)
    call = "MiniMaxH3RotaryPosEmbed(16, 1e4)(ids of a 2 × 3 × 4 grid)"
    meta = dict(model="minimax-h3", theta=1e4, rope_freq_dim=16, grid=[2, 3, 4])
    _pair(out, "minimax_h3_2x3x4", MiniMaxH3RotaryPosEmbed(16, 10000.0)(ids), call, **meta)
    frames = torch.tensor([[0, 1, 5]])
    table = HeliosRotaryPosEmbed((44, 42, 42), 10000.0)(frames, 3, 4, torch.device("cpu"))
    call = "HeliosRotaryPosEmbed((44, 42, 42), 1e4)(frame_indices [[0, 1, 5]], 3, 4)"
    meta = dict(model="helios", theta=1e4, axes=[44, 42, 42], frames=[0, 1, 5], grid=[3, 3, 4])
    _save(out, "helios_f015_3x4", table[0].permute(1, 2, 3, 0).reshape(36, -1), call, **meta)


def ideogram4(out: Path) -> None:
    """Text (k, k, k) then the image at (0, row, col) + 65536, from the pipeline's _prepare_ids."""
    from diffusers.models.transformers.transformer_ideogram4 import Ideogram4MRoPE
    from diffusers.pipelines.ideogram4.pipeline_ideogram4 import Ideogram4Pipeline

    ids, _, _ = Ideogram4Pipeline._prepare_ids([4], 3, 4, 4, torch.device("cpu"))
    cos, sin = Ideogram4MRoPE(256, 5_000_000, (24, 20, 20))(ids)
    call = "Ideogram4MRoPE(256, 5e6, (24, 20, 20))(Ideogram4Pipeline._prepare_ids([4], 3, 4, 4))"
    meta = dict(model="ideogram4", theta=5e6, mrope_section=[24, 20, 20], head_dim=256)
    _pair(out, "ideogram4_text4_3x4", (cos[0], sin[0]), call, ids=ids[0].tolist(), **meta)


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    torch.set_grad_enabled(False)
    for make in (ernie_image, qwen_image21, flux_family, two_d, shared_and_helios, ideogram4):
        make(out)
