"""Hub files that name only their rope keys, read layer by layer as transformers built them.

Some hub-style files of the model-zoo corpus (tests/fixtures/libraries/model_zoo, made by
tools/library_fixtures/generate_model_zoo.py with transformers 5.25) hold the rope keys as the
hub writes them — ModernBERT's ``global_rope_theta`` / ``local_rope_theta`` with
``global_attn_every_n_layers``, OLMo 3's top-level ``rope_theta`` and ``rope_scaling`` — but
not the widths or the layer count, so test_model_zoo_plans.py and test_model_zoo_reading.py
skip them. Here the widths and the count are taken from the config.json transformers saved for
the same model (only keys the hub file lacks), and every layer of pecli's plan must have the
layer type transformers built (``layers``) and the frequencies and cos/sin factor of that
layer type's rotary table, within float32 rounding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import rope_frequencies
from pecli.core.rope.config.plans import layer_plan, layer_rope

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "libraries" / "model_zoo"
EPS32 = 2.0**-24
#: The keys taken from the saved config.json when the hub file lacks them.
SHAPE_KEYS = ("hidden_size", "num_attention_heads", "head_dim", "num_hidden_layers")


def _doc(name: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    doc = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    with np.load(FOLDER / f"{name}.npz", allow_pickle=False) as arrays:
        return doc, {k: arrays[k] for k in arrays.files}


def _config(doc: dict[str, Any]) -> dict[str, Any]:
    saved, given = doc["config_json"], doc.get("given_config") or {}
    shapes = {k: saved[k] for k in SHAPE_KEYS if k in saved and k not in given}
    return {**given, **shapes}


def _built_types(doc: dict[str, Any]) -> list[str]:
    """Each built layer's attention type; where not recorded, sliding iff it has a window."""
    types = [""] * doc["layers"]["num_layers"]
    for run in doc["layers"]["static"]:
        found = run["attention_attributes"]
        windowed = "sliding_attention" if found["sliding_window"] else "full_attention"
        kind = run.get("attention_type") or found.get("attention_type") or windowed
        for i in range(run["layers"][0], run["layers"][1] + 1):
            types[i] = kind
    return types


@pytest.mark.parametrize("name", ["hub__modernbert_base_v4", "hub__olmo3_7b"])
def test_each_layer_rotates_as_its_layer_type_did_in_transformers(name):
    doc, arrays = _doc(name)
    config, types = _config(doc), _built_types(doc)
    tables = {t["label"]: t for t in doc["modules"][0]["tables"]}
    rows, _ = layer_plan(config)
    assert [row.kind for row in rows] == types
    for layer, kind in enumerate(types):
        table = tables[kind]
        frequencies = rope_frequencies(layer_rope(config, layer).spec)
        ref = arrays[table["arrays"]["inv_freq"]].astype(np.float64)
        np.testing.assert_allclose(frequencies.inv_freq, ref, rtol=16 * EPS32, atol=0)
        scale = table["attention_scaling"]
        assert abs(frequencies.attention_factor - scale) <= 4 * EPS32 * scale, (layer, kind)


def test_modernbert_sliding_layers_rotate_with_the_local_theta():
    """ModernBERT-base: every third layer from 0 is global (θ 160000), the others local (10000)."""
    doc, _ = _doc("hub__modernbert_base_v4")
    rows, notes = layer_plan(_config(doc))
    thetas = [row.theta for row in rows]
    assert thetas == [160000.0 if i % 3 == 0 else 10000.0 for i in range(22)]
    assert any("ModernBERT" in note for note in notes)
    assert not any("no rope_theta" in note for note in notes)  # it names two


@pytest.mark.parametrize("name", ["default__afmoe", "hub__modernbert_base_v4"])
def test_global_attn_every_n_layers_without_layer_types_gives_the_layers_transformers_built(name):
    """AFMoE's global layers are the N-th, ModernBERT's the first of every N (their classes'
    ``layer_types`` defaults, as built); the saved ``layer_types`` dropped, the count read."""
    doc, _ = _doc(name)
    config = {k: v for k, v in {**doc["config_json"], **_config(doc)}.items() if k != "layer_types"}
    rows, _ = layer_plan(config)
    assert [row.kind for row in rows] == _built_types(doc)


@pytest.mark.parametrize("drop", [False, True])
def test_afmoe_rotates_its_sliding_layers_only(drop):
    """``AfmoeAttention`` applies the rotary embedding only ``if self.is_local_attention`` (its
    layer is sliding: a window in the built layers), as Cohere 2 does; ModernBERT rotates all."""
    doc, _ = _doc("default__afmoe")
    config = {k: v for k, v in doc["config_json"].items() if not (drop and k == "layer_types")}
    rows, _ = layer_plan(config)
    assert [row.rope for row in rows] == [k == "sliding_attention" for k in _built_types(doc)]
    modernbert, _ = _doc("hub__modernbert_base_v4")
    assert all(row.rope for row in layer_plan(_config(modernbert))[0])


@pytest.mark.parametrize("every", ["3", 0, -3, True, 2.0])
def test_a_global_attn_every_n_layers_no_period_is_refused(every):
    doc, _ = _doc("hub__modernbert_base_v4")
    config = {**_config(doc), "global_attn_every_n_layers": every}
    with pytest.raises(ParameterError, match="global_attn_every_n_layers must be an integer >= 1"):
        layer_plan(config)


@pytest.mark.parametrize("name", ["default__afmoe", "default__modernbert"])
def test_without_the_period_the_class_default_gives_the_layer_types(name):
    """No ``layer_types`` and no ``global_attn_every_n_layers``: the config class's default
    period (AFMoE 4, ModernBERT 3) makes the layer types transformers saved for its defaults."""
    doc, _ = _doc(name)
    saved = doc["config_json"]
    config = {
        k: v for k, v in saved.items() if k not in ("layer_types", "global_attn_every_n_layers")
    }
    rows, _ = layer_plan(config)
    assert [row.kind for row in rows] == saved["layer_types"]


@pytest.mark.parametrize(
    ("name", "inclusive"), [("hub__modernbert_base_v4", 1), ("default__modernbert-decoder", 0)]
)
def test_modernbert_s_window_is_half_its_local_attention(name, inclusive):
    """``sliding_window`` is ``local_attention // 2`` (64 of 128); ModernBertAttention stores
    it + 1 (flash attention's inclusive bound), the decoder's attention as it is."""
    doc, _ = _doc(name)
    config = {k: v for k, v in {**doc["config_json"], **_config(doc)}.items()}
    config.pop("sliding_window", None)  # ModernBERT's is a property no file holds
    built: dict[int, int | None] = {}
    for run in doc["layers"]["static"]:
        for layer in range(run["layers"][0], run["layers"][1] + 1):
            built[layer] = run["attention_attributes"]["sliding_window"]
    rows, _ = layer_plan(config)
    for layer, row in enumerate(rows[: len(built)]):
        want = built[layer] - inclusive if built[layer] is not None else None
        assert row.window == want, (layer, row.kind)
    assert {row.window for row in rows} == {None, 64}


@pytest.mark.parametrize("local", [-5, 1, 0, "128", True, 2.5])
def test_a_local_attention_that_halves_to_no_window_is_refused_as_written(local):
    """The window is local_attention // 2: the file's value is named (-5 had read 'got -3')."""
    doc, _ = _doc("hub__modernbert_base_v4")
    config = {**_config(doc), "local_attention": local}
    with pytest.raises(ParameterError, match="local_attention must be an integer >= 2") as caught:
        layer_plan(config)
    assert caught.value.value == repr(local)
