"""A RoPE cos/sin cache recognised: layout, first position, attention factor, frequencies.

:func:`identify_cache` measures the frequencies of a cache (pecli's, or one dumped from a
model) and reads them with :func:`~pecli.analysis.rope.inv_freq.identify_inv_freq`; the
metadata pecli writes beside a cache is :mod:`.metadata`'s. Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.dtypes import storage_precision, unit_roundoff
from ...core.errors import ParameterError
from ...core.median import median
from ...core.rope.forms import pair_columns, pair_layouts
from .inv_freq import RopeGuess, fit_theta, identify_inv_freq
from .phases import ladder, measure_complex, measure_single

__all__ = ["CacheGuess", "identify_cache", "split_cache"]

#: Largest relative error of a measured ω_i for the pair to count as determined.
DETERMINED = 1e-3
#: Leading rows read one by one (then a geometric ladder): a framework cache far from position
#: 0 is measured by a line through them (:func:`pecli.analysis.rope.start.slopes`).
CONSECUTIVE = 1024
#: How far from 1 a sin table alone may put the attention factor and be read as 1.
SIN_ALONE = 1e-5


@dataclass(frozen=True)
class CacheGuess:
    """What a cos/sin cache is, as far as its values determine it.

    ``inv_freq`` holds the frequencies measured from the cache and ``uncertainty`` their
    relative errors; ``rope`` is :func:`~pecli.analysis.rope.inv_freq.identify_inv_freq`'s
    reading of them (None when some pair is not determined by the positions the cache holds;
    ``theta`` then comes from the determined leading pairs, NaN when too few).
    """

    layout: str
    start: int | None
    attention_factor: float | None
    storage: str
    rotary_dim: int
    theta: float
    inv_freq: np.ndarray
    uncertainty: np.ndarray
    rope: RopeGuess | None
    findings: list[str] = field(default_factory=list)


def identify_cache(
    cos: np.ndarray | None = None,
    sin: np.ndarray | None = None,
    *,
    positions: np.ndarray | None = None,
) -> CacheGuess:
    """Recognise a RoPE cos/sin cache: layout, first position, attention factor, θ, rope type.

    The phase of each pair is followed from row to row (rows are consecutive positions unless
    ``positions`` says otherwise); each later row pins ``ω_i`` closer, its ``2π`` ambiguity
    resolved by the estimate so far, so a long cache determines even the slowest pairs. The
    frequencies then go to :func:`~pecli.analysis.rope.inv_freq.identify_inv_freq` with their
    measured errors. With ``cos`` and ``sin`` the first position is found from the phases of
    the first row; a ``cos`` or ``sin`` table alone must start at position 0.

    Parameters
    ----------
    cos, sin : numpy.ndarray, optional
        Shape ``(n, rotary_dim)`` each (at least one), half-split or interleaved, any float
        dtype, times the attention factor as transformers returns them.
    positions : numpy.ndarray, optional, keyword-only
        Shape ``(n,)``: the position of each row, increasing (default: consecutive).

    Returns
    -------
    CacheGuess

    Raises
    ------
    ParameterError
        (as ``file``) no table, tables of different shapes, fewer than 3 rows, an odd width,
        values that are not finite, columns that repeat in neither layout, or cos and sin
        whose cos² + sin² is mostly 0 (all zeros).

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> from pecli.core.rope.cache import CacheSpec, rope_cache
    >>> freqs = rope_frequencies(RopeSpec(theta=5e5, head_dim=64))
    >>> cos, sin = rope_cache(CacheSpec(freqs, 64, start=7))
    >>> guess = identify_cache(cos, sin)
    >>> guess.layout, guess.start, guess.attention_factor, guess.rope.rope_type, guess.rope.theta
    ('half-split', 7, 1.0, 'default', 500000.0)

    """
    tables, p, known = _check(cos, sin, positions)
    storage = storage_precision(np.concatenate([t.ravel() for t in tables.values()]))
    layout, findings = _layout(tables)
    pairs = {k: pair_columns(t, layout) for k, t in tables.items()}
    eps = 2 * (unit_roundoff(storage) if storage != "float64" else 2.0**-50)
    scale = _attention_factor(pairs)
    if scale == 0:  # cos² + sin² = 0 on most entries: no angle to read, no factor to give
        raise ParameterError("file", f"{_WHAT} whose cos² + sin² is not 0", "a median of 0")
    scale = 1.0 if scale is not None and abs(scale - 1) <= 2 * eps else scale
    h = next(iter(pairs.values())).shape[1]
    if scale is None or (len(pairs) == 1 and not _starts_at_zero(pairs, p)):
        findings.append("a cos or sin table alone is read when it starts at position 0")
        nan = np.full(h, np.nan)
        return CacheGuess(layout, None, scale, storage, 2 * h, math.nan, nan, nan, None, findings)
    if len(pairs) == 2:
        omega, err, start = measure_complex(pairs["cos"], pairs["sin"], scale, eps, p, known)
        if start is None:  # no first position: a cache whose cos and sin were exchanged?
            findings.extend(_exchanged(pairs, scale, eps, p, known))
    else:
        (part, values), start = next(iter(pairs.items())), 0
        omega, err, scale = measure_single(values, part, scale, eps, p)
        scale = 1.0 if abs(scale - 1) <= SIN_ALONE else scale
    return _conclude(layout, start, scale, storage, omega, err, findings)


def split_cache(table: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(cos, sin)`` of one table: ``[cos | sin]`` side by side, or a cos or a sin table alone.

    Side by side when the halves have a constant ``cos² + sin²``; otherwise a table whose first
    row is all zeros is a sin table (position 0), any other a cos table.

    Examples
    --------
    >>> cos, sin = split_cache(np.array([[1.0, 1, 0, 0], [0.6, 0.6, 0.8, 0.8]]))
    >>> sin
    array([[0. , 0. ],
           [0.8, 0.8]])

    """
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] < 1:
        return t, None
    sample = t[ladder(t.shape[0])].astype(np.float64)  # the rows identify_cache reads
    if t.shape[1] % 4 == 0:
        half = t.shape[1] // 2
        r = np.hypot(sample[:, :half], sample[:, half:])  # one factor per row: a temperature too
        if np.all(np.isfinite(r)) and np.all(np.ptp(r, axis=1) <= 1e-2 * _largest(r)):
            return t[:, :half], t[:, half:]
    return (None, t) if not np.any(sample[0]) else (t, None)


