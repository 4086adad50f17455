"""Qwen2.5-Omni and Qwen3-Omni position ids and rotary tables from transformers' own code.

Area ``omni_ids`` (issue 35). For each case: ``<case>_ids`` (3, tokens), the ids the thinker's
``get_rope_index`` returns (int64 for Qwen2.5-Omni, float32 for Qwen3-Omni), ``<case>_deltas``,
and ``<case>_cos`` / ``<case>_sin`` from the thinker's text rotary embedding at those ids (all
tokens, or the ``rotary_tokens`` listed in the provenance for long layouts). The token layout is
in the provenance both as segments and as the token ids handed to ``get_rope_index``:
``<|vision_bos|> … <|vision_eos|>`` around images and videos and ``<|audio_bos|> …
<|audio_eos|>`` around audio, as the chat templates write them, and a video with its own audio
(``use_audio_in_video``) laid out by the processor's own ``replace_video_with_audio_token``
(called on a stand-in with single-character tokens). Tiny models, random weights never used;
the real checkpoints' token ids, θ and sections.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import save  # noqa: E402
from transformers import Qwen2_5OmniThinkerConfig, Qwen3OmniMoeThinkerConfig  # noqa: E402
from transformers.models.qwen2_5_omni import modeling_qwen2_5_omni as m25  # noqa: E402
from transformers.models.qwen2_5_omni import processing_qwen2_5_omni as p25  # noqa: E402
from transformers.models.qwen3_omni_moe import modeling_qwen3_omni_moe as m3  # noqa: E402
from transformers.models.qwen3_omni_moe import processing_qwen3_omni_moe as p3  # noqa: E402

IDS = dict(
    vision_bos=151652,
    vision_eos=151653,
    audio_bos=151647,
    audio_eos=151648,
    image=151655,
    video=151656,
    audio=151646,
    text=1,
)
CHARS = {"B": IDS["audio_bos"], "E": IDS["audio_eos"], "V": IDS["video"], "A": IDS["audio"]}
TEXT = dict(
    hidden_size=256,
    num_attention_heads=2,
    num_key_value_heads=2,
    num_hidden_layers=1,
    intermediate_size=64,
    vocab_size=1000,
    head_dim=128,
    max_position_embeddings=65536,
)
VISION = dict(depth=1, num_heads=2, hidden_size=64, intermediate_size=64, spatial_merge_size=2)
ROTARY_ALL = 160  # longer layouts keep the first and last 3 tokens of every segment


def _audio_tokens(model: str, mel: int) -> int:
    """The processor's own audio token count for ``mel`` frames."""
    if model == "qwen2.5-omni":
        return int(p25._get_feat_extract_output_lengths(torch.tensor(mel)))
    return int(p3._get_feat_extract_output_lengths(torch.tensor(mel), 50))


def _interleaved(model: str, grid: tuple, seconds: float, mel: int, per_second: int) -> str:
    """The processor's placeholder for a video with its audio (B, E, V, A characters)."""
    processor = p25.Qwen2_5OmniProcessor if model == "qwen2.5-omni" else p3.Qwen3OmniMoeProcessor
    stand_in = SimpleNamespace(
        video_processor=SimpleNamespace(merge_size=2),
        audio_bos_token="B",
        audio_eos_token="E",
        video_token="V",
        audio_token="A",
    )
    stand_in.get_chunked_index = lambda *a: processor.get_chunked_index(stand_in, *a)
    video = dict(video_grid_thw=[np.array(grid)], video_second_per_grid=[seconds])
    audio = dict(num_audio_tokens=[_audio_tokens(model, mel)])
    kwargs = dict(position_id_per_seconds=per_second, seconds_per_chunk=2.0)
    return processor.replace_video_with_audio_token(stand_in, video, 0, audio, 0, **kwargs)


