"""Widths, layer count and layer types a config file leaves out, as transformers' classes fill them.

tests/fixtures/libraries/class_defaults/class_defaults.json (tools/library_fixtures/
generate_class_defaults.py, transformers 5.25.0) holds, for every model type whose config
carries ``rope_parameters``, two hub-style files — ``{"model_type": …}`` alone, and with
``num_hidden_layers`` 7 — and the fields the class held after reading each; a third file names
the model width, heads and layers too (:data:`NAMED`, the class's values). pecli's plan of the
file must be its plan of what the class held (head width, rotated width and first channel, the
number of layers, each layer's type, RoPE or NoPE, θ and window), and agree with the class's own
values: the layer count, ``layer_types``, ``head_dim`` and each layer type's θ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope.config.class_fields import FIELD_DEFAULTS
from pecli.core.rope.config.plans import LayerRow, layer_plan
from pecli.core.rope.config.reading import read_rope
from pecli.core.rope.config.shapes import text_section

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "libraries" / "class_defaults"
DOC = json.loads((FIXTURE / "class_defaults.json").read_text(encoding="utf-8"))
VARIANTS = ("bare", "layers")
_AXIAL = "a vision tower: its rope is 2-D (rope_type axial or its own), no text layers to plan"
_DEPTH = "a vision tower: its layer count is depth, its rope 2-D over patches; no text layers"
#: Model types pecli does not plan, and why (pecli refuses what the class held).
NOT_PLANNED = {
    **dict.fromkeys(
        [
            "dots3_note_vision_encoder",
            "gemma4_vision",
            "inkling2_vision",
            "kimi_k25_vision",
            "lfm3_vl_vision",
            "minimax_m3_vl_vision",
            "mlcd_vision_model",
            "muse_glimmer_vision",
            "muse_spark_vision",
            "ovis2_5_vision",
            "paddleocr_vl_vision",
            "pixtral",
            "sam3_vit_model",
            "step3p5_vision",
            "video_llama_3_vision",
        ],
        _AXIAL,
    ),
    **dict.fromkeys(
        [
            "cohere_compass_vision",
            "ernie4_5_vl_moe_vision",
            "exaone4_5_vision",
            "glm4v_moe_vision",
            "glm4v_vision",
            "glm5_next_vision",
            "glm_ocr_vision",
            "llava_onevision1_5_vision",
            "qwen2_5_omni_vision_encoder",
            "qwen2_5_vl_vision",
            "qwen2_vl_vision",
            "qwen3_5_moe_vision",
            "qwen3_5_vision",
            "qwen3_omni_moe_vision_encoder",
            "qwen3_vl_moe_vision",
            "qwen3_vl_vision",
            "qwen4_exp_vision",
        ],
        _DEPTH,
    ),
    "edgetam_video": "a video segmenter: its rotary runs over a memory grid, no text layers",
    "sam2_video": "a video segmenter: its rotary runs over a memory grid, no text layers",
    "sam3_tracker_video": "a video segmenter: its rotary runs over a memory grid, no text layers",
    "efficientloftr": "a feature matcher: 2-D rotary over image features, no text layers",
    "blt": "a composite: the text layers are its sub-configs' (blt_global_transformer, …)",
    "musicflamingo": "the top config's rope is the audio tower's; no layer count of its own",
    "moonshine": "encoder-decoder: its layer counts are encoder_/decoder_num_hidden_layers",
    "glm4_moe": "the class's own defaults give no head width (hidden_size 4096, 96 heads, no "
    "head_dim): hub files name head_dim",
    "glm4v_moe_text": "as glm4_moe: 4096 over 96 heads, no head_dim",
    "qwen3_omni_moe_text": "the class's own defaults give no head width (2048 over 28 heads, "
    "no head_dim): hub files name head_dim",
}
#: Model types whose class derives a field in a way pecli's reader does not follow, and how.
NOT_FOLLOWED = {
    "deepseek_v4": "qk_rope_head_dim is derived (head_dim 512 × partial_rotary_factor 0.125, "
    "the last channels); hub files name it",
    "hrm_text": "num_hidden_layers is derived from the H and L modules' layers and cycles",
    "longcat_flash": "the layer count is num_layers; a file's num_hidden_layers is halved into it",
    "zamba2": "attention_head_dim is derived as 2·hidden_size / num_attention_heads",
}


#: The fields a hub file names (with their default values, transformers holds the same):
#: a reader that fills nothing else derives ``hidden_size // num_attention_heads`` and takes
#: every layer as full attention.
NAMED = ("model_type", "hidden_size", "num_attention_heads", "num_hidden_layers")


def _keeps_the_count(entry: dict[str, Any]) -> bool:
    """Whether the class holds a file's ``num_hidden_layers`` as given (Dory's doubles it)."""
    held = entry["layers"].get("held", {})
    return held.get("num_hidden_layers") in (None, entry["layers"]["file"]["num_hidden_layers"])


def _cases() -> list[Any]:
    found = []
    for model_type, entry in sorted(DOC["model_types"].items()):
        if model_type in NOT_PLANNED or model_type in NOT_FOLLOWED:
            continue
        for variant in VARIANTS:
            if "held" in entry[variant]:
                case = entry[variant]
                found.append(pytest.param(case["file"], case["held"], id=f"{model_type}-{variant}"))
        if "held" in entry["bare"] and _keeps_the_count(entry):
            held = entry["bare"]["held"]
            named = {k: held[k] for k in NAMED if k in held}
            found.append(pytest.param(named, held, id=f"{model_type}-named"))
    return found


CASES = _cases()


def _row(row: LayerRow) -> tuple[Any, ...]:
    """What a plan says of one layer (a NoPE layer: its kind and window)."""
    if not row.rope:
        return (row.kind, False, row.window)
    return (row.kind, True, row.head, row.rotated, row.start, row.theta, row.window)


def _theta(held: dict[str, Any], label: str) -> float:
    """θ transformers holds for the layers of ``label``."""
    params = held["rope_parameters"]
    return float(params["rope_theta"] if "rope_theta" in params else params[label]["rope_theta"])


@pytest.mark.parametrize(("file", "held"), CASES)
def test_the_plan_of_the_file_is_the_plan_of_what_the_class_held(file, held):
    rows, _ = layer_plan(file)
    assert [_row(r) for r in rows] == [_row(r) for r in layer_plan(held)[0]]
    count = next(held[k] for k in ("num_hidden_layers", "n_layers", "num_layers") if k in held)
    kinds = held.get("layer_types")
    if kinds and "mlp" not in kinds:  # Dory's blocks are planned as (attention, mlp) pairs
        assert [r.kind for r in rows] == kinds
    else:
        assert len(rows) in (count, count // 2)
    plain = "head_dim" in held and not {"qk_nope_head_dim", "per_layer_config"} & set(held)
    for row in (r for r in rows if r.rope):
        assert row.theta == _theta(held, row.label)
        if plain:
            assert row.head == held["head_dim"]


def test_the_sweep_reaches_the_classes_that_fill_most():
    """Gemma 3 (head_dim 256 over 2304 / 8 heads, one global layer in 6), GPT-OSS, Qwen3-Next."""
    ids = {p.id for p in CASES}
    for name in ("gemma3_text", "gpt_oss", "qwen3_next", "llama", "deepseek_v3", "gemma4_text"):
        assert {f"{name}-bare", f"{name}-layers", f"{name}-named"} <= ids
    assert len({i.rsplit("-", 1)[0] for i in ids}) >= 190


@pytest.mark.parametrize("model_type", sorted(NOT_PLANNED))
def test_a_model_type_left_out_is_one_pecli_refuses(model_type):
    """The list goes stale when pecli plans what the class held: sweep it instead."""
    entry = DOC["model_types"][model_type]
    refused = []
    for config in (entry[v]["held"] for v in VARIANTS if "held" in entry[v]):
        try:
            layer_plan(config)
            refused.append(False)
        except ParameterError:
            refused.append(True)
    assert any(refused)


@pytest.mark.parametrize("model_type", sorted(NOT_FOLLOWED))
def test_a_model_type_not_followed_still_differs(model_type):
    """The list goes stale when pecli plans the file as the class held it: sweep it instead."""
    entry = DOC["model_types"][model_type]
    differs = []
    for case in (entry[v] for v in VARIANTS if "held" in entry[v]):
        want = [_row(r) for r in layer_plan(case["held"])[0]]
        try:
            differs.append([_row(r) for r in layer_plan(case["file"])[0]] != want)
        except ParameterError:
            differs.append(True)
    assert any(differs)


def test_gemma3_text_from_its_hub_keys():
    """google/gemma-3-4b-it's text_config names five keys; the class gives the rest."""
    hub = {
        "model_type": "gemma3",
        "text_config": {
            "hidden_size": 2560,
            "intermediate_size": 10240,
            "model_type": "gemma3_text",
            "num_hidden_layers": 34,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
            "sliding_window": 1024,
        },
    }
    rows, _ = layer_plan(hub)
    assert len(rows) == 34 and {r.head for r in rows} == {256}
    assert [i for i, r in enumerate(rows) if r.kind == "full_attention"] == [5, 11, 17, 23, 29]
    reading = read_rope(hub, "full_attention")
    assert reading.spec.theta == 1e6 and reading.spec.factor == 8.0
    assert "gemma3_text's config class gives head_dim 256" in " ".join(reading.notes)


