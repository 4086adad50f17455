"""VL position ids beyond Qwen-VL and their text rotary tables, from transformers' own code.

Area ``vl_ids`` (issue 35). For GLM-4.1V (``glm4v``), GLM-4.5V (``glm4v_moe``), GLM-4.6V
(``glm46v`` with a ``glm4v_text`` model as GLM-4.6V-Flash, ``glm46v_moe`` with a
``glm4v_moe_text`` one), GLM-OCR, Ernie 4.5 VL, PaddleOCR-VL, HunYuanVL (XD-RoPE, four axes),
HY-V4-VL (a newline column per row, frames in blocks) and GLM-Image: ``<model>_ids`` (axes,
tokens) and ``<model>_deltas`` from the model's ``get_rope_index`` on a text + image (+ video)
layout, and ``<model>_cos`` / ``<model>_sin`` from its text rotary embedding's ``forward`` at
those ids (the whole table the module returns: for GLM the 64 rotated channels of a 128 head,
the other 64 pass through in ``apply_rotary_pos_emb``; ``glm4v_text`` pairs them interleaved,
``glm4v_moe_text`` half-split). Tiny models with random weights never used; the
rope parameters are the checkpoints' where known (the provenance says which are the config
class's defaults). The layout is in the provenance as segments, ``mm_token_type_ids`` and the
grids handed over.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
import transformers as tf  # noqa: E402
from common import save  # noqa: E402

TEXT = dict(
    hidden_size=256,
    num_attention_heads=2,
    num_key_value_heads=2,
    num_hidden_layers=1,
    intermediate_size=64,
    vocab_size=1000,
    head_dim=128,
    pad_token_id=0,
)
VISION = dict(depth=1, num_heads=2, hidden_size=64, intermediate_size=64, spatial_merge_size=2)
VISION_HF = dict(
    num_hidden_layers=1,
    num_attention_heads=2,
    hidden_size=64,
    intermediate_size=64,
    spatial_merge_size=2,
)
GLM_ROPE = dict(
    rope_type="default", rope_theta=10000.0, partial_rotary_factor=0.5, mrope_section=[8, 12, 12]
)
MOE = dict(n_routed_experts=2, num_experts_per_tok=1, moe_intermediate_size=32)
#: frames of a video are separated by `GAP` timestamp text tokens where the processor splits them
GAP = 2
IMAGE_VIDEO = [
    ("text", 3),
    ("image", (1, 8, 12)),
    ("text", 2),
    ("video", (3, 4, 4)),
    ("text", 2),
]
TWO_IMAGES = [("text", 3), ("image", (1, 8, 12)), ("text", 2), ("image", (1, 4, 4)), ("text", 2)]


def _glm4v() -> Any:
    text = dict(TEXT, rope_parameters=dict(GLM_ROPE))
    return tf.Glm4vModel(
        tf.Glm4vConfig(text_config=text, vision_config=dict(VISION, out_hidden_size=256))
    )


def _glm4v_moe() -> Any:
    text = dict(TEXT, first_k_dense_replace=1, rope_parameters=dict(GLM_ROPE), **MOE)
    config = tf.Glm4vMoeConfig(text_config=text, vision_config=dict(VISION, out_hidden_size=256))
    return tf.Glm4vMoeModel(config)


def _glm46v() -> Any:
    text = dict(TEXT, model_type="glm4v_text", rope_parameters=dict(GLM_ROPE))
    vision = dict(VISION, model_type="glm4v_vision", out_hidden_size=256)
    return tf.Glm46VModel(tf.Glm46VConfig(text_config=text, vision_config=vision))


def _glm46v_moe() -> Any:
    text = dict(TEXT, model_type="glm4v_moe_text", first_k_dense_replace=1, **MOE)
    text["rope_parameters"] = dict(GLM_ROPE)
    vision = dict(VISION, model_type="glm4v_moe_vision", out_hidden_size=256)
    return tf.Glm46VModel(tf.Glm46VConfig(text_config=text, vision_config=vision))


def _glm_ocr() -> Any:
    text = dict(TEXT, rope_parameters=dict(GLM_ROPE))
    config = tf.GlmOcrConfig(text_config=text, vision_config=dict(VISION, out_hidden_size=256))
    return tf.GlmOcrModel(config)


def _ernie() -> Any:
    rope = dict(rope_type="default", rope_theta=500000.0, mrope_section=[22, 22, 20])
    text = dict(TEXT, moe_num_experts=2, moe_k=1, moe_intermediate_size=[32, 32])
    vision = dict(VISION, temporal_merge_size=2)
    config = tf.Ernie4_5_VLMoeConfig(
        text_config=dict(text, rope_parameters=rope), vision_config=vision
    )
    return tf.Ernie4_5_VLMoeModel(config)


def _paddle() -> Any:
    rope = dict(rope_type="default", rope_theta=500000.0, mrope_section=[16, 24, 24])
    text = dict(TEXT, rope_parameters=rope)
    return tf.PaddleOCRVLModel(tf.PaddleOCRVLConfig(text_config=text, vision_config=VISION_HF))


def _hunyuan() -> Any:
    # HunyuanOCR's checkpoint: rope_theta 10000, type xdrope (read as dynamic with a fixed
    # alpha: ntk_alpha), alpha 1000, xdrope_section [16, 16, 16, 16]
    rope = dict(
        rope_type="xdrope", rope_theta=10000.0, alpha=1000.0, factor=1.0, xdrope_section=[16] * 4
    )
    vision = dict(VISION_HF, out_hidden_size=256)
    config = tf.HunYuanVLConfig(text_config=dict(TEXT, rope_parameters=rope), vision_config=vision)
    return tf.HunYuanVLModel(config)


def _hy_v4() -> Any:
    text = dict(
        hidden_size=256,
        num_attention_heads=2,
        num_hidden_layers=1,
        intermediate_size=64,
        vocab_size=1000,
        pad_token_id=0,
    )
    return tf.HYV4VLModel(tf.HYV4VLConfig(text_config=text, vision_config=VISION_HF))


def _glm_image() -> Any:
    text = dict(TEXT, rope_parameters=dict(GLM_ROPE))
    vision = dict(depth=1, num_heads=2, hidden_size=64, intermediate_size=64)
    config = tf.GlmImageConfig(text_config=text, vision_config=vision)
    return tf.GlmImageModel(config)


def _count_default(kind: str, grid: tuple) -> int:
    return grid[0] * grid[1] * grid[2] // 4


def _count_ernie(kind: str, grid: tuple) -> int:
    return (grid[0] // 2 if kind == "video" else grid[0]) * grid[1] * grid[2] // 4


def _count_newline(kind: str, grid: tuple) -> int:
    """HunYuanVL and HY-V4-VL: a newline token ends every merged row."""
    return grid[0] * (grid[1] // 2) * (grid[2] // 2 + 1)


#: model -> (builder, segments, tokens per segment, split video frames, checkpoint note)
MODELS: dict[str, tuple[Callable[[], Any], list[tuple], Callable[[str, tuple], int], bool, str]] = {
    "glm4v": (
        _glm4v,
        IMAGE_VIDEO,
        _count_default,
        True,
        "GLM-4.1V-9B: θ 1e4, partial 0.5, [8, 12, 12]",
    ),
    "glm4v_moe": (_glm4v_moe, IMAGE_VIDEO, _count_default, True, "GLM-4.5V: as GLM-4.1V"),
    "glm46v": (_glm46v, IMAGE_VIDEO, _count_default, True, "GLM-4.6V(-Flash): glm4v_text"),
    "glm46v_moe": (
        _glm46v_moe,
        IMAGE_VIDEO,
        _count_default,
        True,
        "GLM-4.6V (the MoE one): glm4v_moe_text, as GLM-4.5V",
    ),
    "glm_ocr": (_glm_ocr, TWO_IMAGES, _count_default, True, "GLM-OCR: as GLM-4.1V (assumed)"),
    "ernie4_5_vl": (
        _ernie,
        [*IMAGE_VIDEO[:3], ("video", (16, 4, 4)), ("text", 2)],
        _count_ernie,
        False,
        "ERNIE-4.5-VL: θ 5e5, [22, 22, 20], temporal_merge_size 2",
    ),
    "paddleocr_vl": (
        _paddle,
        TWO_IMAGES,
        _count_default,
        False,
        "PaddleOCR-VL: θ 5e5 (config default_theta), [16, 24, 24]",
    ),
    "hunyuan_vl": (
        _hunyuan,
        TWO_IMAGES,
        _count_newline,
        False,
        "HunyuanOCR: θ 1e4, xdrope alpha 1000, [16, 16, 16, 16]",
    ),
    "hy_v4_vl": (
        _hy_v4,
        [*IMAGE_VIDEO[:3], ("video", (2, 4, 4)), ("text", 2)],
        _count_newline,
        False,
        "HY-V4-VL: the config class's defaults (θ 1e4, [12, 10, 10] on 64)",
    ),
}


def _inputs(segments: list[tuple], count: Callable[[str, tuple], int], split: bool) -> dict:
    types: list[int] = []
    images, videos = [], []
    for kind, *args in segments:
        if kind == "text":
            types += [0] * args[0]
        elif kind == "image":
            images.append(args[0])
            types += [1] * count(kind, args[0])
        else:
            grid = args[0]
            videos.append(grid)
            frame = count(kind, (1, *grid[1:]))
            if split:  # one timestamped span per frame
                for f in range(grid[0]):
                    types += ([0] * GAP if f else []) + [2] * frame
            else:
                types += [2] * count(kind, grid)
    return dict(
        input_ids=torch.zeros(1, len(types), dtype=torch.long),
        mm_token_type_ids=torch.tensor([types]),
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None,
    )


def _text_rotary(model: Any) -> Any:
    for module in model.modules():
        name = type(module).__name__
        if name.endswith("RotaryEmbedding") and "Vision" not in name:
            return module
    raise LookupError(type(model).__name__)


def _save(out: Path, name: str, module: Any, ids: torch.Tensor, deltas: Any, **meta: Any) -> None:
    rotary = _text_rotary(module)
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), ids)
    call = f"{type(module).__name__}(tiny config).get_rope_index(...)"
    text_config = getattr(module.config, "text_config", module.config)
    meta = dict(meta, rope_parameters=text_config.rope_parameters, head_dim=text_config.head_dim)
    save(out, f"{name}_ids", ids[:, 0].numpy(), library="transformers", call=call, **meta)
    save(
        out,
        f"{name}_deltas",
        torch.as_tensor(deltas).numpy(),
        library="transformers",
        call=call,
        **meta,
    )
    for part, table in (("cos", cos), ("sin", sin)):
        call = f"{type(rotary).__name__}(text_config)(x, ids) -> {part}"
        save(out, f"{name}_{part}", table[0].numpy(), library="transformers", call=call, **meta)


def _glm_image_case(out: Path) -> None:
    model = _glm_image()
    start, end = model.config.image_start_token_id, model.config.image_end_token_id
    grids = torch.tensor([[1, 4, 6], [1, 3, 3]])  # a source image, then the grid to generate
    tokens = [1] * 3 + [start] + [2] * 24 + [end] + [1] * 2 + [start]
    ids, deltas = model.get_rope_index(
        input_ids=torch.tensor([tokens]), image_grid_thw=grids, images_per_sample=torch.tensor([2])
    )
    meta = dict(
        model="glm_image",
        input_ids=tokens,
        image_grid_thw=grids.tolist(),
        checkpoint="GLM-Image: the config class's defaults; spatial_merge_size 1",
        decode_position_ids=model._cached_decode_position_ids[0].tolist(),
        release="5.25",
    )
    _save(out, "glm_image", model, ids, deltas, **meta)


def generate(out: Path) -> None:
    """Write every VL case into ``out``."""
    torch.set_grad_enabled(False)
    for name, (build, segments, count, split, note) in MODELS.items():
        torch.manual_seed(0)
        model = build()
        inputs = _inputs(segments, count, split)
        ids, deltas = model.get_rope_index(**inputs)
        meta = dict(
            model=name,
            segments=segments,
            mm_token_type_ids=inputs["mm_token_type_ids"][0].tolist(),
            frames_split_by_timestamps=split,
            timestamp_tokens_between_frames=GAP if split else 0,
            spatial_merge_size=2,
            checkpoint=note,
            release="5.25",
        )
        _save(out, name, model, ids, deltas, **meta)
    _glm_image_case(out)
