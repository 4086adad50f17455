"""xPos: the per-pair, per-position scales on top of rotary embeddings (docs/zoo.md#xpos).

xPos (Sun et al., 2022) multiplies rotary pair ``i`` of the query at position ``t`` by
``ζ_i^((t − c)/γ)`` and of the key by its inverse, with ``ζ_i = (2i + 0.4·d)/(1.4·d)`` (``d``
the head width, pairs ``i = 0 … d/2−1``) and ``γ`` the ``scale_base`` (512). The product of a
query and a key scale is ``ζ_i^((t_q − t_k)/γ)``, a decay in the distance; the centre ``c``
only keeps the numbers in range, and it depends on the length of the sequence:

* torchscale's ``XPOS.forward`` builds positions ``min_pos … min_pos + L + offset − 1`` with
  ``min_pos = -(L + offset) // 2`` (Python's floor division of the negated length, so
  ``c = ceil((L + offset)/2)``) and keeps the last ``L``;
* rotary-embedding-torch's ``get_scale`` uses ``(t − len(t) // 2)/scale_base`` over
  ``t = 0 … L−1``: ``c = floor(L/2)``. For an odd length the two centres differ by one.

Both repeat each pair's scale over its two channels (interleaved pairs). Versions 0.2.0 to
0.7.0 of rotary-embedding-torch (December 2022 to September 2024) concatenated the scales
instead (``torch.cat((scale, scale), -1)``: the half-split order) while rotating interleaved
pairs, so the two channels of a pair got different scales; 0.8.0 fixed it
(``layout="half-split"`` builds that order).

References
----------
.. [1] Y. Sun et al., "A Length-Extrapolatable Transformer", ACL 2023 (arXiv:2212.10554), §3.
.. [2] torchscale 0.3.0: ``torchscale/component/xpos_relative_position.py``, ``XPOS``.
.. [3] rotary-embedding-torch 0.9.1: ``RotaryEmbedding.get_scale`` (``use_xpos=True``).

"""

from __future__ import annotations

import numpy as np

from ..certificate import TALLY, ErrorBound, power_exact, round_certified
from ..certificate.bounds import UNIT_ROUNDOFF
from ..dtypes import FLOAT_DTYPES, float_dtype, round_once
from ..errors import ParameterError
from ..rules import as_int

__all__ = [
    "CENTRES",
    "MAX_XPOS_VALUES",
    "xpos_largest_scale",
    "xpos_pair_bases",
    "xpos_positions",
    "xpos_scales",
]

#: How each library centres the positions: ``ceil((L + offset)/2)`` or ``floor(L/2)``.
CENTRES = ("torchscale", "lucidrains")
#: Largest table, in values: it is built whole in memory.
MAX_XPOS_VALUES = 1 << 26


def xpos_pair_bases(head_dim: int) -> np.ndarray:
    """The base ``ζ_i = (2i + 0.4·d)/(1.4·d)`` of each rotary pair ``i = 0 … d/2 − 1``.

    Parameters
    ----------
    head_dim : int
        The head width ``d``: even, 2 to 65536.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(d/2,)``, rising from 2/7 towards 1.

    Examples
    --------
    >>> xpos_pair_bases(8).round(6).tolist()
    [0.285714, 0.464286, 0.642857, 0.821429]

    """
    d = as_int(head_dim)
    if d is None or not 2 <= d <= 1 << 16 or d % 2:
        raise ParameterError("head_dim", "must be an even integer from 2 to 65536", head_dim)
    return (np.arange(0, d, 2, dtype=np.float64) + 0.4 * d) / (1.4 * d)


def xpos_positions(n: int, *, offset: int = 0, centre: str = "torchscale") -> np.ndarray:
    """The centred positions ``t + offset − c`` of ``n`` rows, as each library centres them.

    ``torchscale``: ``c = ceil((n + offset)/2)`` over the ``n + offset`` positions of which the
    last ``n`` are kept; ``lucidrains``: ``c = floor(n/2)``, no offset (rotary-embedding-torch's
    ``rotate_queries_and_keys`` has none).

    Examples
    --------
    >>> xpos_positions(5).tolist(), xpos_positions(5, centre="lucidrains").tolist()
    ([-3, -2, -1, 0, 1], [-2, -1, 0, 1, 2])

    """
    rows, shift = as_int(n), as_int(offset)
    if rows is None or not 1 <= rows <= 1 << 24:
        raise ParameterError("n", "must be an integer from 1 to 2^24", n)
    if shift is None or not 0 <= shift <= 1 << 30:
        raise ParameterError("offset", "must be an integer from 0 to 2^30", offset)
    if centre == "torchscale":
        low = -(rows + shift) // 2
        return np.arange(low + shift, low + shift + rows, dtype=np.int64)
    if centre == "lucidrains":
        if shift:
            raise ParameterError("offset", "is not taken by rotary-embedding-torch's xPos", offset)
        return np.arange(rows, dtype=np.int64) - rows // 2
    raise ParameterError("centre", f"must be one of {', '.join(CENTRES)}", centre)


