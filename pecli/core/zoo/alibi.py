"""ALiBi: the per-head slopes and the bias tensors of each library (docs/zoo.md#alibi).

Attention with Linear Biases adds ``-m_h · distance`` to head ``h``'s attention logits. The
slopes are a geometric series: for ``n`` heads and ``P = 2^floor(log2 n)``, head ``h`` (0-based)
has ``m_h = 2^(-b·(h+1)/P)`` for ``h < P`` and, for the ``n - P`` heads past the power of two,
every other slope of the doubled series, ``m_h = 2^(-b·(2(h-P)+1)/(2P))``; ``b`` is ggml's
``max_bias`` and MPT's ``alibi_bias_max`` (8 in the paper). Every slope is ``2^(-b·e_h)`` and
:func:`alibi_exponents` gives the ``e_h`` of the right series and of the wrong ones in use.

The bias tensors differ as tensors and agree after softmax (which ignores a constant added to
a row): the paper's causal ``-m·(i-j)``, the encoders' symmetric ``-m·|i-j|``, BLOOM's and
Falcon's key-only ``m·j`` and MPT's key-only signed distance ``m·(j - (k-1))``.

References
----------
.. [1] O. Press, N. A. Smith, M. Lewis, "Train Short, Test Long: Attention with Linear Biases
   Enables Input Length Extrapolation", ICLR 2022, §3 (``get_slopes`` in the authors'
   ``attention_with_linear_biases`` repository, fairseq/models/transformer.py).
.. [2] transformers: ``models/bloom/modeling_bloom.py`` (``_get_alibi_slopes``,
   ``build_alibi_tensor``), ``models/falcon/modeling_falcon.py`` (``build_alibi_tensor``,
   slopes cast to bfloat16), ``models/mpt/modeling_mpt.py`` (``build_mpt_alibi_tensor``).
.. [3] ggml: ``ggml_soft_max_ext`` with ``max_bias``: ``m0 = 2^(-max_bias/P)``,
   ``m1 = 2^(-max_bias/2/P)``, slope ``m0^(h+1)`` or ``m1^(2(h-P)+1)``.

"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..rules import as_int

__all__ = [
    "ALIBI_CONVENTIONS",
    "ALIBI_SERIES",
    "CONVENTIONS",
    "MAX_BIAS_VALUES",
    "MAX_HEADS",
    "VARIANTS",
    "AlibiConvention",
    "AlibiSeries",
    "alibi_bias",
    "alibi_exponents",
    "alibi_slopes",
    "check_max_bias",
]

#: Largest head count (far above any model's).
MAX_HEADS = 1 << 16
#: Largest bias tensor, in values (512 MiB of float64): it is built whole in memory.
MAX_BIAS_VALUES = 1 << 26


@dataclass(frozen=True)
class AlibiSeries:
    """One series of slopes ``m_h = 2^(-b·e_h)``: how its exponents ``e_h`` are made.

    ``exponents(h, p, n)`` takes the heads ``h = 0 … n-1`` (float64) and ``P = 2^floor(log2
    n)``; every exponent is a multiple of ``1/unit(p, n)``. ``summary`` says who uses it (the
    paper's) or what a port did wrong; ``aka`` names the libraries that write the right one in
    their own way.
    """

    name: str
    summary: str
    exponents: Callable[[np.ndarray, float, int], np.ndarray]
    unit: Callable[[int, int], int]
    right: bool = False
    aka: str = ""


@dataclass(frozen=True)
class AlibiConvention:
    """One library's bias tensor, built from the slopes ``m`` (docs/zoo.md#bias-tensors).

    A *matrix* convention is ``(h, q, k)``: ``-m·|i-j|`` over query ``i`` and key ``j``, with
    ``-inf`` above the diagonal when ``causal``. A *key-only* one is ``(h, 1, k)``, ``m`` times
    the key positions, which start at 0 on the first key (restarting after padding when it
    ``takes_mask``) or end at 0 on the last key (``zero_at_last_key``); ``bfloat16``: slopes,
    positions and products rounded to bfloat16 (Falcon's arithmetic).
    """

    name: str
    summary: str
    key_only: bool
    causal: bool = False
    takes_mask: bool = False
    zero_at_last_key: bool = False
    bfloat16: bool = False


def _press(h: np.ndarray, p: float, n: int) -> np.ndarray:
    return np.where(h < p, (h + 1) / p, (2 * (h - p) + 1) / (2 * p))


#: The slope series, by name: the right one first, then the wrong ones found in ports.
ALIBI_SERIES: dict[str, AlibiSeries] = {
    s.name: s
    for s in (
        AlibiSeries(
            "press",
            "the paper's rule (Press et al. get_slopes = MPT gen_slopes = ggml max_bias = BLOOM)",
            _press,
            lambda p, n: 2 * p,
            right=True,
            aka="the paper = MPT = ggml = BLOOM",
        ),
        AlibiSeries(
            "next-power-of-two",
            "WRONG: the first n slopes of 2^ceil(log2 n) heads "
            "(get_slopes_power_of_2(next power of two)[:n])",
            lambda h, p, n: (h + 1) / (p if p == n else 2 * p),
            lambda p, n: 2 * p,
        ),
        AlibiSeries(
            "geometric-at-n",
            "WRONG: the power-of-two formula at a head count that is none "
            "(get_slopes_power_of_2(n))",
            lambda h, p, n: (h + 1) / n,
            lambda p, n: n,
        ),
        AlibiSeries(
            "zero-based",
            "WRONG: the + 1 dropped, head 0 has slope 1",
            lambda h, p, n: np.where(h < p, h / p, (h - p) / p),
            lambda p, n: p,
        ),
    )
}
#: The bias tensors, by name: the (h, q, k) matrices, then the key-only (h, 1, k) rows.
ALIBI_CONVENTIONS: dict[str, AlibiConvention] = {
    c.name: c
    for c in (
        AlibiConvention(
            "causal",
            "causal -m·(i-j), -inf above the diagonal (the paper's figure)",
            key_only=False,
            causal=True,
        ),
        AlibiConvention(
            "symmetric", "symmetric -m·|i-j| (encoders; MPT with full=True)", key_only=False
        ),
        AlibiConvention(
            "bloom",
            "key-only m·j (transformers BLOOM build_alibi_tensor)",
            key_only=True,
            takes_mask=True,
        ),
        AlibiConvention(
            "falcon",
            "key-only m·j in bfloat16 (transformers Falcon build_alibi_tensor)",
            key_only=True,
            takes_mask=True,
            bfloat16=True,
        ),
        AlibiConvention(
            "mpt",
            "key-only m·(j-(k-1)), 0 on the last key (MPT build_mpt_alibi_tensor)",
            key_only=True,
            zero_at_last_key=True,
        ),
    )
}
#: The names of the series and of the bias tensors, in the registries' order.
VARIANTS = tuple(ALIBI_SERIES)
CONVENTIONS = tuple(ALIBI_CONVENTIONS)


def names(records: object, conjunction: str) -> str:
    """``a, b or c``: the names of some records, for a rule or a help text.

    >>> names([ALIBI_CONVENTIONS["bloom"], ALIBI_CONVENTIONS["falcon"]], "or")
    'bloom or falcon'
    """
    words: list[str] = [r.name for r in records]  # type: ignore[attr-defined]
    return ", ".join(words[:-1]) + f" {conjunction} " * (len(words) > 1) + words[-1]


def alibi_convention(name: str) -> AlibiConvention:
    """The record of a bias convention; raise :class:`ParameterError` for an unknown name."""
    if name not in ALIBI_CONVENTIONS:
        raise ParameterError("convention", f"must be one of {', '.join(CONVENTIONS)}", name)
    return ALIBI_CONVENTIONS[name]


def check_heads(n_heads: object) -> int:
    """Return the head count as an int; raise :class:`ParameterError` unless 1 to MAX_HEADS."""
    value = as_int(n_heads)
    if value is None or not 1 <= value <= MAX_HEADS:
        raise ParameterError("heads", f"must be an integer from 1 to {MAX_HEADS}", n_heads)
    return value


def check_max_bias(max_bias: object) -> float:
    """Return ``max_bias`` as a float; raise :class:`ParameterError` unless > 0 and <= 1024."""
    ok = isinstance(max_bias, int | float) and not isinstance(max_bias, bool)
    if not ok or not 0 < float(max_bias) <= 1024:  # type: ignore[arg-type]
        raise ParameterError("max_bias", "must be a number > 0 and <= 1024", max_bias)
    return float(max_bias)  # type: ignore[arg-type]


def alibi_exponents(n_heads: int, variant: str = "press") -> np.ndarray:
    """The exponents ``e_h`` of the slopes ``m_h = 2^(-b·e_h)``, head by head.

    Parameters
    ----------
    n_heads : int
        Number of heads ``n``, 1 to :data:`MAX_HEADS`.
    variant : str
        ``press``: the paper's rule (= MPT, ggml, BLOOM): ``(h+1)/P`` for ``h < P = 2^floor(log2
        n)``, then ``(2(h-P)+1)/(2P)``. The wrong ones: ``next-power-of-two`` (the first ``n``
        slopes of ``2^ceil(log2 n)`` heads: ``(h+1)/2^ceil(log2 n)``), ``geometric-at-n`` (the
        power-of-two formula at any ``n``: ``(h+1)/n``) and ``zero-based`` (the ``+ 1``
        dropped: head 0 has slope 1; ``h/P``, then ``(h-P)/P``).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n,)``; exact for every ``n`` (``P`` is a power of two).

    Examples
    --------
    >>> alibi_exponents(12).tolist()  # 8 heads' series, then every other of 16 heads'
    [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 0.0625, 0.1875, 0.3125, 0.4375]

    """
    n = check_heads(n_heads)
    if variant not in ALIBI_SERIES:
        raise ParameterError("variant", f"must be one of {', '.join(VARIANTS)}", variant)
    h = np.arange(n, dtype=np.float64)
    p = float(1 << (n.bit_length() - 1))  # 2^floor(log2 n)
    exponents: np.ndarray = ALIBI_SERIES[variant].exponents(h, p, n)
    return exponents


def alibi_slopes(
    n_heads: int, *, max_bias: float = 8.0, variant: str = "press", dtype: str = "float64"
) -> np.ndarray:
    """The ALiBi slope of each head, ``m_h = 2^(-max_bias·e_h)`` (:func:`alibi_exponents`).

    Parameters
    ----------
    n_heads : int
        Number of heads, 1 to :data:`MAX_HEADS`.
    max_bias : float, keyword-only
        ``b``: ggml's ``max_bias``, MPT's ``alibi_bias_max``; 8 in the paper. ``> 0``, ``<= 1024``.
    variant : str, keyword-only
        The series (:data:`VARIANTS`); ``press`` is the paper's, MPT's, ggml's and BLOOM's.
    dtype : str, keyword-only
        ``float64`` or ``float32``.

    Returns
    -------
    numpy.ndarray
        ``dtype``, shape ``(n_heads,)``: each exact slope rounded once, by an error bound
        (:mod:`.alibi_powers`; libraries compute them in float32, ``torch.pow(base, powers)``: up to
        11 ulps off).

    Raises
    ------
    ParameterError
        A slope below ``dtype``'s normal range (as ``max_bias``; 0 or a subnormal would lose it).

    Examples
    --------
    >>> np.log2(alibi_slopes(12)).round(12).tolist()
    [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -0.5, -1.5, -2.5, -3.5]
    >>> [round(float(m), 6) for m in alibi_slopes(32)[:3]]
    [0.840896, 0.707107, 0.594604]

    """
    from .alibi_powers import rounded_slopes

    n, b = check_heads(n_heads), check_max_bias(max_bias)
    exponents = alibi_exponents(n, variant)
    unit = ALIBI_SERIES[variant].unit(1 << (n.bit_length() - 1), n)  # e_h = k_h / unit
    return rounded_slopes(b, unit, np.rint(exponents * unit).astype(np.int64).tolist(), dtype)


def _check_slopes(slopes: object) -> np.ndarray:
    m = np.asarray(slopes, dtype=np.float64)
    if m.ndim != 1 or not 1 <= m.size <= MAX_HEADS or not np.isfinite(m).all():
        raise ParameterError("slopes", "must be a 1-D vector of finite numbers", f"shape {m.shape}")
    return m


def _key_positions(n_key: int, attention_mask: object) -> np.ndarray:
    """BLOOM's ``(attention_mask.cumsum(-1) - 1) * attention_mask``: 0, 1, … on kept keys."""
    if attention_mask is None:
        return np.arange(n_key, dtype=np.float64)
    mask = np.asarray(attention_mask)
    if mask.shape != (n_key,) or not np.isin(mask, (0, 1)).all():
        raise ParameterError("attention_mask", f"must be {n_key} zeros and ones", mask.shape)
    kept = mask.astype(np.int64)
    positions: np.ndarray = ((np.cumsum(kept) - 1) * kept).astype(np.float64)
    return positions


