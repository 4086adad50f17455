"""The certificate's compiled pass (``_fused``, a C extension), when it was built.

The check of :mod:`.bounds` costs NumPy several passes over each block (``v + e``, ``v − e``,
two roundings, a comparison); the extension does the complex product, both roundings and the
comparison in one pass, returning the flat positions of the (rare) undecided entries
(docs/exactness.md, "What it costs"). Its arithmetic is the NumPy path's, bit for bit: the
complex product follows NumPy's own formula on this machine (:func:`numpy_fuses`), every
other operation is one IEEE operation in the same order. Without a C compiler at install
time the extension is absent and the callers keep the NumPy path (:data:`BACKEND` says which).
"""

from __future__ import annotations

import functools

import numpy as np

try:
    from . import _fused  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler: the NumPy path
    _fused = None

__all__ = ["BACKEND", "consecutive", "ends_differ", "numpy_fuses", "usable"]

#: Which pass rounds under the certificate: ``"compiled"`` or ``"NumPy"`` (``pecli --version``).
BACKEND = "NumPy" if _fused is None else "compiled"


@functools.cache
def numpy_fuses() -> bool | None:
    """Whether NumPy's complex128 product fuses each part's first product (an FMA).

    NumPy's SIMD loop computes ``fma(ar, br, -(ai·bi))`` and ``fma(ar, bi, ai·br)`` where the
    CPU has FMA, and ``ar·br − ai·bi``, ``ar·bi + ai·br`` elsewhere: the same operands differ
    in their last bit. Tried on 64 products of unit numbers, with the fused value exact in
    fractions: True, False, or None when NumPy computes neither (the NumPy path is kept).

    >>> numpy_fuses() in (True, False, None)
    True

    """
    a = np.exp(1j * np.arange(1, 65, dtype=np.float64)).reshape(8, 8)
    b = np.exp(0.37j * np.arange(1, 9, dtype=np.float64))
    got = np.multiply(a, b)
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    if np.array_equal(got.real, ar * br - ai * bi) and np.array_equal(got.imag, ar * bi + ai * br):
        return False

    from fractions import Fraction

    def fma(x: float, y: float, z: float) -> float:
        return float(Fraction(x) * Fraction(y) + Fraction(z))

    for (i, j), value in np.ndenumerate(got):
        re = fma(ar[i, j], br[j], -(ai[i, j] * bi[j]))
        im = fma(ar[i, j], bi[j], ai[i, j] * br[j])
        if (re, im) != (value.real, value.imag):
            return None
    return True


def usable() -> bool:
    """Whether the compiled pass is built and matches NumPy's complex product here."""
    if _fused is None or numpy_fuses() is None:
        return False
    _FUSES[0] = bool(numpy_fuses())
    return True


_FUSES = [False]  # numpy_fuses(), set by usable()


def consecutive(
    anchor: np.ndarray,
    turn: np.ndarray,
    outs: tuple[np.ndarray, np.ndarray],
    r0: int,
    e: float,
) -> bytes:
    """``anchor · turn`` rounded into rows ``r0 …`` of two float32 views as ``round(v + e)``.

    Parameters
    ----------
    anchor : numpy.ndarray
        ``(m, h)`` complex128, each row contiguous.
    turn : numpy.ndarray
        ``(h,)`` complex128, contiguous.
    outs : tuple of numpy.ndarray
        The sine and cosine views, writable ``(n, h)`` float32, any strides, ``n >= r0 + m``:
        rows ``r0 … r0 + m - 1`` get the real and imaginary parts.
    r0 : int
        The first row written.
    e : float
        The absolute error bound of the products.

    Returns
    -------
    bytes
        The int64 flat positions ``r·2h + 2j + c`` (``c`` = 0: sine, 1: cosine) whose
        ``round(v − e)`` differs from ``round(v + e)``, ascending (empty: all decided, the
        common case, left as bytes to spare a block the array). Call only if :func:`usable`.

    """
    return _fused.consecutive(anchor, turn, *outs, r0, e, _FUSES[0])  # type: ignore[no-any-return]


def ends_differ(values: np.ndarray, e: np.ndarray | float) -> bytes:
    """The flat indices where ``round(v − e) != round(v + e)`` in float32, as int64 bytes.

    ``values``: float64, any shape (copied if not contiguous); ``e``: a float or one bound
    per value. Each end is rounded to float64 first, then to float32, as NumPy does (NaN
    differs). Call only if :func:`usable`.
    """
    flat = np.ascontiguousarray(values, dtype=np.float64)
    bound = float(e) if np.ndim(e) == 0 else np.ascontiguousarray(e, dtype=np.float64)
    return _fused.ends_differ(flat, bound)  # type: ignore[no-any-return]
