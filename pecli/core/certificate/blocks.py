"""Blocks of complex products rounded to float32 under the certificate (the consecutive kernel).

A block is ``anchor · turn``: ``(m, h)`` complex128 times ``(h,)``, whose real parts go to a
sine view and imaginary parts to a cosine view, each value within an absolute bound ``e`` of
exact. Each value is rounded as ``round(v + e)`` and compared with ``round(v − e)``; where
they differ the rounding is undecided and the value is recomputed (``exact``). Two passes
compute the same bits: the compiled one (:mod:`.compiled`, one trip through the block) and
NumPy's (the reference: a product into a scratch block, then four more passes).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import compiled
from .tally import TALLY

__all__ = ["ProductRounder"]

#: ``exact(rows, cols, dtype)``: correctly rounded values at table rows ``rows`` and pair
#: columns ``cols`` (``cols // 2`` the pair, ``cols % 2`` 1 for a cosine).
Exact = Callable[[np.ndarray, np.ndarray, np.dtype], np.ndarray]


class ProductRounder:
    """Writes ``anchor · turn`` into rows ``r0 … r1-1`` of two float32 views (one per thread).

    Parameters
    ----------
    sin_out, cos_out : numpy.ndarray
        The ``(n, h)`` float32 views of the table.
    pairs : numpy.ndarray or None
        The two views as one complex64 array when they interleave, else None.
    shape : tuple of int
        The largest block, ``(m, h)``.
    e : float
        The products' absolute error bound, widened for ``v ± e`` (:meth:`ErrorBound.widest`).
    exact : callable
        Recomputes the undecided entries (:data:`Exact`).
    use_compiled : bool, optional
        Whether to use the compiled pass (default: when built and usable).

    Examples
    --------
    >>> out = np.zeros((1, 2), np.float32)
    >>> write = ProductRounder(out[:, :1], out[:, 1:], None, (1, 1), 1e-15, None)
    >>> write(0, 1, np.array([[0.6 + 0.8j]]), np.array([1 + 0j]))
    >>> out.tolist() == [[np.float32(0.6), np.float32(0.8)]]
    True

    """

    def __init__(
        self,
        sin_out: np.ndarray,
        cos_out: np.ndarray,
        pairs: np.ndarray | None,
        shape: tuple[int, int],
        e: float,
        exact: Exact,
        use_compiled: bool | None = None,
    ) -> None:
        self.sin_out, self.cos_out, self.pairs, self.e, self.exact = (
            sin_out,
            cos_out,
            pairs,
            e,
            exact,
        )
        both = sin_out.dtype == cos_out.dtype == np.float32  # else the NumPy pass (mixed views)
        self.compiled = both and (compiled.usable() if use_compiled is None else use_compiled)
        self.shape, self.outs = shape, (sin_out, cos_out)
        self.scratch: np.ndarray | None = None  # the NumPy pass's blocks, made on first use

    def __call__(self, r0: int, r1: int, anchor: np.ndarray, turn: np.ndarray) -> None:
        """Rows ``r0 … r1-1`` get ``anchor · turn`` rounded; undecided entries recomputed."""
        if self.compiled and anchor.size > 1:  # NumPy computes one lone product unfused
            found = compiled.consecutive(anchor, turn, self.outs, r0, self.e)
            if found:
                flat = np.frombuffer(found, dtype=np.int64)
                self._recompute(r0, *np.divmod(flat, 2 * anchor.shape[1]))
            TALLY.add(checked=2 * anchor.size, recomputed=len(found) // 8)
            return
        t = np.multiply(anchor, turn, out=self._scratch(anchor.shape))
        if self.pairs is not None:
            self._round(t.view(np.float64), self.pairs[r0:r1].view(np.float32), r0, (1, 0))
        else:
            self._round(t.real, self.sin_out[r0:r1], r0, (2, 0))
            self._round(t.imag, self.cos_out[r0:r1], r0, (2, 1))

    def _scratch(self, shape: tuple[int, ...]) -> np.ndarray:
        if self.scratch is None:
            m, h = self.shape
            self.scratch = np.empty((m, h), dtype=np.complex128)
            self.low = np.empty((m, 2 * h), dtype=np.float32)
            self.differ = np.empty((m, 2 * h), dtype=bool)
        return self.scratch[: shape[0], : shape[1]]

    def _recompute(self, r0: int, rows: np.ndarray, cols: np.ndarray) -> None:
        values = self.exact(r0 + rows, cols, self.sin_out.dtype)
        cosine = cols % 2 == 1
        for dest, where in ((self.sin_out, ~cosine), (self.cos_out, cosine)):
            dest[r0 + rows[where], cols[where] // 2] = values[where]

    def _round(self, wide: np.ndarray, dest: np.ndarray, r0: int, cols: tuple[int, int]) -> None:
        """``dest = wide`` rounded; undecided entries recomputed. ``cols``: (step, start)."""
        r, c = dest.shape
        np.add(wide, self.e, out=dest, casting="same_kind")  # = round(wide) when decided
        low = np.subtract(wide, self.e, out=self.low[:r, :c], casting="same_kind")
        differ = np.not_equal(dest, low, out=self.differ[:r, :c])
        if differ.any():
            rows, where = np.nonzero(differ)
            dest[rows, where] = self.exact(r0 + rows, where * cols[0] + cols[1], dest.dtype)
            TALLY.add(checked=dest.size, recomputed=rows.size)
        else:
            TALLY.add(checked=dest.size)
