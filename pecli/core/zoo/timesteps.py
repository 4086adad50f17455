"""Diffusion timestep and noise-level embeddings, model by model (docs/zoo.md#timestep-embeddings).

Each model is one of pecli's conventions (:mod:`pecli.core.sinusoidal.conventions`) plus what
happens to the number before the table: FLUX's ``time_factor`` 1000, the noise input of EDM
(``c_noise = ln σ / 4``) or of consistency models (``1000 · 0.25 · ln(σ + 1e-44)``), and, as an
option, the arithmetic in which a library rounds that number (FLUX in bfloat16 rounds ``t``
and then ``1000·t``). The table itself is
:func:`pecli.core.sinusoidal.encoding.positional_encoding` of the resulting positions, exact
and rounded once.

References
----------
.. [1] black-forest-labs/flux, ``src/flux/modules/layers.py``: ``timestep_embedding(t, dim,
   max_period=10000, time_factor=1000.0)``; ``src/flux/sampling.py``: ``denoise`` builds ``t``
   in the image's dtype.
.. [2] diffusers 0.42.1, ``models/transformers/transformer_flux.py``
   (``timestep.to(hidden_states.dtype) * 1000``) and ``models/embeddings.py``:
   ``CombinedTimestepLabelEmbeddings`` (DiT: ``Timesteps(256, True, 1)``),
   ``PixArtAlphaCombinedTimestepSizeEmbeddings`` and ``CombinedTimestepTextProjEmbeddings``
   (``Timesteps(256, True, 0)``).
.. [3] facebookresearch/DiT and PixArt-alpha: ``TimestepEmbedder.timestep_embedding``
   (guided-diffusion: ``exp(-ln(max_period)·j/half)``, ``[cos | sin]``).
.. [4] T. Karras et al., "Elucidating the Design Space of Diffusion-Based Generative Models",
   NeurIPS 2022; NVlabs/edm ``training/networks.py``: ``EDMPrecond`` (``sigma.log() / 4``),
   ``VEPrecond`` (``(0.5 * sigma).log()``), ``PositionalEmbedding`` (``endpoint=True`` in
   ``SongUNet``, whose ``[cos | sin]`` is then swapped to ``[sin | cos]``; ``endpoint=False``
   in ``DhariwalUNet``).
.. [5] openai/consistency_models ``cm/karras_diffusion.py``: ``KarrasDenoiser.denoise``
   (``rescaled_t = 1000 * 0.25 * th.log(sigmas + 1e-44)``), ``cm/nn.py``:
   ``timestep_embedding``.

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from ..sinusoidal.conventions import Convention

__all__ = [
    "INPUT_DTYPES",
    "NETWORK_DTYPES",
    "TIMESTEP_MODELS",
    "TimestepModel",
    "model_inputs",
    "model_table",
    "network_table",
    "timestep_table",
]

#: The arithmetic of the number fed to the table: exact, or rounded as a library rounds it.
INPUT_DTYPES = ("exact", "float32", "float16", "bfloat16")
#: The table as the network's linear_1 receives it: exact, or the library's float32 table cast
#: to the dtype the model runs in (:func:`network_table`).
NETWORK_DTYPES = ("exact", "float32", "float16", "bfloat16")


@dataclass(frozen=True)
class TimestepModel:
    """One model's timestep embedding: a convention, its knobs, and its input.

    ``noise`` turns a noise level ``σ`` into the number the table is taken at (``c_noise``);
    a model without it takes a timestep ``t``, times ``time_factor``.
    """

    name: str
    convention: str
    knobs: dict[str, Any] = field(default_factory=dict)
    time_factor: float = 1.0
    noise: Callable[[np.ndarray], np.ndarray] | None = None
    source: str = ""
    #: The library code whose float32 steps :func:`network_table` repeats ("": none checked).
    network: str = ""
    #: The model's code divides by ``d // 2 - 1`` unguarded (EDM's
    #: ``PositionalEmbedding(endpoint=True)``): 0/0, a NaN table, at ``d`` = 2 and 3.
    unguarded: bool = False

    @property
    def takes_sigma(self) -> bool:
        """The model embeds a noise level ``σ > 0``, not a timestep ``t``."""
        return self.noise is not None

    def table_convention(self) -> Convention:
        """The convention of the model's table, its knobs applied."""
        from ..sinusoidal.conventions.resolve import convention

        return convention(self.convention, **self.knobs)


def _m(name: str, convention: str, source: str, **kw: Any) -> TimestepModel:
    return TimestepModel(name, convention, kw.pop("knobs", {}), source=source, **kw)


def _edm(sigma: np.ndarray) -> np.ndarray:
    """EDM's ``c_noise = ln σ / 4``."""
    c_noise: np.ndarray = np.log(sigma) / 4
    return c_noise


def _ve(sigma: np.ndarray) -> np.ndarray:
    """EDM's VE preconditioning: ``ln(σ/2)``."""
    c_noise: np.ndarray = np.log(0.5 * sigma)
    return c_noise


