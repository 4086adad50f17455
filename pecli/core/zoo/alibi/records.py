"""ALiBi's registries: one record per slope series and per bias tensor (docs/zoo.md#alibi).

Everything else derives from them: the command line's choices and help lists, the reports'
descriptions, how ``alibi identify`` reads a tensor back, and the two tables of docs/zoo.md
(``tests/house/test_registries.py``). Pure Python and NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError

__all__ = [
    "ALIBI_CONVENTIONS",
    "ALIBI_SERIES",
    "CONVENTIONS",
    "VARIANTS",
    "AlibiConvention",
    "AlibiSeries",
    "alibi_convention",
    "alibi_series",
    "names",
]


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


def names(records: Iterable[AlibiSeries | AlibiConvention], conjunction: str) -> str:
    """``a, b or c``: the names of some records, for a rule or a help text.

    >>> names([ALIBI_CONVENTIONS["bloom"], ALIBI_CONVENTIONS["falcon"]], "or")
    'bloom or falcon'
    """
    words = [r.name for r in records]
    return ", ".join(words[:-1]) + f" {conjunction} " * (len(words) > 1) + words[-1]


def alibi_convention(name: str) -> AlibiConvention:
    """The record of a bias convention; raise :class:`ParameterError` for an unknown name."""
    if name not in ALIBI_CONVENTIONS:
        raise ParameterError("convention", f"must be one of {', '.join(CONVENTIONS)}", name)
    return ALIBI_CONVENTIONS[name]


def alibi_series(name: str) -> AlibiSeries:
    """The record of a slope series; raise :class:`ParameterError` for an unknown name."""
    if name not in ALIBI_SERIES:
        raise ParameterError("variant", f"must be one of {', '.join(VARIANTS)}", name)
    return ALIBI_SERIES[name]
