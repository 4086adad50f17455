"""θ and rope a config file leaves out, read as transformers' config classes fill them in.

tests/fixtures/libraries/default_theta/default_theta.json (tools/library_fixtures/
generate_default_theta.py, transformers 5.25.0) holds, for every model type whose config has
``rope_parameters``, the class's own defaults saved once with every θ key removed and once
with every rope key removed, and what ``cls.from_dict`` read back from each; and a few
hub-style ModernBERT files. pecli's reading (``rope_tables``) must give each layer type the θ
transformers holds and, for the files with no rope key, the same rope type and scaling.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope.config.class_defaults import ROPE_DEFAULTS, THETA_DEFAULTS
from pecli.core.rope.config.shapes import rope_tables

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "libraries" / "default_theta"
DOC = json.loads((FIXTURE / "default_theta.json").read_text(encoding="utf-8"))
#: Keys of transformers' dicts that rope_tables does not carry: the partial factor (read by
#: widths.py from PARTIAL_DEFAULTS), M-RoPE sections, the legacy ``type`` alias, the length.
NOT_COMPARED = {"type", "partial_rotary_factor", "mrope_section", "max_position_embeddings"}


def _nested(read: dict[str, Any]) -> bool:
    return all(isinstance(v, dict) or v is None for v in read.values())


def _cases() -> list[Any]:
    found = []
    for model_type, entry in sorted(DOC["model_types"].items()):
        for variant in ("no_theta", "no_rope_keys"):
            case, read = entry[variant], entry[variant].get("read")
            if "refused" in case or not read:
                continue
            tables = {k: v for k, v in read.items() if v} if _nested(read) else {"": read}
            if any(t.get("rope_type") == "axial" for t in tables.values()):
                continue  # a vision tower: no text layers to plan
            if any(t.get("rope_theta") is None for t in tables.values()):
                continue  # transformers itself holds no θ (labels its layer_types lack)
            name = f"{model_type}-{variant}"
            found.append(pytest.param(case["config"], tables, variant, id=name))
    return found


def _compared(params: dict[str, Any]) -> dict[str, Any]:
    """The keys both read, ``rope_type`` spelt out (pecli leaves ``default`` implicit)."""
    return {"rope_type": "default"} | {k: v for k, v in params.items() if k not in NOT_COMPARED}


def _per_label(got: dict[str, dict[str, Any]], labels: list[str]) -> dict[str, dict[str, Any]]:
    """pecli's tables for transformers' labels (pecli's ``""`` serves every label)."""
    return {label: got.get(label, got.get("", {})) for label in labels}


@pytest.mark.parametrize(("config", "want", "variant"), _cases())
def test_each_model_type_reads_its_class_defaults(config, want, variant):
    got = _per_label(rope_tables(config, []), list(want))
    assert {k: float(v["rope_theta"]) for k, v in got.items()} == {
        k: float(v["rope_theta"]) for k, v in want.items()
    }
    if variant == "no_rope_keys":
        assert {k: _compared(v) for k, v in got.items()} == {
            k: _compared(v) for k, v in want.items()
        }


def test_the_corpus_reaches_the_classes_that_override_10000():
    """A sweep that skipped them would pass: GPT-OSS, Gemma 3 and ModernBERT are in it."""
    ids = {p.id for p in _cases()}
    for name in ("gpt_oss", "gemma3_text", "modernbert", "apertus", "laguna"):
        assert {f"{name}-no_theta", f"{name}-no_rope_keys"} & ids
    assert len(ids) > 300
    assert set(THETA_DEFAULTS) | set(ROPE_DEFAULTS) <= set(DOC["model_types"])


@pytest.mark.parametrize("name", sorted(DOC["files"]))
def test_modernbert_hub_keys_as_its_class_reads_them(name):
    """``local_rope_theta`` alone; ``rope_scaling`` on both layer types (ModernBertConfig)."""
    case = DOC["files"][name]
    got = rope_tables(case["config"], [])
    assert {k: _compared(v) for k, v in got.items()} == case["read"]


def test_the_note_names_the_class_default():
    notes: list[str] = []
    assert rope_tables({"model_type": "helium", "rope_scaling": {"factor": 2.0}}, notes)
    assert "the default of helium's config class, 100000, is used" in " ".join(notes)
    notes.clear()
    rope_tables({"model_type": "gpt_oss"}, notes)
    assert notes == [
        "no rope key: the rope of gpt_oss's config class is used (every layer: yarn θ 150000)"
    ]


@pytest.mark.parametrize(
    ("key", "value", "base"),
    [
        ("global_rope_theta", -1, {"model_type": "modernbert"}),
        ("local_rope_theta", "x", {"model_type": "modernbert"}),
        ("rope_local_base_freq", 0.5, {"model_type": "gemma3_text", "rope_theta": 1e6}),
        ("compress_rope_theta", 1.0, {"model_type": "deepseek_v4", "rope_theta": 1e4}),
    ],
)
def test_a_bad_per_layer_theta_is_refused_under_its_own_key(key, value, base):
    """The rule is every θ's (a finite number > 1); the key named is the one the file holds."""
    with pytest.raises(ParameterError, match=f"must give {key} as a finite number > 1"):
        rope_tables({**base, key: value}, [])
