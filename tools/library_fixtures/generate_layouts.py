"""Which channels each transformers model family's rotate function pairs (area ``layouts``).

For every ``transformers.models.<family>.modeling_<family>`` that imports, the first of
``rotate_half_text``, ``rotate_half_llm`` and ``rotate_half`` it defines (the text model's, where
a family has several) is applied to ``arange(8.)``: ``pairs`` when it gives
``[-1, 0, -3, 2, …]`` (channels 2j and 2j + 1 turn together), ``halves`` when it gives
``[-4, -5, -6, -7, 0, 1, 2, 3]`` (channels j and j + 4), else ``other``. One JSON file,
``rotate_half.json``, with the library, its version and the call (tests/rope/test_rope_layouts.py).
A second, ``partial_defaults.json``: each config class's default ``partial_rotary_factor``
(from ``rope_parameters``, else the attribute), for the model types whose default rotates part
of the head (tests/rope/test_rope_config_shapes.py).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import version  # noqa: E402

FUNCTIONS = ("rotate_half_text", "rotate_half_llm", "rotate_half")


def _rotates(module: object) -> dict[str, str] | None:
    x = torch.arange(8.0)
    forms = {
        "pairs": torch.tensor([-1.0, 0, -3, 2, -5, 4, -7, 6]),
        "halves": torch.tensor([-4.0, -5, -6, -7, 0, 1, 2, 3]),
    }
    for name in FUNCTIONS:
        if hasattr(module, name):
            y = getattr(module, name)(x)
            kind = next((k for k, v in forms.items() if torch.equal(y, v)), "other")
            return {"function": f"{module.__name__}.{name}", "rotates": kind}  # type: ignore[attr-defined]
    return None


def generate(out: Path) -> None:
    """Write ``out/rotate_half.json``."""
    import transformers.models

    found = {}
    for info in sorted(pkgutil.iter_modules(transformers.models.__path__), key=lambda i: i.name):
        family = info.name
        try:
            module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
        except Exception:  # a family that needs what is not installed
            continue
        if (rotates := _rotates(module)) is not None:
            found[family] = rotates
    record = {
        "library": "transformers",
        "version": version("transformers"),
        "call": "rotate_half_text / rotate_half_llm / rotate_half (the first the module "
        "defines) applied to torch.arange(8.)",
        "families": found,
    }
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    (out / "rotate_half.json").write_text(text, encoding="utf-8")
    (out / "partial_defaults.json").write_text(_partial_defaults(), encoding="utf-8")


def _partial_defaults() -> str:
    """Every config class's default partial_rotary_factor below 1, as JSON text."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    found = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            config = CONFIG_MAPPING[model_type]()
        except Exception:  # a class that cannot be built without arguments
            continue
        params = getattr(config, "rope_parameters", None)
        factor = params.get("partial_rotary_factor") if isinstance(params, dict) else None
        factor = getattr(config, "partial_rotary_factor", None) if factor is None else factor
        if isinstance(factor, float) and factor < 1.0:
            found[model_type] = factor
    record = {
        "library": "transformers",
        "version": version("transformers"),
        "call": "CONFIG_MAPPING[model_type]() for every model_type; rope_parameters"
        "['partial_rotary_factor'], else the partial_rotary_factor attribute, when below 1",
        "defaults": found,
    }
    return json.dumps(record, indent=1, sort_keys=True) + "\n"
