"""Which ALiBi made a slope vector or a bias tensor: heads, max_bias, series and convention.

A slope vector is ``m_h = 2^(-b·e_h)``: for each series of :data:`~pecli.core.zoo.alibi.VARIANTS`
the exponents ``e_h`` are known, ``b`` is fitted by least squares on ``log2 m`` and the series
whose rebuilt slopes agree best (relative error within the data's precision) wins. A bias
tensor is first read as each convention: its slopes are the values at distance 1, the tensor
is rebuilt from them in that convention's own arithmetic (Falcon's bfloat16 products
included) and the convention that rebuilds it best wins. See docs/zoo.md#identifying-alibi.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...core.dtypes import exact_in
from ...core.errors import ParameterError
from ...core.zoo.alibi import (
    ALIBI_CONVENTIONS,
    ALIBI_SERIES,
    CONVENTIONS,
    VARIANTS,
    alibi_bias,
    alibi_exponents,
    check_max_bias,
)

__all__ = ["BiasFit", "SlopeFit", "identify_alibi_bias", "identify_alibi_slopes"]

#: Relative agreement of a series or tensor computed in float32 or float64.
FLOAT_TOLERANCE = 1e-5
#: … and of one rounded to bfloat16 (8 significand bits: rounding moves a value by <= 2^-8).
BFLOAT16_TOLERANCE = 2.0**-7
#: Values at or below this are a mask (HF uses ``torch.finfo(dtype).min``), like ``-inf``.
MASKED = -1e30


@dataclass(frozen=True)
class SlopeFit:
    """The best series for a slope vector, and how well each series fits.

    ``also`` holds the other series that fit as well, with their ``max_bias`` (for a power-of-two
    head count every series but ``zero-based`` is the same one).
    """

    heads: int
    max_bias: float
    variant: str
    error: float
    tolerance: float
    bfloat16: bool
    errors: dict[str, float] = field(default_factory=dict)
    also: dict[str, float] = field(default_factory=dict)
    out_of_range: tuple[str, ...] = ()  # series whose fitted max_bias no series is made with

    @property
    def matched(self) -> bool:
        """The best series rebuilds every slope within :attr:`tolerance`, at a valid max_bias.

        Valid: one ``pecli alibi slopes`` takes (> 0, <= 1024; any, when every exponent is 0).
        """
        return self.error <= self.tolerance and self.variant not in self.out_of_range

    def report(self, *, alone: bool = True) -> dict[str, Any]:
        """The reading as plain data (``pecli alibi identify --json``); ``kind`` when alone."""
        return {
            **({"kind": "slopes"} if alone else {}),
            "heads": self.heads,
            "max_bias": self.max_bias,
            "max_bias_in_range": self.variant not in self.out_of_range,
            "series": self.variant,
            "wrong": not ALIBI_SERIES[self.variant].right,
            "matched": self.matched,
            "relative_error": self.error,
            "tolerance": self.tolerance,
            "bfloat16": self.bfloat16,
            "also": self.also,
        }


@dataclass(frozen=True)
class BiasFit:
    """The best convention for a bias tensor, its slopes and their :class:`SlopeFit`."""

    convention: str
    shape: tuple[int, ...]
    slopes: np.ndarray
    error: float
    tolerance: float
    slope_fit: SlopeFit
    errors: dict[str, float] = field(default_factory=dict)
    left_padding: int = 0
    #: BLOOM's ``(batch·heads, 1, keys)``: the batch size and each sequence's padded keys.
    batch: int = 1
    batch_padding: tuple[int, ...] = ()

    @property
    def matched(self) -> bool:
        """The convention rebuilds the tensor within :attr:`tolerance` and the slopes fit."""
        return self.error <= self.tolerance and self.slope_fit.matched

    def report(self) -> dict[str, Any]:
        """The reading as plain data (``pecli alibi identify --json``), its slopes' inside."""
        return {
            "kind": "bias",
            "shape": self.shape,
            "convention": self.convention,
            "left_padding": self.left_padding,
            **self._batch_report(),
            "matched": self.matched,
            "relative_error": self.error,
            "tolerance": self.tolerance,
            "slopes": self.slopes.tolist(),
            "slope_fit": self.slope_fit.report(alone=False),
        }

    def _batch_report(self) -> dict[str, Any]:
        """``batch`` and each sequence's padded keys, for a ``(batch·heads, 1, keys)`` tensor."""
        if self.batch == 1:
            return {}
        return {"batch": self.batch, "batch_padding": list(self.batch_padding)}


