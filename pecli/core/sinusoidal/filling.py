"""The checked arguments of a table, and the one routine that fills any run of its rows.

:class:`TableSpec` holds an :class:`~pecli.core.sinusoidal.knobs.Encoding` and the rows
asked of it (:func:`pecli.encoding_table`, :func:`pecli.table_blocks`,
:func:`pecli.positional_encoding`), checked once; :meth:`TableSpec.fill` writes
rows of consecutive positions, :meth:`TableSpec.fill_positions` rows of any positions. Pure
NumPy, no I/O.

Exactness (docs/encoding.md, docs/conventions.md): angles are double-doubles whatever the
knobs. An angle factor ``k`` (diffusers' ``scale``, MLX's ``2π``) is folded into the
frequencies exactly (:func:`pecli.core.angles.scaled`); an odd ``d`` whose last column is a
sine gets that column evaluated directly. An amplitude ``a`` (MLX's ``sqrt(2/d)``, a
double-double) multiplies the float64 values of a kernel before the one rounding to the
output dtype, under the product's bound (:mod:`pecli.core.certificate.products`).
float32 tables of consecutive positions come from the consecutive kernel (with an amplitude:
in float64, then the product); float16, bfloat16 and any positions from the direct kernel;
every rounding is certified
(docs/exactness.md). Columns at whole half turns (``--full-turns``) are exact where the
angle is a multiple of π/2, and computed elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import direct, kernels
from ..angles import check_reach
from ..certificate import TALLY, sin_cos_exact
from ..certificate.products import round_scaled
from ..rules import check_n, check_padding_idx, check_positions, check_table_dtype, check_width
from ..turns import fill_turns, rational_power
from .conventions import layout_views
from .frequencies import _denominator, frequencies_with_residuals, frequency_count
from .knobs import (
    ODD_SINE,
    Encoding,
    check_amplitude,
    check_amplitude_range,
    check_angle_scale,
    resolve_odd_d,
)

__all__ = ["TableSpec"]


def _check_reach(farthest: float, omega: np.ndarray, e: Encoding, scaled: bool) -> None:
    """Refuse, before any row, angles past 2^56 at ``|position|`` ``farthest``.

    The rule is :func:`~pecli.core.angles.check_reach`'s, named after the knob that made
    the angles large (``angle_scale`` when one is given, else ``base``).
    """
    name, value = ("angle_scale", e.angle_scale) if scaled else ("base", e.base)
    check_reach(farthest * float(np.max(omega, initial=0.0)), name, value)


@dataclass(frozen=True)
class TableSpec:
    """The checked arguments of a table (see :func:`pecli.encoding_table`)."""

    d: int
    n: int
    first: float
    omega: np.ndarray
    residual: np.ndarray
    dtype: np.dtype
    layout: str
    pad: int | None
    odd_sine: bool
    amplitude: tuple[float, float]
    turns: tuple[tuple[int, Fraction], ...] = ()

    @classmethod
    def checked(
        cls,
        encoding: Encoding,
        n: object,
        start: object = 0,
        padding_idx: object = None,
        farthest: float | None = None,
    ) -> TableSpec:
        """Check ``encoding`` for ``n`` rows from ``start`` now, before any row is computed.

        ``farthest``: the largest ``|position|`` whose angles are checked, instead of those
        of ``start … start + n − 1`` (:func:`pecli.positional_encoding`, whose positions
        are any).
        """
        e = encoding
        rule = resolve_odd_d(e.odd_d, e.pad_odd_d)
        width = check_width(e.d, pad_odd_d=rule != "error")
        rows = check_n(n)
        first = check_positions(start, rows)
        scale = check_angle_scale(e.angle_scale, full_turns=bool(e.full_turns))
        factor = None if scale == (1.0, 0.0) else scale
        with np.errstate(over="ignore", invalid="ignore"):  # past reach: refused just below
            omega, residual = frequencies_with_residuals(width, e.base, e.schedule, rule, factor)
        if farthest is None:
            farthest = max(abs(first), abs(first + rows - 1))
        _check_reach(farthest, omega, e, factor is not None)
        layout_views(np.empty((0, width)), e.layout)  # checks the layout now
        out_dtype = check_table_dtype(e.dtype)
        pad = check_padding_idx(padding_idx, rows)
        amp = check_amplitude(e.amplitude, width)
        check_amplitude_range(amp, out_dtype, e.amplitude)
        k = check_angle_scale(e.angle_scale)
        turns = _turn_rates(width, e.base, e.schedule, rule, k[0]) if e.full_turns else ()
        odd_sine = rule in ODD_SINE
        return cls(
            width, rows, first, omega, residual, out_dtype, e.layout, pad, odd_sine, amp, turns
        )

    def fill(self, out: np.ndarray, row0: int) -> None:
        """Fill ``out`` (``(r, d)``) with the table's rows ``row0 … row0 + r - 1``."""
        self._fill_unit(out, row0, kernel=self.dtype == np.float32)

    def check_reach(self, positions: np.ndarray) -> None:
        """Refuse, before any row, ``positions`` whose angles pass 2^56 (under ``positions``)."""
        last = float(np.max(np.abs(positions), initial=0.0))
        check_reach(last * float(np.max(self.omega, initial=0.0)), "positions", last)

    def fill_positions(self, out: np.ndarray, positions: np.ndarray) -> None:
        """Fill ``out`` (``(m, d)``) with the rows of any ``positions`` (``(m,)``, float64)."""
        self._direct(out, positions)
        self._finish(out, None)

    def _fill_unit(self, out: np.ndarray, row0: int, *, kernel: bool) -> None:
        positions = self.first + np.arange(row0, row0 + len(out), dtype=np.float64)
        if not kernel:  # direct: float64, half dtypes (docs/exactness.md)
            self._direct(out, positions)
        else:  # the consecutive kernel: float32, under the certificate
            sin_out, cos_out = layout_views(out, self.layout, odd_sine=self.odd_sine)
            h = cos_out.shape[-1]
            for a, b in self._runs(h):
                if self.amplitude != (1.0, 0.0):
                    self._scaled(sin_out[:, a:b], cos_out[:, a:b], row0, a)
                    continue
                kernels.fill_sin_cos_consecutive(
                    sin_out[:, a:b],
                    cos_out[:, a:b],
                    self.first,
                    self.omega[a:b],
                    omega_residual=self.residual[a:b],
                    offset=row0,
                )
            self._turns(sin_out, cos_out, positions)
        self._finish(out, row0)

    def _scaled(self, sin_out: np.ndarray, cos_out: np.ndarray, row0: int, a: int) -> None:
        """The amplitude times the consecutive kernel's float64 values, rounded once.

        As a rotary cache's attention factor (``core/rope/cache.py``): the product rounded
        under its bound (:func:`~pecli.core.certificate.products.round_scaled`), the
        undecided entries recomputed at their position and pair ``a + column``.
        """
        rows, width = sin_out.shape
        sin, cos = np.empty((rows, width)), np.empty((rows, width))
        w, res = self.omega[a : a + width], self.residual[a : a + width]
        kernels.fill_sin_cos_consecutive(sin, cos, self.first, w, omega_residual=res, offset=row0)
        for values, dest, cosine in ((sin, sin_out, False), (cos, cos_out, True)):

            def exact(flat: np.ndarray, cosine: bool = cosine) -> np.ndarray:
                row, column = np.divmod(flat, width)
                p = self.first + (row0 + row).astype(np.float64)
                terms = (p, np.zeros(flat.size), w[column], res[column])
                cosines = np.full(flat.size, cosine)
                return sin_cos_exact(terms, cosines, self.dtype, factor=self.amplitude)

            bound = kernels.CONSECUTIVE_BOUND
            recomputed = round_scaled(values, bound, self.amplitude, dest, exact)
            TALLY.add(checked=dest.size, recomputed=recomputed)

    def _direct(self, out: np.ndarray, positions: np.ndarray) -> None:
        sin_out, cos_out = layout_views(out, self.layout, odd_sine=self.odd_sine)
        h = cos_out.shape[-1]
        for a, b in self._runs(h):
            direct.fill_sin_cos_direct(
                sin_out[:, a:b],
                cos_out[:, a:b],
                positions,
                self.omega[a:b],
                self.residual[a:b],
                factor=self.amplitude,
            )
        self._turns(sin_out, cos_out, positions)

    def _runs(self, h: int) -> list[tuple[int, int]]:
        """Runs ``[a, b)`` of the pairs ``j < h`` not at whole half turns (:meth:`_turns`)."""
        turns = {j for j, _ in self.turns}
        runs: list[tuple[int, int]] = []
        for j in range(h):
            if j in turns:
                continue
            if runs and runs[-1][1] == j:
                runs[-1] = (runs[-1][0], j + 1)
            else:
                runs.append((j, j + 1))
        return runs

    def _turns(self, sin_out: np.ndarray, cos_out: np.ndarray, positions: np.ndarray) -> None:
        """The last sine of an odd ``d`` and the columns at a rational number of half turns.

        The latter (``--full-turns`` on a rational frequency) are exactly 0 or ±1 where the
        angle is a whole number of quarter turns (:func:`pecli.core.turns.fill_turns`); the
        certificate's fallback is never asked for an exact 0, which no precision decides.
        """
        h, rates = cos_out.shape[-1], dict(self.turns)
        for j in sorted({*rates, *range(h, sin_out.shape[-1])}):
            cos = cos_out[:, j] if j < h else np.empty(len(positions))  # odd d: dropped
            frequency = float(self.omega[j]), float(self.residual[j])
            if j in rates:
                fill_turns((sin_out[:, j], cos), positions, rates[j], frequency, self.amplitude)
                continue
            s, c = sin_out[:, j : j + 1], cos[:, None]
            w, res = self.omega[j : j + 1], self.residual[j : j + 1]
            direct.fill_sin_cos_direct(s, c, positions, w, res, factor=self.amplitude)

    def _finish(self, out: np.ndarray, row0: int | None) -> None:
        """The zero column of an odd ``d`` (exact: counted as checked), the padding row.

        Only the zero rule leaves one: ``out`` is ``d`` wide, and an odd ``d`` that ends with a
        sine has ``ceil(d/2)`` frequencies, ``2·ceil(d/2) >= d``.
        """
        if out.shape[-1] > 2 * self.omega.size:
            out[:, 2 * self.omega.size :] = 0
            zeros = out[:, 2 * self.omega.size :].size
            TALLY.add(checked=zeros if self.dtype != np.float64 else 0)
        if self.pad is not None and row0 is not None and row0 <= self.pad < row0 + len(out):
            out[self.pad - row0] = 0


def _turn_rates(
    d: int, base: float, schedule: str | float, odd_d: str, scale: float
) -> tuple[tuple[int, Fraction], ...]:
    """Columns whose angle ``2π·k·ω_j·p`` turns by a rational ``2·k·ω_j`` half turns a position.

    ``ω_j = C^(-j/(h-s))`` is rational exactly when ``C``'s root is (10000^(-1/4) = 1/10), found
    on integers (:func:`pecli.core.turns.rational_power`); ``k`` is the angle scale, a float.
    """
    denominator = Fraction(_denominator(d, schedule, odd_d))
    found = []
    for j in range(frequency_count(d, odd_d)):
        w = rational_power(base, Fraction(-j) / denominator)
        if w is not None:
            found.append((j, 2 * Fraction(scale) * w))
    return tuple(found)
