"""RoPE inverse frequencies for every ``rope_type``, exact, and what the scaling did per pair.

Each formula (:mod:`.formulas`, one per record of :mod:`.registry`) is that of transformers 5's
``transformers/modeling_rope_utils.py`` (``_compute_<type>_parameters``; ``default`` is each
model's ``compute_default_rope_parameters``), evaluated in 50-digit decimal arithmetic
(:mod:`._exact`) instead of float32, then rounded once to float64; the residual (exact minus
float64) lets :mod:`pecli.core.kernels` compute the angles ``p·ω`` exactly. Pure NumPy and
:mod:`decimal`; no I/O.

References
----------
.. [1] J. Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", 2021, §3.4.
.. [2] B. Peng et al., "YaRN: Efficient Context Window Extension of Large Language Models",
   2023, §3.2-3.4.
.. [3] Meta, Llama 3.1 ``apply_scaling`` (``llama_models/llama3/reference_impl/model.py``).

"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ._exact import to_float_pair
from .formulas import default_inv_freq
from .registry import record
from .spec import RopeSpec, check_spec, with_defaults

__all__ = ["RopeFrequencies", "frequency_columns", "rope_frequencies", "unscaled_inv_freq"]


@dataclass(frozen=True)
class RopeFrequencies:
    """The inverse frequencies of a rotary embedding and what its scaling did.

    Attributes
    ----------
    spec : RopeSpec
        The checked parameters.
    inv_freq : numpy.ndarray
        Shape ``(rotary_dim/2,)``, float64: ``ω_i`` in radians per position, the float64
        nearest the exact value.
    residual : numpy.ndarray
        Shape ``(rotary_dim/2,)``, float64: exact ``ω_i`` minus ``inv_freq``.
    attention_factor : float
        The factor transformers multiplies cos and sin by (``attention_scaling``).
    scaling : tuple of str
        Per pair: ``unchanged``, ``interpolated`` (divided by the factor), ``smoothed``
        (between the two), ``rescaled`` (longrope's per-pair factor or dynamic's new θ),
        ``pass-through`` (frequency 0, proportional).
    notes : dict of str to float
        Derived numbers: ``correction_low``/``correction_high`` (yarn), ``theta_effective``
        (dynamic), ``factor`` (yarn/longrope when taken from the lengths), …

    """

    spec: RopeSpec
    inv_freq: np.ndarray
    residual: np.ndarray
    attention_factor: float
    scaling: tuple[str, ...]
    notes: dict[str, float] = field(default_factory=dict)

    @property
    def wavelengths(self) -> np.ndarray:
        """``λ_i = 2π/ω_i`` in positions, float64 (inf for a pass-through pair)."""
        with np.errstate(divide="ignore"):
            return np.where(self.inv_freq > 0, 2 * np.pi / self.inv_freq, np.inf)

    def counts(self) -> dict[str, int]:
        """How many pairs each kind of scaling touched, e.g. ``{"unchanged": 29, …}``."""
        return {kind: self.scaling.count(kind) for kind in dict.fromkeys(self.scaling)}


def rope_frequencies(spec: RopeSpec) -> RopeFrequencies:
    """The inverse frequencies ``inv_freq``, the attention factor and each pair's scaling.

    Parameters
    ----------
    spec : RopeSpec
        The rope type and its fields (checked by :func:`pecli.core.rope.spec.check_spec`).

    Returns
    -------
    RopeFrequencies
        ``inv_freq`` of shape ``(rotary_dim/2,)`` float64 (exact formula, rounded once),
        its residual, the attention factor and the per-pair scaling.

    Raises
    ------
    ParameterError
        If the spec breaks a rule (unknown type, odd width, missing field, factor < 1, …).

    References
    ----------
    transformers ``modeling_rope_utils.py``, ``ROPE_INIT_FUNCTIONS``; Su et al. 2021, §3.4.

    Examples
    --------
    >>> llama31 = RopeSpec(rope_type="llama3", theta=500000.0, head_dim=128, factor=8.0,
    ...     low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192)
    >>> rope_frequencies(llama31).counts()
    {'unchanged': 29, 'smoothed': 6, 'interpolated': 29}
    >>> yarn = RopeSpec(rope_type="yarn", theta=1e6, factor=4.0,
    ...     original_max_position_embeddings=32768)
    >>> round(rope_frequencies(yarn).attention_factor, 6)
    1.138629

    """
    spec = check_spec(spec)
    kind = record(spec.rope_type)
    exact, scaling, attention, notes = kind.formula(with_defaults(spec))
    pairs = [to_float_pair(value) for value in exact]
    _check_wavelengths(spec, [p[0] for p in pairs])
    return RopeFrequencies(
        spec=spec,
        inv_freq=np.array([p[0] for p in pairs], dtype=np.float64),
        residual=np.array([p[1] for p in pairs], dtype=np.float64),
        attention_factor=float(attention),
        scaling=tuple(scaling),
        notes={k: float(v) for k, v in notes.items()},
    )


def _check_wavelengths(spec: RopeSpec, inv_freq: list[float]) -> None:
    """Raise unless every rotating pair's wavelength 2π/ω_i is a finite float64."""
    smallest = min((value for value in inv_freq if value > 0), default=1.0)
    if 2 * np.pi / smallest <= np.finfo(np.float64).max:
        return
    reads_factor = "factor" in record(spec.rope_type).reads
    scaled = spec.factor is not None and spec.factor != 1 and reads_factor
    name = "factor" if scaled else "theta"
    rule = "must leave every wavelength 2π/ω_i finite in float64 (it overflows to inf)"
    raise ParameterError(name, rule, spec.factor if scaled else spec.theta)


