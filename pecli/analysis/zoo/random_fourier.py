"""Which tensors of a checkpoint are random Fourier frequencies, from their names and shapes.

Only the headers are looked at (``(key, shape)`` pairs), so nothing is read to find them:

* ``P.freqs`` and ``P.phases`` of one 1-D shape: EDM2 ``MPFourier`` (``mp-fourier``);
* a 1-D ``P.W``, or a 1-D ``P.weight`` / ``P.freqs`` under a module whose name speaks of
  Fourier features or a Gaussian projection: ``gaussian`` (score-SDE, diffusers, EDM);
* a 2-D ``P.weight`` of at most 16 columns under such a module: k-diffusion's
  ``FourierFeatures`` (``timestep_embed`` in its image models).

See docs/zoo.md#random-fourier-features.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core.errors import ParameterError

__all__ = [
    "FourierReading",
    "FourierTensors",
    "chosen_fourier_tensors",
    "find_fourier_tensors",
    "read_fourier_table",
]

#: Words in a module's name that mark Fourier frequencies (lower case).
HINTS = ("fourier", "gauss", "map_noise", "time_proj", "timestep_embed")
#: Most input features of a ``FourierFeatures`` matrix (a noise level, a few conditions).
MOST_IN_FEATURES = 16


@dataclass(frozen=True)
class FourierTensors:
    """One set of Fourier tensors in a checkpoint: its family and the keys to read."""

    family: str
    freqs: str
    phases: str | None = None

    @property
    def prefix(self) -> str:
        """The module's name: the key without its last part."""
        return self.freqs.rpartition(".")[0]


def _module(key: str) -> tuple[str, str]:
    prefix, _, last = key.rpartition(".")
    return prefix, last


def find_fourier_tensors(headers: list[tuple[str, tuple[int, ...]]]) -> list[FourierTensors]:
    """Every set of Fourier tensors the headers show, in the checkpoint's order.

    Examples
    --------
    >>> found = find_fourier_tensors([("emb_fourier.freqs", (8,)), ("emb_fourier.phases", (8,)),
    ...                               ("time.W", (16,)), ("block.weight", (4, 4))])
    >>> [(f.family, f.freqs, f.phases) for f in found]
    [('mp-fourier', 'emb_fourier.freqs', 'emb_fourier.phases'), ('gaussian', 'time.W', None)]

    """
    shapes = dict(headers)
    found = []
    for key, shape in headers:
        prefix, last = _module(key)
        sibling = f"{prefix}.phases" if prefix else "phases"
        hinted = any(h in prefix.lower() for h in HINTS)
        if last == "freqs" and len(shape) == 1 and shapes.get(sibling) == shape:
            found.append(FourierTensors("mp-fourier", key, sibling))
        elif len(shape) == 1 and (last == "W" or (hinted and last in ("weight", "freqs"))):
            found.append(FourierTensors("gaussian", key))
        elif len(shape) == 2 and last == "weight" and hinted and shape[1] <= MOST_IN_FEATURES:
            found.append(FourierTensors("fourier-features", key))
    return found


def chosen_fourier_tensors(
    headers: list[tuple[str, tuple[int, ...]]], key: str | None = None
) -> list[FourierTensors]:
    """The Fourier tensors to read: those the headers show, or those ``key`` names.

    A ``key`` that names no tensor found by name is taken as it is: ``fourier-features`` for a
    2-D tensor, else ``gaussian``. One set is what a caller reads; more or none, it asks.

    >>> [f.freqs for f in chosen_fourier_tensors([("emb.W", (8,)), ("x", (4, 2))], "x")]
    ['x']
    """
    found = find_fourier_tensors(headers)
    if key is None:
        return found
    shape = dict(headers)[key]
    family = "fourier-features" if len(shape) == 2 else "gaussian"
    return [f for f in found if key in (f.freqs, f.phases)] or [FourierTensors(family, key)]


@dataclass(frozen=True)
class FourierReading:
    """What a table of Fourier features is, given the frequencies that made it."""

    family: str
    layout: str
    inputs: np.ndarray
    residual: float
    tolerance: float

    @property
    def matched(self) -> bool:
        """Every value is rebuilt within :attr:`tolerance`."""
        return self.residual <= self.tolerance


#: Largest difference between a table and its rebuild: float32 angles of a few hundred radians.
READING_TOLERANCE = 1e-4
#: Largest |x| looked for: noise inputs (ln σ, ln σ / 4, t) stay far inside it.
MOST_INPUT = 64.0


