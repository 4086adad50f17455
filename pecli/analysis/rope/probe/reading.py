"""``probe_rope``: what a layer did to q (or k), read from the vectors before and after RoPE.

The steps, each in its module: the vectors that only changed by a gain (NoPE), the channels
at the ends that stayed proportional and the pairing that keeps every pair's norm
(:mod:`.structure`), the gain of each position (a temperature, :mod:`.temperature`) and of the
rotated channels (an attention factor), each pair's angle and ω (:mod:`.omega`), and θ,
scaling and M-RoPE sections from the ω (:mod:`.frequencies`). No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....core.dtypes import unit_roundoff
from ....core.median import median
from . import structure
from .frequencies import Frequencies, read_frequencies
from .omega import OmegaFit, fit_omega, measurements, pair_angles
from .structure import Pairing
from .temperature import Temperature, fit_temperature

__all__ = ["ProbeReading", "probe_rope"]


@dataclass(frozen=True)
class ProbeReading:
    """What a layer did to the vectors; see :func:`probe_rope`.

    ``rope`` is True (a rotation), False (NoPE: no channel turned) or None (inconsistent with
    any rotation, the pairing cannot be told, or — nothing ``tried`` — unchanged vectors that
    RoPE would not have turned either: zero, or at position 0). ``pairing`` is the chosen one
    (None without a rotation), ``tried`` every pairing scored as ``(words, score)`` (at most 1
    fits). ``gain`` is each row's (token's) factor, ``factor`` the rotated channels' own
    factor beside the pass-through ones (an attention factor).
    """

    rope: bool | None
    storage: str
    shape: tuple[int, int, int]
    positions: np.ndarray
    pairing: Pairing | None = None
    width_sure: bool = True
    frequencies: Frequencies | None = None
    gain: np.ndarray = field(default_factory=lambda: np.ones(0))
    gain_per_head: bool = False
    factor: float = 1.0
    temperature: Temperature = field(default_factory=lambda: Temperature("none"))
    tried: list[tuple[str, float]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)


def probe_rope(pre: np.ndarray, post: np.ndarray, positions: np.ndarray) -> ProbeReading:
    """Read the rotation (or its absence) that turned ``pre`` into ``post``.

    Parameters
    ----------
    pre, post : numpy.ndarray
        Shape ``(rows, heads, head_dim)``, one float dtype each (bfloat16 too): the same q
        (or k) vectors before and after RoPE (:func:`.inputs.as_rows` makes them from a dump).
    positions : numpy.ndarray
        Shape ``(rows, axes)``, float64: each row's position, or its ids (M-RoPE).

    Returns
    -------
    ProbeReading

    Notes
    -----
    Tolerances follow the coarser dtype's unit roundoff ``u``: a stored value may be off by
    8u of its vector's largest entry (transformers' float32 and bf16 rotations need 4u), and
    an angle by that over the pair's norm plus ``2^-23·|ω·p|`` (float32 angles).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q = rng.standard_normal((6, 2, 8))
    >>> p = np.array([0.0, 1, 2, 3, 50, 700])
    >>> w = 100.0 ** (-np.arange(4) / 4)
    >>> c, s = np.cos(p[:, None] * w)[:, None], np.sin(p[:, None] * w)[:, None]
    >>> k = np.concatenate([q[..., :4] * c - q[..., 4:] * s, q[..., 4:] * c + q[..., :4] * s], -1)
    >>> r = probe_rope(q, k, p[:, None])
    >>> r.pairing.describe(), r.frequencies.theta.theta
    ('half-split over channels 0–7', 100.0)

    """
    rows, heads, dim = pre.shape
    unit = max(unit_roundoff(_storage(pre)), unit_roundoff(_storage(post)))
    storage = _storage(pre) if unit_roundoff(_storage(pre)) >= unit else _storage(post)
    x, y = _unit_scaled(
        pre.astype(np.float64).reshape(rows * heads, dim),
        post.astype(np.float64).reshape(rows * heads, dim),
    )
    tol = structure.row_tolerance(x, y, unit)
    base = ProbeReading(None, storage, (rows, heads, dim), positions)
    if structure.proportional(x, y, tol):
        if not _moved(x, positions, heads):  # RoPE leaves them unchanged too
            return _dataclass_replace(base, findings=[UNDETERMINED])
        gain = structure.gains(x, y).reshape(rows, heads)
        if not np.all(gain > 0):  # a vector made zero (or flipped) is no unchanged one
            return _dataclass_replace(base, findings=[ZEROED])
        return _with_gains(base, gain, unit, dim, rope=False)
    head, tail = structure.unchanged_ends(x, y, tol)
    first, stop = min(head, dim - tail), max(dim - tail, head)
    pairing, tried = _pairing(x, y, tol, positions, heads, (first, stop))
    if pairing is None:
        return _dataclass_replace(base, tried=tried, findings=_no_rotation(tried))
    return _rotation(base, pairing, tried, (x, y, tol), unit)


#: Why unchanged vectors that RoPE would leave unchanged as well read neither way.
UNDETERMINED = (
    "not determined: every vector is zero or at position 0, which RoPE leaves unchanged as "
    "well (give nonzero vectors at other positions)"
)


#: Why vectors scaled by 0 (or a negative factor) read as neither RoPE nor NoPE.
ZEROED = (
    "POST scales some of PRE's vectors by 0 or less: no rotation, and no NoPE layer, does "
    "(a layer's output rather than its queries or keys?)"
)


def _unit_scaled(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` times one power of 2 that brings their largest |value| into [1/2, 1).

    A rotation reads the same at any scale, but squares of float64 values past 1e154
    overflow and those below 1e-154 underflow: vectors scaled by 1e160 missed "by nan", by
    1e-160 read as a temperature. A power of 2 changes no digit of any value.
    """
    largest = float(max(np.max(np.abs(x), initial=0.0), np.max(np.abs(y), initial=0.0)))
    shift = -math.frexp(largest)[1]
    return np.ldexp(x, shift), np.ldexp(y, shift)


