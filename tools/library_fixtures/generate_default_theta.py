"""θ when a config file names none: transformers' per-class defaults (area ``default_theta``).

transformers 5 fills a missing ``rope_theta`` from the config class: ``default_theta`` of
``RotaryEmbeddingConfigMixin`` (10000) unless the class overrides it (GPT-OSS 150000, Cohere
500000, …, a dict for the models that give global and sliding layers their own θ, Gemma 3
and ModernBERT), or a default ``rope_parameters`` of its own. For every ``model_type`` of
``CONFIG_MAPPING`` whose config holds ``rope_parameters``, two files are made from the class's
own defaults (``cls().to_dict()``) and read back with ``cls.from_dict``:

* ``no_theta``: every θ key removed (``rope_theta`` in ``rope_parameters`` or in each of its
  labels, and the legacy ``rope_theta``, ``global_rope_theta``, ``local_rope_theta``,
  ``rope_local_base_freq``, ``rotary_emb_base``, ``compress_rope_theta``);
* ``no_rope_keys``: ``rope_parameters`` and ``rope_scaling`` removed as well.

The θ transformers then holds per label (``""``: one dict for every layer) and the whole
``rope_parameters`` it reads (scaling included) are saved with the
file's rope keys and layer types, the only keys a θ can come from (or, when transformers
refuses the file, its error: a rope type that requires ``rope_theta``). :data:`FILES` adds
hub-style files with legacy θ keys (ModernBERT's ``local_rope_theta`` alone, ``rope_scaling``
with ``global_rope_theta``), each with the ``rope_parameters`` its class reads.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from common import version

THETA_KEYS = (
    "rope_theta",
    "global_rope_theta",
    "local_rope_theta",
    "rope_local_base_freq",
    "rotary_emb_base",
    "compress_rope_theta",
)
#: The keys of the saved file kept in the fixture (what pecli's config reader looks at for θ).
KEPT = ("model_type", "layer_types", "rope_parameters", "rope_scaling", "partial_rotary_factor")


def _thetas(parameters: Any) -> dict[str, Any] | None:
    if not isinstance(parameters, dict) or not parameters:
        return None
    if all(isinstance(v, dict) or v is None for v in parameters.values()):
        return {k: v.get("rope_theta") for k, v in parameters.items() if isinstance(v, dict)}
    return {"": parameters.get("rope_theta")}


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it (transformers may keep tuples or sets in a rope dict)."""
    return json.loads(json.dumps(value, default=list))


def _strip(saved: dict[str, Any], rope_keys: bool) -> dict[str, Any]:
    config = {k: v for k, v in saved.items() if k not in THETA_KEYS}
    parameters = config.get("rope_parameters")
    if rope_keys:
        config.pop("rope_parameters", None)
        config.pop("rope_scaling", None)
    elif isinstance(parameters, dict):
        nested = all(isinstance(v, dict) or v is None for v in parameters.values())
        inner = [v for v in parameters.values() if isinstance(v, dict)] if nested else []
        for table in inner or [parameters]:
            table.pop("rope_theta", None)
    return config


def cases() -> dict[str, Any]:
    """Every model type's two files and the θ per label transformers reads from each."""
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    found: dict[str, Any] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        cls = CONFIG_MAPPING[model_type]
        try:
            saved = cls().to_dict()
        except Exception:  # a class that needs arguments has no defaults to read
            continue
        if _thetas(saved.get("rope_parameters")) is None:
            continue
        entry: dict[str, Any] = {"class": cls.__name__}
        for variant, rope_keys in (("no_theta", False), ("no_rope_keys", True)):
            config = _strip(json.loads(json.dumps(saved)), rope_keys)
            entry[variant] = {"config": {k: config[k] for k in KEPT if k in config}}
            try:
                read = cls.from_dict(json.loads(json.dumps(config)))
            except (KeyError, ValueError) as error:  # θ required (Gemma 4's proportional type)
                entry[variant]["refused"] = str(error)
                continue
            entry[variant]["thetas"] = _thetas(getattr(read, "rope_parameters", None))
            entry[variant]["read"] = _plain(getattr(read, "rope_parameters", None))
        found[model_type] = entry
    return found


#: Hub-style files whose θ keys are legacy or partial, read by their own class.
FILES: dict[str, dict[str, Any]] = {
    "modernbert_local_only": {"model_type": "modernbert", "local_rope_theta": 20000.0},
    "modernbert_global_scaled": {
        "model_type": "modernbert",
        "global_rope_theta": 320000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0},
    },
    "modernbert_hub_base": {
        "model_type": "modernbert",
        "global_rope_theta": 160000.0,
        "local_rope_theta": 10000.0,
        "global_attn_every_n_layers": 3,
    },
}


def files() -> dict[str, Any]:
    """Each of :data:`FILES` and the ``rope_parameters`` its class reads from it."""
    from transformers import CONFIG_MAPPING

    found = {}
    for name, config in FILES.items():
        read = CONFIG_MAPPING[config["model_type"]].from_dict(json.loads(json.dumps(config)))
        found[name] = {"config": config, "read": _plain(read.rope_parameters)}
    return found


def generate(out: Path) -> None:
    """Write ``out/default_theta.json``."""
    out.mkdir(parents=True, exist_ok=True)
    document = {
        "library": "transformers",
        "version": version("transformers"),
        "call": "cls.from_dict(cls().to_dict() less its θ keys [and rope keys]).rope_parameters",
        "model_types": cases(),
        "files": files(),
    }
    text = json.dumps(document, indent=1, sort_keys=True) + "\n"
    (out / "default_theta.json").write_text(text, encoding="utf-8")
