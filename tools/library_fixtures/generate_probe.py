"""q and k before and after RoPE, dumped from transformers' real attention modules (area ``probe``).

For ``pecli rope probe``: tiny random-weight models (seeded, CPU, a few layers, real head sizes
and real rope parameters), run on a handful of tokens at known positions, large ones included.
One folder per case, ``probe/<case>/``, holding

* ``q_pre`` / ``k_pre``: the projections as the attention module reshapes them, captured by a
  forward hook on ``q_proj`` / ``k_proj`` (no norm sits between the projection and RoPE in any
  model here: checked against the arguments of the model's own rotary function);
* ``q_post`` / ``k_post``: the ``query`` / ``key`` the attention module hands to its attention
  function, captured by an attention function registered with transformers'
  ``AttentionInterface`` (``config._attn_implementation = "pecli_probe"``) that records them
  and then attends with transformers' ``sdpa_attention_forward``; that is after RoPE and after
  any query temperature;
* ``q_rope`` / ``k_rope`` where a query temperature follows RoPE: the return value of the
  modeling file's ``apply_rotary_pos_emb`` (wrapped for the run), before the temperature;

each of shape ``(tokens, heads, head_dim)`` (batch 1 squeezed; k has the key/value heads), and
``case.json`` with the positions, the ground truth (θ, scaling, rotated slice, pairing, sections,
temperature per position, the module's own ``inv_freq``) and the provenance. The arrays are
``.npy`` except in the bfloat16 case, whose arrays are one ``tensors.safetensors`` file kept in
bfloat16 (NumPy has no bfloat16).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import version  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from transformers import (  # noqa: E402
    AttentionInterface,
    Glm4vConfig,
    Glm4vModel,
    GPTJConfig,
    GPTJModel,
    Llama4TextConfig,
    Llama4TextModel,
    LlamaConfig,
    LlamaModel,
    Ministral3Config,
    Ministral3Model,
    PhiConfig,
    PhiModel,
    Qwen2VLConfig,
    Qwen2VLModel,
    SmolLM3Config,
    SmolLM3Model,
)
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS  # noqa: E402
from transformers.models.llama import modeling_llama  # noqa: E402
from transformers.models.ministral3 import modeling_ministral3  # noqa: E402

IMPLEMENTATION = "pecli_probe"
POSITIONS = [0, 1, 7, 100, 4095, 30000]
LLAMA3 = dict(
    rope_type="llama3",
    rope_theta=500000.0,
    factor=8.0,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
    original_max_position_embeddings=8192,
)
SMALL = dict(intermediate_size=64, vocab_size=128, initializer_range=0.02, pad_token_id=0)
CAPTURE = (
    "forward hooks on self_attn.q_proj / k_proj (pre, reshaped as the module does); an "
    "attention function registered with transformers.AttentionInterface that records query / "
    "key and then calls transformers' sdpa_attention_forward (post)"
)
_RECORD: dict[str, Any] = {}


def _record_attention(module: Any, query: torch.Tensor, key: torch.Tensor, *args: Any, **kw: Any):
    """The registered attention function: keep q and k, then attend with transformers' sdpa."""
    _RECORD.setdefault(module.layer_idx, {}).update(post=(query.clone(), key.clone()))
    return ALL_ATTENTION_FUNCTIONS["sdpa"](module, query, key, *args, **kw)


AttentionInterface.register(IMPLEMENTATION, _record_attention)


@contextmanager
def _wrapped_rotary(module: Any, name: str):
    """Record what the modeling file's rotary function returns, per layer (the current one)."""
    original = getattr(module, name)

    def wrapper(*args: Any, **kw: Any):
        out = original(*args, **kw)
        _RECORD.setdefault(_RECORD["current"], {}).setdefault("rope", []).append(out)
        _RECORD[_RECORD["current"]].setdefault("rope_in", []).append(args[:2])
        return out

    setattr(module, name, wrapper)
    try:
        yield
    finally:
        setattr(module, name, original)


