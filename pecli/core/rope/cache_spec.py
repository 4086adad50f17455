"""What a rope cache is: its positions, the pair layout (by any framework's name), dtype, part.

:class:`CacheSpec` holds them, checked once, for every cache function: the exact one
(:mod:`.cache`), transformers' float32 steps (:mod:`.framework`) and llama.cpp's loop
(:mod:`pecli.core.ports.ggml_cache`). Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

from ..errors import ParameterError
from ..rules import MAX_POSITION, PositionRangeError, check_n, check_table_dtype
from .frequencies import RopeFrequencies

__all__ = ["LAYOUT_ALIASES", "PARTS", "CacheSpec", "check_positions_list", "rope_layout"]

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


@dataclass(frozen=True, eq=False)
class CacheSpec:
    """One rope cache: the frequencies, the rows' positions, the layout, dtype and part.

    Every cache function takes one (:func:`cache_blocks`, :func:`rope_cache`,
    :func:`pecli.core.rope.framework.framework_cache_blocks`,
    :func:`pecli.core.ports.ggml_cache.ggml_cache_blocks`), so the arguments are written and
    checked once: ``n``, ``layout``, ``dtype``, ``part`` and ``rows`` when the spec is made
    (the layout made canonical, the dtype a :class:`numpy.dtype`); ``start`` and
    ``positions`` by the function, whose arithmetic decides which positions it can take.

    Attributes
    ----------
    freqs : RopeFrequencies
        From :func:`pecli.core.rope.rope_frequencies`.
    n : int
        Number of positions (rows), >= 1.
    start : int
        First position (transformers' ``position_ids`` start at 0).
    layout : str
        ``half-split`` (``[c_0 … c_{h−1}, c_0 … c_{h−1}]``, transformers' ``rotate_half``) or
        ``interleaved`` (``[c_0, c_0, c_1, c_1, …]``, GPT-J / Meta), or an alias
        (:data:`LAYOUT_ALIASES`); held canonical.
    dtype : numpy.dtype
        float32, float64, float16 or bfloat16: values are computed in float64 and rounded
        once (bfloat16 is ``ml_dtypes.bfloat16``).
    part : str
        ``both`` (cos columns, then sin columns), ``cos`` or ``sin``.
    positions : numpy.ndarray or None
        Any ``n`` finite positions instead of ``start … start+n−1`` (fractional, negative, in
        any order), each angle the exact product of the position's float64 value and the
        exact frequency.
    rows : int or None
        Rows per streamed block (None: about a million values).
    reuse : int
        k >= 1: blocks are views of k buffers taken in turn
        (:func:`pecli.core.threads.block_buffers`); 0: fresh arrays.

    Raises
    ------
    ParameterError
        Unknown layout or part, ``n < 1``, a dtype not in
        :data:`~pecli.core.dtypes.TABLE_DTYPES`, ``rows < 1``.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 2, layout="gptj")
    >>> spec.layout, spec.dtype, spec.width
    ('interleaved', dtype('float32'), 8)

    """

    freqs: RopeFrequencies
    n: int
    start: int = 0
    layout: str = "half-split"
    dtype: DTypeLike = np.float32
    part: str = "both"
    positions: np.ndarray | Sequence[float] | None = None
    rows: int | None = None
    reuse: int = 0

    def __post_init__(self) -> None:
        n, kind, stored = _check_cache_args(self.n, self.layout, self.dtype, self.part, self.rows)
        for name, value in (("n", n), ("layout", kind), ("dtype", stored)):
            object.__setattr__(self, name, value)

    @property
    def stored(self) -> np.dtype:
        """The output dtype, as a :class:`numpy.dtype`."""
        return np.dtype(self.dtype)

    @property
    def pairs(self) -> int:
        """``h = rotary_dim/2``, the rotary pairs of a row."""
        return int(self.freqs.inv_freq.size)

    @property
    def width(self) -> int:
        """Columns of a block: ``rotary_dim``, twice that for ``both``."""
        return 2 * self.pairs * (2 if self.part == "both" else 1)

    def names(self) -> tuple[str, ...]:
        """The parts side by side in a row: ``("cos", "sin")`` for ``both``, else the part."""
        return ("cos", "sin") if self.part == "both" else (self.part,)

    def checked_start(self) -> int:
        """``start`` as an int, with ``|start| + n <= 2^53`` (exact float64 positions)."""
        if not isinstance(self.start, int | np.integer) or abs(self.start) + self.n > MAX_POSITION:
            rule = "must be an integer with |start| + n <= 2^53"
            raise PositionRangeError("start", rule, self.start)
        return int(self.start)


def _check_cache_args(
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
