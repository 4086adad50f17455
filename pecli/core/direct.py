"""The direct kernel: sin/cos of ``p·ω`` evaluated at each position on its own.

Pure NumPy, arrays in and out (the output views are written in place), no I/O. For any
positions (a multi-axis cache's, a rope cache's at given positions, a sinusoidal table in a
half dtype or at given positions, with or without an amplitude): the angle is a
double-double (:func:`pecli.core.angles.product`), sin/cos come from
:func:`pecli.core.angles.sin_cos`, and each value is rounded to its output dtype under the
certificate (:data:`DIRECT_BOUND`, relative, plus :func:`direct_bound`'s
absolute part; the derivation is in docs/exactness.md). The consecutive kernel
(:mod:`pecli.core.kernels`) uses :func:`direct_bound` for the values it leaves undecided.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import numpy as np

from . import angles, threads
from .certificate import TALLY, ErrorBound, sin_cos_exact
from .certificate.bounds import UNIT_ROUNDOFF
from .certificate.products import round_scaled, scaled
from .errors import ParameterError

__all__ = [
    "DIRECT_BOUND",
    "GENERAL_BOUND",
    "check_shapes",
    "direct_bound",
    "fill_sin_cos_direct",
    "sin_cos_bound",
]

#: Error bound of :func:`pecli.core.angles.sin_cos` (and :func:`fill_sin_cos_direct`), for
#: tails ``|lo| <= 2^-27`` (docs/exactness.md): ``(2k + 2)·u`` relative, plus an absolute
#: part from the tail, :func:`direct_bound`.
DIRECT_BOUND = ErrorBound(relative=10 * UNIT_ROUNDOFF, source="the direct kernel")


def direct_bound(angle: angles.DoubleDouble) -> ErrorBound:
    """:data:`DIRECT_BOUND` at each of the double-double angles ``hi + lo`` (any shape).

    The absolute part is ``(4k + 2)·u·|lo| + lo²/2`` (the neglected ``1 - cos lo``), plus
    ``2^-100·|hi|`` for the inputs' own error: 0 at an exact angle such as 0.

    >>> bound = direct_bound((np.array([0.0, 1e4]), np.array([0.0, 1e-13])))
    >>> bound.at(np.zeros(2))
    array([0.00000000e+00, 1.30884492e-26])

    """
    hi, lo = np.abs(angle[0]), np.abs(angle[1])
    absolute = 18 * UNIT_ROUNDOFF * lo + lo * lo / 2 + 2.0**-100 * hi
    return ErrorBound(absolute, DIRECT_BOUND.relative, "direct")


#: Error bound of :func:`pecli.core.angles.sin_cos`'s general path (a tail ``|lo| >= 2^-27``
#: anywhere in the call): ``s·cos lo + c·sin lo``, four libm values of ``k`` ulps, two products
#: and a sum, ``(4k + 2)·u`` relative and ``(8k + 2)·u·|lo|`` absolute (docs/exactness.md),
#: rounded up to ``20u`` and ``36u·|lo|`` (:func:`sin_cos_bound`).
GENERAL_BOUND = ErrorBound(relative=20 * UNIT_ROUNDOFF, source="the direct kernel, long tails")


def sin_cos_bound(angle: angles.DoubleDouble) -> ErrorBound:
    """The bound of :func:`pecli.core.angles.sin_cos` on ``angle``, whichever path it takes.

    :func:`direct_bound` when every tail is below ``2^-27`` (the small-tail path, taken by
    the whole call), else :data:`GENERAL_BOUND` with the absolute part ``36u·|lo|`` plus the
    inputs' ``2^-100·|hi|``.

    >>> small = sin_cos_bound((np.array([1e4]), np.array([1e-13])))
    >>> large = sin_cos_bound((np.array([1e20]), np.array([1024.0])))
    >>> small.relative == DIRECT_BOUND.relative, large.relative == GENERAL_BOUND.relative
    (True, True)

    """
    hi, lo = np.abs(angle[0]), np.abs(angle[1])
    if np.all(lo < angles.TINY_TAIL):
        return direct_bound(angle)
    absolute = 36 * UNIT_ROUNDOFF * lo + 2.0**-100 * hi
    return ErrorBound(absolute, GENERAL_BOUND.relative, "direct, long tails")


#: Cells per chunk of direct evaluation: its float64 temporaries stay about 1 MiB each.
DIRECT_CELLS = 1 << 17


def fill_sin_cos_direct(
    sin_out: np.ndarray,
    cos_out: np.ndarray,
    positions: np.ndarray,
    omega: np.ndarray,
    omega_residual: np.ndarray,
    *,
    workers: int | None = None,
    factor: tuple[float, float] = (1.0, 0.0),
) -> None:
    """Write ``sin(p·ω)`` and ``cos(p·ω)`` for any positions, each evaluated directly.

    The angle is a double-double (:func:`pecli.core.angles.product`) and sin/cos come from
    :func:`pecli.core.angles.sin_cos`: each value is within about one float64 ulp of its own
    magnitude (measured below 1 ulp up to position 1e7), which the consecutive kernel
    (:func:`pecli.core.kernels.fill_sin_cos_consecutive`, 5e-16 absolute) is not near zero.
    About 4x slower.

    Parameters
    ----------
    sin_out, cos_out : numpy.ndarray
        Writable ``(m, h)`` views of any float dtype (but float64: rounded, certified).
    positions : numpy.ndarray
        Shape ``(m,)``, float64, finite: the position of each row.
    omega, omega_residual : numpy.ndarray
        Shape ``(h,)``, float64: the frequencies and what float64 rounding took off them.
    workers : int, keyword-only, optional
        Threads over row ranges; default as in the consecutive kernel. The result is the same
        bits whatever the split.
    factor : tuple of float, keyword-only
        A double-double ``(hi, lo)`` times every value before its rounding (bound included).

    Raises
    ------
    ValueError
        If the shapes do not match.

    """
    m, h = check_shapes(sin_out, cos_out, omega, omega_residual, 0.0)
    if positions.shape != (m,):
        raise ValueError(f"positions must have shape ({m},) (got {positions.shape})")
    step = max(1, DIRECT_CELLS // max(h, 1))

    def work(n0: int, n1: int) -> None:
        for row in range(n0, n1, step):
            stop = min(row + step, n1)
            angle = angles.product(positions[row:stop, None], omega, omega_residual)
            outs, where = (sin_out[row:stop], cos_out[row:stop]), positions[row:stop, None]
            if sin_out.dtype == cos_out.dtype == np.float64 and factor == (1.0, 0.0):
                angles.sin_cos(angle, out=outs)
                continue
            _direct_certified(angle, (where, omega, omega_residual), outs, factor)

    threads.run_split(work, threads.split_rows(0, m, step, threads.worker_count(workers, m * h)))


def _direct_certified(
    angle: angles.DoubleDouble,
    where: tuple[np.ndarray, np.ndarray, np.ndarray],
    outs: tuple[np.ndarray, np.ndarray],
    factor: tuple[float, float],
) -> None:
    """``factor``·sin/cos of ``angle`` into ``outs``, rounded under the certificate.

    The bound is that of the path :func:`pecli.core.angles.sin_cos` takes on the whole call
    (:func:`sin_cos_bound`): a position past about 2^24 (at ω = 1) makes a tail long.
    """
    bound = sin_cos_bound(angle)
    p, w, res = (np.broadcast_to(a, angle[0].shape) for a in where)
    for values, dest, cosine in zip(angles.sin_cos(angle), outs, (False, True), strict=True):

        def exact(
            flat: np.ndarray,
            cosine: bool = cosine,
            dtype: np.dtype = dest.dtype,
            v: np.ndarray = values,
        ) -> np.ndarray:
            found: np.ndarray = v.reshape(-1)[flat]  # NaN (an angle too large to reduce) stays NaN
            flat = flat[np.isfinite(found)]
            i = np.unravel_index(flat, p.shape)
            terms = (p[i], np.zeros(flat.size), w[i], res[i])
            cosines = np.full(flat.size, cosine)
            found[np.isfinite(found)] = sin_cos_exact(terms, cosines, dtype, factor=factor)
            return found

        if dest.dtype == np.float64:  # nothing rounded (the dropped cosine of an odd d)
            dest[...] = scaled(values, factor)
            continue
        recomputed = round_scaled(values, bound, factor, dest, exact)
        TALLY.add(checked=dest.size, recomputed=recomputed)


def check_shapes(
    sin_out: np.ndarray, cos_out: np.ndarray, omega: np.ndarray, residual: np.ndarray, first: float
) -> tuple[int, int]:
    """``(m, h)`` of the output views, checked against ``omega``, ``residual`` and ``first``."""
    h = omega.size
    if sin_out.ndim != 2 or sin_out.shape != cos_out.shape or sin_out.shape[1] != h:
        raise ValueError(
            f"sin_out and cos_out must both have shape (m, {h}) to match omega "
            f"(got {sin_out.shape} and {cos_out.shape})"
        )
    if residual.shape != (h,):
        raise ValueError(f"omega_residual must have shape ({h},) (got {residual.shape})")
    if not np.isfinite(first):
        raise ParameterError("first_position", "must be finite", first)
    return sin_out.shape[0], h