def test_a_file_keeps_what_it_names_and_fill_can_be_off():
    """A null is the file's own value; ``fill=False`` reads the file alone (the GGUF converter)."""
    config = {"model_type": "gemma3_text", "sliding_window": None, "head_dim": 128}
    _, section = text_section(config)
    assert section["sliding_window"] is None and section["head_dim"] == 128
    assert section["num_hidden_layers"] == 26
    assert text_section(config, fill=False)[1] == config


#: FIELD_DEFAULTS entries the class's ``__post_init__`` replaces: the table keeps the dataclass
#: field default, transformers holds the derived value (the reader derives it the same way).
REPLACED = {
    **dict.fromkeys(
        [("axk2", "head_dim"), ("bailing_hybrid", "head_dim"), ("hy_v4", "head_dim")],
        "head_dim is set to qk_rope_head_dim",
    ),
    ("hy_v4_vl_text", "head_dim"): "head_dim is set to qk_rope_head_dim",
    ("dory", "num_hidden_layers"): "the count is doubled into (attention, mlp) blocks",
    ("hrm_text", "num_hidden_layers"): "derived from the H and L modules' layers and cycles",
    **{
        (t, "sliding_window"): "dropped (None, or 0) while use_sliding_window is False"
        for t in (
            "deepseek_ocr2_encoder",
            "qwen2",
            "qwen2_5_omni_talker",
            "qwen2_5_omni_text",
            "qwen2_5_vl_text",
            "qwen2_moe",
            "qwen2_vl_text",
            "qwen3",
            "qwen3_moe",
        )
    },
}


