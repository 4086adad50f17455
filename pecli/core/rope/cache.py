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

import dataclasses
from collections.abc import Iterator

import numpy as np

from .. import direct, kernels
from ..certificate import TALLY, sin_cos_exact
from ..certificate.products import round_scaled
from ..dtypes import HALF_DTYPES
from ..threads import block_buffers
from .cache_spec import CacheSpec, check_positions_list
from .frequencies import RopeFrequencies

__all__ = ["CacheSpec", "cache_blocks", "rope_cache"]

#: Values per block of the streamed cache (about 8 MB of float64 per temporary).
BLOCK_CELLS = 1 << 20
#: Values per block of the exact cache with ``reuse`` (1 MB of float32): the writer's ring of
#: blocks stays in cache and zeroes few fresh pages (benchmarks/bench_headline.py, rope row).
OUT_CELLS = 1 << 18
#: (row, pair) cells per call of the kernel: its set-up is paid per chunk, not per block.
CHUNK_CELLS = 1 << 20


def rope_cache(spec: CacheSpec) -> tuple[np.ndarray, np.ndarray]:
    """``cos`` and ``sin`` caches of ``spec`` (its ``part`` aside), times the attention factor.

    Parameters
    ----------
    spec : CacheSpec
        The frequencies, positions, layout and dtype.

    Returns
    -------
    tuple of numpy.ndarray
        ``(cos, sin)``, each of shape ``(n, rotary_dim)``.

    Raises
    ------
    ParameterError
        As :class:`CacheSpec`; positions past 2^53.

    References
    ----------
    transformers ``models/llama/modeling_llama.py``, ``LlamaRotaryEmbedding.forward`` and
    ``rotate_half``; ``models/gptj/modeling_gptj.py``, ``create_sinusoidal_positions``,
    ``rotate_every_two``.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> freqs = rope_frequencies(RopeSpec(head_dim=4))
    >>> cos, sin = rope_cache(CacheSpec(freqs, 2, dtype="float64"))
    >>> cos[1].round(6)
    array([0.540302, 0.99995 , 0.540302, 0.99995 ])
    >>> sin[1].round(6)
    array([0.841471, 0.01    , 0.841471, 0.01    ])

    """
    cos, sin = (
        np.concatenate(list(cache_blocks(dataclasses.replace(spec, part=name, reuse=0))))
        for name in ("cos", "sin")
    )
    return cos, sin


def cache_blocks(spec: CacheSpec) -> Iterator[np.ndarray]:
    """The cache as row blocks for streaming, exact: ``cos``, ``sin`` or ``both`` (cos | sin).

    ``start`` and ``positions`` are checked when this is called, before any block is
    computed. Blocks are :attr:`CacheSpec.width` wide; their concatenation is the cache of
    :func:`rope_cache`, bit for bit, whatever ``rows`` is.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 3, part="sin", rows=2)
    >>> [block.shape for block in cache_blocks(spec)]
    [(2, 4), (1, 4)]

    """
    start = spec.checked_start()
    h, stored = spec.pairs, spec.stored
    if spec.positions is not None:
        step = spec.rows or max(1, BLOCK_CELLS // h)
        where = check_positions_list(spec.positions, spec.n, start)
        return _position_blocks(spec.freqs, where, spec.layout, stored, spec.part, step)
    width = spec.width  # 2h columns, 4h for both: h >= 1 (RopeSpec: rotated width >= 2)
    reuse = max(0, int(spec.reuse))
    step = spec.rows or max(1, OUT_CELLS // width if reuse > 0 else BLOCK_CELLS // h)
    return _blocks(spec.freqs, spec.n, start, spec.layout, stored, spec.part, (step, reuse))


def _position_blocks(
    freqs: RopeFrequencies, where: np.ndarray, kind: str, stored: np.dtype, part: str, step: int
) -> Iterator[np.ndarray]:
    """Blocks of the cache at arbitrary positions: each sin/cos evaluated directly."""
    h, names = freqs.inv_freq.size, ("cos", "sin") if part == "both" else (part,)
    factor = (float(freqs.attention_factor), 0.0)
    for row in range(0, where.size, step):
        chunk = where[row : row + step]
        sin, cos = (np.empty((chunk.size, h), dtype=stored) for _ in "sc")  # certified
        direct.fill_sin_cos_direct(sin, cos, chunk, freqs.inv_freq, freqs.residual, factor=factor)
        out = np.empty((chunk.size, 2 * h * len(names)), dtype=stored)
        for k, name in enumerate(names):
            _spread(out[:, 2 * h * k : 2 * h * (k + 1)], cos if name == "cos" else sin, kind)
        yield out


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
    # value); rounded straight to the output dtype when no attention factor follows, else
    # made in float64 and rounded after the product, under the certificate
    scratch = np.dtype(np.float64 if scale != 1.0 or half else stored)
    width, chunk = 2 * h * len(names), step * max(1, CHUNK_CELLS // max(h * step, 1))
    outs = block_buffers(step, width, n, stored, reuse)
    ring = np.empty((min(chunk, n), 2 * h), scratch)  # private: refilled after its blocks
    rounded = np.empty(ring.shape, stored) if scratch != stored else ring
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
            if scratch != stored:
                pairs = _certified(pairs, freqs, start + row, rounded[: len(pairs)])
            elif scale != 1.0:
                pairs *= scale
        rows = pairs[row % chunk : row % chunk + out.shape[0]]
        for k, name in enumerate(names):
            values = rows[:, 1::2] if name == "cos" else rows[:, 0::2]
            _spread(out[:, 2 * h * k : 2 * h * (k + 1)], values, kind)
        yield out


def _certified(
    pairs: np.ndarray, freqs: RopeFrequencies, first: int, out: np.ndarray
) -> np.ndarray:
    """The attention factor times ``pairs``, rounded into ``out`` under the certificate.

    ``pairs``: the consecutive kernel's float64 ``(sin, cos)`` of positions ``first, …``.
    Returns ``out``.
    """
    factor = (float(freqs.attention_factor), 0.0)

    def exact(flat: np.ndarray) -> np.ndarray:
        row, col = np.divmod(flat, pairs.shape[1])
        j = col // 2
        terms = (first + row.astype(np.float64), np.zeros(flat.size), freqs.inv_freq[j])
        return sin_cos_exact((*terms, freqs.residual[j]), col % 2 == 1, out.dtype, factor=factor)

    bound = kernels.consecutive_bound(first, len(pairs), freqs.inv_freq, freqs.residual)
    recomputed = round_scaled(pairs, bound, factor, out, exact)
    TALLY.add(checked=out.size, recomputed=recomputed)
    return out


def _spread(block: np.ndarray, values: np.ndarray, kind: str) -> None:
    """Write ``(m, h)`` per-pair values into an ``(m, 2h)`` block in the layout."""
    h = values.shape[1]
    if kind == "interleaved":
        block[:, 0::2] = values
        block[:, 1::2] = values
    else:
        block[:, :h] = values
        block[:, h:] = values