def _hooks(attention: Any, layer: int, heads: int, kv_heads: int) -> list[Any]:
    """Forward hooks keeping the q and k projections as (tokens, heads, head_dim)."""

    def keep(part: str, count: int) -> Callable[..., None]:
        def hook(_module: Any, _inputs: Any, output: torch.Tensor) -> None:
            _RECORD.setdefault(layer, {})[part] = output.reshape(*output.shape[:2], count, -1)

        return hook

    return [
        attention.q_proj.register_forward_hook(keep("q_pre", heads)),
        attention.k_proj.register_forward_hook(keep("k_pre", kv_heads)),
    ]


def _current(layer: int) -> Callable[..., None]:
    def hook(*_args: Any) -> None:
        _RECORD["current"] = layer

    return hook


def _tokens(x: torch.Tensor, layout: str) -> np.ndarray:
    """(tokens, heads, head_dim) float32 (bf16 kept as torch for safetensors)."""
    if layout == "bhsd":
        x = x.transpose(1, 2)
    return x[0].detach().contiguous()


def _run(model: Any, layers: list[int], forward: Callable[[], None], rotary: tuple | None) -> None:
    _RECORD.clear()
    count = model.config.num_hidden_layers
    handles = [_attention(model, i).register_forward_pre_hook(_current(i)) for i in range(count)]
    for layer in layers:
        attention = _attention(model, layer)
        heads = model.config.num_attention_heads
        kv_heads = getattr(model.config, "num_key_value_heads", None) or heads
        handles += _hooks(attention, layer, heads, kv_heads)
    try:
        if rotary is None:
            forward()
        else:
            with _wrapped_rotary(*rotary):
                forward()
    finally:
        for handle in handles:
            handle.remove()


def _attention(model: Any, layer: int) -> Any:
    if hasattr(model, "h"):  # GPT-J
        return model.h[layer].attn
    return model.layers[layer].self_attn


def _arrays(
    layer: int, *, keep: list[int] | None, rope_out: bool, rope_layout: str
) -> dict[str, torch.Tensor]:
    """The captured tensors of one layer as (tokens, heads, head_dim)."""
    rec = _RECORD[layer]
    q_post, k_post = rec["post"]
    out = {
        "q_pre": _tokens(rec["q_pre"], "bshd"),
        "k_pre": _tokens(rec["k_pre"], "bshd"),
        "q_post": _tokens(q_post, "bhsd"),
        "k_post": _tokens(k_post, "bhsd"),
    }
    if "rope" in rec:
        q_rope, k_rope = rec["rope"][0]
        if rope_out:
            out["q_rope"] = _tokens(q_rope, rope_layout)
            out["k_rope"] = _tokens(k_rope, rope_layout)
        q_in, k_in = rec["rope_in"][0]
        # the rotary function saw exactly the hooked projections: nothing sits in between
        assert torch.equal(_tokens(q_in, rope_layout), out["q_pre"])
        assert torch.equal(_tokens(k_in, rope_layout), out["k_pre"])
    if keep is not None:
        out = {name: t[keep] for name, t in out.items()}
    return out


