"""A model's ``config.json`` (as a dict) read the way transformers 5 reads it, with findings.

transformers 4 configs carry ``rope_theta`` at the top and a ``rope_scaling`` dict (``type``
an alias of ``rope_type``); transformers 5 configs carry one ``rope_parameters`` dict with
``rope_theta``, ``rope_type`` and ``partial_rotary_factor`` inside. The head width is
``head_dim`` or ``hidden_size // num_attention_heads``. Source:
``RotaryEmbeddingConfigMixin.convert_rope_params_to_dict`` and ``standardize_rope_params``
in ``transformers/modeling_rope_utils.py``. Pure Python; no I/O (the JSON is read by
:mod:`pecli.io`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from .frequencies import rope_frequencies
from .number_rules import shown
from .registry import RECORDS
from .spec import RopeSpec, check_spec

__all__ = ["KNOWN_FIELDS", "spec_from_config"]

#: The fields each rope_type reads (transformers 5's ``_validate_<type>_rope_parameters``).
KNOWN_FIELDS = {name: {"rope_theta", *kind.reads} for name, kind in RECORDS.items()}
#: The scalings a transformers 4 ``type``/``factor`` parser applies (linear, dynamic).
_OLD_SCALINGS = ", ".join(n for n, kind in RECORDS.items() if kind.old_parsers_know and kind.reads)
_COMMON = {"rope_type", "type", "partial_rotary_factor"}
_CONFIG_NAMES = {"theta": "rope_theta"}
_SPEC_FIELDS = {f.name for f in dataclasses.fields(RopeSpec)}


def spec_from_config(
    config: Mapping[str, Any], *, seq_len: int | None = None, parameter: str = "config"
) -> tuple[RopeSpec, list[str]]:
    """The rotary embedding a config describes, and what a careless reader would miss.

    Parameters
    ----------
    config : mapping
        The parsed ``config.json`` of a model (a text config; for a multimodal model pass
        its ``text_config``).
    seq_len : int, keyword-only, optional
        Sequence length for ``dynamic`` and ``longrope`` (long factors past the original length).
    parameter : str, keyword-only
        The name errors give the config (the command line's option or argument).

    Returns
    -------
    spec : RopeSpec
        Checked parameters.
    findings : list of str
        One sentence each: where θ came from, fields an older parser would silently
        ignore (``rope_parameters``, ``rope_type`` other than linear/dynamic, ``truncate``,
        ``partial_rotary_factor``, top-level ``original_max_position_embeddings``), defaults
        taken, fields the type does not use.

    Raises
    ------
    ParameterError
        ``config`` (one line naming the field) if a field the rope type needs is missing
        or invalid, or the head width cannot be found.

    Examples
    --------
    >>> spec, notes = spec_from_config({"hidden_size": 4096, "num_attention_heads": 32,
    ...     "rope_theta": 500000.0, "rope_scaling": {"type": "linear", "factor": 2.0}})
    >>> spec.rope_type, spec.theta, spec.head_dim, spec.factor
    ('linear', 500000.0, 128, 2.0)

    """
    notes: list[str] = []
    try:
        params, theta = _rope_dict(config, notes)
        head_dim = _head_dim(config, notes)
    except ParameterError as error:
        raise ParameterError(parameter, error.rule, error.value) from None
    rope_type = params.get("rope_type", params.get("type", "default"))
    if not isinstance(rope_type, str):
        raise ParameterError(parameter, "field rope_type must be a string", rope_type)
    if "type" in params and "rope_type" not in params:
        notes.append(f"rope_type is given as 'type' (the transformers 4 alias): {rope_type!r}")
    fields: dict[str, Any] = {"rope_type": rope_type, "theta": theta, "seq_len": seq_len}
    fields["head_dim"] = head_dim
    fields["partial_rotary_factor"] = _partial(config, params, notes)
    fields["max_position_embeddings"] = config.get("max_position_embeddings")
    try:
        _scaling_fields(config, params, rope_type, fields, notes)
        spec = check_spec(RopeSpec(**{k: v for k, v in fields.items() if k in _SPEC_FIELDS}))
        rope_frequencies(spec)  # a wavelength that overflows is the config's fault too
    except ParameterError as error:
        if error.parameter == "seq_len":  # the command line's value, not the config's
            raise
        rule = f"field {_CONFIG_NAMES.get(error.parameter, error.parameter)} {error.rule}"
        raise ParameterError(parameter, rule, error.value) from None
    return spec, notes


def _rope_dict(config: Mapping[str, Any], notes: list[str]) -> tuple[dict[str, Any], float]:
    """The rope parameters dict and θ, from either generation of configs."""
    modern, legacy = _flat_parameters(config), _object(config, "rope_scaling")
    if isinstance(modern, Mapping) and modern and legacy:  # transformers 5: rope_scaling wins
        params = dict(legacy)
        if params != dict(modern):
            notes.append(
                f"rope_scaling {params} and rope_parameters {dict(modern)} disagree: "
                "transformers 5 reads rope_scaling (convert_rope_params_to_dict "
                "prefers it), and so does pecli; fix the config"
            )
    elif isinstance(modern, Mapping) and modern:
        params = dict(modern)
        notes.append(
            "rope_parameters (transformers 5): a transformers 4 reader ignores it "
            "and takes rope_theta = 10000 and no scaling"
        )
        top = config.get("rope_theta")
        if top is not None and "rope_theta" in params and top != params["rope_theta"]:
            notes.append(
                f"rope_theta differs: {top} at the top, {params['rope_theta']} in "
                "rope_parameters (transformers 5 takes rope_parameters)"
            )
    else:
        params = dict(legacy or {})
    theta = params.get("rope_theta", config.get("rope_theta"))
    if theta is None:
        notes.append("no rope_theta: transformers' default 10000 is used")
        theta = 10000.0
    return params, theta


def _flat_parameters(config: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``rope_parameters``, refused when it is given per layer type (one dict each)."""
    modern = _object(config, "rope_parameters")
    if modern and all(isinstance(v, Mapping) for v in modern.values()):
        raise ParameterError(
            "config", "has rope_parameters per layer type; pass one of them", sorted(modern)
        )
    return modern


def _object(config: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """``config[name]`` if it is a JSON object (or absent / null)."""
    value = config.get(name)
    if value is not None and not isinstance(value, Mapping):
        raise ParameterError("config", f"field {name} must be a JSON object", shown(value))
    return value


def _head_dim(config: Mapping[str, Any], notes: list[str]) -> Any:
    if config.get("head_dim"):
        return config["head_dim"]
    hidden, heads = config.get("hidden_size"), config.get("num_attention_heads")
    if hidden is None or heads is None:
        raise ParameterError(
            "config", "needs head_dim, or hidden_size and num_attention_heads", "nothing"
        )
    for name, value in (("hidden_size", hidden), ("num_attention_heads", heads)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ParameterError("config", f"field {name} must be an integer >= 1", shown(value))
    if hidden % heads:
        rule = f"field hidden_size must be a multiple of num_attention_heads = {heads}"
        raise ParameterError("config", rule, hidden)
    notes.append(f"head_dim = hidden_size // num_attention_heads = {hidden} // {heads}")
    return hidden // heads


def _partial(config: Mapping[str, Any], params: Mapping[str, Any], notes: list[str]) -> Any:
    value = params.get("partial_rotary_factor", config.get("partial_rotary_factor"))
    if value is None and "rotary_pct" in config:
        value = config["rotary_pct"]
        notes.append("rotary_pct (GPT-NeoX) is the partial_rotary_factor")
    if value is not None and value != 1:
        notes.append(
            f"partial_rotary_factor {value}: only the first int(head_dim·{value}) "
            "channels rotate; a kernel rotating the whole head is wrong"
        )
    return 1.0 if value is None else value


def _scaling_fields(
    config: Mapping[str, Any],
    params: Mapping[str, Any],
    rope_type: str,
    fields: dict[str, Any],
    notes: list[str],
) -> None:
    known = KNOWN_FIELDS.get(rope_type, set())
    for key, value in params.items():
        if key in known or key in _COMMON:
            fields[{"rope_theta": "theta"}.get(key, key)] = value
        else:
            notes.append(f"{key} is not used by rope_type {rope_type!r} (ignored)")
    for key in ("short_factor", "long_factor"):
        if fields.get(key) is not None:
            if not isinstance(fields[key], list):
                raise ParameterError(key, "must be a JSON list of numbers", shown(fields[key]))
            fields[key] = tuple(fields[key])
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
        if "original_max_position_embeddings" in config:  # Phi-3: the top level wins
            fields["original_max_position_embeddings"] = config["original_max_position_embeddings"]
            notes.append(
                "original_max_position_embeddings is read from the top level "
                "(as transformers does, over rope_parameters)"
            )
        elif "original_max_position_embeddings" not in params and config.get(
            "max_position_embeddings"
        ):
            fields["original_max_position_embeddings"] = config["max_position_embeddings"]
            notes.append(
                "no original_max_position_embeddings: transformers takes max_position_embeddings"
            )
