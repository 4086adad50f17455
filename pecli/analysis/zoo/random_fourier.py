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

from dataclasses import dataclass

__all__ = ["FourierTensors", "find_fourier_tensors"]

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
