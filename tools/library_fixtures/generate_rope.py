"""Rotary embeddings made by Hugging Face transformers' own code (area ``rope``).

For each case: ``<case>_inv_freq`` from ``ROPE_INIT_FUNCTIONS[rope_type](config)`` (or the
model's ``compute_default_rope_parameters``), and ``<case>_cos`` / ``<case>_sin`` from the
model's rotary embedding module ``forward`` at a few positions (``params["positions"]``),
float32 as transformers returns them. GPT-J's interleaved cache comes from
``create_sinusoidal_positions`` expanded by ``apply_rotary_pos_emb``'s ``repeat_interleave``.
The longrope short/long factor lists are made up (Phi-3's real lists are not needed to test
the formula); everything else is a real model's setting.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

# transformers imports torchvision when it is installed; none of this needs it, and a
# torchvision built for another torch fails at import ("operator torchvision::nms does not exist")
sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]

import torch  # noqa: E402
from common import save  # noqa: E402
from transformers import GPTNeoXConfig, LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding  # noqa: E402
from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb, create_sinusoidal_positions  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402

POSITIONS = [0, 1, 2, 3, 100, 1000, 4095, 4096, 8191, 32767, 65535, 131071]
LONG_FACTOR = [1.0 + 0.5 * i for i in range(48)]
SHORT_FACTOR = [1.0 + 0.01 * i for i in range(48)]

CASES: dict[str, dict[str, Any]] = {
    "llama31": dict(
        head_dim=128,
        max_position_embeddings=131072,
        rope_parameters=dict(
            rope_type="llama3",
            rope_theta=500000.0,
            factor=8.0,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            original_max_position_embeddings=8192,
        ),
    ),
    "qwen_yarn": dict(
        head_dim=128,
        max_position_embeddings=131072,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=1000000.0,
            factor=4.0,
            original_max_position_embeddings=32768,
        ),
    ),
    "gptoss_yarn": dict(
        head_dim=64,
        max_position_embeddings=131072,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=150000.0,
            factor=32.0,
            beta_fast=32.0,
            beta_slow=1.0,
            original_max_position_embeddings=4096,
            truncate=False,
        ),
    ),
    "linear": dict(
        head_dim=64,
        max_position_embeddings=4096,
        rope_parameters=dict(rope_type="linear", rope_theta=10000.0, factor=4.0),
    ),
    "phi3_longrope": dict(
        head_dim=96,
        max_position_embeddings=131072,
        rope_parameters=dict(
            rope_type="longrope",
            rope_theta=10000.0,
            original_max_position_embeddings=4096,
            short_factor=SHORT_FACTOR,
            long_factor=LONG_FACTOR,
        ),
    ),
    "default": dict(
        head_dim=128,
        max_position_embeddings=8192,
        rope_parameters=dict(rope_type="default", rope_theta=500000.0),
    ),
    "deepseek_yarn": dict(
        head_dim=64,
        max_position_embeddings=163840,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=10000.0,
            factor=40.0,
            mscale=1.0,
            mscale_all_dim=1.0,
            beta_fast=32,
            beta_slow=1,
            original_max_position_embeddings=4096,
        ),
    ),
    "yarn_mscale": dict(
        head_dim=64,
        max_position_embeddings=65536,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=10000.0,
            factor=16.0,
            mscale=0.707,
            mscale_all_dim=1.0,
            original_max_position_embeddings=4096,
        ),
    ),
    "proportional": dict(
        head_dim=128,
        max_position_embeddings=8192,
        rope_parameters=dict(
            rope_type="proportional", rope_theta=1000000.0, partial_rotary_factor=0.25, factor=8.0
        ),
    ),
    # The cases below pin behaviours no real model's setting reaches (issue 21).
    # yarn, truncate: correction range (floor(-13.1), ceil(-0.16)) clamped to (0, 0): low ==
    # high, which transformers' linear_ramp_factor widens by 0.001 (else 0/0 = NaN at pair 0)
    "yarn_degenerate": dict(
        head_dim=64,
        max_position_embeddings=24,
        rope_parameters=dict(
            rope_type="yarn", rope_theta=10000.0, factor=4.0, original_max_position_embeddings=6
        ),
    ),
    # yarn with θ = 10 < β_fast/β_slow: correction dims 32·ln(1024/(2π·β))/(2 ln 10) are 11.3
    # (β = 32) and 35.4 (β = 1); floor/ceil give (11, 36) and find_correction_range clamps
    # high to dim − 1 = 31 while pairs 12 … 15 are on the ramp (j − 11)/(31 − 11)
    "yarn_high_clamp": dict(
        head_dim=32,
        max_position_embeddings=4096,
        rope_parameters=dict(
            rope_type="yarn", rope_theta=10.0, factor=4.0, original_max_position_embeddings=1024
        ),
    ),
    # attention factor get_mscale(40, 1.0) / get_mscale(40, 0.8), not 1
    "yarn_mscale_all_dim": dict(
        head_dim=64,
        max_position_embeddings=163840,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=10000.0,
            factor=40.0,
            mscale=1.0,
            mscale_all_dim=0.8,
            original_max_position_embeddings=4096,
        ),
    ),
    # no factor: transformers takes 1.0, the rotated pairs keep their unscaled frequencies
    "proportional_unscaled": dict(
        head_dim=128,
        max_position_embeddings=8192,
        rope_parameters=dict(
            rope_type="proportional", rope_theta=1000000.0, partial_rotary_factor=0.25
        ),
    ),
    # an explicit attention_factor replaces get_mscale(factor) (here 0.1·ln 8 + 1 = 1.208)
    "yarn_attention_factor": dict(
        head_dim=64,
        max_position_embeddings=32768,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=10000.0,
            factor=8.0,
            attention_factor=0.5,
            original_max_position_embeddings=4096,
        ),
    ),
    # factor null: max_position_embeddings / original_max_position_embeddings = 4 (DeepSeek's
    # rule) for the ramp and for the attention factor 0.1·ln 4 + 1
    "yarn_factor_null": dict(
        head_dim=64,
        max_position_embeddings=16384,
        rope_parameters=dict(
            rope_type="yarn", rope_theta=10000.0, factor=None, original_max_position_embeddings=4096
        ),
    ),
    # factor null with max_position_embeddings < original: f = 0.5 <= 1, get_mscale gives 1
    "yarn_factor_below_1": dict(
        head_dim=64,
        max_position_embeddings=2048,
        rope_parameters=dict(
            rope_type="yarn", rope_theta=10000.0, factor=None, original_max_position_embeddings=4096
        ),
    ),
    # mscale without mscale_all_dim: "if mscale and mscale_all_dim" fails, get_mscale(factor)
    "yarn_mscale_alone": dict(
        head_dim=64,
        max_position_embeddings=65536,
        rope_parameters=dict(
            rope_type="yarn",
            rope_theta=10000.0,
            factor=16.0,
            mscale=2.0,
            original_max_position_embeddings=4096,
        ),
    ),
    # llama3 bands other than Llama 3.1's 1 and 4: L/low_freq_factor is no longer L·low
    "llama3_bands": dict(
        head_dim=128,
        max_position_embeddings=131072,
        rope_parameters=dict(
            rope_type="llama3",
            rope_theta=500000.0,
            factor=16.0,
            low_freq_factor=2.0,
            high_freq_factor=8.0,
            original_max_position_embeddings=8192,
        ),
    ),
    # no rope_theta anywhere: the config's default_theta, 10000
    "no_theta": dict(
        head_dim=64, max_position_embeddings=2048, rope_parameters=dict(rope_type="default")
    ),
}


def _llama(spec: dict[str, Any]) -> LlamaConfig:
    heads = 4  # a deep copy: LlamaConfig fills rope_parameters in place (rope_theta, ...)
    return LlamaConfig(
        hidden_size=spec["head_dim"] * heads,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        **copy.deepcopy(spec),
    )


def _cache(module: torch.nn.Module, positions: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.zeros(1, dtype=torch.float32)
    with torch.no_grad():
        cos, sin = module(x, torch.tensor([positions]))
    return cos[0], sin[0]


def _save_case(
    out: Path,
    name: str,
    inv: torch.Tensor,
    scale: float,
    module: Any,
    call: str,
    positions: list[int],
    **params: Any,
) -> None:
    common = dict(library="transformers", attention_scaling=scale, **params)
    save(out, f"{name}_inv_freq", inv.numpy(), call=call, **common)
    cos, sin = _cache(module, positions)
    forward = f"{type(module).__name__}(config).forward(x, position_ids=[positions])"
    save(out, f"{name}_cos", cos.numpy(), call=forward, positions=positions, **common)
    save(out, f"{name}_sin", sin.numpy(), call=forward, positions=positions, **common)


def generate(out: Path) -> None:
    """Write every case's inv_freq and cos/sin rows into ``out``."""
    for name, spec in CASES.items():
        config = _llama(spec)
        rope_type = spec["rope_parameters"]["rope_type"]
        if rope_type == "default":
            inv, scale = LlamaRotaryEmbedding.compute_default_rope_parameters(config)
            call = "LlamaRotaryEmbedding.compute_default_rope_parameters(LlamaConfig(...))"
        else:
            inv, scale = ROPE_INIT_FUNCTIONS[rope_type](config)
            call = f"ROPE_INIT_FUNCTIONS[{rope_type!r}](LlamaConfig(...))"
        module = LlamaRotaryEmbedding(config)
        # forward() switches longrope to its long factors once max(position_ids) + 1 > 4096
        limit = 4096 if rope_type == "longrope" else 8192
        positions = [p for p in POSITIONS if p < limit]
        _save_case(out, name, inv, float(scale), module, call, positions, config=spec)
    _longrope_long(out)
    _dynamic(out)
    _partial(out)
    _gptj(out)


