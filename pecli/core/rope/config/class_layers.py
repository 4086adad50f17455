"""The layer types a config class derives when its config.json lists none.

transformers' config classes fill ``layer_types`` in ``__post_init__`` from the layer count:
Gemma 3 five sliding layers then a global one, GPT-OSS alternating, Qwen3-Next three linear
layers then a full one, Gemma 4 the same as Gemma 3 with the last layer always global, MiMo-V2
with a global first layer, Muse counted back from the last layer. :data:`LAYER_RULES` holds each
class's rule as pure data (transformers 5.25.0's ``models/*/configuration_*.py``, the lists the
classes derived for 7 layers and for their default count:
tests/fixtures/libraries/class_defaults); :func:`class_layer_types` lays it over a layer
count. A file that names its layer types any way (``layer_types``, ``sliding_window_pattern``,
``compress_ratios``, …) keeps them. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ...errors import ParameterError

__all__ = ["KINDS", "LAYER_RULES", "WINDOW_RULES", "LayerRule", "WindowRule", "class_layer_types"]

#: The layer type of each letter of a rule.
KINDS = MappingProxyType(
    {
        "F": "full_attention",
        "S": "sliding_attention",
        "L": "linear_attention",
        "I": "indexed_attention",
        "C": "compressed_sparse_attention",
        "H": "heavily_compressed_attention",
        "K": "chunked_attention",
        "R": "reference_sliding_attention",
        "W": "window_attention",
        "c": "conv",
        "h": "hybrid",
        "m": "mlp",
    }
)


@dataclass(frozen=True)
class LayerRule:
    """A class's layer types: ``head`` first, ``tail`` last, ``cycle`` repeated between.

    The cycle is counted from layer 0 (``anchor`` ``first``: layer i is ``cycle[i % n]``) or
    back from the last layer (``last``: the last layer is ``cycle[-1]``). Letters: :data:`KINDS`.
    """

    cycle: str
    head: str = ""
    tail: str = ""
    anchor: str = "first"

    def kinds(self, count: int) -> list[str]:
        """The layer types of ``count`` layers.

        >>> LayerRule("SF", tail="F").kinds(3)
        ['sliding_attention', 'full_attention', 'full_attention']
        """
        letters = []
        for i in range(count):
            if i < len(self.head):
                letters.append(self.head[i])
            elif i >= count - len(self.tail):
                letters.append(self.tail[i - count + len(self.tail)])
            else:
                at = (i - count) if self.anchor == "last" else i
                letters.append(self.cycle[at % len(self.cycle)])
        return [KINDS[letter] for letter in letters]


_rule = LayerRule
#: The layer types each config class derives, by ``model_type`` (transformers 5.25.0).
LAYER_RULES: Mapping[str, LayerRule] = MappingProxyType(
    {
        "afmoe": _rule("SSSF"),
        "axk2": _rule("I"),
        "bailing_hybrid": _rule("LLLLLF"),
        "beam": _rule("SSSSSF", tail="F"),
        "cohere2": _rule("SSSF"),
        "cohere2_moe": _rule("SSSF"),
        "cwm": _rule("FSSS"),
        "deepseek_v32": _rule("I"),
        "deepseek_v4": _rule("HC", head="HH"),
        "diffusion_gemma_text": _rule("SSSSSF", tail="F"),
        "dory": _rule("SSSF"),  # per (attention, mlp) pair, as .layer_types pairs them
        "dots3_note_text": _rule("SISS", head="I"),
        "embedding_gemma2_text": _rule("SSSSSF", tail="F"),
        "ergo": _rule("SSSF"),
        "exaone4": _rule("SSSF"),
        "exaone_moe": _rule("SSSF"),
        "flint": _rule("SFSS", head="F", tail="F"),
        "gemma2": _rule("SF"),
        "gemma3_text": _rule("SSSSSF"),
        "gemma3n_text": _rule("SSSSF"),
        "gemma4_text": _rule("SSSSSF", tail="F"),
        "gemma4_unified_text": _rule("SSSSSF", tail="F"),
        "glm_moe_dsa": _rule("I"),
        "gpt_oss": _rule("SF"),
        "granite_swa": _rule("FSSS"),
        "granitemoe_swa": _rule("FSSS"),
        "granitemoehybrid": _rule("L"),
        "hy_v4": _rule("I"),
        "hy_v4_vl_text": _rule("I"),
        "kolibri1": _rule("SSSSF"),
        "kolibri1_1": _rule("SSSSI"),
        "lara_mini": _rule("LSLFS"),
        "lfm3": _rule("ScFc", head="c"),
        "lfm3_vl_vision": _rule("Fc", head="c"),
        "mimo_v2_flash": _rule("SSSSSF", head="F"),
        "minimax": _rule("FL"),
        "ministral": _rule("S"),
        "mistral_large4_text": _rule("I"),
        "modernbert": _rule("FSS"),
        "modernbert-decoder": _rule("FSS"),
        "muse_glimmer_assistant": _rule("S"),
        "muse_glimmer_text": _rule("SSSF", anchor="last"),
        "muse_glimmer_vision": _rule("WWWF", tail="F"),
        "muse_spark_text": _rule("SSSF", anchor="last"),
        "muse_spark_vision": _rule("WWWF", tail="F"),
        "neomme": _rule("SSSSSF", tail="F"),
        "olmo3": _rule("SSSF"),
        "olmo_hybrid": _rule("LLLF"),
        "qwen3_5_moe_text": _rule("LLLF"),
        "qwen3_5_text": _rule("LLLF"),
        "qwen3_next": _rule("LLLF"),
        "qwen4_exp_text": _rule("LLLI"),
        "t5_gemma_module": _rule("SF"),
        "t5gemma2_decoder": _rule("SSSSSF"),
        "t5gemma2_text": _rule("SSSSSF"),
        "ultrabert": _rule("SSF"),
        "unlimited_ocr_text": _rule("R"),
        "vaultgemma": _rule("SF"),
        "zaya": _rule("h"),
    }
)


@dataclass(frozen=True)
class WindowRule:
    """Sliding layers counted from ``max_window_layers`` (default ``most``), as Qwen2 derives.

    Layer i slides when ``i >= max_window_layers`` and the file's ``sliding_window`` is set;
    with ``gated``, only when ``use_sliding_window`` is true too (false by default). With
    ``below`` (Qwen2-MoE) the even layers below ``max_window_layers`` slide instead.
    """

    most: int
    gated: bool = True
    below: bool = False

    def kinds(self, section: Mapping[str, Any], count: int) -> list[str] | None:
        """The layer types of ``count`` layers, or None when none slides (all full attention).

        Raises ``ParameterError`` (``config``) for a ``use_sliding_window`` that is no bool (a
        gated class) or a ``max_window_layers`` that is no integer, as transformers' strict
        fields refuse them (a string crashed pecli's comparison).

        >>> WindowRule(28).kinds({"use_sliding_window": True, "sliding_window": 64,
        ...     "max_window_layers": 1}, 2)
        ['full_attention', 'sliding_attention']
        """
        gate, most = section.get("use_sliding_window"), section.get("max_window_layers")
        if self.gated and gate is not None and not isinstance(gate, bool):
            rule = "field use_sliding_window must be true or false"
            raise ParameterError("config", rule, repr(gate)[:40])
        if most is not None and (not isinstance(most, int) or isinstance(most, bool)):
            rule = "field max_window_layers must be an integer"  # -1: every layer slides
            raise ParameterError("config", rule, repr(most)[:40])
        if self.gated and not gate:
            return None
        if not self.below and section.get("sliding_window") is None:
            return None
        most = self.most if most is None else most
        slides = [(i < most and i % 2 == 0) if self.below else i >= most for i in range(count)]
        return [KINDS["S" if slide else "F"] for slide in slides]


#: The classes that derive sliding layers from ``max_window_layers`` (transformers 5.25.0's
#: ``__post_init__``; tests/fixtures/libraries/class_defaults' ``windows``).
WINDOW_RULES: Mapping[str, WindowRule] = MappingProxyType(
    {
        "deepseek_ocr2_encoder": WindowRule(28),
        "dots1": WindowRule(62, gated=False),
        "qwen2": WindowRule(28),
        "qwen2_5_omni_talker": WindowRule(28),
        "qwen2_5_omni_text": WindowRule(28),
        "qwen2_5_vl_text": WindowRule(80),
        "qwen2_moe": WindowRule(28, below=True),
        "qwen2_vl_text": WindowRule(80),
        "qwen3": WindowRule(28),
        "qwen3_omni_moe_talker_code_predictor": WindowRule(28, gated=False),
    }
)


def window_dropped(section: Mapping[str, Any]) -> bool:
    """Whether the class of ``section`` drops its ``sliding_window`` (a gated :class:`WindowRule`).

    Qwen2 and its kin set ``sliding_window`` to None (Qwen2-MoE: 0) unless
    ``use_sliding_window`` is true, and SmolLM3's attention takes it only then, so a sliding
    layer the file lists in ``layer_types`` has no window.

    >>> window_dropped({"model_type": "qwen2", "sliding_window": 64})
    True
    >>> window_dropped({"model_type": "qwen2", "use_sliding_window": True})
    False
    """
    model_type = str(section.get("model_type"))
    window = WINDOW_RULES.get(model_type)
    gated = model_type in DROPS_WINDOW | NOPE_SLIDES or (window is not None and window.gated)
    return gated and section.get("use_sliding_window") is not True


#: Classes with no layer rule that still drop ``sliding_window`` without the flag
#: (``Qwen3MoeConfig.__post_init__``; tests/fixtures/libraries/class_defaults' ``windows``).
DROPS_WINDOW = frozenset({"qwen3_moe"})
#: Classes whose NoPE layers are sliding attention when ``use_sliding_window`` is true and a
#: ``sliding_window`` is set, where the file lists no layer types (``SmolLM3Config``'s
#: ``__post_init__``; fixture class_defaults' ``nope_windows``): :mod:`.layer_types` slides
#: them once it knows which layers rotate.
NOPE_SLIDES = frozenset({"smollm3"})


#: The keys a file names its layer types with (:mod:`.layer_types`): any of them, no rule.
NAMED = (
    "layer_types",
    "compress_ratios",
    "sliding_window_pattern",
    "rope_local_base_freq",
    "global_attn_every_n_layers",
    "full_attention_interval",
)


def class_layer_types(section: Mapping[str, Any], count: int) -> list[str] | None:
    """The layer types the class of ``section`` derives for ``count`` layers, or None.

    None when the file names its layer types (:data:`NAMED`) or the class has no rule (every
    layer full attention); a class of :data:`WINDOW_RULES` reads the file's sliding fields.

    Examples
    --------
    >>> class_layer_types({"model_type": "gpt_oss"}, 4)
    ['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention']
    >>> class_layer_types({"model_type": "gpt_oss", "layer_types": []}, 4) is None
    True

    """
    if any(section.get(key) is not None for key in NAMED):
        return None
    model_type = str(section.get("model_type"))
    if window := WINDOW_RULES.get(model_type):
        return window.kinds(section, count)
    rule = LAYER_RULES.get(model_type)
    return None if rule is None else rule.kinds(count)
