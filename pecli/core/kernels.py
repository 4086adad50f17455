"""Fast, correctly rounded table kernel: sin/cos of ``p·ω`` for consecutive positions ``p``.

Pure NumPy, arrays in and out (the output views are written in place), no I/O.

Algorithm: angle addition, anchored directly at every super-block
-----------------------------------------------------------------
Row ``r`` holds the position ``p = first + n``, ``n = offset + r``. Write
``n = Q·SB + k·B + j`` with ``0 <= j < B`` rows in a block and ``0 <= k < S`` blocks in a
super-block. With ``z(θ) = sin θ + i·cos θ`` and ``e(φ) = cos φ - i·sin φ``,
``z(θ + φ) = z(θ) · e(φ)`` (the rotation ``R(φ)`` of the pair (sin, cos)), so

    z(pω) = z(jω) · (e(kBω) · e((first + Q·SB)ω))
            anchor    step        phase of the super-block

* the anchor block ``z(jω)``, ``j < B``, and the steps ``e(kBω)``, ``k < S``, are evaluated
  directly, once per (ω, B, S) and cached;
* each super-block's phase is evaluated directly (``h`` sin/cos per ``S·B`` rows): this is
  the re-anchoring; a block's turn is ``step · phase`` (``h`` complex products per block);
* each row of the table is then one complex product ``anchor · turn`` per pair, written
  straight into the output (complex64/128 view of an interleaved float32/64 table) or,
  for other views, through a small scratch block.

Nothing is rotated twice, so the error does not grow with ``n``: each value is the product of
three directly evaluated factors. Every angle is a double-double (:mod:`pecli.core.angles`), so
the factors are within ~1.5 float64 ulps of 1 at any position; measured total error before
the final rounding: below 5e-16 over positions up to 1e7 (tests/sinusoidal/test_kernels.py). A row's
value depends only on ``first``, ``n`` and ``ω`` — not on how rows are split into calls or
threads — so a table filled in pieces (``offset``) is bit-identical to one filled at once.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from . import angles, threads
from .certificate import ErrorBound, round_certified, sin_cos_exact
from .certificate.blocks import Exact, ProductRounder
from .certificate.bounds import UNIT_ROUNDOFF
from .direct import check_shapes, sin_cos_bound

__all__ = [
    "CONSECUTIVE_BOUND",
    "fill_sin_cos_consecutive",
]

#: Error bound of :func:`fill_sin_cos_consecutive`'s float64 values before the rounding,
#: absolute (docs/exactness.md): three factors within ``(k + 3/4)·u`` per component each,
#: ``k = 4`` ulps for NumPy's float64 sin/cos, and two complex products: ``24.6·u``.
CONSECUTIVE_BOUND = ErrorBound(absolute=32 * UNIT_ROUNDOFF, source="the consecutive kernel")
#: Below this angle every factor takes :func:`angles.sin_cos`'s small-tail path (the angles'
#: ``|lo| <= 2^-51·θ < 2^-27``) and the inputs' ``2^-100·θ`` is below ``10^-22``: the
#: argument of :data:`CONSECUTIVE_BOUND` holds.
SMALL_ANGLE = 2.0**24


#: Pairs per complex product, ``B·h``: 16384 complex128 = 256 KiB, inside a 1 MiB L2.
BLOCK_PAIRS = 16384
#: Largest anchor block, rows (``B``; fewer when ``h`` is large).
MAX_BLOCK_ROWS = 256
#: Blocks per super-block (``S``): one direct evaluation of ``h`` phases per ``S·B`` rows.
STEPS = 64


_Writer = Callable[[int, int, np.ndarray, np.ndarray], None]


def fill_sin_cos_consecutive(
    sin_out: np.ndarray,
    cos_out: np.ndarray,
    first_position: float,
    omega: np.ndarray,
    *,
    omega_residual: np.ndarray | None = None,
    offset: int = 0,
    workers: int | None = None,
) -> None:
    """Write ``sin(p·ω)`` and ``cos(p·ω)`` for consecutive positions into two ``(m, h)`` views.

    Row ``r`` gets the position ``p = first_position + offset + r``, taken exactly (not
    rounded to float64), column ``j`` the frequency ``omega[j] + omega_residual[j]``. Values
    are computed in float64 within :func:`consecutive_bound` and rounded once to the views'
    dtype; a value that bound leaves undecided (too near a tie of that dtype) is computed
    again, directly and then with mpmath, so every value written is correctly rounded.
    Position 0 is exactly ``sin 0 = 0``, ``cos 0 = 1``, whichever row it falls on.

    Parameters
    ----------
    sin_out, cos_out : numpy.ndarray
        Writable ``(m, h)`` views of any float dtype, possibly strided views of one array
        (``out[:, 0::2]``, ``out[:, 1::2]`` for the interleaved layout, the fastest case).
    first_position : float
        Position of row 0 when ``offset`` is 0, finite.
    omega : numpy.ndarray
        Shape ``(h,)``: angular frequencies, radians per position (used as float64).
    omega_residual : numpy.ndarray, keyword-only, optional
        Shape ``(h,)``, float64: exact frequency minus ``omega``
        (:func:`pecli.core.angles.frequency_residuals`); zeros if omitted.
    offset : int, keyword-only
        Added to every row number; a table filled in pieces with ``offset`` = the first row
        of each piece is bit-identical to the table filled at once.
    workers : int, keyword-only, optional
        Threads over row ranges (NumPy releases the GIL); default: the available CPUs,
        fewer for small tables.

    Raises
    ------
    ValueError
        If the views' shapes do not match each other and ``omega``.
    ParameterError
        (a ``ValueError``) if ``workers`` is not an integer >= 1 or ``first_position`` is
        not finite.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5.

    Examples
    --------
    >>> out = np.empty((2, 4), dtype=np.float32)
    >>> fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], 1.0, np.array([1.0, 0.01]))
    >>> out.round(6)
    array([[ 0.841471,  0.540302,  0.01    ,  0.99995 ],
           [ 0.909297, -0.416147,  0.019999,  0.9998  ]], dtype=float32)

    """
    w = np.ascontiguousarray(omega, dtype=np.float64).reshape(-1)
    res = np.zeros_like(w) if omega_residual is None else np.asarray(omega_residual, np.float64)
    m, h = check_shapes(sin_out, cos_out, w, res, first_position)
    if m == 0 or h == 0:
        return
    rows = max(1, min(MAX_BLOCK_ROWS, BLOCK_PAIRS // h))
    anchor, steps = _anchor_and_steps(w.tobytes(), res.tobytes(), rows)
    start = angles.product(np.array(float(first_position)), w, res)

    def exact(rows: np.ndarray, cols: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """Correctly rounded values at output rows ``rows``, pair columns ``cols // 2``."""
        hi, lo = angles.add(
            (np.full(rows.shape, float(first_position)), np.zeros(rows.shape)),
            (np.asarray(rows + offset, dtype=np.float64), np.zeros(rows.shape)),
        )
        j = cols // 2
        return _recomputed((hi, lo, w[j], res[j]), cols % 2 == 1, dtype)

    bound = consecutive_bound(float(first_position) + offset, m, w, res)

    def work(n0: int, n1: int) -> None:
        write = _writer(sin_out, cos_out, anchor.shape, exact, bound)
        _fill_range(write, anchor, steps, start, (w, res), n0, n1, offset)

    threads.run_split(
        work,
        threads.split_rows(offset, offset + m, rows * STEPS, threads.worker_count(workers, m * h)),
    )
    zero = -float(first_position) - offset  # position 0: exactly sin 0, cos 1 (the angle
    if zero.is_integer() and 0 <= zero < m:  # addition from another anchor leaves ~1e-17)
        sin_out[int(zero)], cos_out[int(zero)] = 0, 1


