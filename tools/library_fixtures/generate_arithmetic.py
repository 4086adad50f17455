"""transformers' own float32 arithmetic for pecli's multi-axis presets, far from the origin.

Area ``arithmetic`` (issue 32 item 2: is ``--arithmetic model`` the library's arithmetic?). For
every multi-axis preset whose library is transformers — qwen2-vl, qwen2.5-vl, qwen3-vl, qwen3.5
(text M-RoPE), pixtral and llama4-vision (vision 2-D) — the module's own ``inv_freq`` buffer
and the cos / sin its ``forward`` returns for a realistic layout at ids near 2000 and near
32000 (the vision presets: the last rows of their largest real grid).

torch evaluates ``base ** exponents`` (and cos / sin) with SLEEF's vectorised float32
routines (≤ 1 ulp) on AVX2 / AVX-512 machines and with the C library's scalar ``powf`` /
``cosf`` otherwise, so the same module gives different float32 values on different machines.
Each table is therefore made once per ATen CPU capability this machine can run
(``ATEN_CPU_CAPABILITY`` = default, avx2, avx512, each in a subprocess) and written once per
distinct result as ``<preset>_<capability>_{inv_freq,cos,sin}``, its provenance listing in
``params.capabilities`` every capability that gave exactly that table; the ids (integers, the
same on every machine) are ``<preset>_default_ids`` (3, tokens) for the M-RoPE presets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import save  # noqa: E402
from generate_mrope import _inputs, _model  # noqa: E402
from transformers import Llama4VisionConfig, PixtralVisionConfig, Qwen3_5TextConfig  # noqa: E402
from transformers.models.llama4.modeling_llama4 import Llama4VisionRotaryEmbedding  # noqa: E402
from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding  # noqa: E402
from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5TextRotaryEmbedding  # noqa: E402

CAPABILITIES = ("default", "avx2", "avx512")
NEAR, FAR = 2000, 30000
#: (kind, grid, second_per_grid_t or frame gap) after a text prefix of NEAR tokens and again
#: after FAR more: a text + image + video layout as the processors lay it out
LAYOUTS: dict[str, list[tuple]] = {
    "qwen2-vl": [("image", (1, 8, 12)), ("text", 3), ("video", (4, 4, 4)), ("text", 2)],
    "qwen2.5-vl": [("image", (1, 8, 12)), ("text", 3), ("video", (4, 4, 4), 0.4), ("text", 2)],
    "qwen3-vl": [("image", (1, 8, 12)), ("text", 3), ("video", (3, 4, 4), 2), ("text", 2)],
}
THETA = {"qwen2-vl": 1e6, "qwen2.5-vl": 1e6, "qwen3-vl": 5e6}
SECTION = {"qwen2-vl": [16, 24, 24], "qwen2.5-vl": [16, 24, 24], "qwen3-vl": [24, 20, 20]}


def _segments(name: str) -> list[tuple]:
    return [("text", NEAR), *LAYOUTS[name], ("text", FAR), *LAYOUTS[name]]


def _kept(total: int, block: int) -> list[int]:
    """The tokens around both multimodal blocks: 4 text tokens before each, then the block."""
    first = list(range(NEAR - 4, NEAR + block))
    return first + list(range(total - block - 4, total))


def _block(name: str) -> int:
    count = 0
    for segment in LAYOUTS[name]:
        kind, size = segment[0], segment[1]
        if kind == "text":
            count += size
        elif kind == "image" or name != "qwen3-vl":
            count += size[0] * size[1] * size[2] // 4
        else:  # Qwen3-VL: a frame, then `gap` timestamp tokens, …
            count += size[0] * size[1] * size[2] // 4 + (size[0] - 1) * segment[2]
    return count


def _qwen_ids(name: str) -> tuple[torch.Tensor, dict[str, Any]]:
    model, _ = _model(name, SECTION[name], THETA[name])
    inputs = _inputs(name, _segments(name))
    ids, _ = model.get_rope_index(**inputs)
    keep = _kept(ids.shape[-1], _block(name))
    meta = dict(
        segments=_segments(name),
        kept_token_indices=keep,
        spatial_merge_size=2,
        tokens_per_second=2,
        call=f"{type(model).__name__}(tiny config).get_rope_index(...)[:, 0, kept]",
    )
    return ids[:, :, keep], meta


def _qwen35_rotary() -> Any:
    rope = dict(
        rope_type="default",
        rope_theta=1e7,
        mrope_section=[11, 11, 10],
        mrope_interleaved=True,
        partial_rotary_factor=0.25,
    )
    config = Qwen3_5TextConfig(
        hidden_size=512,
        num_attention_heads=2,
        num_key_value_heads=2,
        num_hidden_layers=1,
        intermediate_size=64,
        vocab_size=100,
        head_dim=256,
        max_position_embeddings=65536,
        rope_parameters=rope,
    )
    return Qwen3_5TextRotaryEmbedding(config), dict(theta=1e7, section=[11, 11, 10], head_dim=256)


def _save_tables(out: Path, name: str, cap: str, rotary: Any, tables: tuple, **meta: Any) -> None:
    inv = getattr(rotary, "inv_freq", None)
    call = meta.pop("call", f"{type(rotary).__name__}(config)")
    common = dict(library="transformers", capability=cap, torch=torch.__version__, **meta)
    if inv is not None:
        save(out, f"{name}_{cap}_inv_freq", inv.numpy(), call=f"{call}.inv_freq", **common)
    for part, table in zip(("cos", "sin"), tables, strict=True):
        save(out, f"{name}_{cap}_{part}", table.numpy(), call=f"{call}(x, ids) -> {part}", **common)


def _mrope(out: Path, cap: str) -> None:
    for name in LAYOUTS:
        ids, layout = _qwen_ids(name)
        _, rotary = _model(name, SECTION[name], THETA[name])
        cos, sin = rotary(torch.zeros(1, dtype=torch.float32), ids)
        meta = dict(preset=name, theta=THETA[name], section=SECTION[name], head_dim=128, **layout)
        meta["call"] = f"{type(rotary).__name__}(config)"
        _save_tables(out, name, cap, rotary, (cos[0], sin[0]), **meta)
        save(out, f"{name}_{cap}_ids", ids[:, 0].numpy(), library="transformers", **layout)
        if name == "qwen3-vl":  # Qwen3.5 takes Qwen3-VL's ids, line for line
            rotary35, params = _qwen35_rotary()
            cos, sin = rotary35(torch.zeros(1, dtype=torch.float32), ids)
            meta35 = dict(preset="qwen3.5", ids="qwen3-vl_default_ids", partial_rotary_factor=0.25)
            _save_tables(out, "qwen3.5", cap, rotary35, (cos[0], sin[0]), **meta35, **params)


def _pixtral(out: Path, cap: str) -> None:
    config = PixtralVisionConfig()  # image 1024, patch 16: a 64 × 64 grid; head 64, θ 10000
    rotary = PixtralVisionRotaryEmbedding(config)
    side = config.image_size // config.patch_size
    rows = torch.arange(side - 4, side)
    hh, ww = torch.meshgrid(rows, torch.arange(side), indexing="ij")
    ids = torch.stack([hh.flatten(), ww.flatten()], dim=-1)
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), ids)
    meta = dict(preset="pixtral", head_dim=config.head_dim, grid=[side, side], rows=rows.tolist())
    meta["call"] = "PixtralVisionRotaryEmbedding(PixtralVisionConfig())"
    _save_tables(out, "pixtral", cap, rotary, (cos, sin), **meta)


def _llama4(out: Path, cap: str) -> None:
    # Llama 4 Scout's vision tower: hidden 1408, 16 heads (head 88), image 336, patch 14
    config = Llama4VisionConfig(
        hidden_size=1408, num_attention_heads=16, image_size=336, patch_size=14
    )
    freqs = Llama4VisionRotaryEmbedding(config).freqs_ci[:, 0]  # (577, 44) complex64
    meta = dict(
        preset="llama4-vision",
        head_dim=config.hidden_size // config.num_attention_heads,
        grid=[config.image_size // config.patch_size] * 2,
        call="Llama4VisionRotaryEmbedding(Llama4VisionConfig()).freqs_ci[:, 0]",
        note="rows: the 576 patches then the CLS token (masked to 0)",
    )
    _save_tables(out, "llama4-vision", cap, None, (freqs.real, freqs.imag), **meta)


def run_one(out: Path) -> None:
    """Write this process's tables (its capability is ATen's, set by the environment)."""
    torch.set_grad_enabled(False)
    cap = torch.backends.cpu.get_cpu_capability().lower()
    _mrope(out, cap)
    _pixtral(out, cap)
    _llama4(out, cap)


def _merge(parts: dict[str, Path], out: Path) -> None:
    """Keep one file per distinct table, listing the capabilities that gave it."""
    out.mkdir(parents=True, exist_ok=True)
    first = next(iter(parts.values()))
    for meta_path in sorted(first.glob("*.json")):
        name = meta_path.stem
        cap0 = next(iter(parts))
        distinct: list[tuple[str, np.ndarray, list[str]]] = []
        for cap, folder in parts.items():
            path = folder / f"{name.replace(f'_{cap0}_', f'_{cap}_')}.npy"
            table = np.load(path)
            for _, known, caps in distinct:
                if known.dtype == table.dtype and np.array_equal(known, table):
                    caps.append(cap)
                    break
            else:
                distinct.append((cap, table, [cap]))
        for cap, table, caps in distinct:
            target = name.replace(f"_{cap0}_", f"_{cap}_")
            meta = json.loads((parts[cap] / f"{target}.json").read_text(encoding="utf-8"))
            meta["params"]["capabilities"] = caps
            np.save(out / f"{target}.npy", table, allow_pickle=False)
            text = json.dumps(meta, indent=2, sort_keys=True) + "\n"
            (out / f"{target}.json").write_text(text, encoding="utf-8")


def generate(out: Path) -> None:
    """Write every table once per ATen CPU capability this machine runs (identical ones once)."""
    with tempfile.TemporaryDirectory() as scratch:
        parts = _per_capability(Path(scratch))
        _merge(parts, out)


def _per_capability(scratch: Path) -> dict[str, Path]:
    made: dict[str, Path] = {}
    for cap in CAPABILITIES:
        env = dict(os.environ, ATEN_CPU_CAPABILITY=cap)
        probe = "import torch; print(torch.backends.cpu.get_cpu_capability().lower())"
        real = subprocess.run(
            [sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True
        ).stdout.strip()
        if real in made:
            print(f"arithmetic: {cap} runs as {real}, already written", flush=True)
            continue
        made[real] = scratch / real
        here = Path(__file__).resolve()
        code = f"import sys; sys.path.insert(0, {str(here.parent)!r}); import {here.stem} as g; "
        code += f"g.run_one(__import__('pathlib').Path({str(made[real])!r}))"
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return made