def _moved(x: np.ndarray, positions: np.ndarray, heads: int) -> bool:
    """Whether some nonzero vector sits at a nonzero position: one RoPE would have turned."""
    away = np.repeat(np.abs(positions).max(axis=1), heads) > 0
    return bool(np.any(away & np.any(x != 0, axis=1)))


def _storage(array: np.ndarray) -> str:
    return "bfloat16" if array.dtype.name == "bfloat16" else np.dtype(array.dtype).name


def _dataclass_replace(reading: ProbeReading, **changes: object) -> ProbeReading:
    import dataclasses

    return dataclasses.replace(reading, **changes)  # type: ignore[arg-type]


def _pairing(
    x: np.ndarray,
    y: np.ndarray,
    tol: np.ndarray,
    positions: np.ndarray,
    heads: int,
    changed: tuple[int, int],
) -> tuple[Pairing | None, list[tuple[str, float]]]:
    """The one layout whose pairs keep their norms (checked on every row), and every score."""
    weight = np.repeat(np.abs(positions).max(axis=1), heads)
    rows = structure.search_rows(x.shape[0], weight)
    found = structure.candidates(x.shape[1], *changed)
    scores = [structure.score(p, x[rows], y[rows], tol[rows]) for p in found]
    tried = sorted(
        ((p.describe(), s) for p, s in zip(found, scores, strict=True)), key=lambda t: t[1]
    )
    fitting = [p for p, s in zip(found, scores, strict=True) if s <= 1]
    layouts = {p.layout for p in fitting}
    if len(layouts) != 1 and not (fitting and _one_pairing(fitting)):
        return None, tried
    # pair 0 turns fastest (ω_0 = 1): a slice whose first channel did not change while later
    # ones did is no RoPE, though bf16's rounding may hide a slow pair's turn in its norms
    best = min(fitting, key=lambda p: (p.width, p.start != changed[0], p.start % 2))
    if structure.score(best, x, y, tol) > 1:
        return None, tried
    return best, tried


def _one_pairing(fitting: list[structure.Pairing]) -> bool:
    """Whether the layouts that fit all pair the same channels, in and out (a 2-channel head)."""
    first = fitting[0]
    return all(
        np.array_equal(p.pre, first.pre) and np.array_equal(p.post, first.post) for p in fitting
    )


def _no_rotation(tried: list[tuple[str, float]]) -> list[str]:
    """Why no pairing was chosen: none keeps the norms, or several do."""
    if tried and tried[0][1] <= 1 and len(tried) > 1 and tried[1][1] <= 1:
        fitting = [words for words, s in tried if s <= 1]
        return [
            "several pairings keep every pair's norm at these positions ("
            + "; ".join(fitting[:4])
            + "): the pairing cannot be told; give tokens at larger positions"
        ]
    if not tried:
        return ["no channel pairing covers the changed channels"]
    words, worst = tried[0]
    return [
        f"no pairing keeps every pair's norm: the closest, {words}, misses by {worst:.3g} "
        f"times the storage's rounding ({len(tried)} pairings tried): not a rotation of pairs"
    ]