def consecutive_bound(
    first: float, rows: int, omega: np.ndarray, residual: np.ndarray
) -> ErrorBound:
    """The kernel's bound over ``rows`` consecutive positions from ``first`` (docs/exactness.md).

    :data:`CONSECUTIVE_BOUND` while every angle the kernel evaluates (anchors, steps,
    super-block phases: positions within ``|first| + rows + 2·B·S``) is below
    :data:`SMALL_ANGLE`; past it each factor may take the general path of
    :func:`angles.sin_cos` (``s·cos lo + c·sin lo``: ``(2√2·k + 2)·u`` a component, ``18.9u``
    in modulus), three of them and two products ``61u``, taken as ``64u``, plus the inputs'
    ``2^-100`` relative on each of the three angles.

    >>> consecutive_bound(0.0, 100, np.array([1.0]), np.zeros(1)) is CONSECUTIVE_BOUND
    True
    >>> float(consecutive_bound(2.0**53, 100, np.array([1.0]), np.zeros(1)).absolute) > 64 * 2**-53
    True

    """
    reach = abs(float(first)) + rows + 2 * MAX_BLOCK_ROWS * STEPS
    largest = reach * float(np.max(np.abs(omega) + np.abs(residual), initial=0.0))
    if largest < SMALL_ANGLE:
        return CONSECUTIVE_BOUND
    general = 64 * UNIT_ROUNDOFF + 3 * 2.0**-100 * largest
    absolute = max(float(np.max(CONSECUTIVE_BOUND.absolute)), general)
    return ErrorBound(absolute=absolute, source="the consecutive kernel, large angles")


