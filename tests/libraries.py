"""Each library's table, written from that library's documented definition (docs/conventions.md).

Plain NumPy in float64, one function per library, following the library's own formula and
order of operations. Nothing here imports pecli.
"""

from __future__ import annotations

import math

import numpy as np


def pytorch_tutorial(max_len: int, d_model: int) -> np.ndarray:
    """PyTorch tutorial / Annotated Transformer ``PositionalEncoding``: interleaved, from 0."""
    position = np.arange(max_len, dtype=np.float64)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def tensor2tensor(length: int, channels: int, max_timescale: float = 1.0e4) -> np.ndarray:
    """tensor2tensor ``get_timing_signal_1d`` (min_timescale 1, start_index 0)."""
    position = np.arange(length, dtype=np.float64)
    num_timescales = channels // 2
    increment = math.log(max_timescale / 1.0) / max(num_timescales - 1, 1)
    inv_timescales = np.exp(np.arange(num_timescales) * -increment)
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


def fairseq(num_embeddings: int, embedding_dim: int, padding_idx: int | None) -> np.ndarray:
    """fairseq ``SinusoidalPositionalEmbedding.get_embedding``."""
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim, dtype=np.float64) * -emb)
    emb = np.arange(num_embeddings, dtype=np.float64)[:, None] * emb[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=1).reshape(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = np.concatenate([emb, np.zeros((num_embeddings, 1))], axis=1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def hf_marian(n_pos: int, dim: int) -> np.ndarray:
    """HF ``MarianSinusoidalPositionalEmbedding._init_weight`` (even ``dim``)."""
    position_enc = np.array(
        [[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)]
    )
    out = np.empty((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out


def diffusers(
    timesteps: np.ndarray,
    embedding_dim: int,
    flip_sin_to_cos: bool = False,
    downscale_freq_shift: float = 1,
    max_period: int = 10000,
) -> np.ndarray:
    """diffusers ``get_timestep_embedding`` (scale 1)."""
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * np.arange(0, half_dim, dtype=np.float64)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = np.asarray(timesteps, dtype=np.float64)[:, None] * np.exp(exponent)[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=-1)
    if flip_sin_to_cos:
        emb = np.concatenate([emb[:, half_dim:], emb[:, :half_dim]], axis=-1)
    if embedding_dim % 2 == 1:
        emb = np.pad(emb, [(0, 0), (0, 1)])
    return emb


def whisper(length: int, channels: int, max_timescale: float = 10000) -> np.ndarray:
    """OpenAI Whisper ``sinusoids`` (even ``channels``)."""
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = np.exp(-log_timescale_increment * np.arange(channels // 2))
    scaled_time = np.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def distilbert(n_pos: int, dim: int) -> np.ndarray:
    """HF ``create_sinusoidal_embeddings`` (DistilBERT/XLM; keras-hub's rule): any ``dim``."""
    position_enc = np.array(
        [[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)]
    )
    out = np.empty((n_pos, dim))
    out[:, 0::2] = np.sin(position_enc[:, 0::2])
    out[:, 1::2] = np.cos(position_enc[:, 1::2])
    return out


def tatp22(x: int, org_channels: int) -> np.ndarray:
    """tatp22 ``PositionalEncoding1D(org_channels)`` on ``x`` positions, in float64."""
    channels = int(np.ceil(org_channels / 2) * 2)
    inv_freq = 1.0 / (10000 ** (np.arange(0, channels, 2) / channels))
    sin_inp = np.arange(x, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.stack((np.sin(sin_inp), np.cos(sin_inp)), axis=-1).reshape(x, -1)
    return emb[:, :org_channels]


def musicgen(num_embeddings: int, embedding_dim: int) -> np.ndarray:
    """HF ``MusicgenSinusoidalPositionalEmbedding.get_embedding``: cos then sin."""
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim) * -emb)
    emb = np.arange(num_embeddings, dtype=np.float64)[:, None] * emb[None, :]
    emb = np.concatenate([np.cos(emb), np.sin(emb)], axis=1)
    return np.pad(emb, [(0, 0), (0, embedding_dim % 2)])


def ldm(timesteps: np.ndarray, dim: int, max_period: float = 10000) -> np.ndarray:
    """LDM / sgm ``timestep_embedding``: paper frequencies, cos then sin, odd dim padded."""
    half = dim // 2
    freqs = np.exp(-math.log(max_period) * np.arange(half, dtype=np.float64) / half)
    args = np.asarray(timesteps, dtype=np.float64)[:, None] * freqs[None]
    embedding = np.concatenate([np.cos(args), np.sin(args)], axis=-1)
    return np.pad(embedding, [(0, 0), (0, dim % 2)])


def mlx(
    x: np.ndarray,
    dims: int,
    min_freq: float = 1e-4,
    max_freq: float = 1.0,
    scale: float | None = None,
    cos_first: bool = False,
    full_turns: bool = False,
) -> np.ndarray:
    """MLX ``nn.SinusoidalPositionalEncoding(dims, …)(x)``, in float64."""
    one_zero = np.array([1.0]) if dims == 2 else 1 - np.arange(dims // 2) / (dims // 2 - 1)
    sigmas = np.exp(one_zero * (math.log(max_freq) - math.log(min_freq)) + math.log(min_freq))
    if full_turns:
        sigmas = sigmas * (2 * math.pi)
    y = np.asarray(x, dtype=np.float64)[:, None] * sigmas
    parts = [np.cos(y), np.sin(y)] if cos_first else [np.sin(y), np.cos(y)]
    return np.concatenate(parts, axis=-1) * (scale if scale is not None else (2 / dims) ** 0.5)