def _consistency(sigma: np.ndarray) -> np.ndarray:
    """Consistency models' ``1000 · 0.25 · ln(σ + 1e-44)``."""
    c_noise: np.ndarray = 1000 * 0.25 * np.log(sigma + 1e-44)
    return c_noise


#: The models, by name; each names the code it follows (docs/zoo.md#timestep-embeddings).
TIMESTEP_MODELS: dict[str, TimestepModel] = {
    m.name: m
    for m in (
        _m(
            "flux",
            "ldm",
            "BFL timestep_embedding(t, 256), time_factor 1000; diffusers FLUX "
            "(t·1000, Timesteps(256, True, 0))",
            time_factor=1000.0,
            network="diffusers 0.42.1 get_timestep_embedding(flip_sin_to_cos=True, "
            "downscale_freq_shift=0) in float32, cast to the model dtype before linear_1",
        ),
        _m("dit", "ldm", "facebookresearch/DiT TimestepEmbedder (also SiT)"),
        _m(
            "dit-diffusers",
            "diffusers",
            "diffusers DiTTransformer2DModel: Timesteps(256, True, "
            "downscale_freq_shift=1), not the original DiT's 0",
            knobs={"flip_sin_to_cos": True, "downscale_freq_shift": 1},
        ),
        _m("pixart", "ldm", "PixArt-alpha TimestepEmbedder; diffusers PixArt (shift 0)"),
        _m(
            "edm",
            "tensor2tensor",
            "EDM DDPM++ (SongUNet): PositionalEmbedding(endpoint=True), "
            "sin/cos swapped; EDMPrecond c_noise = ln(σ)/4",
            noise=_edm,
            unguarded=True,
        ),
        _m(
            "edm-adm",
            "ldm",
            "EDM ADM (DhariwalUNet): PositionalEmbedding(endpoint=False); "
            "EDMPrecond c_noise = ln(σ)/4",
            noise=_edm,
        ),
        _m(
            "edm-ve",
            "tensor2tensor",
            "EDM VEPrecond with DDPM++: c_noise = ln(σ/2)",
            noise=_ve,
            unguarded=True,
        ),
        _m(
            "consistency",
            "ldm",
            "openai/consistency_models: 1000·0.25·ln(σ + 1e-44) into "
            "guided-diffusion's timestep_embedding",
            noise=_consistency,
        ),
    )
}


def model_inputs(values: object, model: str, *, input_dtype: str = "exact") -> np.ndarray:
    """The numbers a model's table is taken at: ``t`` (times ``time_factor``) or ``c_noise(σ)``.

    Parameters
    ----------
    values : array_like
        ``t`` (``flux``, ``dit``, …) or ``σ > 0`` (``edm``, ``edm-adm``, ``edm-ve``,
        ``consistency``), 1-D, finite.
    model : str
        One of :data:`TIMESTEP_MODELS`.
    input_dtype : str, keyword-only
        ``exact`` (float64), or the dtype a library rounds the number to before and after the
        ``time_factor`` product (FLUX in bfloat16: ``bf16(bf16(t)·1000)``; a noise input is
        rounded once).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n,)``: the positions of the table (``time_factor`` applied).

    Examples
    --------
    >>> model_inputs([1 / 49, 0.7], "flux", input_dtype="bfloat16").tolist()
    [20.375, 700.0]
    >>> model_inputs([80, 0.002], "consistency").round(4).tolist()
    [1095.5067, -1553.652]

    """
    spec = _model(model)
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or not x.size or not np.isfinite(x).all():
        bad = x.ravel()[~np.isfinite(x.ravel())]  # the first bad value, else the shape
        raise ParameterError(
            "x", "must be a non-empty list of finite numbers", bad[0] if bad.size else x.shape
        )
    if input_dtype not in INPUT_DTYPES:
        raise ParameterError(
            "input_dtype", f"must be one of {', '.join(INPUT_DTYPES)}", input_dtype
        )
    if spec.noise is not None:
        if (x <= 0).any():
            raise ParameterError("x", f"must be noise levels σ > 0 for {model}", float(x.min()))
        return _round(spec.noise(x), input_dtype)
    with np.errstate(over="ignore"):
        result = _round(_round(x, input_dtype) * spec.time_factor, input_dtype)
    if not np.isfinite(result).all():  # t·1000 beyond float64 (or the input dtype)
        rule = f"times time_factor {spec.time_factor:g} must stay finite in {input_dtype}"
        raise ParameterError("x", rule, float(np.abs(x).max()))
    return result


def _round(values: np.ndarray, input_dtype: str) -> np.ndarray:
    if input_dtype == "exact":
        return values
    from ..dtypes import float_dtype, round_once

    return round_once(values, float_dtype(input_dtype)).astype(np.float64)


def _model(name: str) -> TimestepModel:
    if name not in TIMESTEP_MODELS:
        raise ParameterError("model", f"must be one of {', '.join(TIMESTEP_MODELS)}", name)
    return TIMESTEP_MODELS[name]