def _rotation(
    base: ProbeReading,
    pairing: Pairing,
    tried: list[tuple[str, float]],
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
    unit: float,
) -> ProbeReading:
    """The rotation's gains, ω, θ and sections, once its pairing is known."""
    x, y, tol = data
    rows, heads, dim = base.shape
    inside = np.zeros(dim, dtype=bool)
    inside[pairing.start : pairing.stop] = True
    findings: list[str] = []
    rotated = _norm_ratio(x[:, inside], y[:, inside])
    gain, factor = rotated, 1.0
    if not inside.all():
        outside = (x[:, ~inside], y[:, ~inside])
        if not structure.proportional(*outside, tol):
            findings.append("the channels outside the slice change, though each end alone stays")
        gain = structure.gains(*outside)
        factor = float(median(rotated / gain))
    shaped = (rows, heads, dim)
    x3, y3 = x.reshape(shaped), y.reshape(shaped)
    angles, sigma = pair_angles(x3, y3, pairing.pre, pairing.post, unit)
    fits = [fit_omega(measurements(p, angles, sigma)) for p in base.positions.T]
    freqs = read_frequencies(fits)
    sure = _width_sure(pairing, freqs, base.positions, x, tol)
    if not sure:
        findings.append(
            f"the slice may be wider than {pairing.width} channels: pairs past it would turn "
            "too little at these positions to be seen, and θ is read for this width (a width "
            f"W gives θ^(W/{pairing.width})); give larger positions to tell"
        )
    reading = _dataclass_replace(
        base,
        rope=True,
        pairing=pairing,
        width_sure=sure,
        frequencies=freqs,
        tried=tried,
        findings=findings + _fit_findings(fits, freqs),
    )
    cols = dim if inside.all() else int((~inside).sum())
    return _with_gains(reading, gain.reshape(rows, heads), unit, cols, factor=factor)


def _norm_ratio(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """‖y‖/‖x‖ per row (1 on a row of zeros)."""
    before = np.sqrt(np.einsum("rc,rc->r", x, x))
    after = np.sqrt(np.einsum("rc,rc->r", y, y))
    ratio: np.ndarray = np.divide(after, before, out=np.ones_like(before), where=before > 0)
    return ratio


def _width_sure(
    pairing: Pairing, freqs: Frequencies, positions: np.ndarray, x: np.ndarray, tol: np.ndarray
) -> bool:
    """Whether the channels past an interleaved slice would have shown a next, slower pair.

    The next pair's ω is extrapolated from the last two (a geometric ladder); it would have
    turned the largest position by ``ω·p``, which must move its channels by 10 roundings.
    Half-split slices are sure: each pair's partner ``j + h`` gives the width.
    """
    if pairing.layout != "interleaved" or pairing.stop >= x.shape[1] or pairing.width < 4:
        return True
    last, before = freqs.omega[-1], freqs.omega[-2]
    if not (np.isfinite(last) and np.isfinite(before)) or before == 0:
        return False
    turn = abs(last * last / before) * float(np.abs(positions).max())
    typical = float(median(np.abs(x[:, pairing.stop :])))
    return bool(min(turn, 1.0) * typical >= 10 * float(median(tol)))


def _fit_findings(fits: list[OmegaFit], freqs: Frequencies) -> list[str]:
    """Pairs whose angles no ω·p explains, and pairs whose ω the positions do not pin."""
    findings = []
    none = np.flatnonzero(~freqs.axes.any(axis=1) & (freqs.readings <= 1))
    if none.size:
        worst = np.stack([f.worst for f in fits], 1)[none]
        worst = np.where(np.isnan(worst), np.inf, worst).min(axis=1)
        seen = worst[np.isfinite(worst)]
        how = f"residual up to {seen.max():.3g} σ" if seen.size else "no winding fits"
        findings.append(
            f"{none.size} pair(s) turn by angles no ω·p explains (pairs {_listed(none)}; "
            f"{how}): are the positions right (first position, one id column per axis)?"
        )
    many = np.flatnonzero(~freqs.axes.any(axis=1) & (freqs.readings > 1))
    if many.size:
        findings.append(
            f"the positions do not pin ω of pairs {_listed(many)} (several values fit every "
            "angle: too few tokens, or positions sharing a divisor): give consecutive positions"
        )
    return findings


def _listed(index: np.ndarray) -> str:
    """``0–3, 7`` for [0, 1, 2, 3, 7]."""
    runs: list[list[int]] = []
    for i in index.tolist():
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(f"{a}–{b}" if b > a else f"{a}" for a, b in runs)


def _with_gains(
    reading: ProbeReading,
    gain: np.ndarray,
    unit: float,
    cols: int,
    *,
    rope: bool | None = None,
    factor: float = 1.0,
) -> ProbeReading:
    """Each token's gain (the heads' mean), whether heads differ, and the temperature."""
    rows, heads = gain.shape
    token = gain.mean(axis=1)
    tol = structure.ROUNDINGS * unit * math.sqrt(2 / (heads * cols)) + 4 * 2.0**-24
    per_head = bool(np.any(np.abs(gain - token[:, None]) > tol * math.sqrt(heads)))
    findings = list(reading.findings)
    if per_head:
        findings.append(
            "the gain differs between the heads of a token: a norm applied after RoPE "
            "(Llama 4's qk-norm?), not a temperature of the position"
        )
    temperature = fit_temperature(reading.positions[:, 0], token, np.full(rows, tol))
    if abs(factor - 1) <= tol:
        factor = 1.0
    return _dataclass_replace(
        reading,
        rope=reading.rope if rope is None else rope,
        gain=token,
        gain_per_head=per_head,
        factor=factor,
        temperature=temperature,
        findings=findings,
    )
