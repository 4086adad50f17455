"""Fourier features ``γ(x) = [sin x, cos x, …, sin kx, cos kx]``, pure NumPy (docs/fourier.md).

Put in front of any network ``f``, the features make ``f ∘ γ`` 2π-periodic (for integer
frequencies). The frequencies are the harmonics ``1 … k`` (the article's) or the octaves
``2^0 … 2^(k-1)`` (NeRF's); for ``m`` coordinates the features are grouped by frequency,
``[sin(f·x_1..m), cos(f·x_1..m)]`` for each ``f`` in turn, optionally after the raw input.

References
----------
.. [1] B. Mildenhall et al., "NeRF: Representing Scenes as Neural Radiance Fields for View
   Synthesis", ECCV 2020, §5.1.
.. [2] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only: numpy.typing costs start-up time
    from numpy.typing import ArrayLike, DTypeLike

from .. import angles
from ..certificate import TALLY, ErrorBound, round_certified, sin_cos_product_exact
from ..direct import sin_cos_bound
from ..errors import ParameterError
from ..rules import check_dtype, check_finite, check_n
from ..turns import dyadic_quarter_turns
from .fourier_scale import parse_scale, scale_double, scale_terms

__all__ = [
    "FREQUENCY_KINDS",
    "feature_names",
    "fourier_features",
    "fourier_frequencies",
    "parse_scale",
]

#: Frequency schedules: the article's harmonics and NeRF's octaves.
FREQUENCY_KINDS = ("harmonic", "octave")
#: Largest k for octaves: 2^(k-1) must stay a finite float64.
MAX_OCTAVES = 1024


#: Most frequencies of γ (2k features per coordinate).
MAX_K = 1 << 16
#: Angles per chunk of γ's rows: float64 temporaries of 128 KiB, which malloc reuses from one
#: chunk to the next (the CLI's 1 MiB blocks whole were mapped afresh: page faults, 1.3x the CPU).
CHUNK_CELLS = 1 << 14


def fourier_frequencies(k: int, *, frequencies: str = "harmonic") -> np.ndarray:
    """The ``k`` frequencies of γ: ``1, 2, …, k`` or ``2^0, 2^1, …, 2^(k-1)``.

    Parameters
    ----------
    k : int
        Number of frequencies, >= 1 (at most 1024 for octaves).
    frequencies : {"harmonic", "octave"}, keyword-only
        The article's harmonics or NeRF's octaves.

    Returns
    -------
    numpy.ndarray
        Shape ``(k,)``, float64, in radians per unit of x.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``k`` or ``frequencies``.

    References
    ----------
    Mildenhall et al., "NeRF", 2020, §5.1 (octaves ``2^l``, l = 0 … L-1).

    Examples
    --------
    >>> fourier_frequencies(4), fourier_frequencies(4, frequencies="octave")
    (array([1., 2., 3., 4.]), array([1., 2., 4., 8.]))

    """
    k = check_n(k, "k", most=MAX_K)
    if frequencies not in FREQUENCY_KINDS:
        raise ParameterError("frequencies", "must be harmonic or octave", frequencies)
    if frequencies == "harmonic":
        return np.arange(1, k + 1, dtype=np.float64)
    if k > MAX_OCTAVES:
        raise ParameterError("k", f"must be <= {MAX_OCTAVES} for octave frequencies", k)
    return np.ldexp(1.0, np.arange(k))


def _as_points(x: ArrayLike) -> np.ndarray:
    """``x`` as an ``(N, m)`` float64 array: a scalar or 1-D input is ``N`` values, ``m = 1``."""
    values = np.asarray(x)
    if values.dtype.names is not None or values.dtype.kind not in "iuf":
        raise ParameterError("x", "must hold real numbers", f"dtype {values.dtype}")
    if values.ndim > 2:
        rule = "must be a scalar, N values or an (N, m) matrix of coordinates"
        raise ParameterError("x", rule, f"shape {values.shape}")
    points = np.asarray(values, dtype=np.float64)
    if points.ndim < 2:
        points = points.reshape(-1, 1)
    check_finite(points, "x")
    return points


def fourier_features(
    x: ArrayLike,
    *,
    k: int,
    frequencies: str = "harmonic",
    scale: float | str = 1.0,
    include_input: bool = False,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """The Fourier feature map γ, one row per input point.

    For one coordinate, ``γ(x) = [sin(f_1 s x), cos(f_1 s x), …, sin(f_k s x), cos(f_k s x)]``
    with the frequencies ``f_l`` of :func:`fourier_frequencies` and the scale ``s``. For
    ``m`` coordinates each block is ``[sin(f_l s x_1 … x_m), cos(f_l s x_1 … x_m)]``
    (grouped by frequency, as in the NeRF code); ``include_input`` puts the raw ``x_1 … x_m``
    first. The exact value is sin or cos of ``f_l·s·x`` with ``x`` the float64 input, ``f_l``
    an integer and ``s`` the float64 scale or exactly ``factor·π``. The angles are carried as
    double-doubles (:mod:`pecli.core.angles`) and sin/cos evaluated by the direct kernel in
    float64, within its proven bound (float64 output: those values). A float32 output is
    correctly rounded, certified (docs/exactness.md): each value rounded once where the bound
    decides its rounding, the others recomputed from the exact ``x``, ``f_l`` and ``s`` in
    mpmath; the counts go to :data:`pecli.core.certificate.TALLY`, the raw inputs (``x``
    rounded once) counted with them.

    Parameters
    ----------
    x : array_like
        A scalar, ``N`` values (shape ``(N,)``) or ``N`` points of ``m`` coordinates
        (shape ``(N, m)``); finite real numbers.
    k : int, keyword-only
        Number of frequencies, >= 1.
    frequencies : {"harmonic", "octave"}, keyword-only
        ``1 … k`` (the article) or ``2^0 … 2^(k-1)`` (NeRF).
    scale : float or str, keyword-only
        Factor ``s`` on x, finite and > 0, taken exactly as given; a text such as ``"pi"`` or
        ``"0.5pi"`` (:func:`parse_scale`) means the exact multiple of π, so ``sin(π·1)`` is 0
        (the NeRF paper's ``2^l π``; ``np.pi`` is the float64 nearest π, ``sin`` of which is
        1.2e-16). With harmonic or octave frequencies the features have period ``2π / s``.
    include_input : bool, keyword-only
        Put the raw coordinates first.
    dtype : {float32, float64}, keyword-only
        Output dtype.

    Returns
    -------
    numpy.ndarray
        Shape ``(N, 2k·m)``, or ``(N, m + 2k·m)`` with ``include_input`` (``N = 1`` for a
        scalar), C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for non-finite or non-real ``x``, more than 2 dimensions, or an
        invalid ``k``, ``frequencies``, ``scale`` or ``dtype``.

    References
    ----------
    Mildenhall et al., "NeRF", 2020, §5.1; Vaswani et al., 2017, §3.5.

    Examples
    --------
    >>> fourier_features(0.5, k=2).round(6)
    array([[0.479426, 0.877583, 0.841471, 0.540302]])
    >>> fourier_features(1.0, k=1, scale="pi", dtype=np.float32)  # sin π is exactly 0
    array([[ 0., -1.]], dtype=float32)

    """
    freqs = fourier_frequencies(k, frequencies=frequencies)
    exact_scale = scale_terms(scale)
    out_dtype = check_dtype(dtype)
    points = _as_points(x)
    n, m = points.shape
    offset = m if include_input else 0
    out = np.empty((n, offset + 2 * m * freqs.size), dtype=out_dtype)
    if include_input:
        with np.errstate(over="ignore"):
            out[:, :offset] = points  # x rounded once: correctly rounded, exact if x is held
        if not np.all(np.isfinite(out[:, :offset])):
            rule = "must be float64 to include inputs beyond ±3.4e38"
            raise ParameterError("dtype", rule, float(np.max(np.abs(points))))
        if out_dtype != np.float64:
            TALLY.add(checked=n * m)
    grouped = out[:, offset:].reshape(n, freqs.size, 2, m)
    step = max(1, CHUNK_CELLS // (freqs.size * m))  # temporaries of CHUNK_CELLS float64
    for row in range(0, n, step):
        part, block = points[row : row + step], grouped[row : row + step]
        views = (block[:, :, 0, :], block[:, :, 1, :])
        angle, lost = _angles(part, freqs, exact_scale)
        if out_dtype == np.float64:  # nothing rounded: the kernel's values, within its bound
            sin, cos = angles.sin_cos(angle)
            _quarter_turns(sin, cos, part, freqs, exact_scale)
            views[0][...], views[1][...] = sin, cos
            continue
        _certified(angle, lost, (part[:, None, :], freqs[:, None], exact_scale), views)
    return out


def _angles(
    points: np.ndarray, freqs: np.ndarray, exact_scale: tuple[float, bool]
) -> tuple[angles.DoubleDouble, np.ndarray]:
    """``f_l·s·x_j`` as double-doubles of shape ``(N, k, m)``, and where the tail was lost.

    ``s = factor`` or ``factor·π`` (π as ``math.pi + PI_TAIL``): within about 2^-102 of the
    exact angle, or, where the tail overflowed (angles past ~1e299), ``lost``.
    """
    scale_hi, scale_lo = scale_double(exact_scale)
    with np.errstate(over="ignore", invalid="ignore"):
        omega, residual = angles.product(freqs, np.array(scale_hi), np.array(scale_lo))
        hi, lo = angles.product(points[:, None, :], omega[:, None], residual[:, None])
    if not np.all(np.isfinite(omega)):  # the scale alone overflows, whatever x
        rule = f"times the largest frequency {float(freqs[-1]):g} must stay finite"
        raise ParameterError("scale", rule, exact_scale[0])
    if not np.all(np.isfinite(hi)):
        rule = "times the frequencies and the scale must stay finite (|x| too large)"
        raise ParameterError("x", rule, float(np.max(np.abs(points))))
    lost = ~np.isfinite(lo)
    if lost.any():  # a factor past ~1e299 overflowed Dekker's split: again, exponents apart
        hi, lo = _apart(points, freqs, exact_scale)
        lost = ~np.isfinite(lo)
    lo = np.where(lost, 0.0, lo)  # an angle past ~1e299 itself: its tail is lost, not the value
    return (hi, lo), lost


def _apart(
    points: np.ndarray, freqs: np.ndarray, exact_scale: tuple[float, bool]
) -> angles.DoubleDouble:
    """``f_l·s·x_j`` with the three factors' exponents taken out, multiplied, put back.

    Each factor is ``m·2^e`` with ``m`` in [0.5, 1) (``frexp``: exact), so no split in
    :func:`~pecli.core.angles.product` overflows; the double-double of the ``m``'s, scaled by
    ``2^(e_x + e_f + e_s)``, is the one the direct products give wherever they do not
    overflow. ``1e300pi`` had lost the tail of ``1e300·π`` itself: x = 1e-300 gave sin of
    ``fl(π)``, 1.2e-16, for the exact -2.4e-16.
    """
    factor, times_pi = exact_scale
    m_s, e_s = math.frexp(factor)
    scale_hi, scale_lo = scale_double((m_s, times_pi))
    m_f, e_f = np.frexp(freqs)
    m_x, e_x = np.frexp(points)
    omega, residual = angles.product(m_f, np.array(scale_hi), np.array(scale_lo))
    hi, lo = angles.product(m_x[:, None, :], omega[:, None], residual[:, None])
    shift = e_x[:, None, :] + e_f[:, None] + e_s
    with np.errstate(over="ignore"):
        return np.ldexp(hi, shift), np.ldexp(lo, shift)


def _certified(
    angle: angles.DoubleDouble,
    lost: np.ndarray,
    terms: tuple[np.ndarray, np.ndarray, tuple[float, bool]],
    outs: tuple[np.ndarray, np.ndarray],
) -> None:
    """Sines and cosines of ``angle`` rounded into ``outs`` under the certificate.

    The direct kernel's values, checked against :func:`~pecli.core.direct.sin_cos_bound`
    (infinite where the tail was lost); the undecided ones recomputed from the exact factors
    ``x``, ``f`` and the scale (:func:`~pecli.core.certificate.sin_cos_product_exact`). For a
    π scale, the values at whole quarter turns are set exactly, with a bound of 0
    (:func:`~pecli.core.turns.dyadic_quarter_turns`).
    """
    bound = sin_cos_bound(angle)
    dtype = outs[0].dtype
    absolute = np.where(lost, np.inf, bound.absolute)
    x, f = np.broadcast_arrays(*terms[:2], angle[0])[:2]
    factor, half_turns = terms[2]
    sin, cos = angles.sin_cos(angle)
    mask = _quarter_turns(sin, cos, terms[0][:, 0, :], terms[1][:, 0], terms[2])
    if mask is not None:  # exact 0 and ±1 at whole quarter turns: no mpmath for them
        absolute[mask] = 0.0
    bound = ErrorBound(absolute, bound.relative, bound.source)
    for values, dest, cosine in zip((sin, cos), outs, (False, True), strict=True):

        def exact(flat: np.ndarray, cosine: bool = cosine) -> np.ndarray:
            where = np.unravel_index(flat, x.shape)  # no copy of the broadcast factors
            factors = (x[where], f[where], np.full(flat.size, factor))
            cosines = np.full(flat.size, cosine)
            return sin_cos_product_exact(factors, cosines, dtype, half_turns=half_turns)

        recomputed = round_certified(values, bound, dest, exact)
        TALLY.add(checked=dest.size, recomputed=recomputed)


def _quarter_turns(
    sin: np.ndarray,
    cos: np.ndarray,
    points: np.ndarray,
    freqs: np.ndarray,
    exact_scale: tuple[float, bool],
) -> np.ndarray | None:
    """Set the values at whole quarter turns of a π scale to exactly 0 and ±1; their mask.

    The double-double angle holds π to about 2^-106 only: at ``1e300·π`` its sine was
    -0.90 in float64, where ``x·f·factor`` is an even integer and the sine exactly 0
    (:func:`~pecli.core.turns.dyadic_quarter_turns`). None for a scale that is no multiple
    of π.
    """
    factor, half_turns = exact_scale
    if not half_turns:
        return None
    mask, q = dyadic_quarter_turns(points, freqs, factor)
    sin[mask], cos[mask] = QUARTER_SIN[q[mask]], QUARTER_SIN[(q[mask] + 1) % 4]
    return mask


#: ``sin(q·π/2)`` for ``q = 0 … 3``; the cosine is ``sin((q + 1)·π/2)``.
QUARTER_SIN = np.array([0.0, 1.0, 0.0, -1.0])


def feature_names(
    m: int, k: int, *, include_input: bool = False, frequencies: str = "harmonic"
) -> list[str]:
    """Column names of :func:`fourier_features`: ``sin_f, cos_f, …`` for each frequency ``f``.

    The suffix is the frequency itself (``sin_4`` is ``sin 4x``), so octave columns read
    ``sin_1, sin_2, sin_4, …``. For ``m > 1`` coordinates each name also gives the
    coordinate, ``sin_1_x2``; the raw input columns are ``x`` (or ``x1 … xm``).

    Examples
    --------
    >>> feature_names(1, 2, include_input=True)
    ['x', 'sin_1', 'cos_1', 'sin_2', 'cos_2']
    >>> feature_names(2, 1)
    ['sin_1_x1', 'sin_1_x2', 'cos_1_x1', 'cos_1_x2']
    >>> feature_names(1, 3, frequencies="octave")
    ['sin_1', 'cos_1', 'sin_2', 'cos_2', 'sin_4', 'cos_4']

    """
    coords = ["x"] if m == 1 else [f"x{j}" for j in range(1, m + 1)]
    suffixes = [""] if m == 1 else [f"_{c}" for c in coords]
    features = [
        f"{kind}_{int(f)}{s}"
        for f in fourier_frequencies(k, frequencies=frequencies)
        for kind in ("sin", "cos")
        for s in suffixes
    ]
    return (coords if include_input else []) + features