def timestep_table(
    values: object, model: str, *, d: int = 256, input_dtype: str = "exact", **table: Any
) -> np.ndarray:
    """The embedding a model's network sees for each ``t`` or ``σ``: one row per value.

    Parameters
    ----------
    values, model, input_dtype
        As :func:`model_inputs`.
    d : int, keyword-only
        Width (the frequency embedding size: 256 in FLUX, DiT and PixArt).
    **table : keyword-only
        ``base`` (``max_period``, 10000) and ``dtype`` of
        :func:`pecli.core.sinusoidal.encoding.positional_encoding`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``, exact and rounded once to ``dtype``.

    Examples
    --------
    >>> timestep_table([0.5], "flux", d=4, dtype="float64").round(6).tolist()
    [[-0.883849, 0.283662, -0.467772, -0.958924]]

    """
    from ..sinusoidal.encoding import positional_encoding

    spec = _model(model)
    if spec.unguarded and d in (2, 3):  # pecli's tensor2tensor schedule would guard it to ω = 1
        rule = (
            f"must be at least 4 for {model}: EDM's PositionalEmbedding(endpoint=True) divides "
            "by d // 2 - 1 (0/0, NaN, at d = 2, 3)"
        )
        raise ParameterError("d", rule, d)
    kwargs = spec.table_convention().table_kwargs()
    kwargs.pop("start"), kwargs.pop("padding_idx")
    positions = model_inputs(values, model, input_dtype=input_dtype)
    if input_dtype == "exact" and spec.time_factor != 1.0:  # t·1000 folded in exactly
        positions, kwargs["angle_scale"] = np.asarray(values, dtype=np.float64), spec.time_factor
    try:
        result: np.ndarray = positional_encoding(positions, d=d, **kwargs, **table)
    except ParameterError as error:  # angles past 2^56: the values' fault
        if error.parameter != "positions":
            raise
        given = np.asarray(values, dtype=np.float64).reshape(-1)
        raise ParameterError("x", error.rule, float(given[np.argmax(np.abs(given))])) from None
    return result


def network_table(
    positions: np.ndarray, model: str, *, d: int, base: float, dtype: str
) -> np.ndarray:
    """The table a network's ``linear_1`` receives: the library's float32 steps, then a cast.

    As ``get_timestep_embedding`` (diffusers, [2]_): ``-ln(base)·k`` and ``/ (d/2)`` in
    float32, ``exp``, the product with ``positions`` (cast to float32) and ``cos``, ``sin``
    each rounded once to float32 (torch's float32 functions agree with the correctly rounded
    ones on diffusers' own tables of FLUX, bit for bit after the cast), ``[cos | sin]``, a
    zero column for an odd ``d``; then cast to ``dtype`` (``float32``: as is).

    Returns float64 values of ``dtype``, shape ``(n, d)``.

    >>> network_table(np.array([300.0]), "flux", d=2, base=1e4, dtype="bfloat16").tolist()
    [[-0.0220947265625, -1.0]]
    """
    from ..dtypes import float_dtype, round_once
    from ..rules import check_base

    base = check_base(base)  # a NaN or 0 base made a table of NaN
    if not _model(model).network or dtype not in NETWORK_DTYPES[1:]:
        checked = ", ".join(name for name, m in TIMESTEP_MODELS.items() if m.network)
        raise ParameterError("network_dtype", f"applies to `model` {checked} only", model)
    f, half = np.float32, d // 2
    exponent = (f(-np.log(base)) * np.arange(half, dtype=f)) / f(half)
    freqs = np.exp(exponent.astype(np.float64)).astype(f)
    with np.errstate(over="ignore"):
        narrow = np.asarray(positions, dtype=np.float64).astype(f)
    if not np.isfinite(narrow).all():  # the library's float32 cast: inf, then a NaN table
        rule = "must stay finite in float32 once scaled (|t·1000| at most 3.4e38)"
        raise ParameterError("x", rule, float(np.abs(positions).max()))
    angles = (narrow[:, None] * freqs).astype(f)
    wide = angles.astype(np.float64)
    table = np.concatenate([np.cos(wide), np.sin(wide)], axis=1).astype(f).astype(np.float64)
    if d % 2:
        table = np.pad(table, ((0, 0), (0, 1)))
    return round_once(table, float_dtype(dtype)).astype(np.float64)


def model_table(
    x: np.ndarray,
    model: str,
    *,
    d: int,
    base: float,
    network: str,
    dtype: np.dtype,
    input_dtype: str = "exact",
) -> np.ndarray:
    """``timestep``'s table in ``dtype``: exact, or as the network receives it (``network``).

    ``network`` ``exact``: :func:`timestep_table`, float32 rounded by the certified kernels
    (float64 for every other ``dtype``, then rounded once); else :func:`network_table` of the
    model's inputs (FLUX in bfloat16: the float32 table, cast before ``linear_1``).

    >>> model_table(np.array([0.5]), "flux", d=2, base=1e4, network="exact",
    ...     dtype=np.dtype("float64")).shape
    (1, 2)
    """
    if network == "exact":
        exact = "float32" if dtype == np.float32 else "float64"
        table = timestep_table(x, model, d=d, base=base, dtype=exact, input_dtype=input_dtype)
    else:
        positions = model_inputs(x, model, input_dtype=input_dtype)
        table = network_table(positions, model, d=d, base=base, dtype=network)
    return table.astype(dtype)
