"""The M-RoPE preset a VL model's ``config.json`` describes (``pecli rope axes --config``).

θ, the head width and the rotated share come from the one config reader
(:func:`pecli.core.rope.config.read_rope`: ``text_config``, ``rope_scaling`` or
``rope_parameters``, ``type: mrope``); ``mrope_section`` from the rope parameters, else the
default the model's rotary class takes when the file is silent; the channel map and the
``get_rope_index`` rules from the family (``model_type``). Source: transformers 5.25
``models/qwen2_vl/modeling_qwen2_vl.py`` (``Qwen2VLRotaryEmbedding``: section default
[16, 24, 24], chunked), ``qwen2_5_vl`` (the same), ``qwen3_vl`` / ``qwen3_vl_moe``
([24, 20, 20], interleaved whatever ``mrope_interleaved`` says), ``qwen3_5`` / ``qwen3_5_moe``
([11, 11, 10], interleaved), ``glm4v`` / ``glm4v_moe`` ([8, 12, 12];
``recomposition_frequencies``), ``ernie4_5_vl_moe`` ([22, 22, 20] as h, w, t;
``Ernie4_5_VLMoeTextRotaryEmbedding``).
Pure; no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from ..rope.config import read_rope
from .mrope_presets import MROPE_PRESETS, MropePreset
from .vl_presets import VL_PRESETS

__all__ = ["CONFIG_FAMILIES", "preset_from_config"]

#: model_type (the text model's, ``_text`` dropped) → the preset whose rules and map it takes.
CONFIG_FAMILIES: dict[str, MropePreset] = {
    "qwen2_vl": MROPE_PRESETS["qwen2-vl"],
    "qwen2_5_vl": MROPE_PRESETS["qwen2.5-vl"],
    "qwen3_vl": MROPE_PRESETS["qwen3-vl"],
    "qwen3_vl_moe": MROPE_PRESETS["qwen3-vl"],
    "qwen3_5": MROPE_PRESETS["qwen3.5"],
    "qwen3_5_moe": MROPE_PRESETS["qwen3.5"],
    "glm4v": VL_PRESETS["glm-4.1v"],
    "glm4v_moe": VL_PRESETS["glm-4.5v"],
    "ernie4_5_vl_moe": VL_PRESETS["ernie-4.5-vl"],
}


def preset_from_config(config: Mapping[str, Any], parameter: str = "config") -> MropePreset:
    """The M-RoPE preset of a Qwen-VL / Qwen3.5 / GLM-4.xV config (θ, section, head its own).

    Parameters
    ----------
    config : mapping
        The parsed ``config.json`` (the composite file, or its ``text_config`` alone).
    parameter : str
        The name errors give the config.

    Returns
    -------
    MropePreset
        The family's preset (ids rules, channel map) with the config's ``mrope_section``,
        ``rope_theta``, head width and rotated share; ``name`` is ``config (<family>)``.

    Raises
    ------
    ParameterError
        ``parameter``: a model_type none of :data:`CONFIG_FAMILIES`, a section that is not
        three integers, or what the config reader refuses.

    Examples
    --------
    >>> qwen2_vl = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
    ...     "rope_theta": 1e6, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
    >>> p = preset_from_config(qwen2_vl)
    >>> p.name, p.section, p.theta, p.head_dim, p.rules
    ('config (qwen2-vl)', (16, 24, 24), 1000000.0, 128, 'qwen2-vl')

    """
    family = _family(config, parameter)
    reading = read_rope(config, parameter=parameter)
    params = reading.params
    section = params.get("mrope_section", family.section)
    if (
        not isinstance(section, list | tuple)
        or len(section) != 3
        or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in section)
    ):
        rule = "field mrope_section must be three integers >= 0 (pairs on t, h, w)"
        raise ParameterError(parameter, rule, section)
    preset = dataclasses.replace(
        family,
        name=f"config ({family.name})",
        title=f"{family.title.split(':')[0]} as the config gives it",
        section=tuple(section),
        theta=float(reading.spec.theta),
        head_dim=reading.head,
        partial_rotary_factor=reading.rotated / reading.head,
    )
    try:
        preset.plan()
    except ParameterError as error:  # the section against the rotated pairs
        raise ParameterError(
            parameter, f"field {error.parameter} {error.rule}", error.value
        ) from None
    return preset


def _family(config: Mapping[str, Any], parameter: str) -> MropePreset:
    """The family of the config's model_type (the top level's, else its text model's)."""
    text = config.get("text_config")
    types = [
        config.get("model_type"),
        text.get("model_type") if isinstance(text, Mapping) else None,
    ]
    for model_type in types:
        key = str(model_type).removesuffix("_text")
        if key in CONFIG_FAMILIES:
            return CONFIG_FAMILIES[key]
    rule = f"field model_type must be one whose M-RoPE pecli reads ({', '.join(CONFIG_FAMILIES)})"
    raise ParameterError(parameter, rule, next((t for t in types if t is not None), None))