def _held_value(held: dict[str, Any], field: str) -> Any:
    """What the class held for ``field`` (Gemma 4's ``global_head_dim``: its full layers' head)."""
    if field == "global_head_dim":
        return {v["head_dim"] for v in held["per_layer_config"].values()} or None
    return held.get(field)


@pytest.mark.parametrize("model_type", sorted(FIELD_DEFAULTS))
def test_every_field_default_is_what_the_class_held(model_type):
    """Each value of the table, against the class's own bare read (vision towers too)."""
    held = DOC["model_types"][model_type]["bare"]["held"]
    for field, value in FIELD_DEFAULTS[model_type].items():
        got = _held_value(held, field)
        if (model_type, field) in REPLACED:
            assert got != value, (model_type, field, "no longer replaced: drop it from REPLACED")
        elif field == "global_head_dim":
            assert got == {value}, (model_type, field)
        else:
            assert got == value, (model_type, field)


def test_the_replaced_fields_are_fields_of_the_table():
    assert all(field in FIELD_DEFAULTS[t] for t, field in REPLACED)


def _file_cases(section: str) -> list[Any]:
    """``(file, held)`` of every case of a fixture section of per-class file lists."""
    return [
        pytest.param(case["file"], case["held"], id=f"{model_type}-{k}")
        for model_type, cases in sorted(DOC[section].items())
        for k, case in enumerate(cases)
    ]


