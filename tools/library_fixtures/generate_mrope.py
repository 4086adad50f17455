"""Qwen-VL M-RoPE made by transformers' own code (area ``mrope``).

For Qwen2-VL, Qwen2.5-VL and Qwen3-VL: ``<model>_ids`` (3, seq) and ``<model>_deltas`` from the
model's ``get_rope_index`` on a mixed text + image + video layout (tiny configs, random weights
never used), and ``<model>_cos`` / ``<model>_sin`` from the text rotary embedding's ``forward``
at those ids with a real model's head (128), θ and ``mrope_section``; Qwen3.5's partial rotary
(0.25 of head 256, section [11, 11, 10]) on Qwen3-VL's ids. The layout is written in the
provenance both as pecli's ``--tokens`` words and as the segments given to transformers.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import save  # noqa: E402
from transformers import Qwen2_5_VLConfig, Qwen2VLConfig, Qwen3_5TextConfig, Qwen3VLConfig  # noqa: E402
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import (  # noqa: E402
    Qwen2_5_VLModel,
    Qwen2_5_VLRotaryEmbedding,
)
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel, Qwen2VLRotaryEmbedding  # noqa: E402
from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5TextRotaryEmbedding  # noqa: E402
from transformers.models.qwen3_vl.modeling_qwen3_vl import (  # noqa: E402
    Qwen3VLModel,
    Qwen3VLTextRotaryEmbedding,
)

TEXT = dict(
    hidden_size=256,
    num_attention_heads=2,
    num_key_value_heads=2,
    num_hidden_layers=1,
    intermediate_size=64,
    vocab_size=100,
    max_position_embeddings=4096,
)
VISION = dict(depth=1, num_heads=2, hidden_size=64, spatial_merge_size=2)
# (kind, grid or length, second_per_grid_t or frame gap); pecli's words beside
CASES: dict[str, dict[str, Any]] = {
    "qwen2-vl": dict(
        tokens="text:5 image:1,8,12 text:3 video:6,4,4 text:4 image:1,4,4 text:2",
        segments=[
            ("text", 5),
            ("image", (1, 8, 12)),
            ("text", 3),
            ("video", (6, 4, 4)),
            ("text", 4),
            ("image", (1, 4, 4)),
            ("text", 2),
        ],
        theta=1e6,
        section=[16, 24, 24],
    ),
    "qwen2.5-vl": dict(
        tokens="text:5 image:1,8,12 text:3 video:6,4,4,s=0.75 text:4 video:3,4,8,s=0.4 text:2",
        segments=[
            ("text", 5),
            ("image", (1, 8, 12)),
            ("text", 3),
            ("video", (6, 4, 4), 0.75),
            ("text", 4),
            ("video", (3, 4, 8), 0.4),
            ("text", 2),
        ],
        theta=1e6,
        section=[16, 24, 24],
    ),
    "qwen3-vl": dict(
        tokens="text:5 image:1,8,12 text:3 video:3,4,4,gap=2 text:2",
        segments=[
            ("text", 5),
            ("image", (1, 8, 12)),
            ("text", 3),
            ("video", (3, 4, 4), 2),
            ("text", 2),
        ],
        theta=5e6,
        section=[24, 20, 20],
    ),
}


def _inputs(model: str, segments: list[tuple]) -> dict[str, Any]:
    """input_ids, mm_token_type_ids and the grids as the processor would pass them."""
    types: list[int] = []
    images, videos, seconds = [], [], []
    for segment in segments:
        kind, size = segment[0], segment[1]
        if kind == "text":
            types += [0] * size
            continue
        t, h, w = size
        frame = (h // 2) * (w // 2)
        if kind == "image":
            images.append(size)
            types += [1] * (t * frame)
        elif model == "qwen3-vl":  # a frame, then `gap` timestamp tokens, …
            videos.append(size)
            for f in range(t):
                types += ([0] * segment[2] if f else []) + [2] * frame
        else:
            videos.append(size)
            seconds.append(segment[2] if len(segment) > 2 else 1.0)
            types += [2] * (t * frame)
    out = dict(
        input_ids=torch.zeros(1, len(types), dtype=torch.long),
        mm_token_type_ids=torch.tensor([types]),
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None,
    )
    if model == "qwen2.5-vl":
        out["second_per_grid_ts"] = torch.tensor(seconds)  # float32, as the processor's batch
    return out


def _model(name: str, section: list[int], theta: float) -> Any:
    rope = dict(rope_type="default", rope_theta=theta, mrope_section=section)
    if name == "qwen2-vl":
        config = Qwen2VLConfig(text_config=dict(TEXT, rope_parameters=rope), vision_config=VISION)
        return Qwen2VLModel(config), Qwen2VLRotaryEmbedding(config.text_config)
    if name == "qwen2.5-vl":
        vision = dict(VISION, tokens_per_second=2, out_hidden_size=64)
        config = Qwen2_5_VLConfig(
            text_config=dict(TEXT, rope_parameters=rope), vision_config=vision
        )
        return Qwen2_5_VLModel(config), Qwen2_5_VLRotaryEmbedding(config.text_config)
    rope["mrope_interleaved"] = True
    vision = dict(VISION, out_hidden_size=64)
    config = Qwen3VLConfig(
        text_config=dict(TEXT, head_dim=128, rope_parameters=rope), vision_config=vision
    )
    return Qwen3VLModel(config), Qwen3VLTextRotaryEmbedding(config.text_config)


def _rotary(out: Path, name: str, rotary: Any, ids: torch.Tensor, **meta: Any) -> None:
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), ids)
    for part, table in (("cos", cos), ("sin", sin)):
        save(
            out,
            f"{name}_{part}",
            table[0].numpy(),
            library="transformers",
            call=f"{type(rotary).__name__}(config)(x, position_ids)",
            **meta,
        )


def generate(out: Path) -> None:
    """Write every M-RoPE fixture into ``out``."""
    torch.set_grad_enabled(False)
    for name, case in CASES.items():
        model, rotary = _model(name, case["section"], case["theta"])
        ids, deltas = model.get_rope_index(**_inputs(name, case["segments"]))
        meta = dict(
            model=name,
            tokens=case["tokens"],
            segments=case["segments"],
            spatial_merge_size=2,
            tokens_per_second=2,
            release="5.24",
        )
        call = f"{type(model).__name__}(tiny config).get_rope_index(...)"
        save(out, f"{name}_ids", ids[:, 0].numpy(), library="transformers", call=call, **meta)
        save(out, f"{name}_deltas", deltas.numpy(), library="transformers", call=call, **meta)
        _rotary(
            out,
            name,
            rotary,
            ids,
            theta=case["theta"],
            section=case["section"],
            head_dim=128,
            interleaved=name == "qwen3-vl",
            **meta,
        )
        if name == "qwen3-vl":
            rope = dict(
                rope_type="default",
                rope_theta=1e7,
                mrope_section=[11, 11, 10],
                mrope_interleaved=True,
                partial_rotary_factor=0.25,
            )
            config = Qwen3_5TextConfig(
                **dict(TEXT, hidden_size=512), head_dim=256, rope_parameters=rope
            )
            _rotary(
                out,
                "qwen3.5",
                Qwen3_5TextRotaryEmbedding(config),
                ids,
                theta=1e7,
                section=[11, 11, 10],
                head_dim=256,
                partial_rotary_factor=0.25,
                interleaved=True,
                **meta,
            )
