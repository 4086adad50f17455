"""pecli's per-layer plan against the layers transformers 5.25 built, over the model-zoo corpus.

tools/library_fixtures/generate_model_zoo.py recorded, for each model it built, the decoder
layers of one stack and their attention's attributes (``layer_type`` / ``attention_type``,
``use_rope``: tests/fixtures/libraries/model_zoo, key ``layers``). For every fixture whose
recorded stack is the text model pecli reads (same config path), the plan of
:func:`pecli.core.rope.config.plans.layer_plan` must give the same number of layers, the same
layer type and the same RoPE / NoPE choice at every layer — from the saved config.json and,
for hub-style files that name their layer count, from the file as the hub writes it (Gemma 3
without ``layer_types``, SmolLM3 without ``no_rope_layers``, DeepSeek V4's
``compress_ratios``, Llama 4 Scout's empty list: the class defaults fill them in).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pecli.core.rope.config.plans import layer_plan
from pecli.core.rope.config.shapes import text_section

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "libraries" / "model_zoo"
NAMES = sorted(json.loads((FOLDER / "index.json").read_text(encoding="utf-8"))["fixtures"])


def _recorded(doc: dict[str, Any]) -> tuple[list[Any], list[Any]] | None:
    """Per layer: transformers' layer type and use_rope (None where not recorded)."""
    stack = doc.get("layers") or {}
    if not stack.get("static"):
        return None
    kinds: list[Any] = [None] * stack["num_layers"]
    rope: list[Any] = [None] * stack["num_layers"]
    for run in stack["static"]:
        found = run.get("attention_attributes") or {}
        for i in range(run["layers"][0], run["layers"][1] + 1):
            kinds[i] = found.get("layer_type", found.get("attention_type"))
            rope[i] = bool(found["use_rope"]) if "use_rope" in found else None
    if all(k is None for k in kinds + rope):
        return None
    return kinds, rope


def _cases() -> list[tuple[str, str]]:
    found = []
    for name in NAMES:
        doc = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
        if _recorded(doc) is None:
            continue
        owner = doc["layers"].get("owner_config_path") or ""
        for which in ("config_json", "given_config"):
            config = doc.get(which)
            if not config or (which == "given_config" and doc["kind"] == "default"):
                continue
            section = text_section(config)
            counted = any(k in section[1] for k in ("num_hidden_layers", "n_layer", "n_layers"))
            widths = any(k in section[1] for k in ("head_dim", "hidden_size", "qk_rope_head_dim"))
            if section[0] == owner and counted and widths:
                found.append((which, name))
    return found


CASES = _cases()


def test_the_corpus_has_plans_to_compare():
    assert len(CASES) >= 60
    hub = {name for which, name in CASES if which == "given_config"}
    for name in ("hub__gemma3_4b_v4", "hub__smollm3_3b", "hub__deepseek_v4_flash"):
        assert name in hub


@pytest.mark.parametrize(("which", "name"), CASES, ids=[f"{w}-{n}" for w, n in CASES])
def test_the_plan_is_the_layers_transformers_built(which, name):
    doc = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    kinds, rope = _recorded(doc)  # type: ignore[misc]
    rows, _ = layer_plan(doc[which])
    assert len(rows) == len(kinds)
    for i, row in enumerate(rows):
        assert kinds[i] is None or row.kind == kinds[i], (i, row.kind, kinds[i])
        assert rope[i] is None or row.rope == rope[i], (i, row.rope, rope[i])