WINDOWS = _file_cases("windows")


@pytest.mark.parametrize(("file", "held"), WINDOWS)
def test_sliding_layers_follow_max_window_layers_as_the_class_derives_them(file, held):
    """Qwen2 and its kin name no layer types: the class slides the layers from
    ``max_window_layers`` on when ``use_sliding_window`` is set (Qwen2-MoE: the even layers
    below it; Dots1 without the flag). pecli planned every layer as full attention. With the
    flag off, sliding layers a file lists have no window: the class drops it (None; Qwen2-MoE
    0, no window either), where pecli showed the file's 64."""
    rows, _ = layer_plan(file)
    kinds = held.get("layer_types") or ["full_attention"] * held["num_hidden_layers"]
    assert [r.kind for r in rows] == kinds  # Qwen3-MoE: no layer rule, no layer_types held
    slides = [r.window for r in rows if r.kind == "sliding_attention"]
    assert slides == [held.get("sliding_window") or None] * len(slides)


def test_a_model_type_with_no_class_defaults_is_named_in_the_refusal():
    """``{"model_type": "nonexistent"}`` was refused as needing head_dim or a layer count,
    with no word that its model_type is one pecli has no class defaults of (a new user's
    find); a known type's refusal says nothing of it, nor a file with no model_type."""
    said = "(model_type 'nonexistent' is no config class pecli knows the defaults of)"
    for read in (read_rope, layer_plan):
        with pytest.raises(ParameterError) as refused:
            read({"model_type": "nonexistent"})
        assert refused.value.rule.endswith(said), refused.value.rule
        with pytest.raises(ParameterError) as bare:
            read({})
        assert "model_type" not in bare.value.rule


def test_the_flat_composites_are_the_classes_that_read_a_flat_file():
    """:data:`FLAT_TEXT_TYPES` is every composite whose class built its text config from
    the flat file's top level, each by that text config's model type."""
    from pecli.core.rope.config.shapes import FLAT_TEXT_TYPES

    held = {t: case["held"]["model_type"] for t, case in DOC["flat"].items()}
    assert held and held == FLAT_TEXT_TYPES


@pytest.mark.parametrize("model_type", sorted(DOC["flat"]))
def test_a_flat_composite_file_is_planned_as_its_text_class_holds_it(model_type):
    """A flat Qwen2.5-VL file (no text_config) got θ 10000, the fallback of a model type
    with no θ default, and no sliding layer, where transformers' text config holds θ 1e6
    and slides layers 2-4 (max_window_layers 2)."""
    case = DOC["flat"][model_type]
    held, rows = case["held"], layer_plan(case["file"])[0]
    kinds = held.get("layer_types") or ["full_attention"] * held["num_hidden_layers"]
    assert [r.kind for r in rows] == kinds
    assert {r.theta for r in rows} == {held["rope_parameters"]["rope_theta"]}
    slides = [r.window for r in rows if r.kind == "sliding_attention"]
    assert slides == [held.get("sliding_window")] * len(slides)


NOPE_WINDOWS = _file_cases("nope_windows")


@pytest.mark.parametrize(("file", "held"), NOPE_WINDOWS)
def test_smollm3_slides_its_nope_layers_as_the_class_derives_them(file, held):
    """With ``use_sliding_window`` and a window, SmolLM3's class makes each NoPE layer
    sliding attention; pecli planned them full attention. Its attention takes the window
    only with the flag (``SmolLM3Attention``), so a listed sliding layer without it has none,
    though the class keeps the field."""
    rows, _ = layer_plan(file)
    assert [r.kind for r in rows] == held["layer_types"]
    assert [r.rope for r in rows] == [bool(f) for f in held["no_rope_layers"]]
    window = held.get("sliding_window") if file.get("use_sliding_window") else None
    assert [r.window for r in rows if "sliding" in r.kind] == [window] * sum(
        "sliding" in kind for kind in held["layer_types"]
    )
