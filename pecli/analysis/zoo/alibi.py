"""Which ALiBi made a slope vector or a bias tensor: heads, max_bias, series and convention.

A slope vector is ``m_h = 2^(-b·e_h)``: for each series of :data:`~pecli.core.zoo.alibi.VARIANTS`
the exponents ``e_h`` are known, ``b`` is fitted by least squares on ``log2 m`` and the series
whose rebuilt slopes agree best (relative error within the data's precision) wins. A bias
tensor is first read as each convention: its slopes are the values at distance 1, the tensor
is rebuilt from them in that convention's own arithmetic (Falcon's bfloat16 products
included) and the convention that rebuilds it best wins. See docs/zoo.md#identifying-alibi.
"""

from __future__ import annotations

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
    alibi_exponents,
    check_max_bias,
)
from .alibi_rebuild import left_padding, rebuild_error, row_blocks, slopes_of

__all__ = ["BiasFit", "SlopeFit", "identify_alibi_bias", "identify_alibi_slopes"]

#: Relative agreement of a series or tensor computed in float32 or float64.
FLOAT_TOLERANCE = 1e-5
#: … and of one rounded to bfloat16 (8 significand bits: rounding moves a value by <= 2^-8).
BFLOAT16_TOLERANCE = 2.0**-7


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
    """Every finite value is a bfloat16 number (:func:`pecli.core.dtypes.exact_in`).

    The first row is tried alone first: a float32 tensor fails there, without a float64 copy.
    """
    rows = values.reshape(1, -1) if values.ndim < 2 else values
    if not _is_bfloat16_block(rows[(0,) * (rows.ndim - 1)].astype(np.float64)):
        return False
    seen = False
    heads = rows.reshape(1, *rows.shape) if rows.ndim == 2 else rows
    for head in heads:
        for _, part in row_blocks(head):
            block = part.astype(np.float64)
            finite = block[np.isfinite(block)]
            if finite.size and not exact_in(finite, "bfloat16"):
                return False
            seen = seen or bool(finite.size)
    return seen


def _is_bfloat16_block(block: np.ndarray) -> bool:
    """No finite value of ``block`` (float64) is other than a bfloat16 number."""
    finite = block[np.isfinite(block)]
    return not finite.size or exact_in(finite, "bfloat16")


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
    if _broadcast(t):
        t = t[:, :1, :]  # a key-only row broadcast over the queries
    try:
        fit = _read_heads(t, raw.shape)
    except ParameterError:
        fit = None
    if (fit is None or not fit.matched) and (batched := _read_batches(t, raw.shape)):
        return batched
    return fit if fit is not None else _read_heads(t, raw.shape)


def _broadcast(t: np.ndarray) -> bool:
    """Every query row the same finite row (the first two rows tried before the whole)."""
    if t.shape[1] < 2 or not np.isfinite(t[:, :2]).all() or (t[:, 1] != t[:, 0]).any():
        return False
    return bool(np.isfinite(t).all() and (t == t[:, :1, :]).all())


def _errors(t: np.ndarray) -> dict[str, float]:
    """Each convention's rebuild error: over every head for those head 0 leaves in the running.

    A convention that rebuilds head 0 no better than bfloat16's tolerance cannot fit the
    tensor, and its error on head 0 stands for the whole; when none in the running fits,
    every convention is read over every head.
    """
    screen = {c: rebuild_error(t[:1], c) for c in CONVENTIONS}
    if len(t) == 1:
        return screen
    running = [c for c in CONVENTIONS if screen[c] <= BFLOAT16_TOLERANCE]
    errors = {**screen, **{c: rebuild_error(t, c) for c in running}}
    if not any(errors[c] <= BFLOAT16_TOLERANCE for c in running):
        errors = {c: rebuild_error(t, c) for c in CONVENTIONS}
    return errors


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
    errors = _errors(t)
    best = min(CONVENTIONS, key=lambda c: (errors[c], CONVENTIONS.index(c)))
    if not np.isfinite(errors[best]):
        rule = f"is no ALiBi bias in any convention ({', '.join(CONVENTIONS)})"
        raise ParameterError("x", rule, f"shape {shape}")
    slopes = slopes_of(t, best)
    tolerance = BFLOAT16_TOLERANCE if _is_bfloat16(t) else FLOAT_TOLERANCE
    slope_fit = identify_alibi_slopes(slopes)
    pad = max(left_padding(t), 0) if ALIBI_CONVENTIONS[best].takes_mask else 0
    return BiasFit(best, shape, slopes, errors[best], tolerance, slope_fit, errors, pad)
