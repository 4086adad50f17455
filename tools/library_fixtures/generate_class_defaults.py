"""The fields a plan reads, as transformers' config classes fill them (area ``class_defaults``).

A hub config.json often names only what differs from its config class: transformers 4's
``save_pretrained`` diffed a nested ``text_config`` against the class's defaults (Gemma 3's
hub files name five or six keys of their text model), and hand-written files omit what the
class fills in. transformers 5.25's own ``to_diff_dict`` keeps every field that the base
``PreTrainedConfig`` lacks (``hidden_size``, ``head_dim``, ``layer_types``, …), so it does not
make such a file; the files here are made by hand instead, the smallest a hub file can be:

* ``bare``: ``{"model_type": …}`` alone — a config equal to its class's defaults, every
  other field left to the class (the diff of ``cls()`` against ``cls()`` is empty);
* ``layers``: that and ``num_hidden_layers`` :data:`LAYERS` — the layer types the class
  derives must follow the file's count, not the default count (7: a multiple of none of
  the sliding patterns 2, 3, 4, 5, 6).

For every ``model_type`` of ``CONFIG_MAPPING`` whose default config holds
``rope_parameters`` (as generate_default_theta.py chooses them), each file is read back with
``cls.from_dict`` and the fields pecli's config reader looks at (:data:`HELD`) are saved as
transformers then holds them (``to_dict()``), or the error when the class refuses the file.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from common import version

#: The layer count of the ``layers`` files.
LAYERS = 7
#: Every field pecli's config reader (pecli/core/rope/config/) may look at.
HELD = (
    "model_type",
    "head_dim",
    "attention_head_dim",
    "kv_channels",
    "hidden_size",
    "n_embd",
    "d_model",
    "num_attention_heads",
    "n_head",
    "n_heads",
    "decoder_num_attention_heads",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "rotary_dim",
    "rope_dim",
    "partial_rotary_factor",
    "rotary_pct",
    "num_hidden_layers",
    "n_layer",
    "n_layers",
    "num_layers",
    "layer_types",
    "compress_ratios",
    "compress_rates",
    "sliding_window_pattern",
    "global_attn_every_n_layers",
    "full_attention_interval",
    "no_rope_layers",
    "no_rope_layer_interval",
    "sliding_window",
    "sliding_window_size",
    "attention_chunk_size",
    "local_attention",
    "rope_parameters",
    "rope_interleave",
    "per_layer_config",
)


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it (transformers may keep tuples or sets in a rope dict)."""
    return json.loads(json.dumps(value, default=list))


def _carries_rope(cls: Any) -> bool:
    try:
        parameters = cls().to_dict().get("rope_parameters")
    except Exception:  # a class that needs arguments has no defaults to read
        return False
    return isinstance(parameters, dict) and bool(parameters)


def _read(cls: Any, file: dict[str, Any]) -> dict[str, Any]:
    """What ``cls`` holds after reading ``file``: the :data:`HELD` fields, or its refusal."""
    try:
        held = cls.from_dict(json.loads(json.dumps(file))).to_dict()
    except Exception as error:  # the class refuses the file (a fixed layer_types, …)
        return {"file": file, "refused": str(error)}
    return {"file": file, "held": _plain({k: held[k] for k in HELD if held.get(k) is not None})}


def cases() -> dict[str, Any]:
    """Every rope-carrying model type's two files and what its class holds after each."""
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    found: dict[str, Any] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        cls = CONFIG_MAPPING[model_type]
        if cls.model_type != model_type or not _carries_rope(cls):
            continue  # an alias (EvollaModel: its files say evolla) is its class's entry
        bare = {"model_type": model_type}
        found[model_type] = {
            "class": cls.__name__,
            "bare": _read(cls, bare),
            "layers": _read(cls, {**bare, "num_hidden_layers": LAYERS}),
        }
    return found


#: Files for the classes that derive sliding layers from ``max_window_layers`` (Qwen2's
#: ``__post_init__``: sliding from that layer on when ``use_sliding_window``; Qwen2-MoE: the
#: even layers below it): sliding on, on from layer 0, off, the flag left to the class, and
#: off with sliding layers listed (the class drops the window: None, Qwen2-MoE 0).
WINDOW_FILES = (
    {
        "use_sliding_window": True,
        "sliding_window": 64,
        "num_hidden_layers": 6,
        "max_window_layers": 3,
    },
    {
        "use_sliding_window": True,
        "sliding_window": 64,
        "num_hidden_layers": 5,
        "max_window_layers": 0,
    },
    {
        "use_sliding_window": False,
        "sliding_window": 64,
        "num_hidden_layers": 6,
        "max_window_layers": 3,
    },
    {"sliding_window": 64, "num_hidden_layers": 6, "max_window_layers": 2},
    {
        "use_sliding_window": False,
        "sliding_window": 64,
        "num_hidden_layers": 4,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
    },
)


