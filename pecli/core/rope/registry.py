"""One record per ``rope_type``: its fields and defaults, its rules, its formula, its source.

Everything pecli knows about a rope type is in its :class:`RopeType` record, and the rest is
derived from :data:`RECORDS`: the names the command line offers and its help texts
(:mod:`pecli.cli.rope.options`), the fields a ``config.json`` is read for
(:mod:`pecli.core.rope.config`), the rules of :func:`pecli.core.rope.spec.check_spec`, the
formula :func:`pecli.core.rope.frequencies.rope_frequencies` evaluates, and the table of
docs/rope.md#frequencies (``tests/rope/test_rope_registry.py`` checks that the page agrees).
Adding a rope type is one record here, its formula in :mod:`pecli.core.rope.formulas` (and,
if pecli repeats transformers' float32 steps, :mod:`pecli.core.rope.float32_formulas`), any
rule of its own in :mod:`pecli.core.rope.type_rules`, and its tests. The fields and rules
follow transformers 5 (``transformers/modeling_rope_utils.py``: ``_compute_<type>_parameters``
and ``RotaryEmbeddingConfigMixin._validate_<type>_rope_parameters``), except that where
transformers only logs a warning pecli refuses the value. No I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..errors import ParameterError
from . import float32_formulas, formulas, type_rules

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .fields import RopeFields

__all__ = [
    "FACTOR_AT_LEAST_ONE",
    "RECORDS",
    "ROPE_TYPES",
    "RopeType",
    "default_of",
    "readers",
    "record",
    "takers",
]

_NO_DEFAULTS: Mapping[str, float] = MappingProxyType({})


@dataclass(frozen=True)
class RopeType:
    """A ``rope_type``: what it reads, what it needs, its rules, its formula and its source.

    Attributes
    ----------
    name : str
        The ``rope_type`` of a config's ``rope_parameters`` (``rope_scaling``).
    formula : callable
        ``RopeSpec -> formulas.Exact``: the exact ``inv_freq``, per-pair scaling, attention
        factor and notes, given a checked spec with its defaults applied
        (:func:`pecli.core.rope.spec.with_defaults`).
    source : str
        The transformers function the formula follows.
    reads : tuple of str
        The :class:`~pecli.core.rope.spec.RopeSpec` fields the type takes from
        ``rope_parameters``, besides ``rope_theta`` and ``partial_rotary_factor``.
    required : tuple of str
        Fields it cannot do without (an error names the first one missing).
    defaults : mapping of str to float
        Values of unset fields (yarn's ``beta_fast`` 32, …) as the formula takes them.
    factor_at_least_one : bool
        ``factor`` must be >= 1 (transformers warns "must be a float or int >= 1").
    factor_from_lengths : bool
        Without ``factor``, ``f = max_position_embeddings / original_max_position_embeddings``.
    whole_head_exponent : bool
        The exponent runs over the whole head (``2i/head_dim``); the pairs past the rotated
        width pass through with frequency 0, and the rotated width is ``head_dim``.
    old_parsers_know : bool
        A parser of transformers 4's ``rope_scaling`` (``type`` and ``factor``) applies it.
    source_file : str
        The file of that function (``default``'s is in each model's file, Llama's here).
    float32 : callable or None
        ``(RopeSpec, base ** x) -> inv_freq``: transformers' own float32 steps
        (:mod:`pecli.core.rope.float32_formulas`), for a cache in transformers' arithmetic;
        None where pecli does not repeat them.
    rules : tuple of callables
        The type's own rules, run after every field's own: each raises ParameterError.
    omega, attention, per_pair, label : str
        The type's row of docs/rope.md: ``ω_i``, the attention factor, the scaling per pair,
        and words after the name (``(NTK)``).
    ramp, bands, factor_lists, follows_length, interpolates : bool
        What its formula does, as the engines' readings and GGUF checks ask it: YaRN's ramp
        over a correction range (yarn); wavelength bands, which llama.cpp carries as the
        ``rope_freqs`` tensor (llama3); short and long per-pair factors switched past ``L``
        (longrope); θ rescaled with the sequence length (dynamic NTK); every frequency
        divided by the factor, ggml's ``freq_scale`` (linear, yarn).
    gguf_scaling : str
        What llama.cpp's converter writes as ``{arch}.rope.scaling.type`` (``none``: no key).
    ggml : bool
        pecli repeats llama.cpp's float32 loop for it (a cache in llama.cpp's arithmetic).

    """

    name: str
    formula: Callable[[RopeFields], formulas.Exact]
    source: str
    omega: str
    attention: str
    per_pair: str
    reads: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    defaults: Mapping[str, float] = field(default_factory=lambda: _NO_DEFAULTS)
    factor_at_least_one: bool = False
    factor_from_lengths: bool = False
    whole_head_exponent: bool = False
    old_parsers_know: bool = False
    rules: tuple[Callable[[RopeFields], None], ...] = ()
    label: str = ""
    source_file: str = "transformers/modeling_rope_utils.py"
    float32: Callable[[RopeFields, np.ndarray], np.ndarray] | None = None
    ramp: bool = False
    bands: bool = False
    factor_lists: bool = False
    follows_length: bool = False
    interpolates: bool = False
    gguf_scaling: str = "none"
    ggml: bool = False


DEFAULT = RopeType(
    name="default",
    formula=formulas.default,
    float32=float32_formulas.default,
    source="compute_default_rope_parameters",
    omega="`1/base_i`",
    attention="1",
    per_pair="unchanged",
    old_parsers_know=True,
    source_file="transformers/models/llama/modeling_llama.py",
    ggml=True,
)

LINEAR = RopeType(
    name="linear",
    formula=formulas.linear,
    float32=float32_formulas.linear,
    source="_compute_linear_scaling_rope_parameters",
    omega="`1/(f·base_i)`",
    attention="1",
    per_pair="interpolated",
    reads=("factor",),
    required=("factor",),
    factor_at_least_one=True,
    old_parsers_know=True,
    interpolates=True,
    gguf_scaling="linear",
    ggml=True,
)

DYNAMIC = RopeType(
    name="dynamic",
    formula=formulas.dynamic,
    source="_compute_dynamic_ntk_parameters",
    omega=(
        "`1/θ'^(2i/dim)`, `θ' = θ·(f·S/M − (f − 1))^(dim/(dim−2))`, `S = max(seq_len, M)`,"
        " `M = max_position_embeddings`"
    ),
    attention="1",
    per_pair="rescaled (unchanged while `S = M`)",
    reads=("factor",),
    required=("factor", "max_position_embeddings"),
    factor_at_least_one=True,
    old_parsers_know=True,
    rules=(type_rules.dynamic_width,),
    label="(NTK)",
    follows_length=True,
)

YARN = RopeType(
    name="yarn",
    formula=formulas.yarn,
    float32=float32_formulas.yarn,
    source="_compute_yarn_parameters",
    omega=(
        "ramp `r_i = clamp((i − low)/(high − low), 0, 1)`;"
        " `ω_i = r_i/(f·base_i) + (1 − r_i)/base_i`"
    ),
    attention=(
        "`0.1·ln f + 1`, or `mscale(f, mscale)/mscale(f, mscale_all_dim)`, or `attention_factor`"
    ),
    per_pair="unchanged (`r = 0`), smoothed, interpolated (`r = 1`)",
    reads=(
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
    ),
    required=("original_max_position_embeddings",),
    defaults=MappingProxyType({"beta_fast": 32.0, "beta_slow": 1.0}),
    rules=(type_rules.yarn_mscales,),
    factor_at_least_one=True,
    factor_from_lengths=True,
    ramp=True,
    interpolates=True,
    gguf_scaling="yarn",
    ggml=True,
)

LONGROPE = RopeType(
    name="longrope",
    formula=formulas.longrope,
    source="_compute_longrope_parameters",
    omega="`1/(e_i·base_i)`, `e` = `long_factor` if `seq_len > L`, else `short_factor`",
    attention="`sqrt(1 + ln f/ln L)` (`f` defaults to `M/L`), or `attention_factor`",
    per_pair="rescaled where `e_i ≠ 1`",
    reads=(
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "short_factor",
        "long_factor",
    ),
    required=("original_max_position_embeddings", "short_factor", "long_factor"),
    factor_at_least_one=True,
    factor_from_lengths=True,
    rules=(type_rules.longrope_factors,),
    factor_lists=True,
    gguf_scaling="longrope",
)

LLAMA3 = RopeType(
    name="llama3",
    formula=formulas.llama3,
    float32=float32_formulas.llama3,
    source="_compute_llama3_parameters",
    omega=(
        "`λ_i = 2π·base_i`: kept if `λ_i < L/high_freq_factor`, divided by `f` if"
        " `λ_i > L/low_freq_factor`, else `(1 − s)·ω/f + s·ω`"
        " with `s = (L/λ_i − low)/(high − low)`"
    ),
    attention="1",
    per_pair="unchanged, smoothed, interpolated",
    reads=("factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"),
    required=("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    factor_at_least_one=True,
    rules=(type_rules.llama3_bands,),
    bands=True,
    ggml=True,
)

PROPORTIONAL = RopeType(
    name="proportional",
    formula=formulas.proportional,
    source="_compute_proportional_rope_parameters",
    omega=(
        "`1/θ^(2k/head_dim)` for the first `int(partial_rotary_factor·head_dim // 2)` pairs,"
        " 0 for the rest, all divided by `f` (default 1)"
    ),
    attention="1",
    per_pair="unchanged or interpolated, then pass-through",
    reads=("factor",),
    defaults=MappingProxyType({"factor": 1.0}),
    whole_head_exponent=True,
)

#: Every ``rope_type`` of transformers 5's ``ROPE_INIT_FUNCTIONS``, plus ``default``, in order.
RECORDS: Mapping[str, RopeType] = MappingProxyType(
    {r.name: r for r in (DEFAULT, LINEAR, DYNAMIC, YARN, LONGROPE, LLAMA3, PROPORTIONAL)}
)

#: The rope types, in the order of :data:`RECORDS`.
ROPE_TYPES = tuple(RECORDS)
#: Types whose ``factor`` must be >= 1.
FACTOR_AT_LEAST_ONE = tuple(r.name for r in RECORDS.values() if r.factor_at_least_one)


def record(rope_type: object) -> RopeType:
    """The record of ``rope_type``; ParameterError (naming the known types) for another.

    >>> record("yarn").defaults["beta_fast"]
    32.0
    """
    if not isinstance(rope_type, str) or rope_type not in RECORDS:
        raise ParameterError("rope_type", f"must be one of {', '.join(ROPE_TYPES)}", rope_type)
    return RECORDS[rope_type]


def readers(name: str) -> tuple[str, ...]:
    """The rope types that read field ``name`` from ``rope_parameters``, in order.

    >>> readers("original_max_position_embeddings")
    ('yarn', 'longrope', 'llama3')
    """
    return tuple(r.name for r in RECORDS.values() if name in r.reads)


#: Fields every rope type takes (the base, the head and its rotated share).
EVERY_TYPE = frozenset({"rope_type", "theta", "head_dim", "partial_rotary_factor"})


def takers(name: str) -> tuple[str, ...]:
    """The rope types whose frequencies or attention factor depend on spec field ``name``.

    Those that read it (:attr:`RopeType.reads`) or require it, yarn and longrope for
    ``max_position_embeddings`` (``f = M/L`` without ``factor``), and dynamic and longrope
    for ``seq_len`` (θ rescaled; the long factors past ``L``). Every type for the fields of
    :data:`EVERY_TYPE`.

    >>> takers("factor")
    ('linear', 'dynamic', 'yarn', 'longrope', 'llama3', 'proportional')
    >>> takers("max_position_embeddings"), takers("seq_len")
    (('dynamic', 'yarn', 'longrope'), ('dynamic', 'longrope'))
    """
    if name in EVERY_TYPE:
        return ROPE_TYPES
    return tuple(
        r.name
        for r in RECORDS.values()
        if name in r.reads
        or name in r.required
        or (name == "max_position_embeddings" and r.factor_from_lengths)
        or (name == "seq_len" and (r.follows_length or r.factor_lists))
    )


def default_of(name: str) -> float:
    """The default of field ``name`` (the same in every record that has one).

    >>> default_of("beta_slow")
    1.0
    """
    values = {r.defaults[name] for r in RECORDS.values() if name in r.defaults}
    if len(values) != 1:
        raise KeyError(f"{name}: defaults {sorted(values)}")
    return values.pop()