def _is_bfloat16(values: np.ndarray) -> bool:
    """Every finite value is a bfloat16 number (:func:`pecli.core.dtypes.exact_in`)."""
    seen = False
    for _, block in _head_blocks(values.reshape(1, -1) if values.ndim < 2 else values):
        finite = block[np.isfinite(block)]
        if finite.size and not exact_in(finite, "bfloat16"):
            return False
        seen = seen or bool(finite.size)
    return seen


#: Values per block of heads a tensor is read in (8 MB of float64), at least one head.
BLOCK_VALUES = 1 << 20


def _head_blocks(t: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``(first head, float64 block)`` of a tensor read a block of heads at a time."""
    step = max(1, BLOCK_VALUES // max(1, t[0].size)) if t.shape[0] else 1
    for h in range(0, max(t.shape[0], 1), step):  # no heads: one empty block
        yield h, t[h : h + step].astype(np.float64)


def _fit_series(log2m: np.ndarray, e: np.ndarray, tolerance: float) -> tuple[float, float]:
    """``b`` fitted to ``log2 m = -b·e`` and the largest relative error of the rebuilt slopes.

    ``b`` is snapped to the coarsest of 1, 1/2, … 1/64 that fits within ``tolerance / 2`` (or
    as well as the least-squares ``b``), so that 8 reads as 8, not 7.9999993.
    """
    if not (e > 0).any():
        return 0.0, float(np.abs(np.exp2(log2m) - 1).max())
    b = float(-(log2m @ e) / (e @ e))
    error = float(np.abs(np.exp2(log2m + b * e) - 1).max())
    for grid in (1, 2, 4, 8, 16, 32, 64):
        snapped = round(b * grid) / grid
        snapped_error = float(np.abs(np.exp2(log2m + snapped * e) - 1).max())
        if snapped_error <= max(tolerance / 2, 2 * error):
            return snapped, snapped_error
    return b, error


def _nice(b: float) -> bool:
    return b * 4 == round(b * 4)


def identify_alibi_slopes(slopes: object, *, bfloat16: bool | None = None) -> SlopeFit:
    """Head count, ``max_bias`` and series of a slope vector (head 0 first).

    Parameters
    ----------
    slopes : array_like
        Positive finite slopes, shape ``(n,)``.
    bfloat16 : bool, optional, keyword-only
        Whether the slopes were rounded to bfloat16 (Falcon); default: they were if every slope
        is a bfloat16 number and the float32 tolerance is not met.

    Examples
    --------
    >>> from pecli.core.zoo.alibi import alibi_slopes
    >>> fit = identify_alibi_slopes(alibi_slopes(12, variant="next-power-of-two"))
    >>> fit.variant, fit.max_bias, fit.matched
    ('next-power-of-two', 8.0, True)

    """
    m = np.asarray(slopes, dtype=np.float64).reshape(-1)
    if not m.size or not np.isfinite(m).all() or (m <= 0).any():
        raise ParameterError("x", "must hold positive finite ALiBi slopes", f"shape {m.shape}")
    if bfloat16 is None:
        press = _fit_series(np.log2(m), alibi_exponents(m.size), FLOAT_TOLERANCE)[1]
        bfloat16 = _is_bfloat16(m) and press > FLOAT_TOLERANCE
    tolerance = BFLOAT16_TOLERANCE if bfloat16 else FLOAT_TOLERANCE
    exponents = {v: alibi_exponents(m.size, v) for v in VARIANTS}
    fits = {v: _fit_series(np.log2(m), exponents[v], tolerance) for v in VARIANTS}
    outside = tuple(v for v in VARIANTS if exponents[v].any() and not _made(fits[v][0]))

    def rank(v: str) -> tuple[bool, bool, float, int]:  # fitting, then a round max_bias first
        b, err = fits[v]
        bad = err > tolerance or v in outside
        return bad, not _nice(b), err if err > tolerance else 0.0, VARIANTS.index(v)

    best = min(VARIANTS, key=rank)
    others = {v: fits[v][0] for v in VARIANTS if v != best and not rank(v)[0]}
    return SlopeFit(
        heads=m.size,
        max_bias=fits[best][0],
        variant=best,
        error=fits[best][1],
        tolerance=tolerance,
        bfloat16=bfloat16,
        errors={v: e for v, (_, e) in fits.items()},
        also=others,
        out_of_range=outside,
    )


def _made(max_bias: float) -> bool:
    """A max_bias :func:`pecli.core.zoo.alibi.alibi_slopes` takes (> 0, <= 1024)."""
    try:
        check_max_bias(max_bias)
    except ParameterError:
        return False
    return True


def _as_heads(tensor: np.ndarray) -> np.ndarray:
    """The tensor as ``(h, q, k)``: leading size-1 axes dropped; a 2-D square = one head."""
    t = tensor
    while t.ndim > 3 and t.shape[0] == 1:
        t = t[0]
    if t.ndim == 2:
        square = t.shape[0] == t.shape[1] and bool((t.diagonal() == 0).all())
        t = t[None] if square else t[:, None, :]
    if t.ndim != 3 or t.shape[-1] < 2:
        rule = "must be an ALiBi bias: (heads, queries, keys) or (heads, 1, keys), keys >= 2"
        raise ParameterError("x", rule, f"shape {tensor.shape}")
    return t


def _left_padding(t: np.ndarray) -> int:
    """BLOOM's padded keys: the zeros before position 1 (-1 when the row does not start so)."""
    nonzero = np.flatnonzero(t[0, 0] != 0)
    return int(nonzero[0]) - 1 if nonzero.size else -1


def _slopes_of(t: np.ndarray, convention: str) -> np.ndarray:
    """The slopes a convention puts at distance 1 (h, q, k) → (h,).

    A key-only row is ``m`` times key positions that are 0 on the first key after the padding
    (BLOOM) or on the last key (MPT): the two keys nearest that 0 differ by ``m`` exactly.
    """
    q, k = t.shape[1:]
    record = ALIBI_CONVENTIONS[convention]
    slopes: np.ndarray
    f = np.float64
    if record.zero_at_last_key:
        slopes = t[:, 0, k - 1].astype(f) - t[:, 0, k - 2].astype(f)
    elif record.key_only:
        pad = max(_left_padding(t), 0) if record.takes_mask else 0
        ok = pad + 1 < k
        slopes = t[:, 0, pad + 1].astype(f) - t[:, 0, pad].astype(f) if ok else np.zeros(len(t))
    else:  # the last query at distance 1 (causal and symmetric)
        slopes = -t[:, q - 1, k - 2].astype(f)
    return slopes


def _rebuild(t: np.ndarray, convention: str, m: np.ndarray, pad: int) -> np.ndarray:
    """The heads of ``m`` rebuilt; ``pad``: the whole tensor's :func:`_left_padding`."""
    q, k = t.shape[1:]
    record = ALIBI_CONVENTIONS[convention]
    if record.takes_mask:
        mask = None if pad <= 0 else [0] * pad + [1] * (k - pad)
        return alibi_bias(m, k, convention=convention, attention_mask=mask)
    return alibi_bias(m, k, n_query=None if record.key_only else q, convention=convention)


def _rebuild_error(t: np.ndarray, convention: str) -> float:
    """Largest per-head relative difference between ``t`` and its rebuild in ``convention``.

    Read and rebuilt a block of heads at a time (each head's error is its own).
    """
    q = t.shape[1]
    if ALIBI_CONVENTIONS[convention].key_only != (q == 1):
        return float("inf")
    m = _slopes_of(t, convention)
    if not np.isfinite(m).all() or (m <= 0).any():
        return float("inf")
    pad = _left_padding(t) if ALIBI_CONVENTIONS[convention].takes_mask else 0
    ratios = []
    for h, block in _head_blocks(t):
        r = block.shape[0]
        rebuilt = _rebuild(block, convention, m[h : h + r], pad)
        masked = ~np.isfinite(rebuilt)
        if (masked != (~np.isfinite(block) | (block <= MASKED))).any():
            return float("inf")
        diff = np.abs(np.where(masked, 0.0, block) - np.where(masked, 0.0, rebuilt))
        scale = np.abs(np.where(masked, 0.0, rebuilt)).reshape(r, -1).max(axis=1)
        ratios.append(diff.reshape(r, -1).max(axis=1) / np.maximum(scale, 1e-300))
    return float(np.concatenate(ratios).max())


def identify_alibi_bias(tensor: object) -> BiasFit:
    """Convention, slopes, head count and ``max_bias`` of an ALiBi bias tensor.

    Parameters
    ----------
    tensor : array_like
        ``(h, q, k)``, ``(h, 1, k)`` or with leading size-1 axes (MPT's ``(1, h, 1, k)``);
        a key-only tensor broadcast over queries (every row equal) is read as one row.

    Examples
    --------
    >>> from pecli.core.zoo.alibi import alibi_bias, alibi_slopes
    >>> fit = identify_alibi_bias(alibi_bias(alibi_slopes(12), 40, convention="mpt")[None])
    >>> fit.convention, fit.slope_fit.heads, fit.slope_fit.max_bias, fit.matched
    ('mpt', 12, 8.0, True)

    """
    raw = np.asarray(tensor)
    t = _as_heads(raw)  # read in float64 a block of heads at a time
    if t.shape[1] > 1 and np.isfinite(t).all() and (t == t[:, :1, :]).all():
        t = t[:, :1, :]  # a key-only row broadcast over the queries
    try:
        fit = _read_heads(t, raw.shape)
    except ParameterError:
        fit = None
    if (fit is None or not fit.matched) and (batched := _read_batches(t, raw.shape)):
        return batched
    return fit if fit is not None else _read_heads(t, raw.shape)


def _read_batches(t: np.ndarray, shape: tuple[int, ...]) -> BiasFit | None:
    """BLOOM's ``(batch·heads, 1, keys)``: the fewest sequences whose heads read alike.

    Each sequence's rows are read on their own (each its padding); they must give the same
    slopes, and those slopes must fit a series.
    """
    n, q, k = t.shape
    for batch in (b for b in range(2, n) if n % b == 0 and q == 1):
        try:
            fits = [_read_heads(part, shape) for part in t.reshape(batch, n // batch, 1, k)]
        except ParameterError:
            continue
        first = fits[0]
        same = all(np.array_equal(f.slopes, first.slopes) and f.matched for f in fits)
        if same and first.matched:
            pads = tuple(f.left_padding for f in fits)
            errors = max(f.error for f in fits)
            return replace(first, shape=shape, error=errors, batch=batch, batch_padding=pads)
    return None


def _read_heads(t: np.ndarray, shape: tuple[int, ...]) -> BiasFit:
    """The reading of ``(h, q, k)``: the convention that rebuilds it best, and its slopes."""
    errors = {c: _rebuild_error(t, c) for c in CONVENTIONS}
    best = min(CONVENTIONS, key=lambda c: (errors[c], CONVENTIONS.index(c)))
    if not np.isfinite(errors[best]):
        rule = f"is no ALiBi bias in any convention ({', '.join(CONVENTIONS)})"
        raise ParameterError("x", rule, f"shape {shape}")
    slopes = _slopes_of(t, best)
    tolerance = BFLOAT16_TOLERANCE if _is_bfloat16(t) else FLOAT_TOLERANCE
    slope_fit = identify_alibi_slopes(slopes)
    pad = max(_left_padding(t), 0) if ALIBI_CONVENTIONS[best].takes_mask else 0
    return BiasFit(best, shape, slopes, errors[best], tolerance, slope_fit, errors, pad)