def _read_each(files: tuple[dict[str, Any], ...], wanted: Any) -> dict[str, Any]:
    """What each class whose default fields satisfy ``wanted`` holds after each of ``files``."""
    from transformers import CONFIG_MAPPING

    found: dict[str, Any] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        cls = CONFIG_MAPPING[model_type]
        try:
            fields = cls().to_dict()
        except Exception:  # a class that needs arguments has no defaults to read
            continue
        if cls.model_type == model_type and wanted(fields):
            found[model_type] = [_read(cls, {"model_type": model_type, **f}) for f in files]
    return found


def windows() -> dict[str, Any]:
    """What each class with a sliding window rule holds after each window file.

    The classes with a ``max_window_layers`` field, or a ``use_sliding_window`` one and no
    NoPE interval (Qwen3-MoE: no layer rule, its window dropped without the flag).
    """
    return _read_each(
        WINDOW_FILES,
        lambda fields: (
            "max_window_layers" in fields
            or ("use_sliding_window" in fields and "no_rope_layer_interval" not in fields)
        ),
    )


#: Files for the classes that make their NoPE layers sliding (SmolLM3's ``__post_init__``:
#: with ``use_sliding_window`` and a ``sliding_window``, a layer without RoPE slides), and
#: whose attention takes the window only with the flag: on, on with a listed NoPE pattern, off,
#: and listed sliding layers with the flag left to the class.
NOPE_WINDOW_FILES = (
    {
        "use_sliding_window": True,
        "sliding_window": 64,
        "num_hidden_layers": 6,
        "no_rope_layer_interval": 2,
    },
    {
        "use_sliding_window": True,
        "sliding_window": 64,
        "num_hidden_layers": 4,
        "no_rope_layers": [1, 0, 0, 1],
    },
    {"use_sliding_window": False, "sliding_window": 64, "num_hidden_layers": 8},
    {"sliding_window": 64, "num_hidden_layers": 2, "layer_types": ["sliding_attention"] * 2},
)


def nope_windows() -> dict[str, Any]:
    """What each class that may slide its NoPE layers holds after each of its files.

    The classes with ``no_rope_layer_interval`` and ``use_sliding_window`` fields, each read
    from every :data:`NOPE_WINDOW_FILES` file.
    """
    return _read_each(
        NOPE_WINDOW_FILES,
        lambda fields: {"no_rope_layer_interval", "use_sliding_window"} <= set(fields),
    )


#: A flat file of a composite (vision-language) model: its text fields at the top level, no
#: ``text_config``. Sliding on from layer 2 of 5, so the text class's layer rule shows.
FLAT_FILE = {
    "num_hidden_layers": 5,
    "use_sliding_window": True,
    "sliding_window": 64,
    "max_window_layers": 2,
    "hidden_size": 256,
    "num_attention_heads": 4,
}


def flat() -> dict[str, Any]:
    """Every composite class that builds its text config from a flat file's top-level fields.

    Found by reading :data:`FLAT_FILE` under each composite ``model_type``: those whose text
    config (``get_text_config()``) then holds the file's 5 layers and 256-wide hidden size
    take the top level as their text model; what that text config holds is saved.
    """
    from transformers import CONFIG_MAPPING

    found: dict[str, Any] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        cls = CONFIG_MAPPING[model_type]
        if cls.model_type != model_type or "text_config" not in getattr(cls, "sub_configs", {}):
            continue
        file = {"model_type": model_type, **FLAT_FILE}
        try:
            text = cls.from_dict(json.loads(json.dumps(file))).get_text_config().to_dict()
        except Exception:  # a class that refuses the file takes no flat form
            continue
        if text.get("num_hidden_layers") == 5 and text.get("hidden_size") == 256:
            held = _plain({k: text[k] for k in HELD if text.get(k) is not None})
            found[model_type] = {"file": file, "held": held}
    return found


def generate(out: Path) -> None:
    """Write ``out/class_defaults.json`` (one line per model type, so a diff shows which)."""
    out.mkdir(parents=True, exist_ok=True)
    head = {
        "library": "transformers",
        "version": version("transformers"),
        "call": "cls.from_dict(file).to_dict(), file {'model_type': …} [+ num_hidden_layers 7]",
    }
    lines = [f" {json.dumps(k)}: {json.dumps(v, sort_keys=True)}," for k, v in head.items()]
    rows = [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in cases().items()]
    text = "{\n" + "\n".join(lines) + '\n "model_types": {\n' + ",\n".join(rows) + "\n },\n"
    rows = [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in windows().items()]
    text += ' "windows": {\n' + ",\n".join(rows) + "\n },\n"
    rows = [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in flat().items()]
    text += ' "flat": {\n' + ",\n".join(rows) + "\n },\n"
    rows = [
        f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in nope_windows().items()
    ]
    text += ' "nope_windows": {\n' + ",\n".join(rows) + "\n }\n}\n"
    json.loads(text)  # one document
    (out / "class_defaults.json").write_text(text, encoding="utf-8")
