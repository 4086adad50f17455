"""Engines' own rotary code where its Python runs on a CPU (area ``engines``): mlx_lm.

For each case, ``mlx_<case>_inv_freq`` is ``1 / _freqs`` of the rope module mlx_lm's
``models/rope_utils.py`` builds (``YarnRoPE``, ``SuScaledRoPE``, ``Llama3RoPE``), float32 as
MLX computes it. The provenance's ``params`` are every argument of that constructor (``call``
names it: ``YarnRoPE(**params)``), so tests/ports/test_engines.py builds its specs from them, plus
``scale``, the factor the module puts on the rotated channels (``mscale`` / ``_scale``). vLLM,
llama.cpp and TensorRT-LLM need CUDA or C++ to run: their formulas are cited in
docs/porting.md instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from common import save
from mlx_lm.models.rope_utils import Llama3RoPE, SuScaledRoPE, YarnRoPE

PHI3_LONG = [1.0 + 0.5 * i for i in range(48)]
PHI3_SHORT = [1.0 + 0.01 * i for i in range(48)]


def _save(out: Path, name: str, kind: Any, scale: str | None, **params: Any) -> None:
    """Build ``kind(**params)``; save its ``1 / _freqs`` and its attribute ``scale`` (None: 1)."""
    rope = kind(**params)
    inv = 1.0 / np.array(rope._freqs)
    factor = 1.0 if scale is None else float(getattr(rope, scale))
    save(
        out,
        f"mlx_{name}_inv_freq",
        inv,
        library="mlx-lm",
        call=f"{kind.__name__}(**params)",
        scale=factor,
        **params,
    )


def generate(out: Path) -> None:
    """Write every case into ``out``."""
    _save(
        out,
        "gpt_oss",
        YarnRoPE,
        "mscale",
        dims=64,
        base=150000.0,
        scaling_factor=32.0,
        original_max_position_embeddings=4096,
        beta_fast=32,
        beta_slow=1,
    )
    _save(
        out,
        "deepseek",
        YarnRoPE,
        "mscale",
        dims=64,
        base=10000.0,
        scaling_factor=40.0,
        original_max_position_embeddings=4096,
        beta_fast=32,
        beta_slow=1,
        mscale=1.0,
        mscale_all_dim=1.0,
    )
    _save(
        out,
        "phi3",
        SuScaledRoPE,
        "_scale",
        dims=96,
        base=10000.0,
        max_position_embeddings=131072,
        original_max_position_embeddings=4096,
        short_factor=PHI3_SHORT,
        long_factor=PHI3_LONG,
    )
    llama = {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }
    # Llama3RoPE has no scale attribute: its __call__ passes scale=1.0 to mx.fast.rope
    _save(
        out,
        "llama31",
        Llama3RoPE,
        None,
        dims=128,
        max_position_embeddings=131072,
        base=500000.0,
        scaling_config=llama,
    )