def _best_inputs(
    guesses: np.ndarray,
    period: float,
    rebuild: Callable[[np.ndarray], np.ndarray],
    table: np.ndarray,
) -> tuple[np.ndarray, float]:
    """Per row, the guess plus whole periods that rebuilds the row best; the worst residual.

    Every whole period with ``|x| <= MOST_INPUT`` is tried; of the inputs that rebuild a row
    within :data:`READING_TOLERANCE` (commensurate frequencies repeat), the smallest ``|x|``.
    """
    turns = math.ceil(MOST_INPUT / abs(period)) + 1
    shifts = np.arange(-turns, turns + 1) * period
    candidates = guesses[:, :, None] + shifts[None, None, :]  # rows × guesses × shifts
    flat = candidates.reshape(table.shape[0], -1)
    errors = np.stack(
        [np.abs(rebuild(flat[:, k]) - table).max(axis=1) for k in range(flat.shape[1])]
    )
    errors[np.abs(flat.T) > MOST_INPUT] = np.inf
    fitting = errors <= READING_TOLERANCE
    rank = np.where(fitting, np.abs(flat.T), np.inf)  # a fitting input: the smallest |x|
    best = np.where(fitting.any(axis=0), rank.argmin(axis=0), errors.argmin(axis=0))
    rows = np.arange(table.shape[0])
    return flat[rows, best], float(errors[best, rows].max())


Reading = tuple[str, str, np.ndarray, float]


def _read_mp(t: np.ndarray, w: np.ndarray, p: np.ndarray, j: int) -> list[Reading]:
    """MPFourier: x from the arccos of channel ``j``, either sign."""
    from ...core.zoo.random_fourier import random_fourier_table

    def rebuild(x: np.ndarray) -> np.ndarray:
        return random_fourier_table(x, "mp-fourier", freqs=w, phases=p)

    a = np.arccos(np.clip(t[:, j] / math.sqrt(2), -1, 1))
    guesses = np.stack([(a - p[j]) / w[j], (-a - p[j]) / w[j]], axis=1)
    return [("mp-fourier", "cos", *_best_inputs(guesses, 2 * math.pi / w[j], rebuild, t))]


def _read_gaussian(t: np.ndarray, w: np.ndarray, j: int, layout: str) -> Reading:
    """Sin and cos of 2π·x·W in ``layout``: x from the angle of channel ``j``."""
    from ...core.zoo.random_fourier import random_fourier_table

    c, cos_first = w.size, layout == "cos-sin"
    sines, cosines = (t[:, c:], t[:, :c]) if cos_first else (t[:, :c], t[:, c:])

    def rebuild(x: np.ndarray) -> np.ndarray:
        return random_fourier_table(x, "gaussian", freqs=w, cos_first=cos_first)

    guesses = (np.arctan2(sines[:, j], cosines[:, j]) / (2 * math.pi * w[j]))[:, None]
    return ("gaussian", layout, *_best_inputs(guesses, 1 / w[j], rebuild, t))


def read_fourier_table(
    table: np.ndarray, freqs: np.ndarray, phases: np.ndarray | None = None
) -> FourierReading:
    """The family, layout and input ``x`` of each row of a table made with ``freqs``.

    The input of a row is read from the channel of the smallest frequency (its angle, plus
    every whole number of turns that keeps ``|x| <= 64`` and, for a cosine, either sign), then
    every value of the row is rebuilt from it; the reading that rebuilds the table best wins.
    At most 4096 rows.

    Examples
    --------
    >>> from pecli.core.zoo.random_fourier import random_fourier_table
    >>> w = np.array([0.3, -1.7, 4.1])
    >>> t = random_fourier_table([0.5, -2.0], "gaussian", freqs=w, cos_first=True)
    >>> r = read_fourier_table(t, w)
    >>> r.family, r.layout, r.inputs.round(12).tolist(), r.matched
    ('gaussian', 'cos-sin', [0.5, -2.0], True)

    """
    t = np.asarray(table, dtype=np.float64)
    w = np.asarray(freqs, dtype=np.float64)
    if t.ndim != 2 or not 1 <= t.shape[0] <= 4096:
        raise ParameterError("table", "must be a 2-D table of 1 to 4096 rows", t.shape)
    if w.ndim == 2:  # FourierFeatures: [cos | sin] of one input feature, as gaussian cos-sin
        if w.shape[1] != 1:
            raise ParameterError("freqs", "must have one input feature to be read back", w.shape)
        w = w[:, 0]
    width = w.size * (1 if phases is not None else 2)
    if t.shape[1] != width:
        rule = f"must have {width} columns, as the frequencies make"
        raise ParameterError("table", rule, f"{t.shape[1]} columns")
    j = int(np.argmin(np.where(w != 0, np.abs(w), np.inf)))
    if phases is not None:
        readings = _read_mp(t, w, np.asarray(phases, np.float64), j)
    else:
        readings = [_read_gaussian(t, w, j, layout) for layout in ("sin-cos", "cos-sin")]
    family, layout, inputs, residual = min(readings, key=lambda r: r[3])
    return FourierReading(family, layout, inputs, residual, READING_TOLERANCE)
