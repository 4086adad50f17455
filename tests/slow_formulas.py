"""Each library's table as a slow, obvious loop over ``math.sin`` / ``math.cos``.

These are the references that the identify tests feed to pecli: one function per library,
transcribed from that library's own code (the names of its variables are kept), one entry at
a time in plain Python floats. Nothing here imports pecli or NumPy's vectorised maths, so a
mistake shared by pecli's generator (:func:`pecli.encoding_table`) and its recogniser
(``identify``) cannot hide here. Keep them slow and keep the tables small.

Every function returns a list of ``n`` rows of ``d`` floats. ``base`` is the library's
constant 10000 (``max_timescale``, ``max_period``), ``start`` the position of row 0 (the
libraries start at 0; the article at 1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

Table = list[list[float]]


def vaswani(n: int, d: int, base: float = 10000.0, start: float = 1) -> Table:
    """The article, §3.5: 1-based component k, pair i = ceil(k/2), ω_i = C^(-2(i-1)/d).

    PE(pos, 2i-1) = sin(pos ω_i), PE(pos, 2i) = cos(pos ω_i), interleaved, positions from 1.
    """
    assert d % 2 == 0
    table = []
    for r in range(n):
        pos = start + r
        row = []
        for k in range(1, d + 1):
            i = (k + 1) // 2
            omega = base ** (-2 * (i - 1) / d)
            row.append(math.sin(pos * omega) if k % 2 == 1 else math.cos(pos * omega))
        table.append(row)
    return table


def pytorch_tutorial(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """PyTorch tutorial ``PositionalEncoding``: ``div_term = exp(arange(0, d, 2) * (-ln C / d))``.

    ``pe[:, 0::2] = sin(position * div_term)``, ``pe[:, 1::2] = cos(...)``, positions from 0.
    """
    assert d % 2 == 0
    div_term = [math.exp(two_j * (-math.log(base) / d)) for two_j in range(0, d, 2)]
    table = []
    for r in range(n):
        position = start + r
        row = [0.0] * d
        for j, div in enumerate(div_term):
            row[2 * j] = math.sin(position * div)
            row[2 * j + 1] = math.cos(position * div)
        table.append(row)
    return table


def tensor2tensor(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """tensor2tensor ``get_timing_signal_1d`` (min_timescale 1): ``[sin | cos | 0 if d odd]``.

    ``log_timescale_increment = ln(max_timescale) / max(num_timescales - 1, 1)``,
    ``inv_timescales[j] = exp(-j * increment)``, positions ``start_index + arange(length)``.
    """
    num_timescales = d // 2
    log_timescale_increment = math.log(base / 1.0) / max(num_timescales - 1, 1)
    inv_timescales = [math.exp(j * -log_timescale_increment) for j in range(num_timescales)]
    table = []
    for r in range(n):
        position = start + r
        sines = [math.sin(position * inv) for inv in inv_timescales]
        cosines = [math.cos(position * inv) for inv in inv_timescales]
        table.append(sines + cosines + [0.0] * (d % 2))
    return table


def fairseq(
    n: int, d: int, base: float = 10000.0, start: float = 0, padding_idx: int | None = 1
) -> Table:
    """fairseq ``SinusoidalPositionalEmbedding.get_embedding``: the weight table.

    ``emb = ln(10000) / (half_dim - 1)``, ``exp(arange(half_dim) * -emb)``, ``[sin | cos]``,
    a zero column for an odd ``embedding_dim``, and row ``padding_idx`` all zeros. Row r of
    the weights is position r; fairseq's ``make_positions`` numbers real tokens from
    ``padding_idx + 1``, so the rows before that are never looked up but are in the table.
    """
    half_dim = d // 2
    emb = math.log(base) / (half_dim - 1)
    frequencies = [math.exp(j * -emb) for j in range(half_dim)]
    table = []
    for r in range(n):
        position = start + r
        row = [math.sin(position * f) for f in frequencies]
        row += [math.cos(position * f) for f in frequencies]
        row += [0.0] * (d % 2)
        if r == padding_idx:
            row = [0.0] * d
        table.append(row)
    return table


def hf_marian(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """HF ``MarianSinusoidalPositionalEmbedding._init_weight``: ``[sin | cos]``, paper ω.

    ``position_enc[pos, j] = pos / 10000^(2 (j // 2) / dim)``; the sines are the even ``j``
    (``ceil(dim / 2)`` columns, up to ``sentinel``), the cosines the odd ``j`` after them: an
    odd ``dim`` has one more sine than cosines (no zero column).
    """
    sentinel = d // 2 if d % 2 == 0 else d // 2 + 1
    table = []
    for r in range(n):
        pos = start + r
        position_enc = [pos / base ** (2 * (j // 2) / d) for j in range(d)]
        row = [math.sin(position_enc[j]) for j in range(0, d, 2)]
        row += [math.cos(position_enc[j]) for j in range(1, d, 2)]
        assert len(row[:sentinel]) == sentinel and len(row) == d
        table.append(row)
    return table


def diffusers(
    timesteps: Iterable[float],
    embedding_dim: int,
    flip_sin_to_cos: bool = False,
    downscale_freq_shift: float = 1,
    max_period: float = 10000,
) -> Table:
    """diffusers ``get_timestep_embedding`` (scale 1).

    ``exponent = -ln(max_period) * arange(half_dim) / (half_dim - downscale_freq_shift)``,
    ``[sin | cos]``, swapped to ``[cos | sin]`` by ``flip_sin_to_cos``, a zero column for an
    odd ``embedding_dim``.
    """
    half_dim = embedding_dim // 2
    exponent = [
        -math.log(max_period) * j / (half_dim - downscale_freq_shift) for j in range(half_dim)
    ]
    table = []
    for t in timesteps:
        emb = [t * math.exp(e) for e in exponent]
        sines, cosines = [math.sin(a) for a in emb], [math.cos(a) for a in emb]
        row = cosines + sines if flip_sin_to_cos else sines + cosines
        table.append(row + [0.0] * (embedding_dim % 2))
    return table


def whisper(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """OpenAI Whisper ``sinusoids(length, channels)``: ``[sin | cos]``, even channels only.

    ``log_timescale_increment = ln(max_timescale) / (channels // 2 - 1)``,
    ``inv_timescales = exp(-increment * arange(channels // 2))``, positions ``arange(length)``.
    """
    assert d % 2 == 0, "whisper: channels must be even"
    log_timescale_increment = math.log(base) / (d // 2 - 1)
    inv_timescales = [math.exp(-log_timescale_increment * j) for j in range(d // 2)]
    table = []
    for r in range(n):
        scaled_time = [(start + r) * inv for inv in inv_timescales]
        table.append([math.sin(s) for s in scaled_time] + [math.cos(s) for s in scaled_time])
    return table


def distilbert(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """HF ``create_sinusoidal_embeddings`` (DistilBERT/XLM; keras-hub's rule), any ``dim``.

    ``position_enc[pos][j] = pos / np.power(10000, 2 * (j // 2) / dim)``, sine in even ``j``,
    cosine in odd ``j``: an odd ``dim`` ends with a sine.
    """
    table = []
    for r in range(n):
        pos = start + r
        angles = [pos / base ** (2 * (j // 2) / d) for j in range(d)]
        table.append([math.sin(a) if j % 2 == 0 else math.cos(a) for j, a in enumerate(angles)])
    return table


def positional_encodings(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """tatp22 ``PositionalEncoding1D(channels)``: ``inv_freq`` over ``ceil(d/2)·2`` channels.

    ``inv_freq = 1 / 10000^(arange(0, channels, 2) / channels)``, ``[sin, cos]`` interleaved,
    the first ``org_channels`` columns kept.
    """
    channels = math.ceil(d / 2) * 2
    inv_freq = [1.0 / base ** (two_k / channels) for two_k in range(0, channels, 2)]
    table = []
    for r in range(n):
        row = []
        for inv in inv_freq:
            row += [math.sin((start + r) * inv), math.cos((start + r) * inv)]
        table.append(row[:d])
    return table


def ldm(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """LDM / sgm ``timestep_embedding(timesteps, dim)``: ``[cos | sin | 0 if dim odd]``.

    ``freqs = exp(-ln(max_period) * arange(half) / half)``, ``half = dim // 2``.
    """
    half = d // 2
    freqs = [math.exp(-math.log(base) * k / half) for k in range(half)]
    table = []
    for r in range(n):
        args = [(start + r) * f for f in freqs]
        row = [math.cos(a) for a in args] + [math.sin(a) for a in args]
        table.append(row + [0.0] * (d % 2))
    return table


def musicgen(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """HF ``MusicgenSinusoidalPositionalEmbedding.get_embedding``: ``[cos | sin | 0 if odd]``."""
    half_dim = d // 2
    emb = math.log(base) / (half_dim - 1)
    inv = [math.exp(k * -emb) for k in range(half_dim)]
    table = []
    for r in range(n):
        args = [(start + r) * w for w in inv]
        row = [math.cos(a) for a in args] + [math.sin(a) for a in args]
        table.append(row + [0.0] * (d % 2))
    return table


def lucidrains(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """lucidrains ``SinusoidalPosEmb(dim, theta)``: ``[sin | cos]`` (``dim - 1`` columns if odd)."""
    half_dim = d // 2
    emb = math.log(base) / (half_dim - 1)
    inv = [math.exp(k * -emb) for k in range(half_dim)]
    table = []
    for r in range(n):
        args = [(start + r) * w for w in inv]
        table.append([math.sin(a) for a in args] + [math.cos(a) for a in args])
    return table


def mlx(n: int, d: int, base: float = 10000.0, start: float = 0) -> Table:
    """MLX ``SinusoidalPositionalEncoding(dims, min_freq=1/base)``: ``[sin | cos]·sqrt(2/d)``.

    ``one_zero = 1 - arange(dims // 2) / (dims // 2 - 1)`` (``[1]`` at ``dims = 2``),
    ``sigmas = exp(one_zero * (ln max_freq - ln min_freq) + ln min_freq)``, ``max_freq = 1``.
    """
    assert d % 2 == 0, "mlx: dims must be even"
    h = d // 2
    one_zero = [1.0] if d == 2 else [1 - k / (h - 1) for k in range(h)]
    lo, hi = math.log(1 / base), math.log(1.0)
    sigmas = [math.exp(z * (hi - lo) + lo) for z in one_zero]
    scale = (2 / d) ** 0.5
    table = []
    for r in range(n):
        y = [(start + r) * s for s in sigmas]
        table.append([scale * math.sin(a) for a in y] + [scale * math.cos(a) for a in y])
    return table


def preset_table(name: str, n: int, d: int, base: float, start: float | None = None) -> Table:
    """The table of pecli's preset ``name``, built by the library that preset claims to be.

    ``start`` overrides the library's first position (``None``: the library's own).
    """
    builders = {
        "vaswani": (vaswani, 1),
        "pytorch": (pytorch_tutorial, 0),
        "tensor2tensor": (tensor2tensor, 0),
        "fairseq": (fairseq, 0),
        "hf-marian": (hf_marian, 0),
        "whisper": (whisper, 0),
        "distilbert": (distilbert, 0),
        "positional-encodings": (positional_encodings, 0),
        "ldm": (ldm, 0),
        "musicgen": (musicgen, 0),
        "lucidrains": (lucidrains, 0),
        "mlx": (mlx, 0),
    }
    if name == "diffusers":  # its defaults: flip_sin_to_cos False, downscale_freq_shift 1
        first = 0 if start is None else start
        return diffusers(range(first, first + n), d, max_period=base)
    build, own_start = builders[name]
    return build(n, d, base, own_start if start is None else start)
