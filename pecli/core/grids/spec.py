"""The checked arguments of a grid table and the routine that fills any of its rows.

Split from :mod:`pecli.core.grids.table` (which holds the public functions and the accuracy
notes). A block's frequencies depend on its own number of pairs, so uneven blocks
(``cogvideox``: ``d/8`` pairs for time, ``3d/16`` for each spatial axis) each get theirs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .. import angles
from ..certificate import TALLY, round_certified, sin_cos_exact
from ..direct import direct_bound
from ..errors import ParameterError
from ..rules import check_dtype
from ..sinusoidal.frequencies import frequencies_with_residuals
from .knobs import GridEncoding
from .presets import GridPlan, grid_plan
from .rules import check_extra_tokens, check_grid_scale, check_grid_shape

__all__ = ["GridSpec"]


def _divide(a: angles.DoubleDouble, b: angles.DoubleDouble) -> angles.DoubleDouble:
    """``a / b`` for double-doubles, to about 2^-104 relative (one correction step)."""
    q1 = a[0] / b[0]
    p = angles.product(q1, b[0], b[1])  # q1·b_hi exactly, plus q1·b_lo
    r = angles.add(a, (-p[0], -p[1]))
    q2 = (r[0] + r[1]) / b[0]
    s = q1 + q2
    return s, q2 - (s - q1)


@dataclass(frozen=True)
class GridSpec:
    """The checked arguments of a grid table, and the routine that fills any of its rows."""

    plan: GridPlan
    shape: tuple[int, ...]
    extra: int
    frequencies: dict[int, tuple[np.ndarray, np.ndarray]]  # pairs of a block -> (ω, residual)
    scale: tuple[tuple[float, float], ...] | None  # per axis: (base_size or 0, scale)
    dtype: np.dtype

    @classmethod
    def checked(cls, shape: object, encoding: GridEncoding) -> GridSpec:
        """Check every argument (ParameterError naming it) and precompute the frequencies."""
        e = encoding
        sides = check_grid_shape(shape)
        plan = grid_plan(e.preset, e.d, len(sides), e.axis_order)
        frequencies = {
            h: frequencies_with_residuals(2 * h, e.base, plan.preset.schedule)
            for h in set(plan.block_pairs)
        }
        scales = _scales(
            e.preset,
            len(sides),
            e.base_size,
            e.interpolation_scale,
            e.temporal_interpolation_scale,
        )
        extra = check_extra_tokens(e.extra_tokens)
        spec = cls(plan, sides, extra, frequencies, scales, check_dtype(e.dtype))
        spec.check_reach(e.base)
        return spec

    def check_reach(self, base: object) -> None:
        """Refuse, before any row, angles past 2^56 (:func:`~pecli.core.angles.check_reach`).

        The largest is the last coordinate of the longest axis (after diffusers' scaling)
        times the largest frequency of any block.
        """
        last = max(
            float(self.positions(a, np.array([s - 1]))[0][0]) for a, s in enumerate(self.shape)
        )
        omega = max(float(np.max(w, initial=0.0)) for w, _ in self.frequencies.values())
        angles.check_reach(abs(last) * omega, "base", base)

    @property
    def rows(self) -> int:
        """Rows of the whole table: the extra tokens, then every token of the grid."""
        return self.extra + math.prod(self.shape)

    def positions(self, axis: int, k: np.ndarray) -> angles.DoubleDouble:
        """Coordinates ``k`` of ``axis`` as double-double positions."""
        k = k.astype(np.float64)
        if self.scale is None:
            return k, np.zeros_like(k)
        n = float(self.shape[axis])
        size, interpolation = self.scale[axis]
        zero = np.zeros(())
        numerator = angles.product(k, np.array(size or n), zero)  # exact (Dekker)
        return _divide(numerator, angles.product(np.array(n), np.array(interpolation), zero))

    def sin_cos(self, axis: int, k: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
        """``sin`` and ``cos`` of ``p·ω``, ``(len(k), h)``, for coordinates ``k`` of ``axis``."""
        hi, lo = self.positions(axis, k)
        omega, residual = self.frequencies[h]
        angle = angles.product(hi[:, None], omega, residual)
        angle = angles.add(angle, (lo[:, None] * omega, np.zeros_like(angle[1])))
        return angles.sin_cos(angle)

    def block_values(self, b: int, k: np.ndarray, order: np.ndarray) -> np.ndarray:
        """Block ``b``'s values at coordinates ``k`` of its axis, in output-column order.

        ``order`` is the second array of :meth:`GridPlan.block_columns`. Returns
        ``(len(k), len(order))`` of the table's dtype, C-ordered (rows contiguous to copy),
        each value computed in float64 and rounded once.
        """
        axis, h = self.plan.order[b], self.plan.block_pairs[b]
        s, c = self.sin_cos(axis, k, h)
        values = np.concatenate([s, c], axis=1)[:, order]  # indexing leaves it F-ordered
        if self.dtype == np.float64:
            return values.astype(self.dtype, order="C")
        return self._certified(values, self.positions(axis, k), self.frequencies[h], order)

    def _certified(
        self,
        values: np.ndarray,
        position: angles.DoubleDouble,
        frequency: tuple[np.ndarray, np.ndarray],
        order: np.ndarray,
    ) -> np.ndarray:
        """``values`` rounded to the dtype under the certificate (docs/exactness.md)."""
        (hi, lo), (omega, residual), h = position, frequency, frequency[0].size
        bound = direct_bound(angles.product(hi[:, None], omega, residual))
        tail = np.asarray(bound.absolute)
        bound = replace(bound, absolute=np.concatenate([tail, tail], axis=1)[:, order])
        out = np.empty(values.shape, dtype=self.dtype)

        def exact(flat: np.ndarray) -> np.ndarray:
            row, column = np.unravel_index(flat, values.shape)
            pair = order[column] % h  # order: columns of [sin | cos]
            terms = (hi[row], lo[row], omega[pair], residual[pair])
            return sin_cos_exact(terms, order[column] >= h, self.dtype)

        recomputed = round_certified(values, bound, out, exact)
        TALLY.add(checked=out.size, recomputed=recomputed)
        return out

    def fill_tokens(self, out: np.ndarray, tokens: np.ndarray) -> None:
        """Fill ``out`` (``(len(tokens), d)``, zeroed, the table's dtype) with grid tokens' rows."""
        coords = np.unravel_index(tokens, self.shape)
        for b, axis in enumerate(self.plan.order):
            targets, order = self.plan.block_columns(b)
            if targets.size == 0:
                continue
            unique, where = np.unique(coords[axis], return_inverse=True)
            small = self.block_values(b, unique, order)
            first = targets[0]
            if np.array_equal(targets, np.arange(first, first + targets.size)):  # a plain slice
                out[:, first : first + targets.size] = small[where]  # rows gathered, no scatter
            else:
                out[:, targets] = small[where]

    def fill(self, out: np.ndarray, row0: int) -> None:
        """Fill ``out`` (``(r, d)``) with the table's rows ``row0 … row0 + r - 1``."""
        out[...] = 0
        first = max(row0, self.extra)  # rows before it are extra tokens: zeros
        if first < row0 + len(out):
            tokens = np.arange(first - self.extra, row0 + len(out) - self.extra, dtype=np.int64)
            self.fill_tokens(out[first - row0 :], tokens)


def _scales(
    preset: str, m: int, base_size: object, scale: object, temporal: object
) -> tuple[tuple[float, float], ...] | None:
    """Per axis ``(base_size or 0, scale)`` for diffusers' knobs, or None (integer positions).

    ``mae``: ``base_size`` and ``interpolation_scale`` on every axis; ``cogvideox``: axis 0
    (time) divided by ``temporal_interpolation_scale``, the others by ``interpolation_scale``.
    """
    if float(temporal) != 1.0 and preset != "cogvideox":  # type: ignore[arg-type]
        rule = "applies only to `preset` cogvideox (diffusers get_3d_sincos_pos_embed)"
        raise ParameterError("temporal_interpolation_scale", rule, temporal)
    if base_size is not None and preset != "mae":
        rule = "applies only to `preset` mae (diffusers get_2d_sincos_pos_embed)"
        raise ParameterError("base_size", rule, base_size)
    if float(scale) != 1.0 and preset not in ("mae", "cogvideox"):  # type: ignore[arg-type]
        rule = "applies only to `preset` mae or cogvideox (diffusers)"
        raise ParameterError("interpolation_scale", rule, scale)
    if base_size is None and float(scale) == 1.0 and float(temporal) == 1.0:  # type: ignore[arg-type]
        return None
    size = 0.0 if base_size is None else check_grid_scale("base_size", base_size)
    spatial = (size, check_grid_scale("interpolation_scale", scale))
    if preset == "mae":
        return (spatial,) * m
    return ((0.0, check_grid_scale("temporal_interpolation_scale", temporal)),) + (spatial,) * (
        m - 1
    )