def _recomputed(
    terms: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    cosine: np.ndarray,
    dtype: np.dtype,
) -> np.ndarray:
    """Correctly rounded values the consecutive kernel left undecided, in two tiers (Ziv).

    An exact position (``p_lo = 0``, every integer position) is first evaluated directly under
    :func:`sin_cos_bound` (the bound of the path the call takes), relative to the value: it
    decides nearly every value the absolute bound of 32u left, the small sines of low
    frequencies above all, without mpmath (whose import alone costs a rotary cache 8 %); the
    rest are recomputed by :func:`sin_cos_exact`.
    """
    p_hi, p_lo, w, res = terms
    found = np.empty(p_hi.size)
    simple = np.flatnonzero((p_lo == 0) & (p_hi != 0))  # angle 0: the fallback's exact rule
    angle = angles.product(p_hi[simple], w[simple], res[simple])
    s, c = angles.sin_cos(angle)
    rounded = np.empty(simple.size, dtype=dtype)

    def rest(flat: np.ndarray) -> np.ndarray:
        where = simple[flat]
        return sin_cos_exact(tuple(t[where] for t in terms), cosine[where], dtype)  # type: ignore[arg-type]

    round_certified(np.where(cosine[simple], c, s), sin_cos_bound(angle), rounded, rest)
    found[simple] = rounded
    left = np.ones(p_hi.size, dtype=bool)  # np.setdiff1d would import numpy.ma
    left[simple] = False
    others = np.flatnonzero(left)
    found[others] = sin_cos_exact(tuple(t[others] for t in terms), cosine[others], dtype)  # type: ignore[arg-type]
    return found


@functools.lru_cache(maxsize=8)
def _anchor_and_steps(omega: bytes, residual: bytes, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``z(jω)`` for ``j < rows`` and ``e(k·rows·ω)`` for ``k < STEPS``, complex128."""
    w, res = np.frombuffer(omega), np.frombuffer(residual)
    j = np.arange(rows, dtype=np.float64)[:, None]
    s, c = angles.sin_cos(angles.product(j, w, res))
    k = rows * np.arange(STEPS, dtype=np.float64)[:, None]
    t, u = angles.sin_cos(angles.product(k, w, res))
    return _complex(s, c), _complex(u, -t)


def _complex(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    z = np.empty(real.shape, dtype=np.complex128)
    z.real, z.imag = real, imag
    z.flags.writeable = False
    return z


def _fill_range(
    write: _Writer,
    anchor: np.ndarray,
    steps: np.ndarray,
    start: angles.DoubleDouble,
    freq: angles.DoubleDouble,
    n0: int,
    n1: int,
    offset: int,
) -> None:
    """Fill rows ``n0 - offset … n1 - offset - 1``, one super-block phase at a time."""
    rows = anchor.shape[0]
    for q in range(n0 // (rows * STEPS), -(-n1 // (rows * STEPS))):
        base = q * rows * STEPS
        s, c = angles.sin_cos(angles.add(start, angles.product(np.array(float(base)), *freq)))
        turns = steps * _complex(c, -s)
        for k in range(max(n0 - base, 0) // rows, min(-(-(n1 - base) // rows), STEPS)):
            lo, hi = max(n0, base + k * rows), min(n1, base + (k + 1) * rows)
            j = base + k * rows
            write(lo - offset, hi - offset, anchor[lo - j : hi - j], turns[k])


def _writer(
    sin_out: np.ndarray,
    cos_out: np.ndarray,
    shape: tuple[int, int],
    exact: Exact,
    bound: ErrorBound,
) -> _Writer:
    """A function writing ``anchor · turn`` into rows ``r0 … r1-1`` of the two views.

    float32 views get the certificate (:class:`~pecli.core.certificate.blocks.ProductRounder`):
    each value is rounded, checked against ``bound`` (:func:`consecutive_bound`) and, if
    undecided, recomputed by ``exact``.
    """
    pairs = _complex_view(sin_out, cos_out)
    if sin_out.dtype == np.float32:
        e = bound.widest(2.0)  # |v| <= 1 + 25u (1 + 64u and the inputs' error past 2^26)
        return ProductRounder(sin_out, cos_out, pairs, shape, e, exact)
    if pairs is not None:
        out = pairs

        def fused(r0: int, r1: int, anchor: np.ndarray, turn: np.ndarray) -> None:
            np.multiply(anchor, turn, out=out[r0:r1], casting="same_kind")

        return fused
    scratch = np.empty(shape, dtype=np.complex128)

    def split(r0: int, r1: int, anchor: np.ndarray, turn: np.ndarray) -> None:
        t = np.multiply(anchor, turn, out=scratch[: r1 - r0])
        sin_out[r0:r1] = t.real
        cos_out[r0:r1] = t.imag

    return split


def _complex_view(sin_out: np.ndarray, cos_out: np.ndarray) -> np.ndarray | None:
    """The two views as one complex array (sin = real, cos = imag) if they interleave so."""
    size = sin_out.dtype.itemsize
    if sin_out.dtype != cos_out.dtype or sin_out.dtype not in (np.float32, np.float64):
        return None
    if sin_out.strides != cos_out.strides or not sin_out.flags.writeable:
        return None
    if cos_out.__array_interface__["data"][0] != sin_out.__array_interface__["data"][0] + size:
        return None
    if sin_out.shape[1] > 1 and sin_out.strides[1] != 2 * size:
        return None
    both = np.lib.stride_tricks.as_strided(
        sin_out, (sin_out.shape[0], 2 * sin_out.shape[1]), (sin_out.strides[0], size)
    )
    return both.view(np.complex64 if size == 4 else np.complex128)
