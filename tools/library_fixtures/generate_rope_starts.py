"""transformers' own float32 cos/sin caches that do not start at position 0 (area ``rope_starts``).

Each case runs a model's rotary embedding module (``LlamaRotaryEmbedding``,
``PhiRotaryEmbedding``) ``forward`` on consecutive ``position_ids`` from a first position
(1000, 5000, 100000, 10^7): float32 as transformers returns them, its angles ``position ·
inv_freq`` computed in float32 (``forward``'s matmul). The module returns half-split rows whose
two halves are equal; to keep the files small only the first half is saved (checked equal to
the second here), and the tests put the halves back side by side (``np.hstack([c, c])``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  (see generate_rope.py)

import torch  # noqa: E402
from common import save  # noqa: E402
from transformers import LlamaConfig, PhiConfig  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402
from transformers.models.phi.modeling_phi import PhiRotaryEmbedding  # noqa: E402

LLAMA32 = dict(
    rope_type="llama3",
    rope_theta=500000.0,
    factor=32.0,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
    original_max_position_embeddings=8192,
)

#: name: (module, config, first position, rows).
CASES: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "llama_h32_from1000": (
        "llama",
        dict(head_dim=32, rope_parameters=dict(rope_type="default", rope_theta=10000.0)),
        1000,
        2048,
    ),
    "phi_h32_from1000": (
        "phi",
        dict(
            hidden_size=320,
            num_attention_heads=4,
            rope_parameters=dict(
                rope_type="default", rope_theta=10000.0, partial_rotary_factor=0.4
            ),
        ),
        1000,
        2048,
    ),
    "llama_h64_from5000": (
        "llama",
        dict(head_dim=64, rope_parameters=dict(rope_type="default", rope_theta=10000.0)),
        5000,
        2048,
    ),
    "llama32_from100000": (
        "llama",
        dict(head_dim=64, max_position_embeddings=131072, rope_parameters=LLAMA32),
        100000,
        4096,
    ),
    "llama_h64_from10000000": (
        "llama",
        dict(head_dim=64, rope_parameters=dict(rope_type="default", rope_theta=10000.0)),
        10_000_000,
        1024,
    ),
}


def _module(kind: str, spec: dict[str, Any]) -> torch.nn.Module:
    if kind == "phi":
        return PhiRotaryEmbedding(PhiConfig(**spec))
    heads = 4
    config = LlamaConfig(
        hidden_size=spec["head_dim"] * heads,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        **spec,
    )
    return LlamaRotaryEmbedding(config)


def generate(out: Path) -> None:
    """Write each case's cos and sin (first halves) with their provenance."""
    for name, (kind, spec, start, rows) in CASES.items():
        module = _module(kind, spec)
        positions = torch.arange(start, start + rows)[None]
        with torch.no_grad():
            cos, sin = module(torch.zeros(1, dtype=torch.float32), positions)
        cos, sin = cos[0], sin[0]
        half = cos.shape[1] // 2
        assert torch.equal(cos[:, :half], cos[:, half:]) and torch.equal(
            sin[:, :half], sin[:, half:]
        )
        call = (
            f"{type(module).__name__}(config).forward(x, position_ids=arange({start}, "
            f"{start + rows})[None]); first half of the columns (the halves are equal)"
        )
        for part, table in (("cos", cos), ("sin", sin)):
            save(
                out,
                f"{name}_{part}",
                table[:, :half].numpy(),
                library="transformers",
                call=call,
                config=spec,
                start=start,
                rows=rows,
                rotary_dim=2 * half,
                attention_scaling=float(module.attention_scaling),
            )
