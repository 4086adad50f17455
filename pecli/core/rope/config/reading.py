"""One rope of a model's config (as a dict): its checked spec, rotated slice and findings.

The config may be any shape transformers 4 or 5 writes (:mod:`.shapes`); the widths come
from any of the ecosystem's keys (:mod:`.widths`). Pure Python; no I/O (the JSON is read by
:mod:`pecli.io`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ParameterError
from ..frequencies import rope_frequencies
from ..number_rules import shown
from ..registry import RECORDS
from ..spec import RopeSpec, check_spec
from .class_fields import FILLED
from .families import INTERLEAVE_BY_DEFAULT, INTERLEAVED, PARTIAL_DEFAULTS, no_rope_reason
from .shapes import ALL, label_section, rope_tables, text_section
from .widths import Widths, head_widths

__all__ = ["ENGINE_LAYOUT", "KNOWN_FIELDS", "RopeReading", "read_rope", "spec_from_config"]

#: The key of a config made from an engine's file (a GGUF, by
#: :func:`pecli.core.ports.gguf_layers.config_from_gguf`) that holds the pair layout the engine
#: rotates in (llama.cpp's rope mode for the architecture), over the family's rule.
ENGINE_LAYOUT = "_engine_layout"

#: The fields each rope_type reads (transformers 5's ``_validate_<type>_rope_parameters``).
KNOWN_FIELDS = {name: {"rope_theta", *kind.reads} for name, kind in RECORDS.items()}
#: The scalings a transformers 4 ``type``/``factor`` parser applies (linear, dynamic).
_OLD_SCALINGS = ", ".join(n for n, kind in RECORDS.items() if kind.old_parsers_know and kind.reads)
_COMMON = {"rope_type", "type"}
#: Fields that are read elsewhere (the query temperature, M-RoPE's sections, PhiMoE's scales).
_ELSEWHERE = {"llama_4_scaling_beta", "mrope_section", "mrope_interleaved", "short_mscale"}
_ELSEWHERE |= {"long_mscale", "partial_rotary_factor"}
_CONFIG_NAMES = {"theta": "rope_theta"}
_SPEC_FIELDS = {f.name for f in dataclasses.fields(RopeSpec)}


@dataclass(frozen=True)
class RopeReading:
    """One rope of a model: its spec, where it sits in the head, and what was found.

    Attributes
    ----------
    spec : RopeSpec
        The checked parameters (``head_dim`` the width its exponent runs over).
    head : int
        Channels of one query/key head.
    start : int
        The first rotated channel (``head − rotated`` for multi-head latent attention).
    layout : str
        ``half-split`` or ``interleaved`` (adjacent pairs).
    params : dict
        The rope parameters as read (label's dict, θ included).
    path : str
        Where the text model sits in the config (``""``: the top level).
    notes : list of str
        Findings, one sentence each.

    """

    spec: RopeSpec
    head: int
    start: int
    layout: str
    params: dict[str, Any]
    path: str
    notes: list[str]

    @property
    def rotated(self) -> int:
        """The rotated width in channels."""
        return self.spec.rotary_dim


def spec_from_config(
    config: Mapping[str, Any], *, seq_len: int | None = None, parameter: str = "config"
) -> tuple[RopeSpec, list[str]]:
    """The rotary embedding a config describes, and what a careless reader would miss.

    Parameters
    ----------
    config : mapping
        The parsed ``config.json`` of a model (any shape: composite configs are searched for
        the text model, :func:`pecli.core.rope.config.shapes.text_section`).
    seq_len : int, keyword-only, optional
        Sequence length for ``dynamic`` and ``longrope`` (long factors past the original length).
    parameter : str, keyword-only
        The name errors give the config (the command line's option or argument).

    Returns
    -------
    spec : RopeSpec
        Checked parameters; ``head_dim`` is the width the exponent runs over.
    findings : list of str
        One sentence each: where θ and the widths came from, fields some reader ignores.

    Raises
    ------
    ParameterError
        ``parameter`` (one line naming the field): a field missing or invalid, no head
        width, a config with one rope per label (use :func:`read_rope` with a label).

    Examples
    --------
    >>> spec, notes = spec_from_config({"hidden_size": 4096, "num_attention_heads": 32,
    ...     "rope_theta": 500000.0, "rope_scaling": {"type": "linear", "factor": 2.0}})
    >>> spec.rope_type, spec.theta, spec.head_dim, spec.factor
    ('linear', 500000.0, 128, 2.0)

    """
    reading = read_rope(config, seq_len=seq_len, parameter=parameter)
    return reading.spec, reading.notes


def read_rope(
    config: Mapping[str, Any],
    label: str | None = None,
    *,
    seq_len: int | None = None,
    parameter: str = "config",
    path: str | None = None,
) -> RopeReading:
    """The rope of one label (a layer type, ``main``/``compress``) of a config.

    ``label`` None asks for the only rope; a config with several names them in the error.

    Raises
    ------
    ParameterError
        ``parameter``: as :func:`spec_from_config`; an unknown label.

    Examples
    --------
    >>> gemma3 = {"head_dim": 256, "rope_theta": 1e6, "rope_local_base_freq": 1e4,
    ...     "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    >>> read_rope(gemma3, "sliding_attention").spec.theta
    10000.0

    """
    notes: list[str] = []
    widths = None
    try:
        where, section = text_section(config, path)
        if where:
            notes.append(f"the text model's config is {where}")
        if filled := section.get(FILLED):
            given = ", ".join(f"{key} {section[key]}" for key in filled)
            notes.append(f"not in the file, {section['model_type']}'s config class gives {given}")
        if reason := no_rope_reason(section):
            rule = f"has no RoPE: {reason} (pecli rope layers prints its plan)"
            raise ParameterError("config", rule, section.get("model_type"))
        tables = rope_tables(section, notes)
        params = _pick(tables, label)
        section = dict(label_section(section, label))
        widths = head_widths(section, notes)
        spec = _spec(section, params, widths, seq_len, notes)
    except ParameterError as error:
        if error.parameter == "seq_len":  # the command line's value, not the config's
            raise
        rule = error.rule
        if error.parameter != "config":
            name = _CONFIG_NAMES.get(error.parameter, error.parameter)
            if name == "head_dim" and widths is not None and widths.rotated_key:
                name = widths.rotated_key  # the spec carries the rotated width as head_dim
            rule = f"field {name} {error.rule}"
        raise ParameterError(parameter, rule, error.value) from None
    start = widths.head - spec.rotary_dim if widths.last else 0
    layout = _layout(section, notes)
    return RopeReading(spec, widths.head, start, layout, params, where, notes)


def _layout(section: Mapping[str, Any], notes: list[str]) -> str:
    """How the checkpoint pairs its rotated channels: ``interleaved`` or ``half-split``."""
    if section.get(ENGINE_LAYOUT) in ("interleaved", "half-split"):
        return str(section[ENGINE_LAYOUT])  # a GGUF: the layout llama.cpp rotates in
    family = section.get("model_type")
    flag = section.get("rope_interleave", family in INTERLEAVE_BY_DEFAULT)
    if flag is True:
        notes.append(
            "rope_interleave: the checkpoint's rotated channels come in adjacent pairs "
            "(transformers regroups them into halves before rotating, "
            "apply_rotary_pos_emb_interleave)"
        )
    return "interleaved" if family in INTERLEAVED or flag is True else "half-split"


def _pick(tables: dict[str, dict[str, Any]], label: str | None) -> dict[str, Any]:
    if label is None or label == ALL:
        if ALL in tables:
            return tables[ALL]
        if len(tables) == 1:
            return next(iter(tables.values()))
        rule = "has rope_parameters per layer type; pass one of them"
        raise ParameterError("config", rule, sorted(tables))
    if label in tables:
        return tables[label]
    if ALL in tables:
        return tables[ALL]
    raise ParameterError("config", f"has no rope parameters for {label!r}", sorted(tables))


def _spec(
    section: Mapping[str, Any],
    params: dict[str, Any],
    widths: Widths,
    seq_len: int | None,
    notes: list[str],
) -> RopeSpec:
    rope_type = _rope_type(params, notes)
    fields: dict[str, Any] = {"rope_type": rope_type, "theta": params["rope_theta"]}
    fields["seq_len"] = seq_len
    if widths.rotated is not None:  # an absolute rotated width: the exponent runs over it
        fields["head_dim"], fields["partial_rotary_factor"] = widths.rotated, 1.0
        if RECORDS.get(rope_type) and RECORDS[rope_type].whole_head_exponent:
            fields["head_dim"] = widths.head
            fields["partial_rotary_factor"] = widths.rotated / widths.head
    else:
        fields["head_dim"] = widths.head
        fields["partial_rotary_factor"] = _partial(section, params, notes)
    fields["max_position_embeddings"] = _length(section.get("max_position_embeddings"))
    _scaling_fields(section, params, rope_type, fields, notes)
    spec = check_spec(RopeSpec(**{k: v for k, v in fields.items() if k in _SPEC_FIELDS}))
    rope_frequencies(spec)  # a wavelength that overflows is the config's fault too
    return spec


def _rope_type(params: Mapping[str, Any], notes: list[str]) -> str:
    rope_type = params.get("rope_type", params.get("type", "default"))
    if not isinstance(rope_type, str):
        raise ParameterError("config", "field rope_type must be a string", shown(rope_type))
    if "type" in params and "rope_type" not in params:
        notes.append(f"rope_type is given as 'type' (the transformers 4 alias): {rope_type!r}")
    if rope_type == "mrope":
        notes.append(
            f"rope_type 'mrope' (M-RoPE, sections {params.get('mrope_section')}): the "
            "frequencies are the default ones; the sections pick an axis per frequency "
            "(pecli rope axes, pecli rope mrope-ids)"
        )
        return "default"
    return rope_type


def _length(value: Any) -> Any:
    """A length written as a float with an integer value (``131072.0``) is that integer."""
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    return value


def _partial(section: Mapping[str, Any], params: Mapping[str, Any], notes: list[str]) -> Any:
    value = params.get("partial_rotary_factor", section.get("partial_rotary_factor"))
    if value is None and "rotary_pct" in section:
        value = section["rotary_pct"]
        notes.append("rotary_pct (GPT-NeoX) is the partial_rotary_factor")
    if value is None and section.get("model_type") in PARTIAL_DEFAULTS:
        value = PARTIAL_DEFAULTS[section["model_type"]]
        notes.append(
            f"no partial_rotary_factor: the {section['model_type']} config class's default "
            f"{value} is used (a reader that does not know it rotates the whole head)"
        )
    if value is not None and value != 1:
        notes.append(
            f"partial_rotary_factor {value}: only the first int(head_dim·{value}) "
            "channels rotate; a kernel rotating the whole head is wrong"
        )
    return 1.0 if value is None else value


def _scaling_fields(
    section: Mapping[str, Any],
    params: Mapping[str, Any],
    rope_type: str,
    fields: dict[str, Any],
    notes: list[str],
) -> None:
    known = KNOWN_FIELDS.get(rope_type, set())
    for key, value in params.items():
        if key in known or key in _COMMON:
            length = key.endswith("position_embeddings")  # θ and factors stay floats
            fields[{"rope_theta": "theta"}.get(key, key)] = _length(value) if length else value
        elif key not in _ELSEWHERE:
            notes.append(f"{key} is not used by rope_type {rope_type!r} (ignored)")
    for key in ("short_factor", "long_factor"):
        if fields.get(key) is not None:
            if not isinstance(fields[key], list):
                raise ParameterError(key, "must be a JSON list of numbers", shown(fields[key]))
            fields[key] = tuple(fields[key])
    _mscales(params, fields, notes)
    if params.get("llama_4_scaling_beta") is not None:
        notes.append(
            f"llama_4_scaling_beta {params['llama_4_scaling_beta']}: after RoPE the queries are "
            "multiplied by 1 + β·ln(1 + ⌊p / original_max_position_embeddings⌋) (transformers' "
            "Ministral3Attention); a reader that drops the key leaves them unscaled past that "
            "length (pecli rope layers gives the factor per position)"
        )
    kind = RECORDS.get(rope_type)
    if kind is None or not kind.old_parsers_know:
        notes.append(
            f"rope_type {rope_type!r}: a parser that knows only type/factor "
            f"({_OLD_SCALINGS}) refuses it or silently applies no scaling"
        )
    if "truncate" in params:
        notes.append(
            f"truncate {params['truncate']}: older YaRN code ignores it and rounds "
            "the correction range to integers"
        )
    if kind is not None and "original_max_position_embeddings" in kind.reads:
        _original(section, params, fields, notes)


def _mscales(params: Mapping[str, Any], fields: dict[str, Any], notes: list[str]) -> None:
    """PhiMoE: cos and sin are scaled by ``short_mscale`` (``long_mscale`` past ``L``)."""
    if "short_mscale" not in params and "long_mscale" not in params:
        return
    seq, orig = fields.get("seq_len"), params.get("original_max_position_embeddings")
    long = seq is not None and orig is not None and seq > orig
    key = "long_mscale" if long else "short_mscale"
    if params.get(key) is not None:
        fields["attention_factor"] = params[key]
        notes.append(
            f"{key} {params[key]}: PhiMoE's forward scales cos and sin by it (transformers' "
            "PhimoeRotaryEmbedding), not by longrope's own factor"
        )


def _original(
    section: Mapping[str, Any], params: Mapping[str, Any], fields: dict[str, Any], notes: list[str]
) -> None:
    if "original_max_position_embeddings" in section:  # Phi-3: the top level wins
        fields["original_max_position_embeddings"] = _length(
            section["original_max_position_embeddings"]
        )
        notes.append(
            "original_max_position_embeddings is read from the top level "
            "(as transformers does, over rope_parameters)"
        )
    elif "original_max_position_embeddings" not in params and section.get(
        "max_position_embeddings"
    ):
        fields["original_max_position_embeddings"] = _length(section["max_position_embeddings"])
        notes.append(
            "no original_max_position_embeddings: transformers takes max_position_embeddings"
        )
