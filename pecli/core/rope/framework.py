"""What transformers computes for a RoPE cache: its float32 arithmetic, one rounding per step.

transformers 5 builds ``inv_freq`` in float32 (``torch.arange(0, dim, 2).float() / dim``, then
``base ** x`` and ``1.0 / …``, the scaling's steps each rounded to float32 with Python numbers
taken as float32), multiplies it by the float32 positions and takes cos and sin of those float32
angles, times the attention factor in float32. This module repeats those steps in NumPy, so a
cache shows what a framework computes beside pecli's exact one. Two steps are not torch's own
code: ``base ** x`` is rounded once from float64 (torch's CPU pow is within 1 ulp of it and
differs in a few pairs, e.g. 1 of 64 at θ = 10^6), and cos/sin are the float32 roundings of the
float64 ones (torch's are within 1 ulp). Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from ..errors import ParameterError
from .cache import BLOCK_CELLS
from .cache_spec import CacheSpec, check_positions_list
from .registry import RECORDS, record
from .spec import RopeSpec, check_spec, with_defaults

__all__ = [
    "ARITHMETICS",
    "FRAMEWORK_TYPES",
    "float32_cache_blocks",
    "framework_cache_blocks",
    "transformers_inv_freq",
]

#: How a cache is computed: exact (rounded once) or as transformers does in float32.
ARITHMETICS = ("exact", "transformers")
#: The rope types whose float32 steps are repeated here (their records' ``float32``), by name.
FRAMEWORK_TYPES = tuple(sorted(name for name, kind in RECORDS.items() if kind.float32))
_F = np.float32


def transformers_inv_freq(spec: RopeSpec) -> np.ndarray:
    """``inv_freq`` as transformers 5 computes it in float32 (``ROPE_INIT_FUNCTIONS``).

    Parameters
    ----------
    spec : RopeSpec
        A spec of one of :data:`FRAMEWORK_TYPES` (checked here: the float32 formulas read
        every field their type requires, with its defaults applied).

    Returns
    -------
    numpy.ndarray
        Shape ``(rotary_dim/2,)``, float32.

    Raises
    ------
    ParameterError
        (as ``arithmetic``) for another rope type; as :func:`~pecli.core.rope.spec.check_spec`
        for an invalid spec.

    References
    ----------
    transformers ``modeling_rope_utils.py``: ``_compute_default_rope_parameters``,
    ``_compute_linear_scaling_rope_parameters``, ``_compute_llama3_parameters``,
    ``_compute_yarn_parameters``.

    Examples
    --------
    >>> transformers_inv_freq(RopeSpec(theta=10000.0, head_dim=8))
    array([1.   , 0.1  , 0.01 , 0.001], dtype=float32)

    """
    kind = record(check_spec(spec).rope_type)
    if kind.float32 is None:
        rule = f"transformers' float32 steps are repeated for {', '.join(FRAMEWORK_TYPES)} only"
        raise ParameterError("arithmetic", rule, f"transformers with {spec.rope_type}")
    dim = spec.rotary_dim
    x = np.arange(0, dim, 2).astype(_F) / _F(dim)
    pos = np.power(float(spec.theta), x.astype(np.float64)).astype(_F)  # base ** x
    return kind.float32(with_defaults(spec), pos)


def framework_cache_blocks(spec: CacheSpec) -> Iterator[np.ndarray]:
    """The cache as transformers computes it, in row blocks (as :func:`.cache.cache_blocks`).

    ``spec.positions``: any ``n`` positions instead of ``start … start+n−1``, rounded to float32
    as ``position_ids.float()`` does.

    ``angle = float32(p) · inv_freq`` in float32 (:func:`transformers_inv_freq`), cos and sin
    of it rounded to float32, times the attention factor in float32 (``LlamaRotaryEmbedding``
    ``.forward``), then converted to ``dtype`` as ``.to(dtype)`` does (float64 exactly, float16
    and bfloat16 rounded from the float32 value).

    Examples
    --------
    >>> import math
    >>> from pecli.core.rope import rope_frequencies
    >>> freqs = rope_frequencies(RopeSpec(theta=500000.0, head_dim=4))
    >>> block = next(framework_cache_blocks(CacheSpec(freqs, 1, start=1000000, part="cos")))
    >>> exact = math.cos(1000000 / math.sqrt(500000.0))  # ω_1 = θ^(-1/2)
    >>> block.dtype, round(float(block[0, 1]) - exact, 7)  # the float32 angle's error
    (dtype('float32'), 2.93e-05)

    """
    start, n = spec.checked_start(), spec.n
    inv = transformers_inv_freq(spec.freqs.spec)
    where = None if spec.positions is None else check_positions_list(spec.positions, n, start)

    def angles_of(a: int, b: int) -> np.ndarray:  # exact positions: |start| + n <= 2^53
        p = np.arange(start + a, start + b, dtype=np.float64) if where is None else where[a:b]
        angles: np.ndarray = p.astype(_F)[:, None] * inv[None, :]
        return angles

    form = (spec.layout, spec.stored, spec.part)
    scale = _F(spec.freqs.attention_factor)
    return float32_cache_blocks(angles_of, n, inv.size, scale, form, spec.rows)


def float32_cache_blocks(
    angles_of: Callable[[int, int], np.ndarray],
    n: int,
    pairs: int,
    scale: np.float32,
    form: tuple[str, np.dtype, str],
    rows: int | None = None,
) -> Iterator[np.ndarray]:
    """A cache's row blocks from float32 angles, as a float32 framework finishes them.

    ``cos`` and ``sin`` of each float32 angle rounded to float32 (the float64 values rounded
    once, within 1 ulp of libm's ``cosf``/``sinf`` and torch's), times ``scale`` in float32
    when it is not 1, laid out as ``form = (layout, stored dtype, part)`` says (see
    :class:`.cache.CacheSpec`) and converted to the stored dtype. Shared by
    :func:`framework_cache_blocks` (transformers) and
    :func:`pecli.core.ports.ggml_cache.ggml_cache_blocks` (llama.cpp), which differ only in
    their angles.

    Parameters
    ----------
    angles_of : callable
        ``angles_of(a, b)``: the float32 angles of rows ``a … b−1``, ``(b − a, pairs)``.
    n, pairs : int
        Rows of the cache and pairs of a row (``rotary_dim/2``).
    scale : numpy.float32
        The attention factor, as the framework holds it.
    form : tuple
        ``(layout, stored, part)``: ``half-split`` or ``interleaved``, the output dtype,
        ``both``, ``cos`` or ``sin``.
    rows : int, optional
        Rows per block; by default about :data:`.cache.BLOCK_CELLS` angles a block.

    Yields
    ------
    numpy.ndarray
        ``(r, rotary_dim)`` blocks (``2·rotary_dim`` wide for ``both``: cos, then sin).

    Examples
    --------
    >>> form = ("half-split", np.dtype(np.float32), "cos")
    >>> next(float32_cache_blocks(lambda a, b: np.zeros((b - a, 1), _F), 2, 1, _F(1), form))
    array([[1., 1.],
           [1., 1.]], dtype=float32)

    """
    kind, stored, part = form
    names = ("cos", "sin") if part == "both" else (part,)
    step = rows or max(1, BLOCK_CELLS // max(pairs, 1))
    for row in range(0, n, step):
        angles = angles_of(row, min(row + step, n)).astype(np.float64)
        parts = []
        for name in names:
            values = (np.cos(angles) if name == "cos" else np.sin(angles)).astype(_F)
            values = values * scale if scale != 1 else values
            parts += [values, values] if kind == "half-split" else [np.repeat(values, 2, axis=1)]
        yield np.concatenate(parts, axis=1).astype(stored)
