"""Windows of long tables made by the libraries, for identify.

The tests: tests/sinusoidal/test_identify_fixtures.py.

Each fixture is a slice ``rows[a:b]`` (or its transpose) of a table a library built from
position 0; ``params`` records the slice and what identify must find: ``start`` (the position
of the first row), ``preset`` (a preset that builds it), ``padding_rows``, ``zero_components``,
``storage`` and ``transposed``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from common import save


def _save(out: Path, name: str, table: Any, library: str, call: str, **expected: Any) -> None:
    save(out, name, table, library=library, call=call, **expected)


def generate(out: Path) -> None:
    """Write the identify fixtures into ``out``."""
    import torch
    import whisper.model
    from diffusers.models.embeddings import get_timestep_embedding
    from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings
    from transformers.models.m2m_100.modeling_m2m_100 import (
        M2M100SinusoidalPositionalEmbedding as M2m100,
    )

    weights = torch.empty(100_000, 64)
    create_sinusoidal_embeddings(n_pos=100_000, dim=64, out=weights)
    _save(
        out,
        "distilbert_rows_99700_100000",
        weights[99_700:].numpy(),
        "transformers",
        "create_sinusoidal_embeddings(n_pos=100000, dim=64, out=torch.empty(100000, 64))[99700:]",
        start=99_700,
        preset="pytorch",
        padding_rows=[],
        zero_components=[],
        storage="float32",
        transposed=False,
    )
    table = whisper.model.sinusoids(60_100, 384)
    _save(
        out,
        "whisper_rows_60000_60100",
        table[60_000:].numpy(),
        "openai-whisper",
        "whisper.model.sinusoids(60100, 384)[60000:]",
        start=60_000,
        preset="whisper",
        padding_rows=[],
        zero_components=[],
        storage="float32",
        transposed=False,
    )
    table = M2m100.get_embedding(40, 9, padding_idx=1)
    _save(
        out,
        "m2m100_rows_0_40_d9",
        table.numpy(),
        "transformers",
        "M2M100SinusoidalPositionalEmbedding.get_embedding(40, 9, padding_idx=1)",
        start=0,
        preset="fairseq",
        padding_rows=[1],
        zero_components=[9],
        storage="float32",
        transposed=False,
    )
    table = M2m100.get_embedding(5100, 64, padding_idx=1)
    _save(
        out,
        "m2m100_rows_5000_5100",
        table[5000:].numpy(),
        "transformers",
        "M2M100SinusoidalPositionalEmbedding.get_embedding(5100, 64, padding_idx=1)[5000:]",
        start=5000,
        preset="tensor2tensor",
        padding_rows=[],
        zero_components=[],
        storage="float32",
        transposed=False,
    )
    table = get_timestep_embedding(torch.arange(50_000, 50_200), 64)
    _save(
        out,
        "diffusers_timesteps_50000_50200",
        table.numpy(),
        "diffusers",
        "get_timestep_embedding(torch.arange(50000, 50200), 64)",
        start=50_000,
        preset="diffusers",
        padding_rows=[],
        zero_components=[],
        storage="float32",
        transposed=False,
    )
    table = get_timestep_embedding(
        torch.arange(999_000, 999_040), 320, flip_sin_to_cos=True, downscale_freq_shift=0
    )
    _save(
        out,
        "stable_diffusion_timesteps_999000_transposed",
        table.T.contiguous().numpy(),
        "diffusers",
        "get_timestep_embedding(torch.arange(999000, 999040), 320, flip_sin_to_cos=True, "
        "downscale_freq_shift=0).T",
        start=999_000,
        preset="diffusers --flip-sin-to-cos --downscale-freq-shift 0",
        padding_rows=[],
        zero_components=[],
        storage="float32",
        transposed=True,
    )
    table = whisper.model.sinusoids(20_100, 64).to(torch.float16)
    _save(
        out,
        "whisper_float16_rows_20000_20100",
        table[20_000:].numpy(),
        "openai-whisper",
        "whisper.model.sinusoids(20100, 64).to(torch.float16)[20000:]",
        start=20_000,
        preset="whisper",
        padding_rows=[],
        zero_components=[],
        storage="float16",
        transposed=False,
    )
