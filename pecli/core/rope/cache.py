"""cos/sin caches of a rotary embedding in the half-split or interleaved layout.

``cos[p, k]`` and ``sin[p, k]`` for positions ``p = start … start+n−1`` and the rotated
width ``k < rotary_dim``, times the attention factor, as transformers'
``LlamaRotaryEmbedding.forward`` returns them (half-split) or as GPT-J / Meta use them
(interleaved). The angles ``p·ω`` are exact double-doubles (the frequency's residual
included) and sin/cos come from :func:`pecli.core.kernels.fill_sin_cos_consecutive`, so each
value is within about 1e-15 of the exact one before the single rounding to the output dtype.
Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import DTypeLike

from .. import kernels
from ..dtypes import HALF_DTYPES, round_once
from ..errors import ParameterError
from ..rules import MAX_POSITION, check_n, check_table_dtype
from ..threads import block_buffers
from .frequencies import RopeFrequencies

__all__ = [
    "LAYOUT_ALIASES",
    "PARTS",
    "cache_blocks",
    "cache_columns",
    "check_cache_args",
    "check_positions_list",
    "rope_cache",
    "rope_layout",
]

#: What frameworks call the two layouts; every name maps to ``half-split`` or ``interleaved``.
LAYOUT_ALIASES = {
    **dict.fromkeys(
        (
            "half-split",
            "half",
            "rotate_half",
            "rotate-half",
            "hf",
            "transformers",
            "llama",
            "gpt-neox",
            "neox",
            "qwen",
            "gemma",
            "phi",
            "llama.cpp-neox",
            "vllm-neox",
            "is_neox_style",
            "mlx",
            "flash-attn",
        ),
        "half-split",
    ),
    **dict.fromkeys(
        (
            "interleaved",
            "rotate_every_two",
            "rotate-every-two",
            "gptj",
            "gpt-j",
            "codegen",
            "meta",
            "llama.cpp-norm",
            "norm",
            "vllm-gptj",
            "mlx-traditional",
            "flash-attn-interleaved",
            "deepseek",
            "torchtune",
            "lucidrains",
        ),
        "interleaved",
    ),
}
#: What a cache table holds: the cos block, the sin block, or both side by side.
PARTS = ("both", "cos", "sin")
#: Values per block of the streamed cache (about 8 MB of float64 per temporary).
BLOCK_CELLS = 1 << 20
#: Values per block of the exact cache with ``reuse`` (1 MB of float32): the writer's ring of
#: blocks stays in cache and zeroes few fresh pages (benchmarks/bench_headline.py, rope row).
OUT_CELLS = 1 << 18
#: (row, pair) cells per call of the kernel: its set-up is paid per chunk, not per block.
CHUNK_CELLS = 1 << 20


def rope_layout(name: str) -> str:
    """``half-split`` or ``interleaved`` for any of :data:`LAYOUT_ALIASES` (case-insensitive).

    Examples
    --------
    >>> rope_layout("GPT-NeoX"), rope_layout("llama.cpp-norm"), rope_layout("mlx-traditional")
    ('half-split', 'interleaved', 'interleaved')

    """
    key = str(name).strip().lower()
    if key not in LAYOUT_ALIASES:
        names = ", ".join(LAYOUT_ALIASES)
        raise ParameterError("layout", f"must be one of {names}", name)
    return LAYOUT_ALIASES[key]


def rope_cache(
    freqs: RopeFrequencies,
    n: int,
    *,
    start: int = 0,
    layout: str = "half-split",
    dtype: DTypeLike = np.float32,
) -> tuple[np.ndarray, np.ndarray]:
    """``cos`` and ``sin`` caches for positions ``start … start+n−1``, times the attention factor.

    Parameters
    ----------
    freqs : RopeFrequencies
        From :func:`pecli.core.rope.rope_frequencies`.
    n : int
        Number of positions (rows), >= 1.
    start : int, keyword-only
        First position (transformers' ``position_ids`` start at 0).
    layout : str, keyword-only
        ``half-split`` (``[c_0 … c_{h−1}, c_0 … c_{h−1}]``, transformers' ``rotate_half``) or
        ``interleaved`` (``[c_0, c_0, c_1, c_1, …]``, GPT-J / Meta), or an alias
        (:data:`LAYOUT_ALIASES`).
    dtype : float32, float64, float16 or bfloat16, keyword-only
        Output dtype; values are computed in float64 and rounded once (bfloat16 is
        ``ml_dtypes.bfloat16``).

    Returns
    -------
    tuple of numpy.ndarray
        ``(cos, sin)``, each of shape ``(n, rotary_dim)``.

    Raises
    ------
    ParameterError
        Unknown layout, ``n < 1``, a dtype not in :data:`~pecli.core.dtypes.TABLE_DTYPES`,
        positions past 2^53.

    References
    ----------
    transformers ``models/llama/modeling_llama.py``, ``LlamaRotaryEmbedding.forward`` and
    ``rotate_half``; ``models/gptj/modeling_gptj.py``, ``create_sinusoidal_positions``,
    ``rotate_every_two``.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> cos, sin = rope_cache(rope_frequencies(RopeSpec(head_dim=4)), 2, dtype="float64")
    >>> cos[1].round(6)
    array([0.540302, 0.99995 , 0.540302, 0.99995 ])
    >>> sin[1].round(6)
    array([0.841471, 0.01    , 0.841471, 0.01    ])

    """
    cos = np.concatenate(
        list(cache_blocks(freqs, n, start=start, layout=layout, dtype=dtype, part="cos"))
    )
    sin = np.concatenate(
        list(cache_blocks(freqs, n, start=start, layout=layout, dtype=dtype, part="sin"))
    )
    return cos, sin


def cache_blocks(
    freqs: RopeFrequencies,
    n: int,
    *,
    start: int = 0,
    layout: str = "half-split",
    dtype: DTypeLike = np.float32,
    part: str = "both",
    rows: int | None = None,
    reuse: int = 0,
    positions: np.ndarray | None = None,
) -> Iterator[np.ndarray]:
    """The cache as row blocks for streaming: ``part`` ``cos``, ``sin`` or ``both`` (cos | sin).

    Arguments are checked when this is called, before any block is computed. Blocks have
    ``rotary_dim`` columns (``2·rotary_dim`` for ``both``); their concatenation is the cache
    of :func:`rope_cache`, bit for bit, whatever ``rows`` is. ``reuse`` (k >= 1): blocks are
    views of k buffers taken in turn (:func:`pecli.core.threads.block_buffers`).
    ``positions``: any ``n`` finite positions instead of ``start … start+n−1`` (fractional,
    negative, in any order), each angle the exact product of the position's float64 value
    and the exact frequency.
    """
    n, kind, stored = check_cache_args(n, layout, dtype, part, rows)
    if not isinstance(start, int | np.integer) or abs(start) + n > MAX_POSITION:
        raise ParameterError("start", "must be an integer with |start| + n <= 2^53", start)
    h = freqs.inv_freq.size
    if positions is not None:
        step = rows or max(1, BLOCK_CELLS // max(h, 1))
        where = check_positions_list(positions, n, start)
        return _position_blocks(freqs, where, kind, stored, part, step)
    width = 2 * max(h, 1) * (2 if part == "both" else 1)
    step = rows or max(1, OUT_CELLS // width if reuse > 0 else BLOCK_CELLS // max(h, 1))
    return _blocks(freqs, n, int(start), kind, stored, part, (step, max(0, int(reuse))))


def check_cache_args(
    n: int, layout: str, dtype: DTypeLike, part: str, rows: int | None = None
) -> tuple[int, str, np.dtype]:
    """A cache's row count, canonical layout and dtype; ``part``, ``rows`` (0: default) checked."""
    n, kind, stored = check_n(n), rope_layout(layout), check_table_dtype(dtype)
    if part not in PARTS:
        raise ParameterError("part", f"must be one of {', '.join(PARTS)}", part)
    if rows:  # -1 made no block at all: an empty cache
        check_n(rows, "rows")
    return n, kind, stored


def check_positions_list(
    positions: np.ndarray | Sequence[float], n: int, start: int = 0
) -> np.ndarray:
    """``n`` positions as float64: 1-D, finite, ``|p| <= 2^53``, and no ``start`` beside them.

    Integers (an integer array, Python ints) are held to ``|p| <= 2^53`` before they become
    float64, which rounds ``2^53 + 1`` to ``2^53``: inside the rule, and another position.

    Raises
    ------
    ParameterError
        (as ``positions``, or ``start`` when one is given too).

    """
    rule = f"must be {n} finite number{'s' * (n != 1)} with |p| <= 2^53"
    past = _integer_past(positions)
    if past is not None:
        raise ParameterError("positions", rule, past)
    where = np.asarray(positions, dtype=np.float64).reshape(-1)
    if start:
        raise ParameterError("start", "goes without positions (they say where each row is)", start)
    if where.size != n or not np.all(np.isfinite(where)) or np.any(np.abs(where) > MAX_POSITION):
        bad = where[~np.isfinite(where) | (np.abs(where) > MAX_POSITION)]
        raise ParameterError("positions", rule, bad[0] if bad.size else f"{where.size} values")
    return where


def _integer_past(positions: np.ndarray | Sequence[float]) -> int | None:
    """The first integer position past ``±2^53``, exactly (None: none, or no integers)."""
    most = int(MAX_POSITION)
    if isinstance(positions, np.ndarray):
        if positions.dtype.kind not in "iu":
            return None
        past = positions[(positions > most) | (positions < -most)].reshape(-1)
        return int(past[0]) if past.size else None
    ints = (p for p in positions if isinstance(p, int | np.integer))
    return next((int(p) for p in ints if abs(int(p)) > most), None)


def _position_blocks(
    freqs: RopeFrequencies, where: np.ndarray, kind: str, stored: np.dtype, part: str, step: int
) -> Iterator[np.ndarray]:
    """Blocks of the cache at arbitrary positions: each sin/cos evaluated directly."""
    h, names = freqs.inv_freq.size, ("cos", "sin") if part == "both" else (part,)
    for row in range(0, where.size, step):
        chunk = where[row : row + step]
        sin, cos = np.empty((chunk.size, h)), np.empty((chunk.size, h))
        kernels.fill_sin_cos_direct(sin, cos, chunk, freqs.inv_freq, freqs.residual)
        out = np.empty((chunk.size, 2 * h * len(names)))
        for k, name in enumerate(names):
            values = (cos if name == "cos" else sin) * freqs.attention_factor
            _spread(out[:, 2 * h * k : 2 * h * (k + 1)], values, kind)
        yield round_once(out, stored)


def _blocks(
    freqs: RopeFrequencies,
    n: int,
    start: int,
    kind: str,
    stored: np.dtype,
    part: str,
    blocking: tuple[int, int],
) -> Iterator[np.ndarray]:
    """Blocks of ``step`` rows, spread from (sin, cos) pairs computed ``chunk`` rows at a time.

    The kernel fills its pairs scratch in long chunks (its per-call set-up, a super-block's
    phases, is paid per chunk); the blocks are small, so the ``reuse`` ring stays in cache
    and few fresh pages are zeroed. A row's value does not depend on either split.
    """
    (step, reuse), h = blocking, freqs.inv_freq.size
    names = ("cos", "sin") if part == "both" else (part,)
    scale, half = freqs.attention_factor, stored.name in HALF_DTYPES
    # pairs (sin, cos) side by side: the kernel's fastest output (one complex product per
    # value); rounded straight to the output dtype when no attention factor follows
    scratch = np.dtype(np.float64 if scale != 1.0 or half else stored)
    width, chunk = 2 * h * len(names), step * max(1, CHUNK_CELLS // max(h * step, 1))
    outs = block_buffers(step, width, n, scratch if half else stored, reuse)
    ring = np.empty((min(chunk, n), 2 * h), scratch)  # private: refilled after its blocks
    for row, out in zip(range(0, n, step), outs, strict=True):
        if row % chunk == 0:
            pairs = ring[: min(chunk, n - row)]
            kernels.fill_sin_cos_consecutive(
                pairs[:, 0::2],
                pairs[:, 1::2],
                float(start),
                freqs.inv_freq,
                omega_residual=freqs.residual,
                offset=row,
            )
            if scale != 1.0:
                pairs *= scale
        rows = pairs[row % chunk : row % chunk + out.shape[0]]
        for k, name in enumerate(names):
            values = rows[:, 1::2] if name == "cos" else rows[:, 0::2]
            _spread(out[:, 2 * h * k : 2 * h * (k + 1)], values, kind)
        yield round_once(out, stored) if half else out


def _spread(block: np.ndarray, values: np.ndarray, kind: str) -> None:
    """Write ``(m, h)`` per-pair values into an ``(m, 2h)`` block in the layout."""
    h = values.shape[1]
    if kind == "interleaved":
        block[:, 0::2] = values
        block[:, 1::2] = values
    else:
        block[:, :h] = values
        block[:, h:] = values


def cache_columns(rotary_dim: int, part: str = "both") -> list[str]:
    """CSV column names: ``cos_0 … cos_{dim−1}`` then ``sin_0 …`` (channel k of the rotated width).

    Examples
    --------
    >>> cache_columns(2)
    ['cos_0', 'cos_1', 'sin_0', 'sin_1']

    """
    names = ("cos", "sin") if part == "both" else (part,)
    return [f"{name}_{k}" for name in names for k in range(rotary_dim)]
