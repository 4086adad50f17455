"""Reading an xPos scale table back: its layout, γ, queries or keys, and its centred positions.

A table of ``pecli xpos`` (torchscale's ``XPOS``, rotary-embedding-torch's xPos) holds
``ζ_i^(s·p_t/γ)`` in both channels of pair ``i``, with ``ζ_i = (2i + 0.4·d)/(1.4·d)``,
``s = +1`` for queries and ``−1`` for keys and ``p_t`` the centred position of row ``t``
(:func:`pecli.core.zoo.xpos.xpos_positions`). :func:`read_xpos` finds each of them from the
values alone; ``pecli diff`` names what differs between two such tables
(:mod:`pecli.analysis.ports.causes.readings`). Pure NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.dtypes import storage_precision
from ...core.zoo.xpos import xpos_pair_bases

__all__ = ["GAMMA_SPREAD", "XposReading", "read_xpos"]

#: Relative spread of γ read from tables of each storage, for two readings to differ: a
#: bfloat16 table of 17 rows at d = 8 reads 512 as 497 … 537, a float16 one 504 … 514
#: (measured on pecli's own tables); float32 and float64 read it to 10^-6 and better.
GAMMA_SPREAD = {"bfloat16": 0.1, "float16": 0.05, "float32": 1e-4, "float64": 1e-8}


@dataclass(frozen=True)
class XposReading:
    """What an xPos table says of itself (:func:`read_xpos`)."""

    layout: str
    """``interleaved`` (channels ``2i``, ``2i+1``) or ``half-split`` (``c`` and ``c + d/2``)."""
    scale_base: float
    """``γ`` (512 in both libraries), from the step of the exponent per row (three digits
    from a float16 or bfloat16 table, whose rounding hides the rest)."""
    keys: bool
    """True for the keys' scales ``ζ_i^(−p/γ)``, False for the queries'."""
    first_position: int
    """``p_0``, the centred position of the first row (its exponent times ``γ``, rounded)."""
    centres: tuple[str, ...]
    """The centrings that give ``p_0`` with no offset: ``torchscale`` (``−ceil(L/2)``),
    ``lucidrains`` (``−floor(L/2)``), both for an even ``L``, none (an offset) otherwise."""
    storage: str = "float64"
    """The coarsest dtype holding every value (a float16 table read from CSV is float16's)."""

    def as_dict(self) -> dict[str, object]:
        """The reading as ``pecli diff`` prints it and reports it in JSON."""
        return {
            "kind": "xpos",
            "layout": self.layout,
            "scale_base": self.scale_base,
            "side": "keys" if self.keys else "queries",
            "first_position": self.first_position,
            "centre": " or ".join(self.centres) or "an offset",
            "storage": self.storage,
        }


def read_xpos(table: np.ndarray) -> XposReading | None:
    """The xPos reading of a ``(rows, d)`` table, or None when it is not an xPos table.

    Parameters
    ----------
    table : numpy.ndarray
        Two dimensions, rows = positions, ``d`` even columns; any float dtype.

    Returns
    -------
    XposReading or None
        None unless every value is finite and > 0, the channels come in equal twos (one of the
        two layouts), there are two rows or more, and every ``ln v_ti`` is within 4 units of
        the table dtype's rounding (times ``1 + |x|``) of ``x = (e_0 + t·step)·ln ζ_i``:
        exponents stepping by one constant ``±1/γ``.

    Notes
    -----
    The exponent of row ``t`` is the least-squares ``e_t = Σ_i ln v_ti · ln ζ_i / Σ_i
    (ln ζ_i)²``, which weighs the pairs far from ζ = 1 (the best measured) most. The step is
    the slope of the least-squares line through the ``e_t``; ``γ = 1/|step|`` and the step's
    sign tells queries from keys. ``p_0 = e_0 / step``, rounded.

    Examples
    --------
    >>> from pecli.core.zoo.xpos import xpos_scales
    >>> found = read_xpos(xpos_scales(16, 8, dtype="float32"))
    >>> found.layout, found.scale_base, found.keys, found.first_position, found.centres
    ('interleaved', 512.0, False, -8, ('torchscale', 'lucidrains'))

    """
    values = np.asarray(table)
    width = values.shape[-1] if values.ndim else 0
    if values.ndim != 2 or values.shape[0] < 2 or not 2 <= width <= 1 << 16 or width % 2:
        return None
    if not np.all(values[:2] > 0):  # a cos/sin table's first rows: a sine ≤ 0, nothing read
        return None
    storage = storage_precision(values)  # a float16 table read from CSV is float16's
    tolerance = _tolerance(storage)
    values = values.astype(np.float64)
    if not np.all(np.isfinite(values)) or not np.all(values > 0):
        return None
    layout, scales = _pairs(values)
    if layout is None:
        return None
    d, rows = values.shape[1], values.shape[0]
    ln_zeta = np.log(xpos_pair_bases(d))
    logs = np.log(scales)
    exponents = logs @ ln_zeta / (ln_zeta @ ln_zeta)
    step, first_exponent = np.polyfit(np.arange(rows, dtype=np.float64), exponents, 1)
    if step == 0 or not math.isfinite(step):
        return None
    model = np.outer(first_exponent + step * np.arange(rows), ln_zeta)
    if np.any(np.abs(logs - model) > tolerance * (1 + np.abs(model))):  # exponents rounded too
        return None
    first = round(first_exponent / step)
    centres = tuple(
        name
        for name, p0 in (("torchscale", -((rows + 1) // 2)), ("lucidrains", -(rows // 2)))
        if p0 == first
    )
    gamma = _rounded(1 / abs(float(step)), storage)
    return XposReading(layout, gamma, bool(step < 0), int(first), centres, storage)


def _tolerance(dtype: str) -> float:
    """Largest ``|ln v − x|`` (``x = e_t·ln ζ_i``) of a table stored in ``dtype``.

    4 units of its rounding times ``1 + |x|`` (the exponent ``x`` was rounded too), plus 1024
    units of float64 for the fit's own arithmetic (5 seen over 300 rows of a float64 table,
    120 at γ = 0.1, where ``x`` reaches 25).
    """
    bits = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}[dtype]
    return 4 * 2.0**-bits + 1024 * 2.0**-53


def _pairs(values: np.ndarray) -> tuple[str | None, np.ndarray]:
    """The layout whose two channels of each pair are equal, and one channel per pair."""
    half = values.shape[1] // 2
    if np.array_equal(values[:, 0::2], values[:, 1::2]):
        return "interleaved", values[:, 0::2]
    if np.array_equal(values[:, :half], values[:, half:]):
        return "half-split", values[:, :half]
    return None, values


def _rounded(gamma: float, storage: str) -> float:
    """``γ`` to the digits the table holds.

    The integer within ``10^-4`` of it (512, not 511.99998); else 10 significant digits from
    float64, 6 from float32 and 3 from float16 or bfloat16 (whose rounding blurs even those:
    :data:`GAMMA_SPREAD`).
    """
    nearest = round(gamma)
    if nearest >= 1 and abs(gamma - nearest) <= 1e-4 * gamma:  # never γ = 0
        return float(nearest)
    digits = {"float64": 10, "float32": 6}.get(storage, 3)
    return float(f"{gamma:.{digits}g}")
