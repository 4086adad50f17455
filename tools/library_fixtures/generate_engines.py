"""Engines' own rotary code where its Python runs on a CPU (area ``engines``): mlx_lm.

For each case, ``mlx_<case>_inv_freq`` is ``1 / _freqs`` of the rope module mlx_lm's
``models/rope_utils.py`` builds (``YarnRoPE``, ``SuScaledRoPE``, ``Llama3RoPE``), float32 as
MLX computes it; the factor it puts on the rotated channels (``mscale`` / ``_scale``) is in
the provenance's ``params``. vLLM, llama.cpp and TensorRT-LLM need CUDA or C++ to run: their
formulas are cited in docs/porting.md instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from common import save
from mlx_lm.models.rope_utils import Llama3RoPE, SuScaledRoPE, YarnRoPE

PHI3_LONG = [1.0 + 0.5 * i for i in range(48)]
PHI3_SHORT = [1.0 + 0.01 * i for i in range(48)]


def _save(out: Path, name: str, module: object, call: str, scale: float, **params: object) -> None:
    inv = 1.0 / np.array(module._freqs)  # type: ignore[attr-defined]
    save(out, f"mlx_{name}_inv_freq", inv, library="mlx-lm", call=call, scale=scale, **params)


def generate(out: Path) -> None:
    """Write every case into ``out``."""
    oss = dict(
        base=150000.0,
        scaling_factor=32.0,
        original_max_position_embeddings=4096,
        beta_fast=32,
        beta_slow=1,
    )
    rope = YarnRoPE(64, **oss)
    _save(out, "gpt_oss", rope, "YarnRoPE(64, **params)", rope.mscale, **oss)
    ds = dict(
        base=10000.0,
        scaling_factor=40.0,
        original_max_position_embeddings=4096,
        beta_fast=32,
        beta_slow=1,
        mscale=1.0,
        mscale_all_dim=1.0,
    )
    rope = YarnRoPE(64, **ds)
    _save(out, "deepseek", rope, "YarnRoPE(64, **params)", rope.mscale, **ds)
    phi = dict(
        base=10000.0,
        max_position_embeddings=131072,
        original_max_position_embeddings=4096,
        short_factor=PHI3_SHORT,
        long_factor=PHI3_LONG,
    )
    rope = SuScaledRoPE(96, **phi)
    _save(out, "phi3", rope, "SuScaledRoPE(96, **params)", rope._scale, **phi)
    llama = {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }
    rope = Llama3RoPE(128, max_position_embeddings=131072, base=500000.0, scaling_config=llama)
    _save(
        out,
        "llama31",
        rope,
        "Llama3RoPE(128, max_position_embeddings=131072, base=500000.0, scaling_config=params)",
        1.0,
        **llama,
    )