def _largest(r: np.ndarray) -> np.ndarray:
    """Each row's largest ``cos² + sin²`` root (never below the smallest normal's scale)."""
    largest: np.ndarray = np.maximum(r.max(axis=1), 1e-300)
    return largest


def _check(
    cos: np.ndarray | None, sin: np.ndarray | None, positions: np.ndarray | None
) -> tuple[dict[str, np.ndarray], np.ndarray, bool]:
    """The rows that are read, as float64; their positions; whether these are known.

    The rows are :func:`~pecli.analysis.rope.phases.ladder`'s; without ``positions``, their
    offsets from the first row stand for the positions.
    """
    given = {k: np.asarray(v) for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    shapes = {t.shape for t in given.values()}
    n = next(iter(shapes))[0] if len(shapes) == 1 and len(next(iter(shapes))) == 2 else 0
    rows = ladder(n, first=min(n, CONSECUTIVE))
    tables = {k: t[rows].astype(np.float64) for k, t in given.items()} if n else {}
    width = next(iter(shapes))[1] if n else 0
    if n < 3 or width % 2 or width < 2:
        rule = f"{_WHAT} (at least 3 rows of finite numbers, an even number >= 2 of columns)"
        shapes_got = {k: " × ".join(map(str, t.shape)) for k, t in given.items()}
        named = ", ".join(f"{k}: {shape}" for k, shape in shapes_got.items())  # cos and sin
        raise ParameterError("file", rule, named if len(given) > 1 else shapes_got.popitem()[1])
    for name, table in given.items():  # every row, not only those read: a NaN is no cache's
        if (found := _first_not_finite(table)) is not None:
            raise ParameterError("file", f"{_WHAT} (finite numbers only)", f"{name}[{found}]")
    if positions is None:
        return tables, rows.astype(np.float64), False
    if len(positions) != n or np.any(np.diff(positions) <= 0):
        raise ParameterError("positions", f"must be {n} increasing positions", len(positions))
    return tables, np.asarray(positions, np.float64)[rows], True


#: What ``rope identify`` reads, in plain words, for the errors of a file that is neither.
_WHAT = "must be a RoPE inv_freq vector (one row or column) or a cos/sin cache"


def _layout(tables: dict[str, np.ndarray]) -> tuple[str, list[str]]:
    """half-split if the two halves repeat, interleaved if neighbouring columns do."""
    fits = pair_layouts(tables.values(), _WHAT)
    notes = ["both layouts fit (the pairs repeat one value): read as half-split"]
    return fits[0], notes if len(fits) > 1 else []


def _attention_factor(pairs: dict[str, np.ndarray]) -> float | None:
    """From cos² + sin², from the first row of a cos table, or from sin at positions 1, 2."""
    if len(pairs) == 2:
        return float(median(np.hypot(pairs["cos"], pairs["sin"])))
    if "cos" in pairs:
        first = pairs["cos"][0]
        return float(first[0]) if np.all(first == first[0]) and first[0] > 0 else None
    s = pairs["sin"][:, 0]
    if s[0] != 0 or s[1] <= 0 or abs(s[2] / (2 * s[1])) >= 1:
        return None  # sin 2ω / (2 sin ω) = cos ω = ±1: the pair does not turn, no factor
    return float(s[1] / math.sin(math.acos(s[2] / (2 * s[1]))))


def _exchanged(
    pairs: dict[str, np.ndarray], scale: float, eps: float, p: np.ndarray, known: bool
) -> list[str]:
    """The finding that cos and sin read exchanged pin a first position and every pair."""
    omega, err, start = measure_complex(pairs["sin"], pairs["cos"], scale, eps, p, known)
    with np.errstate(divide="ignore", invalid="ignore"):
        pinned = bool(np.all((omega > 0) & (err / omega < DETERMINED)))
    if start is None or not pinned:
        return []
    return [
        f"read with cos and sin exchanged, the rows are positions {start} on and every pair "
        "is determined: are the two tables swapped?"
    ]


def _first_not_finite(table: np.ndarray) -> str | None:
    """``"row, column"`` of the first value that is not finite, in blocks of 2^16 values."""
    step = max(1, (1 << 16) // max(1, table.shape[1]))
    for top in range(0, table.shape[0], step):
        bad = np.argwhere(~np.isfinite(table[top : top + step]))
        if bad.size:
            return f"{top + int(bad[0, 0])}, {int(bad[0, 1])}"
    return None


def _starts_at_zero(pairs: dict[str, np.ndarray], positions: np.ndarray) -> bool:
    ((part, values),) = pairs.items()
    if positions[0] != 0:
        return False
    return bool(np.all(values[0] == values[0, 0]) if part == "cos" else not np.any(values[0]))


def _conclude(
    layout: str,
    start: int | None,
    scale: float,
    storage: str,
    omega: np.ndarray,
    err: np.ndarray,
    findings: list[str],
) -> CacheGuess:
    """Read the measured frequencies as an ``inv_freq`` vector when every pair is determined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(omega > 0, err / omega, 0.0)
    undetermined = np.flatnonzero(~(u < DETERMINED))
    tol = 8 * u + (1e-9 if storage == "float64" else 4e-6)  # ω computed in float32 before
    if start is None:
        findings.append("the first position is not determined (rows not consecutive?)")
    if undetermined.size:
        first, last = int(undetermined[0]), u.size - 1
        which = f"pair {last} is" if first == last else f"pairs {first} … {last} are"
        findings.append(
            f"{which} not determined by these positions: a longer cache (more positions) "
            f"pins {'it' if first == last else 'them'}"
        )
        theta = _leading_theta(omega[: undetermined[0]], 2 * u.size, tol[: undetermined[0]])
        return CacheGuess(
            layout, start, scale, storage, 2 * u.size, theta, omega, u, None, findings
        )
    if u.size < 3:  # identify_inv_freq needs 3 pairs to fit θ and tell the type
        findings.append(f"{u.size} pairs: too few to fit θ and tell the rope type (3 needed)")
        return CacheGuess(
            layout, start, scale, storage, 2 * u.size, math.nan, omega, u, None, findings
        )
    if not omega[0] > 0:  # identify_inv_freq would blame the "inv_freq vector"
        findings.append("pair 0 does not rotate: no RoPE frequencies to read")
        return CacheGuess(
            layout, start, scale, storage, 2 * u.size, math.nan, omega, u, None, findings
        )
    rope = identify_inv_freq(omega, tolerance=tol)
    if abs(scale - 1) > 8 * unit_roundoff(storage) and rope.rope_type not in ("yarn", "unknown"):
        findings.append(f"attention factor {scale:.6g} with rope type {rope.rope_type}")
    return CacheGuess(
        layout, start, scale, storage, 2 * u.size, rope.theta, omega, u, rope, findings
    )


def _leading_theta(omega: np.ndarray, dim: int, tol: np.ndarray) -> float:
    """θ from the leading pairs of constant ratio, if at least 3 are determined, else NaN."""
    if omega.size < 3 or omega[0] <= 0:
        return math.nan
    theta, _, run = fit_theta(omega, dim, tol)
    return theta if run >= 3 else math.nan
