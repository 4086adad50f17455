"""ALiBi's argument rules: head counts, ``max_bias``, slope vectors, lengths and the size cap.

Each rule raises :class:`~pecli.core.errors.ParameterError` naming the parameter (never an
option); the library functions and the command line share them. Pure Python and NumPy.
"""

from __future__ import annotations

import numpy as np

from ...errors import ParameterError
from ...rules import as_int
from .records import ALIBI_CONVENTIONS, AlibiConvention, alibi_convention, names

__all__ = [
    "MAX_BIAS_VALUES",
    "MAX_HEADS",
    "MAX_KEYS",
    "check_bias",
    "check_heads",
    "check_lengths",
    "check_max_bias",
    "check_slopes",
]

#: Largest head count (far above any model's).
MAX_HEADS = 1 << 16
#: Largest bias tensor, in values (512 MiB of float64 when built whole in memory).
MAX_BIAS_VALUES = 1 << 26
#: Most key positions: every distance ``0 … 2^24 - 1`` fits float32's 24 significant bits.
MAX_KEYS = 1 << 24


def check_heads(n_heads: object) -> int:
    """Return the head count as an int; raise :class:`ParameterError` unless 1 to MAX_HEADS.

    >>> check_heads(12)
    12
    """
    value = as_int(n_heads)
    if value is None or not 1 <= value <= MAX_HEADS:
        raise ParameterError("heads", f"must be an integer from 1 to {MAX_HEADS}", n_heads)
    return value


def check_max_bias(max_bias: object) -> float:
    """Return ``max_bias`` as a float; raise :class:`ParameterError` unless > 0 and <= 1024.

    >>> check_max_bias(8)
    8.0
    """
    ok = isinstance(max_bias, int | float) and not isinstance(max_bias, bool)
    if not ok or not 0 < float(max_bias) <= 1024:  # type: ignore[arg-type]
        raise ParameterError("max_bias", "must be a number > 0 and <= 1024", max_bias)
    return float(max_bias)  # type: ignore[arg-type]


def check_slopes(slopes: object) -> np.ndarray:
    """The slopes as a float64 vector of 1 to MAX_HEADS finite numbers, or ParameterError.

    >>> check_slopes([0.5, 0.25]).tolist()
    [0.5, 0.25]
    """
    m = np.asarray(slopes, dtype=np.float64)
    if m.ndim != 1 or not 1 <= m.size <= MAX_HEADS or not np.isfinite(m).all():
        raise ParameterError("slopes", "must be a 1-D vector of finite numbers", f"shape {m.shape}")
    return m


def check_lengths(n_heads: int, n_key: object, n_query: object) -> tuple[int, int]:
    """``(k, q)``: the key and query counts, checked against each other and the size cap.

    ``n_query`` None is ``k``; ``n_heads · q · k`` must stay within :data:`MAX_BIAS_VALUES`.

    >>> check_lengths(8, 16, 4)
    (16, 4)
    """
    k = as_int(n_key)
    if k is None or not 1 <= k <= MAX_KEYS:
        raise ParameterError("n", "must be an integer from 1 to 2^24", n_key)
    q = k if n_query is None else as_int(n_query)
    if q is None or not 1 <= q <= k:
        raise ParameterError("queries", f"must be an integer from 1 to `n` ({k})", n_query)
    if n_heads * q * k > MAX_BIAS_VALUES:
        rule = f"with {n_heads} heads and {q} queries must keep the tensor within 2^26 values"
        raise ParameterError("n", rule, k)
    return k, q


def check_bias(
    n_heads: int, n_key: object, n_query: object, convention: str, attention_mask: object
) -> tuple[AlibiConvention, int, int]:
    """The convention's record, ``k`` and ``q`` (1 when key-only) of a bias tensor, checked.

    ``n_query`` applies to the matrices only, ``attention_mask`` (``k`` zeros and ones) to the
    conventions that take a mask; the whole tensor must stay within :data:`MAX_BIAS_VALUES`.

    >>> check_bias(8, 16, None, "mpt", None)[1:]
    (16, 1)
    """
    record = alibi_convention(convention)
    if record.key_only and n_query is not None:
        matrices = names([c for c in ALIBI_CONVENTIONS.values() if not c.key_only], "and")
        raise ParameterError("queries", f"applies to {matrices} only", n_query)
    k, q = check_lengths(n_heads, n_key, 1 if record.key_only else n_query)
    if attention_mask is not None and not record.takes_mask:
        masked = names([c for c in ALIBI_CONVENTIONS.values() if c.takes_mask], "and")
        raise ParameterError("attention_mask", f"applies to {masked} only", convention)
    if attention_mask is not None:
        mask = np.asarray(attention_mask)
        if mask.shape != (k,) or not np.isin(mask, (0, 1)).all():
            raise ParameterError("attention_mask", f"must be {k} zeros and ones", mask.shape)
    return record, k, q