def unscaled_inv_freq(spec: RopeSpec) -> np.ndarray:
    """``1/θ^(2i/dim)`` with the spec's θ and rotated width, before any scaling, float64.

    For ``proportional`` the exponent runs over ``head_dim`` and the pass-through pairs are 0.

    Examples
    --------
    >>> unscaled_inv_freq(RopeSpec(theta=10000.0, head_dim=4))
    array([1.  , 0.01])

    """
    spec = check_spec(spec)
    kind = record(spec.rope_type)
    if kind.whole_head_exponent:  # its formula unscaled: the factor at its default
        inv = kind.formula(with_defaults(dataclasses.replace(spec, factor=None))).inv_freq
    else:
        inv = default_inv_freq(spec.theta, spec.rotary_dim)
    return np.array([float(value) for value in inv], dtype=np.float64)


def frequency_columns(freqs: RopeFrequencies) -> dict[str, np.ndarray]:
    """One row per pair: ω, λ, the unscaled ω, their ratio, the scaling and attention factor.

    The columns of ``rope freqs``' table, CSV and JSON, each of shape ``(rotary_dim/2,)``:
    ``pair``, ``inv_freq``, ``wavelength``, ``unscaled_inv_freq``, ``ratio`` (1 for a
    pass-through pair), ``scaling`` and ``attention_factor``.

    Examples
    --------
    >>> spec = RopeSpec(theta=10000.0, head_dim=4, rope_type="linear", factor=2.0)
    >>> frequency_columns(rope_frequencies(spec))["ratio"].tolist()
    [0.5, 0.5]

    """
    base = unscaled_inv_freq(freqs.spec)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(base > 0, freqs.inv_freq / base, 1.0)
    return {
        "pair": np.arange(freqs.inv_freq.size),
        "inv_freq": freqs.inv_freq,
        "wavelength": freqs.wavelengths,
        "unscaled_inv_freq": base,
        "ratio": ratio,
        "scaling": np.array(freqs.scaling),
        "attention_factor": np.full(freqs.inv_freq.size, freqs.attention_factor),
    }