def _bfloat16(values: np.ndarray) -> np.ndarray:
    from ..dtypes import float_dtype, round_once

    return round_once(values, float_dtype("bfloat16")).astype(np.float64)


def _check_lengths(n_heads: int, n_key: object, n_query: object) -> tuple[int, int]:
    k = as_int(n_key)
    if k is None or not 1 <= k <= 1 << 24:
        raise ParameterError("n", "must be an integer from 1 to 2^24", n_key)
    q = k if n_query is None else as_int(n_query)
    if q is None or not 1 <= q <= k:
        raise ParameterError("queries", f"must be an integer from 1 to `n` ({k})", n_query)
    if n_heads * q * k > MAX_BIAS_VALUES:
        rule = f"with {n_heads} heads and {q} queries must keep the tensor within 2^26 values"
        raise ParameterError("n", rule, k)
    return k, q


def alibi_bias(
    slopes: object,
    n_key: int,
    *,
    n_query: int | None = None,
    convention: str = "causal",
    attention_mask: object = None,
) -> np.ndarray:
    """The ALiBi bias tensor of one convention, as the library builds it.

    Parameters
    ----------
    slopes : array_like
        The slopes ``m_h``, shape ``(h,)`` (:func:`alibi_slopes`).
    n_key : int
        Key positions ``k`` (0 … k-1), 1 to 2^24.
    n_query : int, optional, keyword-only
        Query rows of ``causal`` and ``symmetric`` (the last ``q`` positions, as in decoding
        with a cache); default ``k``.
    convention : str, keyword-only
        ``causal``: ``-m·(i-j)`` for ``j <= i``, ``-inf`` above (the paper's figure);
        ``symmetric``: ``-m·|i-j|`` (encoders; MPT with ``full=True``); ``bloom``: ``m·j``
        over key positions ``j`` (BLOOM's ``build_alibi_tensor``); ``falcon``: BLOOM's tensor
        with slopes and positions rounded to bfloat16 and the product rounded to bfloat16
        (Falcon multiplies ``slopes.bfloat16()`` by the int64 positions in bfloat16);
        ``mpt``: ``m·(j-(k-1))``, 0 on the last key (``build_mpt_alibi_tensor``).
    attention_mask : array_like, optional, keyword-only
        ``bloom`` / ``falcon`` only: ``k`` zeros and ones; positions restart after padding as
        ``(cumsum(mask) - 1) · mask``.

    Returns
    -------
    numpy.ndarray
        float64: shape ``(h, q, k)`` for ``causal`` / ``symmetric``, ``(h, 1, k)`` otherwise.

    Raises
    ------
    ParameterError
        For a bad convention, length, mask, or more than :data:`MAX_BIAS_VALUES` values.

    Examples
    --------
    >>> alibi_bias([0.5], 3)[0].tolist()
    [[0.0, -inf, -inf], [-0.5, 0.0, -inf], [-1.0, -0.5, 0.0]]
    >>> alibi_bias([0.5], 3, convention="mpt")[0].tolist()
    [[-1.0, -0.5, 0.0]]

    """
    m = _check_slopes(slopes)
    record = alibi_convention(convention)
    if record.key_only and n_query is not None:
        matrices = names([c for c in ALIBI_CONVENTIONS.values() if not c.key_only], "and")
        raise ParameterError("queries", f"applies to {matrices} only", n_query)
    k, q = _check_lengths(m.size, n_key, 1 if record.key_only else n_query)
    if attention_mask is not None and not record.takes_mask:
        masked = names([c for c in ALIBI_CONVENTIONS.values() if c.takes_mask], "and")
        raise ParameterError("attention_mask", f"applies to {masked} only", convention)
    if not record.key_only:
        i = np.arange(k - q, k, dtype=np.float64)[:, None]
        distance = i - np.arange(k, dtype=np.float64)[None, :]
        bias = -(m[:, None, None] * np.abs(distance)) + 0.0  # + 0.0: no -0.0 on the diagonal
        if record.causal:
            bias[:, distance < 0] = -math.inf
        return bias
    positions = _key_positions(k, attention_mask)
    if record.zero_at_last_key:
        positions = positions - (k - 1)
    if record.bfloat16:
        return _bfloat16(_bfloat16(m)[:, None, None] * _bfloat16(positions))
    rows: np.ndarray = m[:, None, None] * positions
    return rows