def _longrope_long(out: Path) -> None:
    """Long factors past original_max_position_embeddings (4096); short ones up to it, included."""
    spec = CASES["phi3_longrope"]
    for name, seq_len in (("long", 131072), ("at_original", 4096), ("past_original", 4097)):
        config = _llama(spec)
        inv, scale = ROPE_INIT_FUNCTIONS["longrope"](config, seq_len=seq_len)
        module = LlamaRotaryEmbedding(config)
        call = f"ROPE_INIT_FUNCTIONS['longrope'](LlamaConfig(...), seq_len={seq_len})"
        # forward() picks the factors from max(position_ids) + 1: keep it on the same side
        positions = [p for p in POSITIONS if p < seq_len] if seq_len <= 4096 else POSITIONS
        _save_case(
            out,
            f"phi3_longrope_{name}",
            inv,
            float(scale),
            module,
            call,
            positions,
            config=spec,
            seq_len=seq_len,
        )


def _dynamic(out: Path) -> None:
    rope = dict(rope_type="dynamic", rope_theta=10000.0, factor=2.0)
    spec = dict(head_dim=128, max_position_embeddings=4096, rope_parameters=rope)
    for seq_len in (4096, 8192, 16384):
        config = _llama(spec)
        inv, scale = ROPE_INIT_FUNCTIONS["dynamic"](config, seq_len=seq_len)
        module = LlamaRotaryEmbedding(config)
        positions = [p for p in POSITIONS if p < seq_len - 1] + [seq_len - 1]
        call = f"ROPE_INIT_FUNCTIONS['dynamic'](LlamaConfig(...), seq_len={seq_len})"
        _save_case(
            out,
            f"dynamic_{seq_len}",
            inv,
            float(scale),
            module,
            call,
            positions,
            config=spec,
            seq_len=seq_len,
        )


