"""LTX-Video and LTX-2 rotary tables made by diffusers' own modules (area ``ltx``).

* LTX-Video: ``transformer_ltx.py: LTXVideoRotaryPosEmbed`` built as
  ``LTXVideoTransformer3DModel`` builds it (``base_num_frames`` 20, ``base_height`` /
  ``base_width`` 2048, θ 1e4, patch 1 × 1), at the inner dimension 2048 (32 heads × 64) and
  4096 (the 13B model, 32 × 128), on a 2 × 3 × 4 latent grid, with the
  ``rope_interpolation_scale`` ``LTXPipeline.__call__`` passes (``(vae_temporal /
  frame_rate, vae_spatial, vae_spatial)`` = (8/25, 32, 32) at the default 25 fps); and on the
  ``video_coords`` ``LTXConditionPipeline`` builds (``_prepare_video_ids``,
  ``_scale_video_ids`` with its causal shift, then ``/ frame_rate``).
* LTX-2: ``transformer_ltx2.py: LTX2AudioVideoRotaryPosEmbed`` with the arguments
  ``LTX2VideoTransformer3DModel.__init__`` gives its four instances (video self-attention 4096
  = 32 × 128, audio 2048 = 32 × 64, and the two audio–video cross-attention ones at 2048), for
  both ``rope_type`` values, on the coordinates of ``prepare_video_coords`` (fps 24, the
  pipeline's default) and ``prepare_audio_coords`` (9 audio latents: ``round(9 / 24 · 25)``,
  as ``LTX2Pipeline`` computes for 9 frames); and the text connectors'
  ``LTX2RotaryPosEmbed1d`` (30 heads × 128, ``base_seq_len`` 4096).

Intermediates (the frequency ladder, the coordinates, ``u = 2x − 1``) are read from the
module's own computation with ``torch_trace``, not recomputed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import save_pair, save_tensor  # noqa: E402
from diffusers.models.transformers.transformer_ltx import LTXVideoRotaryPosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_ltx2 import (  # noqa: E402
    LTX2AudioVideoRotaryPosEmbed,
)
from diffusers.pipelines.ltx.pipeline_ltx_condition import LTXConditionPipeline  # noqa: E402
from diffusers.pipelines.ltx2.connectors import LTX2RotaryPosEmbed1d  # noqa: E402
from torch_trace import pick, trace  # noqa: E402

LIB = "diffusers"
GRID = (2, 3, 4)  # LTX-Video latent frames, rows, columns (17 × 96 × 128 pixels)
GRID2 = (2, 2, 3)  # LTX-2 latent grid (9 × 64 × 96 pixels)
AUDIO = 9  # LTX-2 audio latents for those 9 frames at 24 fps


def _save(out: Path, name: str, table: torch.Tensor, call: str, **params: Any) -> None:
    save_tensor(out, name, table.squeeze(0), call, library=LIB, **params)


def _pair(out: Path, name: str, cos_sin: Any, call: str, **params: Any) -> None:
    save_pair(out, name, [t.squeeze(0) for t in cos_sin], call, library=LIB, **params)


def _ltx_video(out: Path) -> None:
    scale = (8 / 25, 32, 32)
    n = GRID[0] * GRID[1] * GRID[2]
    for dim in (2048, 4096):
        rope = LTXVideoRotaryPosEmbed(dim, 20, 2048, 2048, 1, 1, 10000.0)
        x = torch.zeros(1, n, dim)
        result, log = trace(lambda r=rope, x=x: r(x, *GRID, rope_interpolation_scale=scale))
        call = (
            f"LTXVideoRotaryPosEmbed({dim}, 20, 2048, 2048, 1, 1, 1e4)(x, 2, 3, 4, (8/25, 32, 32))"
        )
        meta = dict(model="ltx-video", dim=dim, grid=list(GRID), fps=25, scale=[0.32, 32, 32])
        _pair(out, f"ltxv_d{dim}", result, call, **meta)
        ladder = pick(log, "div", (dim // 6,))
        _save(out, f"ltxv_d{dim}_ladder", ladder, call + ": freqs * pi / 2", part="ladder", **meta)
        if dim != 2048:
            continue
        _save(out, "ltxv_d2048_x", pick(log, "transpose", (1, n, 3)), call + ": grid", **meta)
        _save(out, "ltxv_d2048_u", pick(log, "sub", (1, n, 3, 1))[..., 0], call + ": 2x-1", **meta)
    _ltx_video_condition(out)


def _ltx_video_condition(out: Path) -> None:
    """The coordinates of LTXConditionPipeline: pixel indices with the causal shift, / fps."""
    ids = LTXConditionPipeline._prepare_video_ids(1, *GRID, patch_size=1, patch_size_t=1)
    coords = LTXConditionPipeline._scale_video_ids(ids, scale_factor=32, scale_factor_t=8).float()
    coords[:, 0] = coords[:, 0] * (1.0 / 25)
    rope = LTXVideoRotaryPosEmbed(2048, 20, 2048, 2048, 1, 1, 10000.0)
    n = coords.shape[-1]
    result, log = trace(lambda: rope(torch.zeros(1, n, 2048), video_coords=coords))
    call = (
        "LTXVideoRotaryPosEmbed(2048, …)(x, video_coords=c): c = LTXConditionPipeline."
        "_scale_video_ids(_prepare_video_ids(1, 2, 3, 4), 32, 8), c[:, 0] *= 1/25"
    )
    meta = dict(model="ltx-video-condition", dim=2048, grid=list(GRID), fps=25)
    _pair(out, "ltxv_condition_d2048", result, call, **meta)
    _save(out, "ltxv_condition_coords", coords, call + ": video_coords", part="coords", **meta)
    _save(out, "ltxv_condition_u", pick(log, "sub", (1, n, 3, 1))[..., 0], call + ": 2x-1", **meta)


def _ltx2_modules(rope_type: str) -> dict[str, LTX2AudioVideoRotaryPosEmbed]:
    """The four instances LTX2VideoTransformer3DModel.__init__ makes, at its default config."""
    common = dict(theta=10000.0, causal_offset=1, double_precision=True, rope_type=rope_type)
    video = dict(base_num_frames=20, base_height=2048, base_width=2048, modality="video")
    audio = dict(base_num_frames=20, sampling_rate=16000, hop_length=160, modality="audio")
    return {
        "video": LTX2AudioVideoRotaryPosEmbed(
            4096, scale_factors=(8, 32, 32), num_attention_heads=32, **video, **common
        ),
        "audio": LTX2AudioVideoRotaryPosEmbed(
            2048, scale_factors=[4], num_attention_heads=32, **audio, **common
        ),
        "cross_video": LTX2AudioVideoRotaryPosEmbed(
            2048, num_attention_heads=32, **video, **common
        ),
        "cross_audio": LTX2AudioVideoRotaryPosEmbed(
            2048, num_attention_heads=32, **audio, **common
        ),
    }


def _ltx2(out: Path) -> None:
    cpu = torch.device("cpu")
    for rope_type in ("interleaved", "split"):
        ropes = _ltx2_modules(rope_type)
        video = ropes["video"].prepare_video_coords(1, *GRID2, cpu, fps=24.0)
        audio = ropes["audio"].prepare_audio_coords(1, AUDIO, cpu)
        inputs = {
            "video": video,
            "audio": audio,
            "cross_video": video[:, 0:1],
            "cross_audio": audio[:, 0:1],
        }
        for name, rope in ropes.items():
            result, log = trace(lambda r=rope, c=inputs[name]: r(c))
            call = (
                f"LTX2AudioVideoRotaryPosEmbed({rope.dim}, modality={rope.modality!r}, "
                f"rope_type={rope_type!r}, num_attention_heads=32, scale_factors="
                f"{list(rope.scale_factors)}) on prepare_video_coords(1, 2, 2, 3, fps=24) / "
                f"prepare_audio_coords(1, 9){'[:, 0:1]' if name.startswith('cross') else ''}"
            )
            meta = dict(model="ltx-2", module=name, dim=rope.dim, rope_type=rope_type, heads=32)
            meta |= dict(grid=list(GRID2), audio_latents=AUDIO, fps=24)
            _pair(out, f"ltx2_{name}_{rope_type}", result, call, **meta)
            if rope_type == "interleaved":
                _ltx2_intermediates(out, name, rope, inputs[name], log, call, meta)


def _ltx2_intermediates(
    out: Path, name: str, rope: Any, coords: torch.Tensor, log: list[Any], call: str, meta: Any
) -> None:
    axes = coords.shape[1]
    n = rope.dim // (2 * axes)
    tokens = coords.shape[2]
    ladder = pick(log, "to", (n,), dtype=torch.float32)
    _save(out, f"ltx2_{name}_ladder", ladder, call + ": (pow_indices * pi / 2).to(float32)", **meta)
    _save(out, f"ltx2_{name}_u", pick(log, "sub", (1, tokens, axes, 1))[..., 0], call, **meta)
    if name in ("video", "audio"):
        _save(out, f"ltx2_{name}_bounds", coords, call + ": prepare_*_coords", **meta)


def _connector(out: Path) -> None:
    for rope_type in ("interleaved", "split"):
        rope = LTX2RotaryPosEmbed1d(3840, 4096, 10000.0, True, rope_type, 30)
        call = f"LTX2RotaryPosEmbed1d(3840, 4096, 1e4, True, {rope_type!r}, 30)(1, 6, cpu)"
        meta = dict(model="ltx-2-connector", dim=3840, rope_type=rope_type, heads=30, tokens=6)
        _pair(out, f"ltx2_connector_{rope_type}", rope(1, 6, torch.device("cpu")), call, **meta)


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    torch.set_grad_enabled(False)
    _ltx_video(out)
    _ltx2(out)
    _connector(out)