def _layout(model: str, segments: list[tuple], per_second: int) -> dict[str, Any]:
    """Token ids and the side inputs of ``get_rope_index`` for ``segments``."""
    tokens: list[int] = []
    images, videos, seconds, mels, spans = [], [], [], [], []
    for kind, *args in segments:
        start = len(tokens)
        if kind == "text":
            tokens += [IDS["text"]] * args[0]
        elif kind == "image":
            images.append(args[0])
            tokens += [IDS["vision_bos"], *[IDS["image"]] * (np.prod(args[0]) // 4)]
            tokens.append(IDS["vision_eos"])
        elif kind == "video":
            videos.append(args[0])
            seconds.append(args[1])
            tokens += [IDS["vision_bos"], *[IDS["video"]] * (np.prod(args[0]) // 4)]
            tokens.append(IDS["vision_eos"])
        elif kind == "audio":
            mels.append(args[0])
            count = _audio_tokens(model, args[0])
            tokens += [IDS["audio_bos"], *[IDS["audio"]] * count, IDS["audio_eos"]]
        else:  # video+audio
            grid, second, mel = args
            videos.append(grid)
            seconds.append(second)
            mels.append(mel)
            placeholder = _interleaved(model, grid, second, mel, per_second)
            tokens += [IDS["vision_bos"], *[CHARS[c] for c in placeholder], IDS["vision_eos"]]
        spans.append([start, len(tokens)])
    return dict(
        input_ids=torch.tensor([tokens]),
        attention_mask=torch.ones(1, len(tokens), dtype=torch.long),
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None,
        second_per_grids=torch.tensor(seconds) if seconds else None,  # float32, as the batch
        audio_seqlens=torch.tensor(mels) if mels else None,
        use_audio_in_video=any(s[0] == "video+audio" for s in segments),
        spans=spans,
    )


def _thinker(model: str, per_second: int) -> tuple[Any, Any]:
    """A tiny thinker (for its ``get_rope_index``) and its text rotary embedding."""
    tokens = dict(vision_start_token_id=IDS["vision_bos"], vision_end_token_id=IDS["vision_eos"])
    if model == "qwen2.5-omni":
        rope = dict(rope_type="default", rope_theta=1e6, mrope_section=[16, 24, 24])
        audio = dict(encoder_layers=1, encoder_attention_heads=2, d_model=64, encoder_ffn_dim=64)
        config = Qwen2_5OmniThinkerConfig(
            text_config=dict(TEXT, rope_parameters=rope),
            vision_config=dict(VISION, out_hidden_size=256, fullatt_block_indexes=[0]),
            audio_config=dict(audio, output_dim=256),
            position_id_per_seconds=per_second,
            **tokens,
        )
        thinker = m25.Qwen2_5OmniThinkerForConditionalGeneration(config)
        return thinker, m25.Qwen2_5OmniRotaryEmbedding(config.text_config)
    rope = dict(rope_type="default", rope_theta=1e6, mrope_section=[24, 20, 20], interleaved=True)
    text = dict(TEXT, num_experts=2, num_experts_per_tok=1, moe_intermediate_size=32)
    audio = dict(encoder_layers=1, encoder_attention_heads=2, d_model=64, encoder_ffn_dim=64)
    config = Qwen3OmniMoeThinkerConfig(
        text_config=dict(text, rope_parameters=rope),
        vision_config=dict(VISION, out_hidden_size=256, num_position_embeddings=64),
        audio_config=dict(audio, output_dim=256, downsample_hidden_size=32),
        position_id_per_seconds=per_second,
        **tokens,
    )
    thinker = m3.Qwen3OmniMoeThinkerForConditionalGeneration(config)
    return thinker, m3.Qwen3OmniMoeThinkerTextRotaryEmbedding(config.text_config)


def _rotary_tokens(spans: list[list[int]], total: int) -> list[int]:
    if total <= ROTARY_ALL:
        return list(range(total))
    keep: set[int] = set()
    for start, end in spans:
        keep.update(range(start, min(start + 3, end)))
        keep.update(range(max(end - 3, start), end))
    return sorted(keep)


AUDIO = [
    ("text", 3),
    ("image", (1, 4, 4)),
    ("text", 2),
    ("audio", 100),
    ("text", 1),
    ("audio", 1000),
    ("text", 1),
    ("audio", 3000),
    ("text", 1),
    ("audio", 3001),
    ("text", 2),
]
AUDIO_ONLY = [("text", 3), ("audio", 100), ("text", 2)]
#: second_per_grid = temporal_patch_size (2) / fps: true fps 10, 2 (Qwen2.5-Omni's processor
#: fallback), 1 (Qwen3-Omni's processor fallback), 30 and 24
VIDEOS = [
    ("text", 2),
    ("video", (4, 4, 4), 0.2),
    ("text", 1),
    ("video", (4, 4, 4), 1.0),
    ("text", 1),
    ("video", (4, 4, 4), 2.0),
    ("text", 1),
    ("video", (8, 2, 2), 2 / 30),
    ("text", 1),
    ("video", (8, 2, 2), 2 / 24),
    ("text", 2),
]
VIDEO_AUDIO = [
    ("text", 2),
    ("video+audio", (10, 4, 4), 0.5, 500),
    ("text", 1),
    ("video+audio", (8, 2, 2), 0.2, 400),
    ("text", 2),
]
#: fps 30 with Qwen3-Omni's 13 ids per second: grid 45 starts at exactly 39 s·13 in float64 (the
#: processor puts the video token first) but at 39.0000038 in the model's float32 (audio first)
TIE = [("text", 2), ("video+audio", (46, 2, 2), 2 / 30, 400), ("text", 2)]
CASES = [
    ("qwen2.5-omni", 25, "audio", AUDIO),
    ("qwen2.5-omni", 25, "audio_only", AUDIO_ONLY),
    ("qwen2.5-omni", 25, "videos", VIDEOS),
    ("qwen2.5-omni", 25, "video_audio", VIDEO_AUDIO),
    ("qwen3-omni", 13, "audio", AUDIO),
    ("qwen3-omni", 13, "audio_only", AUDIO_ONLY),
    ("qwen3-omni", 13, "videos", VIDEOS),
    ("qwen3-omni", 13, "video_audio", VIDEO_AUDIO),
    ("qwen3-omni", 25, "videos_pps25", VIDEOS),
    ("qwen3-omni", 13, "video_audio_tie_fps30", TIE),
]


def _case(out: Path, model: str, per_second: int, tag: str, segments: list[tuple]) -> None:
    thinker, rotary = _thinker(model, per_second)
    layout = _layout(model, segments, per_second)
    spans = layout.pop("spans")
    ids, deltas = thinker.get_rope_index(**layout)
    keep = _rotary_tokens(spans, ids.shape[-1])
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), ids[:, :, keep])
    name = f"{model}_{tag}"
    seconds = layout["second_per_grids"]
    meta = dict(
        model=model,
        segments=segments,
        segment_token_spans=spans,
        input_ids=layout["input_ids"][0].tolist(),
        special_token_ids=IDS,
        use_audio_in_video=layout["use_audio_in_video"],
        audio_seqlens=None if layout["audio_seqlens"] is None else layout["audio_seqlens"].tolist(),
        audio_tokens=[_audio_tokens(model, s[1]) for s in segments if s[0] == "audio"]
        + [_audio_tokens(model, s[3]) for s in segments if s[0] == "video+audio"],
        second_per_grids_float32=None if seconds is None else seconds.tolist(),
        position_id_per_seconds=per_second,
        seconds_per_chunk=2,
        spatial_merge_size=2,
        release="5.25",
    )
    call = f"{type(thinker).__name__}(tiny config).get_rope_index(...)"
    save(out, f"{name}_ids", ids[:, 0].numpy(), library="transformers", call=call, **meta)
    save(out, f"{name}_deltas", deltas.numpy(), library="transformers", call=call, **meta)
    rope = dict(
        theta=1e6,
        head_dim=128,
        section=[16, 24, 24] if model == "qwen2.5-omni" else [24, 20, 20],
        interleaved=model == "qwen3-omni",
        rotary_tokens=keep,
    )
    for part, table in (("cos", cos), ("sin", sin)):
        call = f"{type(rotary).__name__}(text_config)(x, ids[:, :, rotary_tokens]) -> {part}"
        save(out, f"{name}_{part}", table[0].numpy(), library="transformers", call=call, **rope)


def generate(out: Path) -> None:
    """Write every Omni case into ``out``."""
    torch.set_grad_enabled(False)
    for model, per_second, tag, segments in CASES:
        _case(out, model, per_second, tag, segments)