def _partial(out: Path) -> None:
    """GPT-NeoX's partial rotary, and a config holding it twice.

    ``partial_both`` has 0.5 at the top and 0.25 in rope_parameters: the setdefault of
    ``convert_rope_params_to_dict`` keeps rope_parameters' 0.25.
    """
    for prf, top in ((0.5, None), (0.25, None), (0.25, 0.5)):
        spec: dict[str, Any] = dict(
            hidden_size=512,
            num_attention_heads=4,
            max_position_embeddings=2048,
            rope_parameters=dict(
                rope_type="default", rope_theta=10000.0, partial_rotary_factor=prf
            ),
        )
        if top is not None:
            spec["partial_rotary_factor"] = top
        config = GPTNeoXConfig(**copy.deepcopy(spec))
        inv, scale = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(config)
        module = GPTNeoXRotaryEmbedding(config)
        call = "GPTNeoXRotaryEmbedding.compute_default_rope_parameters(GPTNeoXConfig(...))"
        name = "partial_both" if top is not None else f"partial_{str(prf).replace('.', '')}"
        _save_case(
            out, name, inv, float(scale), module, call, POSITIONS[:8], config=spec, head_dim=128
        )


def _gptj(out: Path) -> None:
    """GPT-J (rotary_dim 64): its [sin | cos] buffer and a vector turned by apply_rotary_pos_emb."""
    positions = POSITIONS[:8]
    table = create_sinusoidal_positions(max(positions) + 1, 64)[positions]
    sin, cos = torch.chunk(table, 2, dim=-1)
    x = torch.linspace(-1.0, 1.0, 64).expand(1, len(positions), 1, 64)  # (batch, seq, heads, dim)
    rotated = apply_rotary_pos_emb(x, sin[None], cos[None])[0, :, 0]
    params = dict(rotary_dim=64, rope_theta=10000.0, positions=positions, library="transformers")
    call = "create_sinusoidal_positions(max(positions) + 1, 64)[positions]"
    save(out, "gptj_table", table.numpy(), call=call, **params)
    call = "apply_rotary_pos_emb(linspace(-1, 1, 64), sin, cos) with sin, cos = chunk(table, 2)"
    save(out, "gptj_rotated", rotated.numpy(), call=call, x="linspace(-1, 1, 64)", **params)
