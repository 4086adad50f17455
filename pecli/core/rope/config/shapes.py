"""Where a config keeps its text model's RoPE, and its rope parameters per label.

Composite configs nest the language model: ``text_config`` (Qwen2/2.5/3-VL, Gemma 3/4, Llama
4, Mistral 3), ``thinker_config.text_config`` (the Omni models), ``decoder`` (T5Gemma),
``decoder_config``, ``global_config``, ``llm_config``. transformers 4 configs carry
``rope_theta`` and a ``rope_scaling`` dict (``type`` an alias of ``rope_type``); transformers
5 configs carry ``rope_parameters``, one dict, or one per label: the layer types of hybrid
models (``full_attention`` / ``sliding_attention``) or DeepSeek V4's ``main`` / ``compress``.
The legacy per-label keys are split the way transformers 5 converts them (Gemma 3's
``rope_local_base_freq``, ModernBERT's ``global_rope_theta`` / ``local_rope_theta``, DeepSeek
V4's ``compress_rope_theta``, OLMo 3's scaling on full layers only). Source: transformers 5
``modeling_rope_utils.py`` (``RotaryEmbeddingConfigMixin.convert_rope_params_to_dict``,
``standardize_rope_params``) and the ``configuration_*.py`` of those models. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import ParameterError
from ..number_rules import check_theta, shown
from .class_defaults import default_nope, default_rope, default_theta
from .class_fields import with_class_fields

__all__ = ["TEXT_PATHS", "label_section", "nope_labels", "rope_tables", "text_section"]

#: Where composite configs keep the language model, most specific first.
TEXT_PATHS = (
    "thinker_config.text_config",
    "text_config",
    "llm_config",
    "language_config",
    "decoder_config",
    "decoder",
    "global_config",
)
#: The label of a rope that every layer uses.
ALL = ""


def text_section(
    config: Mapping[str, Any], path: str | None = None, *, fill: bool = True
) -> tuple[str, dict[str, Any]]:
    """The language model's config and its path (``""``: the top level).

    A nested config with no rope key of its own takes the top level's (a hub file often
    keeps ``rope_theta`` or ``rope_scaling`` at the top). With ``fill``, the fields the file
    omits are its config class's (:func:`.class_fields.with_class_fields`: ``head_dim``,
    ``num_hidden_layers``, ``sliding_window``, …), as transformers reads them.

    Raises ``ParameterError`` (``config``) when a ``text_config`` holds no object (a list, a
    number): the top level would be read instead, and refused for another reason. Another
    key of :data:`TEXT_PATHS` that holds no object (``"decoder": true``) is passed over, as
    transformers ignores it.

    Examples
    --------
    >>> text_section({"rope_theta": 1e6, "head_dim": 64, "text_config": {"head_dim": 128}})
    ('text_config', {'rope_theta': 1000000.0, 'head_dim': 128})

    """
    for candidate in (path,) if path is not None else TEXT_PATHS:
        node: Any = config
        for key in [k for k in candidate.split(".") if k]:
            node = node.get(key) if isinstance(node, Mapping) else None
            if key == "text_config" and node is not None and not isinstance(node, Mapping):
                rule = f"field {candidate} must be an object (the text model's config)"
                raise ParameterError("config", rule, repr(node)[:40])  # not read past
        if isinstance(node, Mapping) and (node or path is not None):
            section = {**_top_rope(config, node, candidate), **node}
            return candidate, with_class_fields(section) if fill else section
    section = _flat_text(config)
    return "", with_class_fields(section) if fill else section


#: Composite models whose class builds the text config from a flat file's top-level fields
#: when it has no ``text_config`` (transformers 5.25's ``__post_init__``), by the model type
#: of that text config (fixture class_defaults' ``flat``).
FLAT_TEXT_TYPES = {
    "fuyu": "persimmon",
    "hunyuan_vl": "hunyuan_vl_text",
    "paddleocr_vl": "paddleocr_vl_text",
    "qwen2_5_vl": "qwen2_5_vl_text",
    "qwen2_vl": "qwen2_vl_text",
}


def _flat_text(config: Mapping[str, Any]) -> dict[str, Any]:
    """A flat file of :data:`FLAT_TEXT_TYPES` read as its text model (that class's defaults).

    A flat Qwen2.5-VL file got θ 10000, the fallback of a model type with no θ default, for
    the 1e6 of the ``Qwen2_5_VLTextConfig`` transformers builds from it, and no sliding
    layers.
    """
    text_type = FLAT_TEXT_TYPES.get(str(config.get("model_type")))
    return {**config, "model_type": text_type} if text_type else dict(config)


#: The keys a hub file may keep at the top for its nested text model.
_ROPE_KEYS = ("rope_theta", "rope_scaling", "rope_parameters")


def _top_rope(config: Mapping[str, Any], node: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The top level's rope keys, for a nested config that has none of its own.

    Only those: the top's widths (and, if the nested config has any rope key, its rope) may
    belong to another model of the composite (MusicFlamingo's audio rotary, Evolla's).
    """
    if not path or any(key in node for key in _ROPE_KEYS):
        return {}
    return {key: config[key] for key in _ROPE_KEYS if key in config}


def rope_tables(section: Mapping[str, Any], notes: list[str]) -> dict[str, dict[str, Any]]:
    """The rope parameters per label (``""``: one for every layer), each with its θ.

    Raises
    ------
    ParameterError
        ``config``: ``rope_parameters`` or ``rope_scaling`` not a JSON object, or
        ``rope_parameters`` mixing per-label dicts and plain fields.

    Examples
    --------
    >>> rope_tables({"rope_theta": 1e6, "rope_local_base_freq": 1e4,
    ...     "rope_scaling": {"rope_type": "linear", "factor": 8.0}}, [])["sliding_attention"]
    {'rope_type': 'default', 'rope_theta': 10000.0}

    """
    defaults = default_rope(section)
    if defaults is not None:
        notes.append(
            f"no rope key: the rope of {section.get('model_type')}'s config class is used "
            f"({_shown_tables(defaults)})"
        )
        return defaults
    modern = _object(section, "rope_parameters")
    if modern and _per_label(modern):
        modern = {k: v for k, v in modern.items() if v is not None}  # null: NoPE layers
        if not all(isinstance(v, Mapping) for v in modern.values()):
            rule = "field rope_parameters must hold either one dict per label or plain fields"
            raise ParameterError("config", rule, sorted(modern))
        tables = {label: dict(params) for label, params in modern.items()}
        for label, params in tables.items():
            if "rope_theta" not in params:
                params["rope_theta"] = _theta(section, notes, label)
        return tables
    params = _flat(section, modern, notes)
    return _split_legacy(section, params, notes)


def _per_label(modern: Mapping[str, Any]) -> bool:
    """Whether ``rope_parameters`` holds one entry per label: a dict, or null for every label.

    >>> _per_label({"full_attention": None}), _per_label({"rope_theta": None})
    (True, False)
    """
    if any(isinstance(v, Mapping) for v in modern.values()):
        return True
    fields = any(str(k).startswith("rope_") or k in ("type", "factor") for k in modern)
    return bool(modern) and not fields and all(v is None for v in modern.values())


def _flat(
    section: Mapping[str, Any], modern: Mapping[str, Any] | None, notes: list[str]
) -> dict[str, Any]:
    """One rope dict with its θ, from either generation of configs."""
    legacy = _object(section, "rope_scaling")
    if modern and legacy:  # transformers 5: rope_scaling wins
        params = dict(legacy)
        if params != dict(modern):
            notes.append(
                f"rope_scaling {params} and rope_parameters {dict(modern)} disagree: "
                "transformers 5 reads rope_scaling (convert_rope_params_to_dict "
                "prefers it), and so does pecli; fix the config"
            )
    elif modern:
        params = dict(modern)
        notes.append(
            "rope_parameters (transformers 5): a transformers 4 reader ignores it "
            "and takes rope_theta = 10000 and no scaling"
        )
        top = section.get("rope_theta")
        if top is not None and "rope_theta" in params and top != params["rope_theta"]:
            notes.append(
                f"rope_theta differs: {top} at the top, {params['rope_theta']} in "
                "rope_parameters (transformers 5 takes rope_parameters)"
            )
    else:
        params = dict(legacy or {})
    if "rope_theta" not in params:
        params["rope_theta"] = _theta(section, notes)
    return params


def _theta(section: Mapping[str, Any], notes: list[str], label: str = ALL) -> Any:
    """θ from the top level, GPT-NeoX's ``rotary_emb_base`` or DBRX's ``attn_config``.

    Else the config class's default for the layer type ``label`` (:func:`default_theta`).
    """
    attn = section.get("attn_config")
    for key, value in (
        ("rope_theta", section.get("rope_theta")),
        ("rotary_emb_base", section.get("rotary_emb_base")),
        ("attn_config.rope_theta", attn.get("rope_theta") if isinstance(attn, Mapping) else None),
    ):
        if value is not None:
            if key != "rope_theta":
                notes.append(
                    f"θ is {key} = {value} (a reader that looks for rope_theta takes 10000)"
                )
            return value
    theta = default_theta(section, label)
    family = section.get("model_type")
    if family is None:
        notes.append(f"no rope_theta: transformers' default {theta:g} is used")
    elif not _modernbert(section):  # ModernBERT names θ per layer type instead
        notes.append(f"no rope_theta: the default of {family}'s config class, {theta:g}, is used")
    return theta


def _modernbert(section: Mapping[str, Any]) -> bool:
    """Whether ``section`` names ModernBERT's θ per layer type (either key)."""
    return any(section.get(k) is not None for k in ("global_rope_theta", "local_rope_theta"))


def _shown_tables(tables: Mapping[str, Mapping[str, Any]]) -> str:
    """``tables`` in a note: each label's rope type and θ."""
    return ", ".join(
        f"{label or 'every layer'}: {params['rope_type']} θ {params['rope_theta']:g}"
        for label, params in tables.items()
    )


def _split_legacy(
    section: Mapping[str, Any], params: dict[str, Any], notes: list[str]
) -> dict[str, dict[str, Any]]:
    """Transformers 4's per-layer keys, split into labels as transformers 5 converts them."""
    if section.get("rope_local_base_freq") is not None:  # Gemma 3: sliding layers unscaled
        local = {"rope_type": "default", "rope_theta": _given(section, "rope_local_base_freq")}
        notes.append(
            f"rope_local_base_freq {section['rope_local_base_freq']}: the sliding layers rotate "
            "with that θ, unscaled; the scaling applies to the global layers only"
        )
        return {"full_attention": params, "sliding_attention": local}
    if _modernbert(section):  # ModernBERT: the scaling applies to both layer types
        notes.append("global_rope_theta / local_rope_theta (ModernBERT): one θ per layer type")
        keys = {"full_attention": "global_rope_theta", "sliding_attention": "local_rope_theta"}
        return {
            label: {**params, "rope_theta": _given(section, key, label)}
            for label, key in keys.items()
        }
    if section.get("compress_rope_theta") is not None:  # DeepSeek V4
        main = {"rope_type": "default", "rope_theta": params["rope_theta"]}
        notes.append(
            "compress_rope_theta (DeepSeek V4): the compressed layers take it and the scaling; "
            "the layers with compress ratio 0 rotate with rope_theta, unscaled"
        )
        compress = {**params, "rope_theta": _given(section, "compress_rope_theta")}
        compress.setdefault("attention_factor", 1.0)  # DeepseekV4Config: cos/sin unscaled
        return {"main": main, "compress": compress}
    if section.get("model_type") == "olmo3" and _rope_type(params) != "default":
        notes.append("OLMo 3: the scaling applies to the full-attention layers only")
        local = {"rope_type": "default", "rope_theta": params["rope_theta"]}
        return {"full_attention": params, "sliding_attention": local}
    return {ALL: params}


def _given(section: Mapping[str, Any], key: str, label: str = ALL) -> Any:
    """The θ ``section[key]``, a bad one refused under ``key``'s name.

    Without it, the class's θ for ``label`` (ModernBertConfig's ``default_theta``).
    """
    value = section.get(key)
    if value is None:
        return default_theta(section, label)
    return check_theta(value, "config", field=key)


def _rope_type(params: Mapping[str, Any]) -> Any:
    return params.get("rope_type", params.get("type", "default"))


def _object(config: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """``config[name]`` if it is a JSON object (or absent / null)."""
    value = config.get(name)
    if value is not None and not isinstance(value, Mapping):
        raise ParameterError("config", f"field {name} must be a JSON object", shown(value))
    return value


def label_section(section: Mapping[str, Any], label: str | None) -> Mapping[str, Any]:
    """``section`` with the head width the layers of ``label`` take.

    Gemma 4's ``per_layer_config`` gives 512 on the full-attention layers, 256 elsewhere; a
    file without it gives that width as ``global_head_dim`` (``Gemma4TextConfig`` builds
    ``per_layer_config`` from it).
    """
    per_layer, kinds = section.get("per_layer_config"), section.get("layer_types")
    wide = section.get("global_head_dim")
    if label == "full_attention" and per_layer is None and wide is not None:
        return {**section, "head_dim": wide}
    if not label or not isinstance(per_layer, Mapping) or not isinstance(kinds, list):
        return section
    widths = {
        entry.get("head_dim")
        for index, entry in per_layer.items()
        if isinstance(entry, Mapping)
        and str(index).isdigit()
        and int(index) < len(kinds)
        and kinds[int(index)] == label
    }
    widths.discard(None)
    if len(widths) == 1:
        return {**section, "head_dim": widths.pop()}
    return section


def nope_labels(section: Mapping[str, Any]) -> set[str]:
    """The labels whose ``rope_parameters`` entry is null: their layers rotate nothing.

    Beam and Ergo write ``"full_attention": null``: their global layers are NoPE.

    >>> sorted(nope_labels({"rope_parameters": {"full_attention": None,
    ...     "sliding_attention": {"rope_theta": 1e4}}}))
    ['full_attention']
    """
    if default_rope(section) is not None:  # no rope key: the class's null labels
        return default_nope(section)
    modern = section.get("rope_parameters")
    if not isinstance(modern, Mapping) or not _per_label(modern):
        return set()
    return {label for label, value in modern.items() if value is None}
