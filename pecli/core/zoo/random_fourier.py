"""Random Fourier features with frequencies read from a checkpoint.

See docs/zoo.md#random-fourier-features.

Some diffusion networks embed the noise level with frequencies drawn at random when the
network was built, so no formula and no seed gives them back (diffusers'
``GaussianFourierProjection`` even draws twice, keeping the second draw): the frequencies
must be read from the checkpoint, and the table is then exact arithmetic on them. Three
families, each with its own tensors:

* ``mp-fourier`` (EDM2 ``MPFourier``): buffers ``freqs`` (already ``2π·randn·bandwidth``) and
  ``phases``; ``√2 · cos(x·freqs + phases)``, one column per channel;
* ``gaussian`` (score-SDE and diffusers ``GaussianFourierProjection``: tensor ``W`` or
  ``weight``; EDM's NCSN++ ``FourierEmbedding``: buffer ``freqs``): angles ``2π·x·W``,
  ``[sin | cos]`` (score-SDE, diffusers' default) or ``[cos | sin]`` (diffusers'
  ``flip_sin_to_cos``, EDM);
* ``fourier-features`` (k-diffusion and Stable Audio ``FourierFeatures``): a matrix ``W`` of
  shape ``(out/2, in)``; angles ``2π·x @ Wᵀ`` for ``in`` input features, ``[cos | sin]``.

The angles are computed in float64 from the stored values (exact to about 1e-16 relative);
the libraries compute them in float32.

References
----------
.. [1] T. Karras et al., "Analyzing and Improving the Training Dynamics of Diffusion Models",
   CVPR 2024; NVlabs/edm2 ``training/networks_edm2.py``: ``MPFourier``.
.. [2] Y. Song et al., "Score-Based Generative Modeling through Stochastic Differential
   Equations", ICLR 2021; yang-song/score_sde_pytorch ``models/layerspp.py``:
   ``GaussianFourierProjection``; diffusers ``models/embeddings.py``: the same, with ``log``
   and ``flip_sin_to_cos``; NVlabs/edm ``training/networks.py``: ``FourierEmbedding``.
.. [3] crowsonkb/k-diffusion ``k_diffusion/layers.py``: ``FourierFeatures``.

"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError

__all__ = ["FAMILIES", "feature_columns", "random_fourier_table"]

#: The families, and the tensors each reads.
FAMILIES = {
    "mp-fourier": ("freqs", "phases"),
    "gaussian": ("W",),
    "fourier-features": ("weight",),
}


def _angles(values: np.ndarray, freqs: np.ndarray, scale: float) -> np.ndarray:
    """``scale·x·f`` for every input and frequency; one beyond float64 refuses ``x``."""
    with np.errstate(over="ignore", invalid="ignore"):
        angles: np.ndarray = np.outer(values, freqs) * scale
    if not np.isfinite(angles).all():
        rule = "times the frequencies must stay finite (float64)"
        raise ParameterError("x", rule, float(np.abs(values).max()))
    return angles


def _finite(name: str, array: object, ndim: int) -> np.ndarray:
    value = np.asarray(array, dtype=np.float64)
    if value.ndim != ndim or not value.size or not np.isfinite(value).all():
        rule = f"must be a non-empty {ndim}-D tensor of finite numbers"
        raise ParameterError(name, rule, f"shape {value.shape}")
    return value


def random_fourier_table(
    x: object,
    family: str,
    *,
    freqs: object = None,
    phases: object = None,
    cos_first: bool = False,
) -> np.ndarray:
    """The embedding of each value (row of ``x``) with frequencies read from a checkpoint.

    Parameters
    ----------
    x : array_like
        Values, shape ``(n,)`` (``mp-fourier``, ``gaussian``) or ``(n, in)`` / ``(n,)`` for
        ``in = 1`` (``fourier-features``); finite. The network's input: EDM2 feeds
        ``c_noise = ln σ / 4``, score-SDE ``ln σ``.
    family : str
        ``mp-fourier``, ``gaussian`` or ``fourier-features``.
    freqs : array_like, keyword-only
        ``mp-fourier``: ``freqs`` ``(C,)``; ``gaussian``: ``W`` ``(C,)``;
        ``fourier-features``: ``weight`` ``(out/2, in)``.
    phases : array_like, keyword-only
        ``mp-fourier`` only: ``phases`` ``(C,)``.
    cos_first : bool, keyword-only
        ``gaussian`` only: ``[cos | sin]`` (diffusers' ``flip_sin_to_cos``, EDM) instead of
        ``[sin | cos]``.

    Returns
    -------
    numpy.ndarray
        float64: ``(n, C)`` for ``mp-fourier``, ``(n, 2C)`` for ``gaussian``, ``(n, out)`` for
        ``fourier-features``.

    Examples
    --------
    >>> random_fourier_table([0.0, 0.25], "gaussian", freqs=[1.0]).round(12).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    >>> random_fourier_table([1.0], "mp-fourier", freqs=[np.pi], phases=[0.0]).round(6).tolist()
    [[-1.414214]]

    """
    if family not in FAMILIES:
        raise ParameterError("family", f"must be one of {', '.join(FAMILIES)}", family)
    if family == "fourier-features":
        weight = _finite("freqs", freqs, 2)
        values = _finite("x", x, 2 if np.ndim(np.asarray(x)) == 2 else 1)
        values = values.reshape(-1, 1) if values.ndim == 1 else values
        if values.shape[1] != weight.shape[1]:
            rule = f"must have {weight.shape[1]} columns (the in_features of weight)"
            raise ParameterError("x", rule, f"shape {values.shape}")
        angles = 2 * math.pi * (values @ weight.T)
        return np.hstack([np.cos(angles), np.sin(angles)])
    values = _finite("x", x, 1)
    f = _finite("freqs", freqs, 1)
    if family == "mp-fourier":
        phase = _finite("phases", phases, 1)
        if phase.shape != f.shape:
            raise ParameterError("phases", f"must have the shape of freqs {f.shape}", phase.shape)
        features: np.ndarray = math.sqrt(2) * np.cos(_angles(values, f, 1.0) + phase)
        return features
    angles = _angles(values, f, 2 * math.pi)
    parts = [np.cos(angles), np.sin(angles)] if cos_first else [np.sin(angles), np.cos(angles)]
    return np.hstack(parts)


def feature_columns(family: str, width: int, cos_first: bool) -> list[str]:
    """The names of a table's ``width`` columns: ``cos_j`` (mp-fourier), else two halves.

    >>> feature_columns("gaussian", 4, cos_first=False)
    ['sin_0', 'sin_1', 'cos_0', 'cos_1']
    """
    if family == "mp-fourier":
        return [f"cos_{c}" for c in range(width)]
    half = width // 2
    first, second = ("cos", "sin") if cos_first or family == "fourier-features" else ("sin", "cos")
    return [f"{first}_{j}" for j in range(half)] + [f"{second}_{j}" for j in range(half)]
