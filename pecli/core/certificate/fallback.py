"""The recomputation of undecided entries: mpmath at 128 bits (then 256, 640), rounded correctly.

Each recomputed value gets its own Ziv check: its distance to the nearest rounding boundary
must exceed the recomputation's own error (mpmath's, plus how far the double-double inputs
may lie from the exact angle: 2^-100 relative); otherwise it is recomputed at 256 bits, then
640 (the sine of a tiny exact angle lies ``x^3/6`` below ``x``: 2^-300 relative at float32's
least subnormal, a tie when ``x`` is one), and a value still undecided there raises
:class:`~pecli.core.errors.RuntimeFailure`. Values exactly on a boundary are never left
to it: a sine at a whole number of half turns (``--full-turns``), exactly 0, which the
double-double angle (2π rounded) cannot resolve, is written exactly by the writer
(:mod:`pecli.core.turns`), and an angle of exactly 0 gets its sine 0 and cosine 1 here without
mpmath. Likewise a power
``(a/b)^(p/γ)`` exactly on a midpoint of the dtype (xPos: ``(29/64)^5 = 29^5/2^30``) is never
decided by mpmath: :func:`power_exact` rounds rational powers in integers first
(:mod:`.rational`). About 15 µs per entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..dtypes import MIN_EXPONENT, SIGNIFICAND_BITS
from ..errors import RuntimeFailure
from .rational import exact_power, rounded_fraction

__all__ = [
    "correctly_rounded",
    "power_exact",
    "rounded_sum",
    "sin_cos_exact",
    "sin_cos_product_exact",
    "sin_cos_sum_exact",
]

#: Working precisions (bits) of the recomputation, tried in turn: 640 decides the sine of any
#: exact angle down to 2^-150 (x − sin x ≈ x³/6, 2^-300 relative), where a tie of x is near.
PRECISIONS = (128, 256, 640)
#: Relative distance of the double-double inputs from the exact angle (docs/exactness.md).
INPUT_ERROR = 2.0**-100


def correctly_rounded(x: Any, dtype: object) -> float:
    """``x`` (an mpmath number) rounded to nearest, ties to even, in ``dtype``, as a float.

    Subnormal numbers of ``dtype`` are rounded on their fixed quantum; the result is exact
    as a Python float (float64 holds every float32, float16 and bfloat16 number).

    >>> import mpmath
    >>> correctly_rounded(mpmath.mpf(1) + mpmath.mpf(2) ** -24, np.float32)  # a tie: to even
    1.0

    """
    import mpmath

    name = np.dtype(dtype).name  # type: ignore[call-overload]
    bits, emin = SIGNIFICAND_BITS[name], MIN_EXPONENT[name]
    if x == 0:
        return 0.0
    exponent = max(int(mpmath.floor(mpmath.log(abs(x), 2))), emin)
    while abs(x) >= mpmath.ldexp(1, exponent + 1):  # log's last bit may err
        exponent += 1
    while exponent > emin and abs(x) < mpmath.ldexp(1, exponent):
        exponent -= 1
    quantum = exponent - bits + 1
    return float(mpmath.ldexp(mpmath.nint(mpmath.ldexp(x, -quantum)), quantum))


def _decided(f: Callable[[], Any], margin: Callable[[Any], Any], dtype: object) -> float:
    """``f()`` rounded to ``dtype`` at the first precision where ``f() ± margin`` agree."""
    import mpmath

    for prec in PRECISIONS:
        with mpmath.workprec(prec):
            x = f()
            e = margin(x) + abs(x) * mpmath.ldexp(1, 8 - prec)
            low, high = correctly_rounded(x - e, dtype), correctly_rounded(x + e, dtype)
            if low == high:
                return low
    raise RuntimeFailure(f"a value stays undecided at {PRECISIONS[-1]} bits: {x}")


def sin_cos_exact(
    angle_terms: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    cosine: np.ndarray,
    dtype: object,
    *,
    factor: float | tuple[float, float] = 1.0,
) -> np.ndarray:
    """Correctly rounded ``factor · sin`` or ``cos`` of ``(p_hi + p_lo)·(ω + ω_res)``.

    Parameters
    ----------
    angle_terms : tuple of numpy.ndarray
        ``(p_hi, p_lo, omega, residual)``, float64, one entry each (shape ``(k,)``): the
        position and the frequency as double-doubles, multiplied exactly.
    cosine : numpy.ndarray
        Shape ``(k,)``, bool: cosine (True) or sine (False) of each entry.
    dtype : numpy.dtype
        The output dtype the values are rounded to.
    factor : float or tuple of float, keyword-only
        A factor of every value: a float64 taken as exact (a rotary cache's attention
        factor), or a double-double ``(hi, lo)`` within 2^-100 of the exact one (a table's
        amplitude, ``sqrt(2/d)``), whose own error then joins the margin.

    Returns
    -------
    numpy.ndarray
        Shape ``(k,)``, float64 holding values of ``dtype``.

    Examples
    --------
    >>> one = np.ones(1)
    >>> float(sin_cos_exact((one, 0 * one, one, 0 * one), np.array([False]), np.float32)[0])
    0.8414709568023682

    """
    p_hi, p_lo, w, r = (np.asarray(a, dtype=np.float64).reshape(-1) for a in angle_terms)
    hi, lo = factor if isinstance(factor, tuple) else (factor, 0.0)
    found = np.empty(p_hi.size)
    for i in range(p_hi.size):
        if p_hi[i] == 0 and p_lo[i] == 0 and not lo:  # angle 0: sin 0 = 0, cos 0 = 1, exactly
            # 0 or 1 (times the factor), held exactly by dtype: itself, without importing
            # mpmath (~25 ms, 8 % of a rotary cache starting at 0)
            x = hi * float(cosine[i])
            held = float(np.asarray(x).astype(np.dtype(dtype)))  # type: ignore[call-overload]
            found[i] = x if held == x else correctly_rounded(x, dtype)
            continue

        def value(i: int = i) -> Any:
            import mpmath

            with mpmath.workprec(mpmath.mp.prec + 240):  # the product of two double-doubles
                angle = (mpmath.mpf(p_hi[i]) + p_lo[i]) * (mpmath.mpf(w[i]) + r[i])
                scale = mpmath.mpf(hi) + lo
            f = mpmath.cos if cosine[i] else mpmath.sin
            return f(angle) * scale

        def margin(x: Any, i: int = i) -> Any:
            import mpmath

            angle = abs((p_hi[i] + p_lo[i]) * (w[i] + r[i]))
            size = abs(hi) + abs(lo)
            own = abs(x) * INPUT_ERROR if lo else 0  # the double-double factor's own error
            return mpmath.mpf(angle) * 2 * INPUT_ERROR * size + own

        found[i] = _decided(value, margin, dtype)
    return found


def sin_cos_sum_exact(
    angle_terms: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    cosine: np.ndarray,
    addend: np.ndarray,
    dtype: object,
) -> np.ndarray:
    """Correctly rounded ``a + sin`` or ``a + cos`` of ``(p_hi + p_lo)·(ω + ω_res)``.

    ``pecli add``'s sums: ``a`` a float64 taken as exact (the data), the angle as in
    :func:`sin_cos_exact`, whose input error joins the margin, with the rounding of the sine
    and of the sum relative to ``1 + |a|`` (the terms, not the sum, which may cancel). At an
    angle of exactly 0 the sum ``a + 0`` or ``a + 1`` is rational, possibly a midpoint of the
    dtype (``a`` itself may be one), and is rounded exactly, in integers.

    Parameters
    ----------
    angle_terms : tuple of numpy.ndarray
        ``(p_hi, p_lo, omega, residual)``, float64, shape ``(k,)`` each.
    cosine : numpy.ndarray
        Shape ``(k,)``, bool: cosine (True) or sine (False) of each entry.
    addend : numpy.ndarray
        Shape ``(k,)``, float64: the exact ``a`` of each entry.
    dtype : numpy.dtype
        The output dtype the sums are rounded to.

    Returns
    -------
    numpy.ndarray
        Shape ``(k,)``, float64 holding values of ``dtype``.

    Raises
    ------
    RuntimeFailure
        If a sum stays undecided at 640 bits.

    Examples
    --------
    >>> z, tie = np.zeros(1), np.array([2.0**-24])  # 1 + 2^-24: a float32 tie, to even
    >>> sin_cos_sum_exact((z, z, z + 1, z), np.array([True]), tie, np.float32).tolist()
    [1.0]

    """
    from fractions import Fraction

    p_hi, p_lo, w, r = (np.asarray(t, dtype=np.float64).reshape(-1) for t in angle_terms)
    a = np.asarray(addend, dtype=np.float64).reshape(-1)
    found = np.empty(p_hi.size)
    for i in range(p_hi.size):
        if p_hi[i] == 0 and p_lo[i] == 0:  # sin 0 = 0, cos 0 = 1: a rational sum
            found[i] = rounded_fraction(Fraction(float(a[i])) + int(cosine[i]), dtype)
            continue

        def value(i: int = i) -> Any:
            import mpmath

            with mpmath.workprec(mpmath.mp.prec + 240):  # the product of two double-doubles
                angle = (mpmath.mpf(p_hi[i]) + p_lo[i]) * (mpmath.mpf(w[i]) + r[i])
            return (mpmath.cos if cosine[i] else mpmath.sin)(angle) + a[i]

        def margin(x: Any, i: int = i) -> Any:
            import mpmath

            angle = abs((p_hi[i] + p_lo[i]) * (w[i] + r[i]))
            terms = (1 + abs(a[i])) * mpmath.ldexp(1, 4 - mpmath.mp.prec)
            return mpmath.mpf(angle) * 2 * INPUT_ERROR + terms

        found[i] = _decided(value, margin, dtype)
    return found


def sin_cos_product_exact(
    factors: tuple[np.ndarray, np.ndarray, np.ndarray],
    cosine: np.ndarray,
    dtype: object,
    *,
    half_turns: bool = False,
) -> np.ndarray:
    """Correctly rounded ``sin`` or ``cos`` of the exact angle ``x·f·s`` (``π·x·f·s``).

    The three float64 factors are multiplied exactly (no rounding at all), so the
    recomputation's only error is mpmath's own, which reduces even a huge angle exactly. With
    ``half_turns`` the angle is ``π`` times the product and mpmath's ``sinpi``/``cospi``
    reduce the product modulo 2 exactly: a value exactly 0 (a sine at a whole number of half
    turns, a cosine halfway between) is computed as 0 and decided, which no angle carried
    with ``π`` rounded could do.

    Parameters
    ----------
    factors : tuple of numpy.ndarray
        ``(x, f, s)``, float64, shape ``(k,)`` each: the angle's factors, taken as exact.
    cosine : numpy.ndarray
        Shape ``(k,)``, bool: cosine (True) or sine (False) of each entry.
    dtype : numpy.dtype
        The output dtype the values are rounded to.
    half_turns : bool, keyword-only
        The angle is ``π·x·f·s`` (a scale written as a multiple of π).

    Returns
    -------
    numpy.ndarray
        Shape ``(k,)``, float64 holding values of ``dtype``.

    Raises
    ------
    RuntimeFailure
        If a value stays undecided at 640 bits.

    Examples
    --------
    >>> x, f, s = np.array([1.0, 0.5]), np.array([3.0, 1.0]), np.array([1.0, 1.0])
    >>> sin_cos_product_exact((x, f, s), np.array([False, True]), np.float32, half_turns=True)
    array([0., 0.])

    """
    import mpmath

    x, f, s = (np.asarray(a, dtype=np.float64).reshape(-1) for a in factors)
    found = np.empty(x.size)
    for i in range(x.size):
        product = mpmath.fmul(mpmath.fmul(x[i], f[i], exact=True), s[i], exact=True)
        if half_turns:
            function = mpmath.cospi if cosine[i] else mpmath.sinpi
        else:
            function = mpmath.cos if cosine[i] else mpmath.sin

        def value(function: Any = function, product: Any = product) -> Any:
            return function(product)

        found[i] = _decided(value, lambda _: 0, dtype)
    return found


def rounded_sum(hi: np.ndarray, lo: np.ndarray, out: np.ndarray) -> int:
    """``hi + lo`` (a double-double, e.g. an exact frequency) rounded correctly into ``out``.

    The bound of ``hi`` alone is ``|lo|`` plus the pair's own ``2^-100·|hi|``; undecided
    entries are summed in mpmath. Returns how many were recomputed.

    >>> out = np.empty(1, np.float32)
    >>> rounded_sum(np.array([1 + 2.0**-24]), np.array([1e-30]), out), out.tolist()
    (1, [1.0000001192092896])

    """
    from .bounds import ErrorBound, round_certified

    bound = ErrorBound(np.abs(lo) + INPUT_ERROR * np.abs(hi), 0.0, "a double-double")

    def margin(x: Any) -> Any:
        return abs(x) * INPUT_ERROR

    def exact(flat: np.ndarray) -> np.ndarray:
        import mpmath  # undecided entries only: most sums never import it (20-40 ms)

        found = []
        for i in flat:

            def value(i: int = int(i)) -> Any:
                return mpmath.mpf(hi.flat[i]) + lo.flat[i]

            found.append(_decided(value, margin, out.dtype))
        return np.array(found, dtype=np.float64)

    return round_certified(hi, bound, out, exact)


def power_exact(
    bases: tuple[np.ndarray, np.ndarray], exponents: tuple[np.ndarray, float], dtype: object
) -> np.ndarray:
    """Correctly rounded ``(a/b)^(p/γ)`` of exact integers ``a, b, p`` and a float ``γ``.

    ``bases``: ``(a, b)``, integers, shape ``(k,)``; ``exponents``: ``(p, γ)``, ``p`` integers
    of shape ``(k,)``. Returns float64 holding values of ``dtype``, shape ``(k,)`` (xPos
    scales, ``ζ_i^(p/γ)``). A rational value (:func:`.rational.exact_power`: ``29^5/2^30``, a
    float32 midpoint, which no precision separates from the boundary) is rounded exactly, in
    integers; the others in mpmath, whose margin holds the rounding of the base and of
    ``q = p/γ`` to the working precision (``2^-prec`` relative each: ``|q|·2^-prec`` and
    ``|q·ln(a/b)|·2^-prec`` relative in the power) besides mpmath's own error.

    >>> power_exact((np.array([1]), np.array([4])), (np.array([-1]), 2.0), np.float32).tolist()
    [2.0]
    >>> tie = power_exact((np.array([406]), np.array([896])), (np.array([5]), 1.0), np.float32)
    >>> float(tie[0]) * 2**29  # (29/64)^5 = 20,511,149/2^30: halfway, to the even neighbour
    10255574.0

    """
    import mpmath

    a, b = (np.asarray(x).reshape(-1) for x in bases)
    p, gamma = np.asarray(exponents[0]).reshape(-1), exponents[1]
    found = np.empty(a.size)
    for i in range(a.size):
        exact = exact_power(int(a[i]), int(b[i]), int(p[i]), float(gamma))
        if exact is not None:
            found[i] = rounded_fraction(exact, dtype)
            continue

        def value(i: int = i) -> Any:
            base = mpmath.mpf(int(a[i])) / int(b[i])
            return mpmath.power(base, mpmath.mpf(int(p[i])) / mpmath.mpf(gamma))

        def margin(x: Any, i: int = i) -> Any:
            q = abs(mpmath.mpf(int(p[i])) / mpmath.mpf(gamma))
            y = abs(mpmath.log(x)) if x else mpmath.mpf(0)
            return abs(x) * (2 * q + y + 1) * mpmath.ldexp(1, 1 - mpmath.mp.prec)

        found[i] = _decided(value, margin, dtype)
    return found
