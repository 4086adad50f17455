"""What low-precision arithmetic costs a RoPE cache: the phase error per position decade.

Frameworks build the angles ``p·ω_i`` of a rotary embedding in float32 (transformers 5.24:
``position_ids.float() * inv_freq.float()``); a matrix product under bf16 autocast rounds them
to bf16, and a model loaded in bf16 may hold ``inv_freq`` or the positions in bf16 (exact
integers only up to 256). Each scenario rounds the positions, the frequencies and the
product to its dtypes, as such code does; the error is measured against pecli's exact angles
(double-double ``p·ω``, :mod:`pecli.core.angles`), per decade of positions. bfloat16 is
rounded on float32's bits (:func:`pecli.core.dtypes.through_float32`, ``rounded_values``), so
the report does not import ``ml_dtypes`` (0.6 s with ml_dtypes 0.7).

References
----------
.. [1] J. Su et al., "RoFormer", 2021, §3.4; transformers ``models/llama/modeling_llama.py``,
   ``LlamaRotaryEmbedding.forward``.

"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core import angles
from ...core.dtypes import rounded_values, through_float32
from ...core.errors import ParameterError
from ...core.rope import RopeFrequencies
from ...core.rules import check_n, check_positions

__all__ = ["SCENARIOS", "PhaseError", "rope_phase_errors"]

#: name: (positions dtype, inv_freq dtype, angle dtype).
SCENARIOS = {
    "fp32": ("float32", "float32", "float32"),
    "bf16-inv-freq": ("float32", "bfloat16", "float32"),
    "bf16-positions": ("bfloat16", "float32", "float32"),
    "bf16-angles": ("float32", "float32", "bfloat16"),
}
#: Storage scenarios: exact cos and sin (times the attention factor) rounded once to a dtype,
#: as a bfloat16 or float16 cache stores them; no arithmetic in that dtype.
STORAGE = {"bf16-storage": "bfloat16", "fp16-storage": "float16"}
#: Positions sampled per decade (all of them in short decades).
SAMPLES = 4096


@dataclass(frozen=True)
class PhaseError:
    """The largest errors of one scenario over the positions ``first … last`` (one decade)."""

    scenario: str
    first: int
    last: int
    phase: float  # max |angle − p·ω| over pairs and sampled positions, radians
    cos: float  # max |cos(angle) − cos(p·ω)| · attention factor


def rope_phase_errors(
    freqs: RopeFrequencies,
    n: int,
    *,
    start: int = 0,
    scenarios: tuple[str, ...] = (*SCENARIOS, *STORAGE),
) -> list[PhaseError]:
    """Phase and cos errors of each scenario for every decade of positions ``start … start+n−1``.

    Parameters
    ----------
    freqs : RopeFrequencies
        The exact frequencies (:func:`pecli.core.rope.rope_frequencies`).
    n : int
        Positions (>= 1); decades are ``[0, 10)``, ``[10, 100)``, … clipped to the range.
    start : int, keyword-only
        First position, >= 0 (float rounding is symmetric in sign, so the errors at ``-p``
        are those at ``p``), with ``start + n - 1 <= 2^53``.
    scenarios : tuple of str, keyword-only
        Names from :data:`SCENARIOS` (arithmetic) and :data:`STORAGE` (exact values stored
        in bf16 / fp16: the phase error is that of the stored pair, ``arg(c̃ + i·s̃) − p·ω``).

    Returns
    -------
    list of PhaseError
        One per scenario and decade, decades ascending within each scenario.

    Raises
    ------
    ParameterError
        Unknown scenario, ``n < 1``, ``start < 0`` or ``start + n - 1 > 2^53``.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> freqs = rope_frequencies(RopeSpec(head_dim=8))
    >>> rows = rope_phase_errors(freqs, 1000, scenarios=("bf16-positions",))
    >>> [(r.first, r.last, round(r.phase, 3)) for r in rows]  # ω_0 = 1; bf16 steps 4 past 512
    [(0, 9, 0.0), (10, 99, 0.0), (100, 999, 2.0)]
    >>> rows = rope_phase_errors(freqs, 1000, scenarios=("bf16-storage",))
    >>> [round(r.cos / 2**-9, 2) for r in rows]  # at most half a bf16 ulp of values < 1
    [0.92, 1.0, 1.0]

    """
    n = check_n(n)
    check_positions(start, n)  # the positions are float64: exact integers up to 2^53
    if start < 0:  # rope cache takes -p, but each error at -p is the one at p: a mirror
        rule = "must be >= 0: the errors at -p are those at p (rounding is symmetric in sign)"
        raise ParameterError("start", rule, start)
    for name in scenarios:
        if name not in SCENARIOS and name not in STORAGE:
            known = ", ".join([*SCENARIOS, *STORAGE])
            raise ParameterError("scenario", f"must be one of {known}", name)
    decades = _decades(start, start + n - 1)
    exact = [_Exact(freqs, first, last) for first, last in decades]  # shared by the scenarios
    return [_decade(freqs, name, e.first, e.last, e) for name in scenarios for e in exact]


def _decades(first: int, last: int) -> list[tuple[int, int]]:
    out, low = [], 0
    while low <= last:
        high = 9 if low == 0 else low * 10 - 1
        if high >= first:
            out.append((max(low, first), min(high, last)))
        low = 10 if low == 0 else low * 10
    return out


class _Exact:
    """A decade's sampled positions ``p`` ``(m, 1)``, their exact angles and sin and cos."""

    def __init__(self, freqs: RopeFrequencies, first: int, last: int) -> None:
        self.first, self.last = first, last
        count = min(SAMPLES, last - first + 1)
        self.p = np.unique(np.linspace(first, last, count).round())[:, None]
        self.hi, self.lo = angles.product(self.p, freqs.inv_freq, freqs.residual)
        self.sin, self.cos = angles.sin_cos((self.hi, self.lo))


def _decade(
    freqs: RopeFrequencies, name: str, first: int, last: int, e: _Exact | None = None
) -> PhaseError:
    """One scenario's errors over positions ``first … last`` (``e``: their exact values)."""
    e = e or _Exact(freqs, first, last)
    if name in STORAGE:
        return _stored(freqs, name, e)
    pos_t, freq_t, angle_t = SCENARIOS[name]
    w = through_float32(freqs.inv_freq, freq_t)  # a float32 buffer, then cast
    got = through_float32(through_float32(e.p, pos_t) * w, angle_t).astype(np.float64)
    phase = np.abs((got - e.hi) - e.lo)
    cos = np.abs(np.cos(got) - e.cos) * freqs.attention_factor
    return PhaseError(name, e.first, e.last, float(phase.max()), float(cos.max()))


def _stored(freqs: RopeFrequencies, name: str, e: _Exact) -> PhaseError:
    """Exact ``a·cos(p·ω)`` and ``a·sin(p·ω)`` rounded once to the storage dtype."""
    dtype, a = STORAGE[name], freqs.attention_factor
    sin, cos, first, last = e.sin, e.cos, e.first, e.last
    stored_cos = rounded_values(a * cos, dtype)  # as a cache in dtype stores
    stored_sin = rounded_values(a * sin, dtype)
    turned = (stored_cos + 1j * stored_sin) * (cos - 1j * sin)  # the stored pair's phase error
    phase, cos_error = np.abs(np.angle(turned)).max(), np.abs(stored_cos - a * cos).max()
    return PhaseError(name, first, last, float(phase), float(cos_error))