def xpos_scales(
    n: int,
    head_dim: int,
    *,
    scale_base: float = 512.0,
    offset: int = 0,
    centre: str = "torchscale",
    layout: str = "interleaved",
    keys: bool = False,
    dtype: str = "float64",
) -> np.ndarray:
    """The xPos scale of each (position, channel): queries ``ζ_i^(p/γ)``, keys its inverse.

    Parameters
    ----------
    n : int
        Rows (positions of the current sequence), 1 to 2^24.
    head_dim : int
        ``d``: even, 2 to 65536.
    scale_base : float, keyword-only
        ``γ``, > 0 (512 in both libraries).
    offset : int, keyword-only
        torchscale's ``offset`` (tokens before these rows, as in incremental decoding).
    centre : str, keyword-only
        ``torchscale`` or ``lucidrains`` (:func:`xpos_positions`).
    layout : str, keyword-only
        ``interleaved``: channels ``2i``, ``2i+1`` hold pair ``i`` (both libraries);
        ``half-split``: channel ``c`` holds pair ``c mod d/2`` (rotary-embedding-torch 0.2–0.7).
    keys : bool, keyword-only
        The keys' scales ``ζ_i^(−p/γ)`` (``downscale=True``) instead of the queries'.
    dtype : str, keyword-only
        ``float64`` (``exp(p·ln ζ_i / γ)``, within :func:`xpos_bound`), or ``float32``,
        ``float16``, ``bfloat16``: each value correctly rounded once to it under the
        certificate (:mod:`pecli.core.certificate`; bfloat16 through ``round_once``, not
        ml_dtypes' double rounding).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, head_dim)``, of ``dtype``.

    Raises
    ------
    ParameterError
        For a bad argument, named (``head_dim``, ``n``, ``scale_base``, ``offset``,
        ``centre``, ``layout``, ``dtype``).

    Examples
    --------
    >>> xpos_scales(2, 4, scale_base=1.0).round(4).tolist()  # positions -1, 0
    [[3.5, 3.5, 1.5556, 1.5556], [1.0, 1.0, 1.0, 1.0]]

    """
    zeta = xpos_pair_bases(head_dim)
    if not isinstance(scale_base, int | float) or not 0 < scale_base < float("inf"):
        raise ParameterError("scale_base", "must be a finite number > 0", scale_base)
    if layout not in ("interleaved", "half-split"):
        raise ParameterError("layout", "must be interleaved or half-split", layout)
    if dtype not in FLOAT_DTYPES:
        raise ParameterError("dtype", f"must be one of {', '.join(FLOAT_DTYPES)}", dtype)
    positions = xpos_positions(n, offset=offset, centre=centre)
    if positions.size * zeta.size * 2 > MAX_XPOS_VALUES:
        raise ParameterError("n", f"times head_dim {zeta.size * 2} must be at most 2^26", n)
    _check_no_zero_scale(positions, zeta, (float(scale_base), offset, keys), float_dtype(dtype))
    exponents, scales = _float64_scales(positions, zeta, scale_base, keys)
    if dtype != "float64":
        p = (-positions if keys else positions, float(scale_base))
        scales = _certified(scales, exponents, p, head_dim, float_dtype(dtype))
    table: np.ndarray = (
        np.repeat(scales, 2, axis=1) if layout == "interleaved" else np.tile(scales, (1, 2))
    )
    return table


def xpos_largest_scale(
    n: int,
    head_dim: int,
    *,
    scale_base: float = 512.0,
    offset: int = 0,
    centre: str = "torchscale",
    keys: bool = False,
) -> float:
    """The largest scale of :func:`xpos_scales`' float64 table, from its two end rows only.

    Each pair's scale ``exp(q·ln ζ_i)`` is monotone in the exponent ``q = ±p/γ``, so the
    largest lies in the first or the last row; those rows are computed as the table computes
    them, bit for bit (``inf`` past float64's range). It says which dtype holds a table
    without a second table in memory.

    Parameters
    ----------
    n, head_dim, scale_base, offset, centre, keys
        As for :func:`xpos_scales` (checked there).

    Returns
    -------
    float
        The largest value of the float64 table, or ``inf``.

    Examples
    --------
    >>> round(xpos_largest_scale(2, 4, scale_base=1.0), 12)  # position -1: (2/7)^-1
    3.5

    """
    positions = xpos_positions(n, offset=offset, centre=centre)
    return float(_end_scales(positions, xpos_pair_bases(head_dim), scale_base, keys).max())


def _end_scales(
    positions: np.ndarray, zeta: np.ndarray, scale_base: float, keys: bool
) -> np.ndarray:
    """The float64 scales of the first and last rows, which hold the table's extremes.

    ``exp(q·ln ζ_i)`` is monotone in ``q``; the rows come from :func:`_float64_scales`, so
    they are the table's own, bit for bit (``inf`` past float64's range, 0 below it).
    """
    ends = np.array([positions.min(), positions.max()])
    with np.errstate(over="ignore", under="ignore"):
        return _float64_scales(ends, zeta, scale_base, keys)[1]