def _write(folder: Path, arrays: dict[str, torch.Tensor], meta: dict[str, Any], fmt: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    if fmt == "safetensors":
        save_file({k: v.contiguous() for k, v in arrays.items()}, folder / "tensors.safetensors")
        for name, t in arrays.items():
            files[name] = dict(file="tensors.safetensors", tensor=name, dtype=str(t.dtype)[6:])
    else:
        for name, t in arrays.items():
            np.save(folder / f"{name}.npy", t.numpy(), allow_pickle=False)
            files[name] = dict(file=f"{name}.npy", dtype=str(t.numpy().dtype))
    for name, t in arrays.items():
        files[name]["shape"] = list(t.shape)
    meta["arrays"] = files
    meta["axes"] = ["token", "head", "channel"]
    text = json.dumps(meta, indent=2) + "\n"
    (folder / "case.json").write_text(text, encoding="utf-8")


def _provenance(model: Any, call: str, **extra: Any) -> dict[str, Any]:
    config = model.config
    return dict(
        library="transformers",
        version=version("transformers"),
        torch=version("torch"),
        cpu_capability=torch.backends.cpu.get_cpu_capability(),
        model_class=type(model).__name__,
        attention_class=type(_attention(model, 0)).__name__,
        rotary_class=type(model.rotary_emb).__name__,
        call=call,
        capture=CAPTURE,
        config={
            k: v
            for k, v in config.to_dict().items()
            if k
            in {
                "hidden_size",
                "n_embd",
                "num_attention_heads",
                "n_head",
                "num_key_value_heads",
                "head_dim",
                "num_hidden_layers",
                "rope_parameters",
                "rotary_dim",
                "no_rope_layers",
                "max_position_embeddings",
                "model_type",
            }
        },
        **extra,
    )


def _inv_freq(rotary: Any) -> list[float]:
    return [float(x) for x in rotary.inv_freq.tolist()]


def _seeded(make: Callable[[], Any], seed: int) -> Any:
    torch.manual_seed(seed)
    model = make()
    model.eval()
    return model


def _ids(seed: int, count: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(3, 120, (1, count), generator=generator)


def _case(
    out: Path,
    name: str,
    model: Any,
    forward: dict[str, Any],
    *,
    layer: int,
    rotary_fn: tuple | None,
    truth: dict[str, Any],
    meta: dict[str, Any],
    keep: list[int] | None = None,
    rope_out: bool = False,
    rope_layout: str = "bhsd",
    fmt: str = "npy",
) -> None:
    """Run ``model(**forward)``, capture ``layer`` and write ``out/name``."""
    model.config._attn_implementation = IMPLEMENTATION
    with torch.no_grad():
        _run(model, [layer], lambda: model(**forward), rotary_fn)
    arrays = _arrays(layer, keep=keep, rope_out=rope_out, rope_layout=rope_layout)
    dtype = str(next(iter(arrays.values())).dtype)[6:]
    call = f"{type(model).__name__}({type(model.config).__name__}(...))(**inputs)"
    info = dict(case=name, layer=layer, dtype=dtype, **meta, truth=truth)
    _write(out / name, arrays, dict(info, **_provenance(model, call)), fmt)


def _text_model_case(out: Path, name: str, language: Any, forward: dict, truth: dict, meta: dict):
    """A VL model's text model, layer 1, its modeling file's ``apply_rotary_pos_emb`` checked."""
    rotary_fn = (sys.modules[type(language).__module__], "apply_rotary_pos_emb")
    _case(out, name, language, forward, layer=1, rotary_fn=rotary_fn, truth=truth, meta=meta)


def _half(rotary_dim: int, start: int = 0) -> dict[str, Any]:
    half = rotary_dim // 2
    return dict(
        rotary_dim=rotary_dim,
        rotated_channels=[start, start + rotary_dim],
        pairing="half-split",
        pairs=f"(c0 + j, c0 + j + {half}) for j < {half}, c0 = {start}",
    )


ANGLE = "fl32(fl32(position) * inv_freq[j]) in float32, then cos/sin in float32"
MROPE_ANGLE = "fl32(fl32(id of the pair's axis) * inv_freq[j]), cos/sin in float32"


NOPE = dict(rotary_dim=0, rotated_channels=None, pairing=None)


def _tiny(**changes: Any) -> dict[str, Any]:
    """Config keywords of a tiny text model (2 heads, 1 kv head, head 128, 2 layers) changed."""
    base = dict(
        hidden_size=256,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=128,
        num_hidden_layers=2,
        **SMALL,
    )
    return {k: v for k, v in (base | changes).items() if v is not None}


def _truth(rotary: Any | None, **fields: Any) -> dict[str, Any]:
    """Ground truth: no scaling, sections or temperature unless given; the module's own ω."""
    rope = rotary is not None
    base = dict(
        rope=rope,
        scaling=None,
        head_dim=128,
        sections=None,
        temperature=None,
        attention_scaling=rotary.attention_scaling if rope else None,
        inv_freq=_inv_freq(rotary) if rope else None,
        angle=ANGLE if rope else "none: post == pre exactly",
    )
    return base | fields


def _llama(out: Path, dtype: torch.dtype) -> None:
    heads = dict(num_attention_heads=4, num_key_value_heads=2)
    config = LlamaConfig(
        **_tiny(**heads, max_position_embeddings=131072, rope_parameters=dict(LLAMA3))
    )
    model = _seeded(lambda: LlamaModel(config), 1).to(dtype)
    bf16 = dtype == torch.bfloat16
    truth = _truth(
        model.rotary_emb,
        theta=500000.0,
        scaling=dict(LLAMA3),
        **_half(128),
        angle=ANGLE
        + (", cast to bfloat16; q*cos + rotate_half(q)*sin in bfloat16" if bf16 else ""),
    )
    meta = dict(
        description="Llama 3.1-style: θ 500000, llama3 scaling factor 8, head 128, "
        "4 q heads / 2 kv heads, layer 1 of 2" + (", model in bfloat16" if bf16 else ""),
        positions=POSITIONS,
    )
    forward = dict(input_ids=_ids(1, len(POSITIONS)), position_ids=torch.tensor([POSITIONS]))
    name = "llama3_bf16" if bf16 else "llama3"
    _case(
        out,
        name,
        model,
        forward,
        layer=1,
        rotary_fn=(modeling_llama, "apply_rotary_pos_emb"),
        truth=truth,
        meta=dict(meta, input_ids=forward["input_ids"][0].tolist()),
        fmt="safetensors" if bf16 else "npy",
    )


QWEN2VL_SEGMENTS = [
    ("text", 3),
    ("image", (1, 4, 6)),
    ("text", 4092),
    ("image", (1, 4, 4)),
    ("text", 2),
]


def _qwen2vl(out: Path) -> None:
    rope = dict(rope_type="default", rope_theta=1e6, mrope_section=[16, 24, 24])
    text = _tiny(
        hidden_size=512,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=None,
        max_position_embeddings=32768,
        rope_parameters=rope,
    )
    vision = dict(depth=1, num_heads=2, hidden_size=64, spatial_merge_size=2)
    config = Qwen2VLConfig(text_config=text, vision_config=vision)
    model = _seeded(lambda: Qwen2VLModel(config), 2)
    types: list[int] = []
    grids = []
    for kind, size in QWEN2VL_SEGMENTS:
        if kind == "text":
            types += [0] * size
        else:
            grids.append(size)
            types += [1] * (size[0] * size[1] * size[2] // 4)
    ids, _ = model.get_rope_index(
        input_ids=torch.zeros(1, len(types), dtype=torch.long),
        mm_token_type_ids=torch.tensor([types]),
        image_grid_thw=torch.tensor(grids),
    )
    n = len(types)
    keep = [*range(0, 11), 11, 11 + 4091, *range(n - 6, n)]  # both images, text around them
    position_ids = ids[:, :, keep]
    language = model.language_model
    truth = _truth(
        language.rotary_emb,
        theta=1e6,
        **_half(128),
        sections=dict(
            mrope_section=[16, 24, 24],
            layout="chunked",
            axes=["t", "h", "w"],
            rule="pair j (j < 64) takes the t id for j < 16, h for 16 <= j < 40, w for "
            "40 <= j < 64 (chunked; the same on both halves)",
        ),
        angle=MROPE_ANGLE,
    )
    meta = dict(
        description="Qwen2-VL text model: M-RoPE θ 1e6, mrope_section [16, 24, 24], head 128, "
        "4 q / 2 kv heads, layer 1 of 2; ids from Qwen2VLModel.get_rope_index",
        position_ids=position_ids[:, 0].tolist(),
        position_axes=["t", "h", "w"],
        layout=dict(
            segments=QWEN2VL_SEGMENTS,
            spatial_merge_size=2,
            kept_token_indices=keep,
            note="the forward runs on the kept tokens only, with their ids from the whole layout",
        ),
    )
    forward = dict(input_ids=_ids(2, len(keep)), position_ids=position_ids)
    _text_model_case(out, "qwen2vl_mrope", language, forward, truth, meta)


def _phi(out: Path) -> None:
    rope = dict(rope_type="default", rope_theta=10000.0, partial_rotary_factor=0.4)
    heads = dict(num_attention_heads=4, num_key_value_heads=4, head_dim=None)
    config = PhiConfig(
        **_tiny(hidden_size=320, **heads, max_position_embeddings=32768, rope_parameters=rope)
    )
    model = _seeded(lambda: PhiModel(config), 3)
    truth = _truth(
        model.rotary_emb,
        theta=10000.0,
        head_dim=80,
        **_half(32),
        pass_through_channels=[32, 80],
        exponent="2j / 32 (over the rotated width, not the head)",
    )
    meta = dict(
        description="Phi-2-style partial rotary: head 80, partial_rotary_factor 0.4 (first 32 "
        "channels rotated half-split, 48 pass through), θ 10000, layer 1 of 2",
        positions=POSITIONS,
    )
    forward = dict(input_ids=_ids(3, len(POSITIONS)), position_ids=torch.tensor([POSITIONS]))
    _case(out, "phi_partial", model, forward, layer=1, rotary_fn=None, truth=truth, meta=meta)


def _gptj(out: Path) -> None:
    config = GPTJConfig(
        n_embd=512,
        n_head=2,
        n_layer=2,
        rotary_dim=64,
        n_positions=32768,
        vocab_size=128,
        initializer_range=0.02,
    )
    model = _seeded(lambda: GPTJModel(config), 4)
    table = model.rotary_emb.embed_positions  # (positions, 64): sin | cos
    inv = (table[1, :32].double().asin()).tolist()  # sin(1·ω) → ω (ω <= 1)
    truth = dict(
        rope=True,
        theta=10000.0,
        scaling=None,
        head_dim=256,
        rotary_dim=64,
        rotated_channels=[0, 64],
        pairing="interleaved",
        pairs="(2j, 2j + 1) for j < 32",
        pass_through_channels=[64, 256],
        sections=None,
        temperature=None,
        attention_scaling=1.0,
        inv_freq=[
            float(x)
            for x in (1.0 / (10000 ** (torch.arange(0, 64, 2, dtype=torch.int64) / 64))).tolist()
        ],
        inv_freq_note="create_sinusoidal_positions' own expression, re-run here; "
        "asin(sin table at position 1) agrees to float32: "
        + json.dumps([round(x, 7) for x in inv[:3]]),
        angle="table[p] = sin|cos(fl32(float(p) * inv_freq)), precomputed in float32",
    )
    meta = dict(
        description="GPT-J-style: head 256, rotary_dim 64 rotated in interleaved pairs (2j, "
        "2j+1) by modeling_gptj.rotate_every_two, 192 channels pass through, θ 10000, "
        "layer 1 of 2",
        positions=POSITIONS,
    )
    forward = dict(input_ids=_ids(4, len(POSITIONS)), position_ids=torch.tensor([POSITIONS]))
    _case(out, "gptj_interleaved", model, forward, layer=1, rotary_fn=None, truth=truth, meta=meta)


def _smollm3(out: Path) -> None:
    rope = dict(rope_type="default", rope_theta=5e6)
    config = SmolLM3Config(
        **_tiny(
            head_dim=None, num_hidden_layers=4, max_position_embeddings=65536, rope_parameters=rope
        )
    )
    model = _seeded(lambda: SmolLM3Model(config), 5)
    forward = dict(input_ids=_ids(5, len(POSITIONS)), position_ids=torch.tensor([POSITIONS]))
    rotary_fn = (sys.modules[type(model).__module__], "apply_rotary_pos_emb")
    for layer, name in ((2, "smollm3_rope"), (3, "smollm3_nope")):
        rope = bool(config.no_rope_layers[layer])
        truth = _truth(
            model.rotary_emb if rope else None,
            theta=5e6 if rope else None,
            **(_half(128) if rope else NOPE),
        )
        meta = dict(
            description=f"SmolLM3: no_rope_layers {config.no_rope_layers} (every 4th layer "
            f"NoPE), θ 5e6, head 128; layer {layer} ({'RoPE' if rope else 'NoPE'})",
            positions=POSITIONS,
        )
        _case(out, name, model, forward, layer=layer, rotary_fn=rotary_fn, truth=truth, meta=meta)


MINISTRAL_POSITIONS = [0, 1, 7, 16383, 16384, 65535, 262143]


def _ministral3(out: Path) -> None:
    rope = dict(
        rope_type="yarn",
        rope_theta=1000000.0,
        factor=16.0,
        original_max_position_embeddings=16384,
        beta_fast=32.0,
        beta_slow=1.0,
        mscale_all_dim=1.0,
        mscale=1.0,
        llama_4_scaling_beta=0.1,
    )
    config = Ministral3Config(**_tiny(max_position_embeddings=262144, rope_parameters=rope))
    model = _seeded(lambda: Ministral3Model(config), 6)
    pos = torch.tensor([MINISTRAL_POSITIONS])
    scale = modeling_ministral3.get_llama_4_attn_scale(pos, 0.1, 16384)
    truth = _truth(
        model.rotary_emb,
        theta=1e6,
        scaling={k: v for k, v in rope.items() if k != "llama_4_scaling_beta"},
        **_half(128),
        temperature=dict(
            applies_to="q only, after RoPE (k unchanged)",
            formula="1 + beta * ln(1 + floor(p / L)), beta 0.1, L 16384 "
            "(modeling_ministral3.get_llama_4_attn_scale, float32)",
            beta=0.1,
            original_max_position_embeddings=16384,
            per_position=[float(x) for x in scale.flatten().tolist()],
        ),
        angle=ANGLE + "; cos/sin times attention_scaling",
    )
    meta = dict(
        description="Ministral 3-style: YaRN factor 16 (θ 1e6, original 16384) and the "
        "llama_4_scaling_beta query temperature 0.1 after RoPE; head 128, layer 1 of 2. "
        "q_rope / k_rope: the output of apply_rotary_pos_emb (before the temperature)",
        positions=MINISTRAL_POSITIONS,
    )
    forward = dict(input_ids=_ids(6, len(MINISTRAL_POSITIONS)), position_ids=pos)
    _case(
        out,
        "ministral3_temperature",
        model,
        forward,
        layer=1,
        rotary_fn=(modeling_ministral3, "apply_rotary_pos_emb"),
        truth=truth,
        meta=meta,
        rope_out=True,
    )


def _glm4v(out: Path) -> None:
    """GLM-4.1V text: M-RoPE sections on interleaved pairs over the first half of the head."""
    rope = dict(
        rope_type="default",
        rope_theta=10000.0,
        partial_rotary_factor=0.5,
        mrope_section=[8, 12, 12],
    )
    heads = dict(num_attention_heads=4, num_key_value_heads=2)
    text = _tiny(hidden_size=512, **heads, max_position_embeddings=32768, rope_parameters=rope)
    vision = dict(depth=1, num_heads=2, hidden_size=64, intermediate_size=64, out_hidden_size=512)
    model = _seeded(lambda: Glm4vModel(Glm4vConfig(text_config=text, vision_config=vision)), 8)
    types = [0] * 3 + [1] * 24 + [0] * 4000 + [1] * 4 + [0] * 2  # image 8×12, image 4×4
    ids, _ = model.get_rope_index(
        input_ids=torch.zeros(1, len(types), dtype=torch.long),
        mm_token_type_ids=torch.tensor([types]),
        image_grid_thw=torch.tensor([[1, 8, 12], [1, 4, 4]]),
    )
    n = len(types)
    keep = [*range(0, 30), 30 + 3995, *range(n - 6, n)]
    language = model.language_model
    truth = _truth(
        language.rotary_emb,
        theta=10000.0,
        rotary_dim=64,
        rotated_channels=[0, 64],
        pairing="interleaved",
        pairs="(2j, 2j + 1) for j < 32",
        pass_through_channels=[64, 128],
        exponent="2j / 64 (over the rotated width)",
        sections=dict(
            mrope_section=[8, 12, 12],
            layout="chunked",
            axes=["t", "h", "w"],
            rule="pair j takes the t id for j < 8, h for 8 <= j < 20, w for 20 <= j < 32",
        ),
        angle=MROPE_ANGLE,
    )
    meta = dict(
        description="GLM-4.1V text model: θ 10000, partial_rotary_factor 0.5 of head 128, "
        "mrope_section [8, 12, 12] on interleaved pairs (rotate_half_llm), 64 channels pass "
        "through; 4 q / 2 kv heads, layer 1 of 2; ids from Glm4vModel.get_rope_index",
        position_ids=ids[:, 0, keep].tolist(),
        position_axes=["t", "h", "w"],
        layout=dict(
            mm_token_type_groups=[[0, 3], [1, 24], [0, 4000], [1, 4], [0, 2]],
            image_grid_thw=[[1, 8, 12], [1, 4, 4]],
            spatial_merge_size=2,
            kept_token_indices=keep,
            note="the forward runs on the kept tokens only, with their ids from the whole layout",
        ),
    )
    forward = dict(input_ids=_ids(8, len(keep)), position_ids=ids[:, :, keep])
    _text_model_case(out, "glm4v_partial_mrope", language, forward, truth, meta)


LLAMA4_START, LLAMA4_KEPT = 8186, 8


def _llama4(out: Path) -> None:
    rope = dict(
        rope_type="llama3",
        rope_theta=500000.0,
        factor=16.0,
        low_freq_factor=1.0,
        high_freq_factor=1.0,
        original_max_position_embeddings=8192,
    )
    config = Llama4TextConfig(
        hidden_size=256,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=128,
        num_hidden_layers=4,
        intermediate_size=64,
        intermediate_size_mlp=64,
        num_local_experts=2,
        vocab_size=128,
        pad_token_id=0,
        use_qk_norm=False,
        max_position_embeddings=262144,
        rope_parameters=rope,
    )
    model = _seeded(lambda: Llama4TextModel(config), 7)
    count = LLAMA4_START + LLAMA4_KEPT
    keep = list(range(LLAMA4_START, count))
    forward = dict(input_ids=_ids(7, count), position_ids=torch.arange(count)[None])
    positions = keep
    scale = torch.log1p(torch.floor((torch.tensor(positions).float() + 1.0) / 8192)) * 0.1 + 1.0
    common = dict(
        positions=positions,
        forward_note=f"the forward runs on {count} tokens at positions 0..{count - 1}; the "
        f"last {LLAMA4_KEPT} are kept",
    )
    rope_truth = _truth(
        model.rotary_emb,
        theta=500000.0,
        scaling=rope,
        rotary_dim=128,
        rotated_channels=[0, 128],
        pairing="interleaved",
        pairs="(2j, 2j + 1) for j < 64: view_as_complex(x.reshape(..., 64, 2)) * freqs_cis",
        angle="torch.polar(1, fl32(fl32(position) * inv_freq[j])), complex64 product",
        note="use_qk_norm is False here; Llama 4 Scout sets it True (a weightless RMS norm "
        "of q and k after RoPE in the RoPE layers)",
    )
    nope_truth = _truth(
        None,
        theta=None,
        **NOPE,
        temperature=dict(
            applies_to="q only, in NoPE layers (attn_temperature_tuning), k unchanged",
            formula="1 + attn_scale * ln(1 + floor((t + 1) / floor_scale)), attn_scale 0.1, "
            "floor_scale 8192, t = arange(seq) + past_seen_tokens (the token index, NOT "
            "position_ids, in transformers 5.25 Llama4TextAttention.forward)",
            attn_scale=0.1,
            floor_scale=8192,
            per_position=[float(x) for x in scale.tolist()],
        ),
        angle="none: q_post = q_pre * temperature, k_post == k_pre",
    )
    rotary_fn = (sys.modules[type(model).__module__], "apply_rotary_emb")
    cases = ((0, "llama4_rope", rope_truth), (3, "llama4_nope_temperature", nope_truth))
    for layer, name, truth in cases:
        description = (
            f"Llama 4 text (Scout-style rope: θ 500000, llama3 factor 16; no_rope_layers "
            f"{config.no_rope_layers}), head 128, layer {layer} "
            + ("(RoPE, complex interleaved)" if truth["rope"] else "(NoPE + temperature tuning)")
        )
        meta = dict(description=description, **common)
        _case(
            out,
            name,
            model,
            forward,
            layer=layer,
            rotary_fn=None if layer else rotary_fn,
            truth=truth,
            meta=meta,
            keep=keep,
            rope_layout="bshd",
        )


def generate(out: Path) -> None:
    """Write every probe case into ``out``."""
    torch.set_grad_enabled(False)
    _llama(out, torch.float32)
    _llama(out, torch.bfloat16)
    _qwen2vl(out)
    _phi(out)
    _gptj(out)
    _smollm3(out)
    _ministral3(out)
    _llama4(out)
    _glm4v(out)
