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
double-double) multiplies the float64 values before the one rounding to the output dtype:
``a·v`` is then within about 2 float64 ulps of ``a`` of the exact value (1.5 from ``v``, half
from the product), so float32 tables stay correctly rounded except within ~1e-15 relative of
a tie (tests/sinusoidal/test_presets_knobs.py checks them against mpmath).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .. import kernels
from ..dtypes import round_once
from ..rules import check_n, check_padding_idx, check_positions, check_table_dtype, check_width
from .conventions import layout_views
from .frequencies import frequencies_with_residuals
from .knobs import (
    ODD_SINE,
    Encoding,
    check_amplitude,
    check_amplitude_range,
    check_angle_scale,
    resolve_odd_d,
)

__all__ = ["TableSpec"]

#: Cells per float64 scratch block when an amplitude is applied (about 1 MiB).
SCRATCH_CELLS = 1 << 17


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
    half_turns: tuple[tuple[int, int], ...] = ()

    @classmethod
    def checked(
        cls, encoding: Encoding, n: object, start: object = 0, padding_idx: object = None
    ) -> TableSpec:
        """Check ``encoding`` for ``n`` rows from ``start`` now, before any row is computed."""
        e = encoding
        rule = resolve_odd_d(e.odd_d, e.pad_odd_d)
        width = check_width(e.d, pad_odd_d=rule != "error")
        rows = check_n(n)
        first = check_positions(start, rows)
        scale = check_angle_scale(e.angle_scale, full_turns=bool(e.full_turns))
        factor = None if scale == (1.0, 0.0) else scale
        omega, residual = frequencies_with_residuals(width, e.base, e.schedule, rule, factor)
        layout_views(np.empty((0, width)), e.layout)  # checks the layout now
        out_dtype = check_table_dtype(e.dtype)
        pad = check_padding_idx(padding_idx, rows)
        amp = check_amplitude(e.amplitude, width)
        check_amplitude_range(amp, out_dtype, e.amplitude)
        k = check_angle_scale(e.angle_scale)
        turns = _half_turns(width, e.base, e.schedule, rule, k) if e.full_turns else ()
        odd_sine = rule in ODD_SINE
        return cls(
            width, rows, first, omega, residual, out_dtype, e.layout, pad, odd_sine, amp, turns
        )

    def fill(self, out: np.ndarray, row0: int) -> None:
        """Fill ``out`` (``(r, d)``) with the table's rows ``row0 … row0 + r - 1``."""
        if self.dtype.itemsize == 2:  # float16, bfloat16: from float64, rounded once
            wide = np.empty(out.shape)
            replace(self, dtype=np.dtype(np.float64)).fill(wide, row0)
            out[...] = round_once(wide, self.dtype)
            return
        self._scaled(out, row0, self._fill_unit)

    def fill_positions(self, out: np.ndarray, positions: np.ndarray) -> None:
        """Fill ``out`` (``(m, d)``) with the rows of any ``positions`` (``(m,)``, float64)."""
        if self.dtype.itemsize == 2:  # float16, bfloat16: from float64, rounded once
            wide = np.empty(out.shape)
            replace(self, dtype=np.dtype(np.float64)).fill_positions(wide, positions)
            out[...] = round_once(wide, self.dtype)
            return

        def unit(block: np.ndarray, r0: int, *, kernel: bool = False) -> None:
            self._direct(block, positions[r0 : r0 + len(block)])
            self._exact_turns(block, positions[r0 : r0 + len(block)])

        self._scaled(out, 0, unit)

    def _scaled(self, out: np.ndarray, row0: int, unit: Callable[..., None]) -> None:
        if self.amplitude == (1.0, 0.0):
            unit(out, row0, kernel=self.dtype != np.float64)
            return
        hi, lo = self.amplitude
        step = max(1, SCRATCH_CELLS // self.d)
        for r in range(0, len(out), step):
            scratch = np.empty((min(step, len(out) - r), self.d), dtype=np.float64)
            unit(scratch, row0 + r, kernel=self.dtype != np.float64)
            out[r : r + len(scratch)] = scratch * hi + scratch * lo

    def _fill_unit(self, out: np.ndarray, row0: int, *, kernel: bool) -> None:
        if not kernel:  # direct: one float64 ulp of each value (docs/encoding.md)
            self._direct(out, self.first + np.arange(row0, row0 + len(out), dtype=np.float64))
        else:  # the kernel: within 5e-16 before rounding, so float32 is correctly rounded
            sin_out, cos_out = layout_views(out, self.layout, odd_sine=self.odd_sine)
            h = cos_out.shape[-1]
            kernels.fill_sin_cos_consecutive(
                sin_out[:, :h],
                cos_out,
                self.first,
                self.omega[:h],
                omega_residual=self.residual[:h],
                offset=row0,
            )
            if sin_out.shape[-1] > h:  # the last sine of an odd d, evaluated directly
                positions = self.first + np.arange(row0, row0 + len(out), dtype=np.float64)
                self._extra_sine(sin_out[:, h:], positions)
        self._finish(out, row0)

    def _direct(self, out: np.ndarray, positions: np.ndarray) -> None:
        sin_out, cos_out = layout_views(out, self.layout, odd_sine=self.odd_sine)
        h = cos_out.shape[-1]
        kernels.fill_sin_cos_direct(
            sin_out[:, :h], cos_out, positions, self.omega[:h], self.residual[:h]
        )
        if sin_out.shape[-1] > h:
            self._extra_sine(sin_out[:, h:], positions)
        elif out.shape[-1] % 2:
            out[:, -1] = 0  # the zero column of an odd d

    def _extra_sine(self, column: np.ndarray, positions: np.ndarray) -> None:
        cosine = np.empty(column.shape, dtype=np.float64)  # computed and dropped (HF Marian)
        kernels.fill_sin_cos_direct(column, cosine, positions, self.omega[-1:], self.residual[-1:])

    def _exact_turns(self, out: np.ndarray, positions: np.ndarray) -> None:
        """Whole half turns (``--full-turns``): sin exactly 0 and cos exactly ±1 there."""
        whole = positions == np.round(positions)
        if not self.half_turns or not whole.any():
            return
        sin_out, cos_out = layout_views(out, self.layout, odd_sine=self.odd_sine)
        for column, halves in self.half_turns:  # angle = π · halves · p
            odd = np.mod(halves * positions[whole], 2) == 1
            sin_out[whole, column] = 0
            if column < cos_out.shape[-1]:
                cos_out[whole, column] = np.where(odd, -1.0, 1.0)

    def _finish(self, out: np.ndarray, row0: int) -> None:
        if not self.odd_sine:
            out[:, 2 * self.omega.size :] = 0  # the zero column of an odd d
        if self.half_turns:
            self._exact_turns(out, self.first + np.arange(row0, row0 + len(out), dtype=float))
        if self.pad is not None and row0 <= self.pad < row0 + len(out):
            out[self.pad - row0] = 0


def _half_turns(
    d: int, base: float, schedule: str | float, odd_d: str, k: tuple[float, float]
) -> tuple[tuple[int, int], ...]:
    """Columns whose angle in turns ``k·ω`` is an exact multiple of 1/2: (column, 2·k·ω).

    Their ``sin(2π·k·ω·p)`` is exactly 0 at integer ``p`` (MLX's ``full_turns`` with
    ``max_freq = 1`` makes the first column so), which the kernel's 5e-16 would blur.
    """
    omega, residual = frequencies_with_residuals(d, base, schedule, odd_d, k)
    halves = 2 * omega
    exact = (residual == 0) & (halves == np.round(halves)) & (np.abs(halves) < 2.0**52)
    return tuple((int(j), int(halves[j])) for j in np.flatnonzero(exact))
