"""Applying the encoding to data: ``x_pos ↦ x_pos + pe(pos)``, pure NumPy.

Row ``r`` (1-based) of an ``(n, d)`` data matrix gets ``pe(start + r - 1)`` added to it
(docs/encoding.md). A float32 output is correctly rounded, certified (docs/exactness.md): the
sum of the data and the direct kernel's float64 value, rounded once where its bound decides
the rounding, and recomputed from the exact data and angle in mpmath where it does not. A
float64 output is that sum as computed, within the bound.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only: numpy.typing costs start-up time
    from numpy.typing import ArrayLike, DTypeLike

from .. import angles
from ..certificate import TALLY, ErrorBound, round_certified, sin_cos_sum_exact
from ..certificate.bounds import UNIT_ROUNDOFF
from ..direct import DIRECT_CELLS, sin_cos_bound
from ..errors import ParameterError
from ..rules import check_data_dtype, check_data_shape, check_dtype, check_finite, check_position
from .conventions.layouts import layout_views
from .encoding import DEFAULT_BASE, encoding_table
from .filling import TableSpec
from .knobs import Encoding

__all__ = ["add", "add_encoding"]


def add_encoding(
    x: ArrayLike,
    *,
    start: float = 1,
    base: float = DEFAULT_BASE,
    dtype: DTypeLike = np.float32,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Add the positional encoding to data: row ``r`` becomes ``x[r] + pe(start + r)``.

    With 1-based rows this is ``x_pos + pe(pos)`` for ``pos = start … start + n - 1``; the
    width ``d`` of the encoding is the number of columns of ``x``.

    Parameters
    ----------
    x : array_like
        Data of shape ``(n, d)``, ``n >= 1``, ``d`` even; integers or floats, all finite.
    start : float, keyword-only
        Position of the first row (1 as in the article; 0 for the frameworks).
    base : float, keyword-only
        The base ``C``, from 1e-300 to 1e300.
    dtype : {float32, float64}, keyword-only
        Output dtype: float32 correctly rounded (certified; the counts go to
        :data:`pecli.core.certificate.TALLY`), float64 within the kernel's bound.
    out : numpy.ndarray, keyword-only, optional
        A C-ordered ``(n, d)`` array of ``dtype`` to write the result into (a writer's
        reused buffer); it is returned.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``, C-ordered, of ``dtype``.

    Raises
    ------
    ParameterError
        (a ``ValueError``, parameter ``"x"``) if ``x`` is not 2-D, has an odd number of
        columns, no rows, a non-real dtype or a NaN / infinity (the message gives the first
        one's row and column, 1-based); for an invalid ``start``, ``base`` or ``dtype``, or a
        sum beyond the range of a float32 ``dtype``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5 ("we add positional
    encodings to the input embeddings").

    Examples
    --------
    >>> add_encoding([[0.0, 0.0], [1.0, -1.0]], start=0, dtype="float64").round(6)
    array([[ 0.      ,  1.      ],
           [ 1.841471, -0.459698]])

    """
    data = np.asarray(x)
    check_data_dtype(data.dtype)
    d = check_data_shape(data.shape)
    first = check_position("start", start)
    out_dtype = check_dtype(dtype)
    values = np.asarray(data, dtype=np.float64)
    check_finite(values, "x")
    n = values.shape[0]
    if out is not None and (
        out.shape != (n, d) or out.dtype != out_dtype or not out.flags.c_contiguous
    ):
        raise ParameterError("out", f"must be a C-ordered {(n, d)} {out_dtype} array", out.shape)
    if out_dtype == np.float64:  # the sum as computed, within the kernel's bound plus u·|v|
        total = encoding_table(d=d, n=n, start=first, base=base, dtype=np.float64)
        total += values  # in place: no third (n, d) float64 array
        if out is None:
            return total
        out[...] = total
    else:
        spec = TableSpec.checked(Encoding(d=d, base=base, dtype=np.float64), n, start=first)
        out = np.empty((n, d), out_dtype) if out is None else out
        step = max(1, DIRECT_CELLS // spec.omega.size)  # temporaries of about 1 MiB each
        for row in range(0, n, step):
            _certified_sums(values[row : row + step], spec.first + row, spec, out[row : row + step])
    if not np.all(np.isfinite(out)):  # finite float64 sums beyond float32's ±3.4e38
        largest = float(np.max(np.abs(values))) + 1
        raise ParameterError("dtype", "must be float64 for values beyond ±3.4e38", f"{largest:g}")
    return out


def _certified_sums(values: np.ndarray, first: float, spec: TableSpec, out: np.ndarray) -> None:
    """``x + pe`` of rows from position ``first``, rounded into ``out`` under the certificate.

    ``pe`` from the direct kernel, within ``abs + rel·|pe|`` (:func:`~pecli.core.direct.
    sin_cos_bound`); ``v = fl(x + pe)`` adds ``u·|v|``. The undecided sums are recomputed from
    the exact ``x`` and angle (:func:`~pecli.core.certificate.sin_cos_sum_exact`);
    docs/exactness.md, "Sums".
    """
    positions = first + np.arange(values.shape[0], dtype=np.float64)
    angle = angles.product(positions[:, None], spec.omega, spec.residual)
    bound = sin_cos_bound(angle)
    p, w, res = np.broadcast_arrays(positions[:, None], spec.omega, spec.residual)
    pairs = zip(layout_views(values, spec.layout), layout_views(out, spec.layout), strict=True)
    for pe, (data, dest), cosine in zip(angles.sin_cos(angle), pairs, (False, True), strict=True):
        absolute = bound.absolute + bound.relative * np.abs(pe)
        summed = ErrorBound(absolute, UNIT_ROUNDOFF, "a sum: the kernel's bound and u·|v|")

        def exact(flat: np.ndarray, cosine: bool = cosine, data: np.ndarray = data) -> np.ndarray:
            i = np.unravel_index(flat, p.shape)
            terms = (p[i], np.zeros(flat.size), w[i], res[i])
            cosines = np.full(flat.size, cosine)
            return sin_cos_sum_exact(terms, cosines, data[i], out.dtype)

        with np.errstate(over="ignore"):  # past float32's range: refused by the caller
            recomputed = round_certified(data + pe, summed, dest, exact)
        TALLY.add(checked=dest.size, recomputed=recomputed)


#: The name used by the command line (``pecli add``): :func:`add_encoding`.
add = add_encoding
