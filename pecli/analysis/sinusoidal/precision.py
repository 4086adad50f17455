"""How much a table computed the way frameworks do loses against pecli's float64 reference.

Frameworks build the table in float32 (positions, frequencies, angles, sin and cos all float32)
or, inside fp16 / bf16 models, entirely in half precision. pecli evaluates angles and sin/cos in
float64 and rounds once (docs/encoding.md#numerics). This module emulates the frameworks'
arithmetic —
``ω_j = exp(j · (-ln C / (h - s)))``, ``θ = pos · ω`` and ``sin θ``, ``cos θ``, every step rounded
to the dtype — and measures the error of each row against the float64 table. bfloat16 comes
from ``ml_dtypes`` (through :func:`pecli.core.dtypes.float_dtype`); the dtype facts (unit
roundoff, largest exact integer, storage precision) are :mod:`pecli.core.dtypes`'.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.
.. [2] IEEE 754-2008 (binary16); Google Brain bfloat16 (8-bit significand).

"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ...core.dtypes import float_dtype, largest_exact_integer
from ...core.errors import ParameterError
from ...core.rules import check_n, check_schedule, check_width
from ...core.sinusoidal.conventions import Convention, layout_views
from ...core.sinusoidal.encoding import table_blocks

__all__ = [
    "PrecisionReport",
    "framework_blocks",
    "precision_report",
]

#: The framework arithmetic dtypes :func:`precision_report` emulates.
ARITHMETIC = ("float32", "float16", "bfloat16")


def _check_dtype(dtype: str) -> str:
    if dtype not in ARITHMETIC:
        raise ParameterError("compute_dtype", f"must be one of {', '.join(ARITHMETIC)}", dtype)
    return dtype


def framework_blocks(
    *, d: int, n: int, convention: Convention, base: float, dtype: str, rows: int = 4096
) -> Iterator[np.ndarray]:
    """The table as a framework computes it in ``dtype``, as float64 row blocks.

    Positions, ``ω_j = exp(j · (-ln C / (h - s)))``, angles and sin/cos are each rounded to
    ``dtype`` (PyTorch's tutorial, fairseq and diffusers order of operations).

    Parameters
    ----------
    d, n : int, keyword-only
        Width and number of rows.
    convention : Convention, keyword-only
        Schedule, layout, start, padding row and odd-``d`` handling.
    base : float, keyword-only
        The base ``C``.
    dtype : {"float32", "float16", "bfloat16"}, keyword-only
        The arithmetic dtype.
    rows : int, keyword-only
        Block height.

    Returns
    -------
    iterator of numpy.ndarray
        Blocks ``(r, d)`` of float64 holding the ``dtype`` values.

    """
    arith = float_dtype(_check_dtype(dtype))
    convention.check_plain("precision")
    d = check_width(d, pad_odd_d=convention.pad_odd_d)
    h = d // 2
    denominator = max(h - check_schedule(convention.schedule), 1)  # tensor2tensor's d = 2 guard
    scale = np.asarray(-math.log(base) / denominator, dtype=arith)
    omega = np.exp(np.arange(h).astype(arith) * scale)
    for row in range(0, check_n(n), rows):
        offsets = np.arange(row, min(row + rows, n))
        block = np.zeros((len(offsets), d))
        sines, cosines = layout_views(block, convention.layout)
        with np.errstate(all="ignore"):  # fp16 overflows past 65504: that is what we measure
            angles = (convention.start + offsets).astype(arith)[:, None] * omega[None, :]
            sines[...], cosines[...] = np.sin(angles), np.cos(angles)
        if convention.padding_idx is not None and row <= convention.padding_idx < row + len(block):
            block[convention.padding_idx - row] = 0
        yield block


@dataclass
class PrecisionReport:
    """Per-row errors of the framework-style table and of pecli's, against float64."""

    dtype: str
    positions: np.ndarray
    framework_error: np.ndarray
    pecli_error: np.ndarray
    threshold: float
    first_exceeding: float | None
    largest_exact: int

    def ranges(self) -> list[tuple[float, float, float, float]]:
        """``(first, last position, max framework error, max pecli error)`` per decade."""
        magnitude = np.floor(np.log10(np.maximum(np.abs(self.positions), 1)))
        out = []
        for decade in np.unique(magnitude):
            rows = magnitude == decade
            p = self.positions[rows]
            out.append(
                (
                    float(p.min()),
                    float(p.max()),
                    float(self.framework_error[rows].max()),
                    float(self.pecli_error[rows].max()),
                )
            )
        return out


#: Rows ``precision_report`` accepts: it keeps 24 bytes per row (2.4 GB here) and takes
#: about a second per million rows at d = 512.
PRECISION_MAX_ROWS = 100_000_000


def precision_report(
    *,
    d: int,
    n: int,
    convention: Convention,
    base: float,
    dtype: str = "float32",
    threshold: float = 1e-3,
    track: Callable[[Iterator[np.ndarray]], Iterable[np.ndarray]] | None = None,
) -> PrecisionReport:
    """Compare the framework-style table in ``dtype`` with pecli's float64 reference.

    Parameters
    ----------
    d, n : int, keyword-only
        Width and number of rows.
    convention : Convention, keyword-only
        The knobs (see :func:`pecli.core.sinusoidal.conventions.convention`).
    base : float, keyword-only
        The base ``C``.
    dtype : {"float32", "float16", "bfloat16"}, keyword-only
        Arithmetic of the framework-style table (``float32``: angles in float32).
    threshold : float, keyword-only
        Error, > 0, whose first crossing is reported.
    track : callable, keyword-only, optional
        Wraps the iterator of reference row blocks (of 4096 rows) and yields them unchanged:
        how a caller shows progress.

    Returns
    -------
    PrecisionReport
        Per row: the largest ``|framework - reference|`` and the largest error of pecli's
        table in ``dtype`` (the reference rounded once).

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid argument, or ``n`` above
        :data:`PRECISION_MAX_ROWS`.

    Examples
    --------
    >>> from pecli import convention
    >>> report = precision_report(d=8, n=300, convention=convention("pytorch"), base=1e4,
    ...                           dtype="bfloat16", threshold=0.05)
    >>> report.largest_exact, report.first_exceeding is not None
    (256, True)
    >>> bool(report.pecli_error.max() < 4e-3)
    True

    """
    if not (math.isfinite(threshold) and threshold > 0):
        raise ParameterError("threshold", "must be a finite number > 0", threshold)
    if n > PRECISION_MAX_ROWS:  # n itself is checked with the table's own rules below
        rule = f"must be at most {PRECISION_MAX_ROWS:,} for precision (it keeps every row's error)"
        raise ParameterError("n", rule, n)
    kwargs = convention.table_kwargs()
    rows = 4096  # the same blocks on both sides, so they pair up row for row
    reference: Iterable[np.ndarray] = table_blocks(
        d=d, n=n, base=base, dtype="float64", rows=rows, **kwargs
    )
    if track is not None:
        reference = track(iter(reference))
    framework = framework_blocks(d=d, n=n, convention=convention, base=base, dtype=dtype, rows=rows)
    framework_error, pecli_error = [], []
    rounded = np.empty(0, dtype=float_dtype(dtype))  # pecli's table in dtype, block by block
    for exact, computed in zip(reference, framework, strict=True):
        np.subtract(computed, exact, out=computed)  # each block is the framework's own copy
        framework_error.append(np.abs(computed, out=computed).max(axis=1))
        if rounded.shape != exact.shape:  # one buffer for every block of the same height
            rounded = np.empty(exact.shape, dtype=rounded.dtype)
        rounded[...] = exact  # rounded once; back in float64 below, in the framework's block
        computed[...] = rounded
        once = np.subtract(computed, exact, out=computed)
        pecli_error.append(np.abs(once, out=once).max(axis=1))
    errors = np.concatenate(framework_error)
    errors[np.isnan(errors)] = np.inf  # overflowed (fp16 beyond 65504): no accuracy at all
    positions = convention.start + np.arange(n, dtype=np.float64)
    over = np.flatnonzero(errors > threshold)
    first = float(positions[over[0]]) if over.size else None
    pecli = np.concatenate(pecli_error)
    return PrecisionReport(
        dtype, positions, errors, pecli, threshold, first, largest_exact_integer(dtype)
    )