def _check_no_zero_scale(
    positions: np.ndarray,
    zeta: np.ndarray,
    knobs: tuple[float, int, bool],
    dtype: np.dtype,
) -> None:
    """Refuse, before the table, a scale that rounds to 0 in ``dtype`` (never a zero scale).

    The extreme scales are the first pair's (``ζ_0 = 2/7``, the farthest from 1) in the first
    or the last row (:func:`_end_scales`), so two rows tell. A large
    ``offset`` moves every position far past the centre: ``(2/7)^(p/γ)`` is then below the
    dtype's smallest subnormal (``(2/7)^(2^29/512)`` is 10^-570) and the whole table would
    read 0. A table that also overflows is left to the overflow's refusal (``scale_base``).
    The rule names ``offset`` when one is given, else ``scale_base``, and offers a wider
    dtype that keeps the scales, as the overflow refusal does.
    """
    scale_base, offset, keys = knobs
    scales = _end_scales(positions, zeta, scale_base, keys)
    largest, smallest = scales.max(keepdims=True), scales.min(keepdims=True)
    with np.errstate(over="ignore"):
        if not np.isfinite(round_once(largest, dtype)[0]):  # the overflow's refusal, later
            return
    if round_once(smallest, dtype)[0] > 0:
        return
    wider = [
        name
        for name in ("float32", "float64")
        if np.dtype(name).itemsize > dtype.itemsize and round_once(smallest, np.dtype(name))[0] > 0
    ]
    also = f", or `dtype` {'/'.join(wider)}" if wider else ""
    cure = "a smaller `offset` or a larger `scale_base`" if offset else "a larger `scale_base`"
    rule = (
        f"must keep every scale above 0 in {dtype.name}: the first pair's rounds to 0 at "
        f"these positions ({cure}{also})"
    )
    if offset:
        raise ParameterError("offset", rule, offset)
    raise ParameterError("scale_base", rule, scale_base)


def _float64_scales(
    positions: np.ndarray, zeta: np.ndarray, scale_base: float, keys: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``q = ±p/γ`` per row and ``exp(q·ln ζ_i)`` per (row, pair), float64: the one formula."""
    exponents = (-1.0 if keys else 1.0) * positions / float(scale_base)
    return exponents, np.exp(np.outer(exponents, np.log(zeta)))


def xpos_bound(scales: np.ndarray, exponents: np.ndarray) -> ErrorBound:
    """The error bound of ``exp(q·ln ζ)`` in float64, per value (docs/exactness.md, xPos).

    ``ζ`` is within ``6u`` (relative) of ``(2i + 0.4d)/(1.4d)``, ``ln`` within 4 ulps, so
    ``|δ ln ζ| ≤ 7u + 9u·|ln ζ|``; ``q = fl(p/γ)`` within ``u·|q|``; their product ``y`` within
    ``|q|·7u + 11u·|y|``; ``exp`` within 4 ulps: ``|v − x| ≤ |v|·(8u + 1.01·δy)``, doubled,
    plus ``2^-1070`` for float64's subnormal steps; an overflowed (inf) scale is decided.
    """
    u = UNIT_ROUNDOFF
    y = np.log(np.abs(scales), where=scales > 0, out=np.zeros_like(scales))
    dy = np.abs(exponents)[:, None] * 7 * u + 11 * u * np.abs(y)
    e = 2 * np.abs(scales) * (8 * u + 1.01 * dy) + 2.0**-1070  # + float64's subnormal steps
    return ErrorBound(np.where(np.isfinite(scales), e, 0.0), 0.0, "xPos")  # inf: past float32


def _certified(
    scales: np.ndarray,
    exponents: np.ndarray,
    power: tuple[np.ndarray, float],
    d: int,
    dtype: np.dtype,
) -> np.ndarray:
    """The scales correctly rounded to ``dtype``: undecided ones recomputed exactly."""
    if not np.isfinite(scales).all():  # an overflow: refused by the caller, nothing to certify
        with np.errstate(over="ignore"):
            return round_once(scales, dtype)
    out = np.empty(scales.shape, dtype)
    numerators = np.arange(0, 10 * (d // 2), 10) + 2 * d  # ζ_i = (10i + 2d)/(7d), exactly

    def exact(flat: np.ndarray) -> np.ndarray:
        row, col = np.unravel_index(flat, scales.shape)
        bases = (numerators[col], np.full(flat.size, 7 * d))
        return power_exact(bases, (power[0][row], power[1]), dtype)

    with np.errstate(over="ignore", invalid="ignore"):  # inf: refused by the caller
        recomputed = round_certified(scales, xpos_bound(scales, exponents), out, exact)
    TALLY.add(checked=out.size, recomputed=recomputed)
    return out
