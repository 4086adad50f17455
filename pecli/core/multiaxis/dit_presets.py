"""The 2025–26 image and video DiTs as multi-axis presets, one record each.

Each record's numbers were read in diffusers 0.42.1 (the file and function in its ``source``)
and its cache is checked against the library's own table (tests/fixtures/libraries/
dit_presets, made by tools/library_fixtures/generate_dit_presets.py). Pure; no I/O.
"""

from __future__ import annotations

from . import dit_ids, ladder
from . import ids as idmod
from .mrope import mrope_plan
from .plan import per_axis
from .record import AxisPreset
from .widths import chronoedit_widths, cogvideox_plan, fixed, wan_widths

__all__ = ["DIT_PRESETS"]

_D = "diffusers models/transformers/"

DIT_PRESETS: dict[str, AxisPreset] = {
    p.name: p
    for p in (
        AxisPreset(
            "z-image",
            "Z-Image: axes [32, 48, 48], θ 256; image first, then the caption padded to 32",
            _D + "transformer_z_image.py RopeEmbedder, ZImageTransformer2DModel.patchify_and_embed",
            "float64",
            128,
            "H W",
            "after",
            fixed([32, 48, 48], 256.0),
            dit_ids.z_image_ids,
            patch=(2, 2),
        ),
        AxisPreset(
            "hunyuanimage-2.1",
            "HunyuanImage 2.1: axes [64, 64] (rows, columns), θ 256; text not rotated",
            _D + "transformer_hunyuanimage.py HunyuanImageRotaryPosEmbed",
            "float32",
            128,
            "H W",
            "none",
            fixed([64, 64], 256.0, ("h", "w")),
            idmod.grid_ids,
            patch=(1, 1),
        ),
        AxisPreset(
            "hunyuanvideo-1.5",
            "HunyuanVideo 1.5: axes [16, 56, 56], θ 256, patch 1 × 1 × 1",
            _D + "transformer_hunyuan_video15.py HunyuanVideo15RotaryPosEmbed",
            "float32",
            128,
            "T H W",
            "none",
            fixed([16, 56, 56], 256.0),
            idmod.grid_ids,
            patch=(1, 1, 1),
            cache_of="hunyuanvideo",
        ),
        AxisPreset(
            "lumina2",
            "Lumina 2: axes [32, 32, 32], θ 10000; caption (k, 0, 0), image (L, row, col)",
            _D + "transformer_lumina2.py Lumina2RotaryPosEmbed",
            "float64",
            96,
            "H W",
            "first",
            fixed([32, 32, 32], 10000.0),
            dit_ids.lumina2_ids,
            patch=(2, 2),
        ),
        AxisPreset(
            "kandinsky5",
            "Kandinsky 5 (visual): axes [16, 24, 24], θ 10000, 2 × 2 rotations",
            _D + "transformer_kandinsky.py Kandinsky5RoPE3D",
            "float32",
            64,
            "T H W",
            "none",
            fixed([16, 24, 24], 10000.0),
            idmod.grid_ids,
            patch=(1, 2, 2),
            cache_of="cogvideox-1.5",
            scale_factor=True,
        ),
        AxisPreset(
            "hidream",
            "HiDream-I1: axes [64, 32, 32], θ 10000; image (0, row, col), then text at 0",
            _D + "transformer_hidream_image.py HiDreamImageEmbedND",
            "float64",
            128,
            "H W",
            "after",
            fixed([64, 32, 32], 10000.0),
            dit_ids.hidream_ids,
            patch=(2, 2),
        ),
        AxisPreset(
            "cogvideox-1.5",
            "CogVideoX 1.5: t/h/w d/4, 3d/8, 3d/8, the integer 'slice' grid, patch 2 × 2 × 2",
            "diffusers models/embeddings.py get_3d_rotary_pos_embed (grid_type='slice'); "
            "pipeline_cogvideox.py _prepare_rotary_positional_embeddings",
            "float32",
            64,
            "T H W",
            "none",
            cogvideox_plan,
            idmod.grid_ids,
            patch=(2, 2, 2),
        ),
        AxisPreset(
            "skyreels-v2",
            "SkyReels-V2: Wan's split d−4(d//6), 2(d//6), 2(d//6), θ 10000, float64",
            _D + "transformer_skyreels_v2.py SkyReelsV2RotaryPosEmbed",
            "float64",
            128,
            "F H W",
            "none",
            lambda d: per_axis(wan_widths(d), theta=10000.0),
            idmod.grid_ids,
            most=1024,
            patch=(1, 2, 2),
            cache_of="wan",
        ),
        AxisPreset(
            "chronoedit",
            "ChronoEdit: Wan's split and ids; a 2-frame edit's frames at 0 and 7",
            _D + "transformer_chronoedit.py ChronoEditRotaryPosEmbed",
            "float64",
            128,
            "F H W",
            "none",
            lambda d: per_axis(chronoedit_widths(d), theta=10000.0),
            dit_ids.chronoedit_ids,
            most=1024,
            patch=(1, 2, 2),
        ),
        AxisPreset(
            "cosmos3",
            "Cosmos3: Qwen3-VL's interleaved M-RoPE [24, 20, 20], θ 5e6; vision after +15000",
            "diffusers models/transformers/transformer_cosmos3.py Cosmos3VLTextRotaryEmbedding; "
            "pipelines/cosmos/pipeline_cosmos3_omni.py get_3d_mrope_ids_vae_tokens",
            "float32",
            128,
            "T H W",
            "first",
            lambda d: mrope_plan((24, 20, 20), theta=5e6, head_dim=d, interleaved=True),
            dit_ids.cosmos3_ids,
            fps=True,
        ),
        AxisPreset(
            "ltx-video",
            "LTX-Video: ladder (π/2)·θ^(k/(n−1)), n = d//6, u = 2x−1, frequency-major",
            _D + "transformer_ltx.py LTXVideoRotaryPosEmbed; pipeline_ltx.py "
            "rope_interpolation_scale",
            "float32",
            2048,
            "F H W",
            "none",
            lambda d: ladder.ladder_plan(d, ladder="float32"),
            ladder.ltx_video_ids,
            patch=(1, 1, 1),
            fps=True,
        ),
        AxisPreset(
            "ltx-2",
            "LTX-2 video: the ladder over patch midpoints in pixels and seconds (fps 24)",
            _D + "transformer_ltx2.py LTX2AudioVideoRotaryPosEmbed (modality='video')",
            "float32",
            4096,
            "F H W",
            "none",
            ladder.ladder_plan,
            ladder.ltx2_video_ids,
            patch=(1, 1, 1),
            fps=True,
        ),
        AxisPreset(
            "ltx-2-audio",
            "LTX-2 audio: the ladder over mel-frame midpoints in seconds (hop 160, 16 kHz)",
            _D + "transformer_ltx2.py LTX2AudioVideoRotaryPosEmbed (modality='audio')",
            "float32",
            2048,
            "A",
            "none",
            lambda d: ladder.ladder_plan(d, ("t",)),
            ladder.ltx2_audio_ids,
        ),
    )
}
