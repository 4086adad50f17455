"""What llama.cpp computes for a RoPE cache: ggml's float32 loop, one rounding per step.

ggml (``ggml-cpu/ops.cpp``, ``ggml_rope_cache_init`` and ``rope_yarn``) does not build an
``inv_freq`` vector: for each position it starts from ``θ = float(p)`` and, pair after pair,
divides by the frequency factor (``rope_freqs``), takes ``freq_scale·θ`` (linear, YaRN's
interpolation), mixes in YaRN's ramp over the floored/ceiled correction range, takes
``cosf``/``sinf`` times ``mscale``, then multiplies ``θ`` by ``theta_scale = powf(base,
-2/n_dims)`` for the next pair. The repeated float32 product makes a pair's angle carry about
``i`` roundings, where transformers' carries one or two. This module repeats those steps with
NumPy float32 (``powf`` and ``cosf``/``sinf`` taken as the float32 roundings of the float64
values, within 1 ulp of glibc's). Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ..errors import ParameterError
from ..rope.cache_spec import CacheSpec
from ..rope.framework import float32_cache_blocks
from ..rope.frequencies import RopeFrequencies
from ..rope.registry import RECORDS, record
from .ggml import frequency_factors, yarn_corr_dims, yarn_factor

__all__ = ["GGML_TYPES", "ggml_angles", "ggml_cache_blocks"]

#: The rope types whose llama.cpp loop is repeated (their records' ``ggml``; not dynamic NTK
#: nor longrope's switching), by name.
GGML_TYPES = tuple(sorted(name for name, kind in RECORDS.items() if kind.ggml))
_F = np.float32


def _plan(freqs: RopeFrequencies) -> tuple[np.ndarray, np.float32, np.ndarray, np.float32]:
    """Per pair: frequency factor, ``freq_scale``, YaRN's ramp mix; and the net ``mscale``."""
    spec = freqs.spec
    kind = record(spec.rope_type)
    if not kind.ggml:
        rule = f"llama.cpp's float32 loop is repeated for {', '.join(GGML_TYPES)} only"
        raise ParameterError("arithmetic", rule, f"llama.cpp with {spec.rope_type}")
    half = spec.rotary_dim // 2
    factors = np.ones(half, dtype=_F)
    scale, mix, mscale = _F(1.0), np.zeros(half, dtype=_F), _F(freqs.attention_factor)
    if kind.bands:  # the wavelength bands: rope_freqs divides θ
        factors = frequency_factors(freqs).astype(_F)
    if kind.interpolates:
        factor = yarn_factor(freqs)
        with np.errstate(over="ignore"):  # ggml's freq_scale = 1/factor is float32
            finite = 0 < _F(1.0) / _F(factor) < np.inf
        if not finite:
            bound = "at most 3.4e38" if factor > 1 else "at least 3e-39"
            rule = f"must be {bound} for llama.cpp (its freq_scale 1/factor is float32)"
            raise ParameterError("factor", rule, factor)
        scale = _F(1.0) / _F(factor)
    if kind.ramp:
        _, (low, high) = yarn_corr_dims(
            spec.rotary_dim,
            spec.original_max_position_embeddings or 0,
            spec.theta,
            spec.beta_fast or 32.0,
            spec.beta_slow or 1.0,
        )
        ramp = (np.arange(half, dtype=_F) - _F(low)) / _F(max(0.001, high - low))
        mix = (_F(1) - np.clip(ramp, 0, 1)).astype(_F)
        internal = _F(1.0) + _F(0.1) * _F(math.log(1.0 / float(scale)))
        mscale = _F(_F(freqs.attention_factor) / internal) * internal  # passed, then ggml's
    return factors, scale, mix, mscale


def ggml_angles(freqs: RopeFrequencies, positions: np.ndarray) -> np.ndarray:
    """The float32 angles ggml rotates by, shape ``(len(positions), rotary_dim/2)``.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> angles = ggml_angles(rope_frequencies(RopeSpec(theta=10000.0, head_dim=4)),
    ...                      np.array([3]))
    >>> angles.dtype, angles[0, 0], angles[0, 1] == np.float32(3) * np.float32(0.01)
    (dtype('float32'), np.float32(3.0), np.True_)

    """
    return _angles(freqs, _plan(freqs), positions)


def _angles(
    freqs: RopeFrequencies,
    plan: tuple[np.ndarray, np.float32, np.ndarray, np.float32],
    positions: np.ndarray,
) -> np.ndarray:
    """:func:`ggml_angles` with the plan of :func:`_plan` computed once by the caller."""
    spec = freqs.spec
    factors, scale, mix, _ = plan
    theta_scale = _F(float(_F(spec.theta)) ** float(_F(-2.0) / _F(spec.rotary_dim)))
    theta = np.asarray(positions).astype(_F)
    out = np.empty((theta.size, factors.size), dtype=_F)
    for i in range(factors.size):
        extrap = theta / factors[i]
        interp = scale * extrap
        out[:, i] = interp * (_F(1) - mix[i]) + extrap * mix[i] if mix[i] else interp
        theta = theta * theta_scale
    return out


def ggml_cache_blocks(spec: CacheSpec) -> Iterator[np.ndarray]:
    """The cache as llama.cpp's CPU backend computes it, in row blocks (as ``cache_blocks``).

    Positions must be below 2^24 (ggml's float positions are exact up to there), and consecutive
    from ``start``: ggml takes no list of positions.
    """
    start, n = spec.start, spec.n
    if not isinstance(start, int | np.integer) or start < 0 or start + n > 1 << 24:
        raise ParameterError("start", "must be >= 0 with start + n <= 2^24 (llama.cpp)", start)
    plan = _plan(spec.freqs)

    def angles_of(a: int, b: int) -> np.ndarray:
        return _angles(spec.freqs, plan, np.arange(start + a, start + b))

    form = (spec.layout, spec.stored, spec.part)
    return float32_cache_blocks(angles_of, n, spec.pairs, plan[3], form, spec.rows)
