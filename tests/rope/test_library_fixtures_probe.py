"""The activation dumps for ``rope probe`` and the Omni / VL id tables hold what they claim.

The fixtures (tests/fixtures/libraries/probe/, omni_ids/, vl_ids/, arithmetic/) were made by
transformers' own modules (tools/library_fixtures/). Here, with NumPy only, each probe case's
``post`` is recomputed from its ``pre`` and the ground truth written beside it — the rotation by
the recorded angles in float64, the pass-through channels, the temperature — and each id table's
rotary cos / sin from its ids and the layout rule the notes give, so that a regenerated fixture
that no longer matches its own description fails here.
"""

from __future__ import annotations

import json

import library_fixtures
import ml_dtypes
import numpy as np
import pytest
from safetensors.numpy import load_file

ROOT = library_fixtures.ROOT
PROBE = ROOT / "probe"
CASES = sorted(p.name for p in PROBE.iterdir() if p.is_dir())
PROVENANCE = ("library", "version", "torch", "model_class", "call", "capture", "config")
assert ml_dtypes  # registers bfloat16 with NumPy for safetensors.numpy


def _case(name: str) -> tuple[dict, dict[str, np.ndarray]]:
    folder = PROBE / name
    meta = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    arrays = {}
    for key, entry in meta["arrays"].items():
        if entry["file"].endswith(".safetensors"):
            arrays[key] = load_file(folder / entry["file"])[entry["tensor"]]
        else:
            arrays[key] = np.load(folder / entry["file"], allow_pickle=False)
    return meta, arrays


def _positions(meta: dict) -> np.ndarray:
    """(3, tokens) ids; a 1-D case repeats its positions on the three axes."""
    if "position_ids" in meta:
        return np.asarray(meta["position_ids"], dtype=np.float32)
    return np.tile(np.asarray(meta["positions"], dtype=np.float32), (3, 1))


def _pairs(truth: dict) -> tuple[np.ndarray, np.ndarray]:
    """Channel indices (first, second) of each rotated pair."""
    start, stop = truth["rotated_channels"]
    half = (stop - start) // 2
    if truth["pairing"] == "half-split":
        first = start + np.arange(half)
        return first, first + half
    first = start + 2 * np.arange(half)
    return first, first + 1


def _pair_axes(truth: dict, half: int) -> np.ndarray:
    sections = truth["sections"]
    if sections is None:
        return np.zeros(half, dtype=int)
    assert sections["layout"] == "chunked"
    return np.repeat(np.arange(3), sections["mrope_section"])


def _rotated(pre: np.ndarray, truth: dict, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pre rotated by the recorded angles in float64, and the mask of pass-through channels."""
    first, second = _pairs(truth)
    inv_freq = np.asarray(truth["inv_freq"], dtype=np.float32)
    axes = _pair_axes(truth, first.size)
    angle = (ids[axes] * inv_freq[:, None]).astype(np.float64).T  # float32 product, as torch
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    x = pre.astype(np.float64)
    out = x.copy()
    out[..., first] = x[..., first] * cos - x[..., second] * sin
    out[..., second] = x[..., second] * cos + x[..., first] * sin
    passing = np.ones(pre.shape[-1], dtype=bool)
    passing[first] = passing[second] = False
    return out * truth["attention_scaling"], passing


def _temperature(truth: dict, part: str, tokens: int) -> np.ndarray:
    temperature = truth["temperature"]
    if temperature is None or part == "k":
        return np.ones(tokens)
    return np.asarray(temperature["per_position"], dtype=np.float64)


def test_every_case_folder_lists_exactly_its_files():
    assert len(CASES) >= 10
    for name in CASES:
        meta = json.loads((PROBE / name / "case.json").read_text(encoding="utf-8"))
        listed = {entry["file"] for entry in meta["arrays"].values()} | {"case.json"}
        assert listed == {p.name for p in (PROBE / name).iterdir()}, name
        assert {"q_pre", "k_pre", "q_post", "k_post"} <= set(meta["arrays"]), name
        assert meta["axes"] == ["token", "head", "channel"], name
        for key in PROVENANCE:
            assert meta[key], (name, key)


@pytest.mark.parametrize("name", CASES)
def test_arrays_have_the_recorded_shapes_and_positions(name):
    meta, arrays = _case(name)
    tokens = _positions(meta).shape[1]
    for key, array in arrays.items():
        entry = meta["arrays"][key]
        assert list(array.shape) == entry["shape"] and str(array.dtype) == entry["dtype"], key
        assert array.shape[0] == tokens, key
        assert array.shape[2] == meta["truth"]["head_dim"], key
    heads = meta["config"].get("num_attention_heads") or meta["config"]["n_head"]  # GPT-J: n_head
    assert arrays["q_pre"].shape[1] == heads


@pytest.mark.parametrize("name", CASES)
def test_post_is_pre_rotated_by_the_recorded_angles(name):
    meta, arrays = _case(name)
    truth = meta["truth"]
    ids = _positions(meta)
    bf16 = meta["dtype"] == "bfloat16"
    for part in ("q", "k"):
        pre, post = arrays[f"{part}_pre"], arrays[f"{part}_post"].astype(np.float64)
        scale = _temperature(truth, part, pre.shape[0])[:, None, None]
        if not truth["rope"]:
            want = (pre * scale.astype(np.float32)).astype(np.float32)  # one float32 product
            assert np.array_equal(post, want.astype(np.float64)), part
            continue
        want, passing = _rotated(pre, truth, ids)
        want *= scale
        assert np.array_equal(post[..., passing], pre[..., passing].astype(np.float64)), part
        size = np.abs(pre.astype(np.float64)).max(axis=(1, 2), keepdims=True)
        # float32: cos/sin, two products and a sum, each within an ulp; bfloat16 keeps 8 bits
        tolerance = 2.0**-6 if bf16 else 2.0**-22
        assert np.all(np.abs(post - want) <= tolerance * size * scale), part


@pytest.mark.parametrize("name", CASES)
def test_a_wrong_pairing_or_angle_is_caught(name):
    """The check above can fail: the other pairing, or positions off by one, do not fit."""
    meta, arrays = _case(name)
    truth = meta["truth"]
    if not truth["rope"] or meta["dtype"] == "bfloat16":
        pytest.skip("nothing rotates / bfloat16 too coarse to tell one position")
    pre, post = arrays["q_pre"], arrays["q_post"].astype(np.float64)
    scale = _temperature(truth, "q", pre.shape[0])[:, None, None]
    other = dict(truth, pairing="interleaved" if truth["pairing"] == "half-split" else "half-split")
    for wrong, ids in ((other, _positions(meta)), (truth, _positions(meta) + 1)):
        want, _ = _rotated(pre, wrong, ids)
        assert np.abs(post - want * scale).max() > 1e-3 * np.abs(pre).max()


def test_temperatures_are_the_formulas_at_the_positions():
    meta, _ = _case("ministral3_temperature")
    p = np.asarray(meta["positions"], dtype=np.float64)
    want = 1 + 0.1 * np.log(1 + np.floor(p / 16384))
    assert np.allclose(meta["truth"]["temperature"]["per_position"], want, rtol=0, atol=1e-7)
    meta, _ = _case("llama4_nope_temperature")
    p = np.asarray(meta["positions"], dtype=np.float64)
    want = 1 + 0.1 * np.log1p(np.floor((p + 1) / 8192))  # note the + 1
    assert np.allclose(meta["truth"]["temperature"]["per_position"], want, rtol=0, atol=1e-7)
    assert want[p == 8191] > 1 > (1 + 0.1 * np.log(1 + np.floor(8191 / 8192))) - 1e-12


# --- Omni and VL ids ---------------------------------------------------------------------


def _fixture(area: str, name: str) -> library_fixtures.Fixture:
    return next(f for f in library_fixtures.load(area) if f.name == name)


@pytest.mark.parametrize(
    ("model", "counts"),
    [("qwen2.5-omni", [25, 250, 750, 750]), ("qwen3-omni", [13, 130, 390, 391])],
)
def test_audio_spans_take_their_token_counts_on_all_three_axes(model, counts):
    ids = _fixture("omni_ids", f"{model}_audio_ids")
    spans = [
        s
        for seg, s in zip(ids.params["segments"], ids.params["segment_token_spans"], strict=True)
        if seg[0] == "audio"
    ]
    for (start, stop), count in zip(spans, counts, strict=True):
        body = ids.table[:, start + 1 : stop - 1]  # between <|audio_bos|> and <|audio_eos|>
        assert body.shape[1] == count
        assert np.array_equal(body, np.tile(body[0, 0] + np.arange(count), (3, 1)))


def test_video_time_ids_follow_seconds_per_grid():
    q25 = _fixture("omni_ids", "qwen2.5-omni_videos_ids")
    q3 = _fixture("omni_ids", "qwen3-omni_videos_ids")
    start, _ = q25.params["segment_token_spans"][1]  # true fps 10, grid_t 4, 2 × 2 tokens a frame
    t = q25.table[0, start + 1 : start + 17 : 4]
    assert list(t - t[0]) == [0, 5, 10, 15]
    start, _ = q25.params["segment_token_spans"][5]  # second_per_grid 2.0 (fps 1)
    t = q25.table[0, start + 1 : start + 17 : 4]
    assert list(t - t[0]) == [0, 50, 100, 150]
    start, _ = q3.params["segment_token_spans"][1]  # Qwen3-Omni: 13 ids a second, not truncated
    t = q3.table[0, start + 1 : start + 17 : 4].astype(np.float64)
    assert np.allclose(t - t[0], [0, 2.6, 5.2, 7.8], atol=2e-6)


def _rotary_from_ids(ids: np.ndarray, theta: float, dim: int, axes: np.ndarray, freqs: np.ndarray):
    inv_freq = 1.0 / theta ** (np.arange(0, dim, 2) / dim)
    angle = ids[axes].T.astype(np.float64) * inv_freq[freqs]
    return np.cos(angle), np.sin(angle)


J32, J64 = np.arange(32), np.arange(64)
ERNIE_AXES = np.where(J64 < 44, np.where(J64 % 2 == 0, 1, 2), 0)
GLM_AXES = np.repeat([0, 1, 2], [8, 12, 12])
LAYOUTS = {  # model: θ, exponent width, axis and frequency of each cos / sin channel
    # GLM-4.1V, GLM-4.6V-Flash (glm4v_text): interleaved pairs (2j, 2j + 1)
    "glm4v": (1e4, 64, np.repeat(GLM_AXES, 2), np.repeat(J32, 2)),
    "glm46v": (1e4, 64, np.repeat(GLM_AXES, 2), np.repeat(J32, 2)),
    # GLM-4.5V, GLM-4.6V (glm4v_moe_text): the same sections on half-split pairs (j, j + 32)
    "glm4v_moe": (1e4, 64, np.tile(GLM_AXES, 2), np.tile(J32, 2)),
    "glm46v_moe": (1e4, 64, np.tile(GLM_AXES, 2), np.tile(J32, 2)),
    "ernie4_5_vl": (5e5, 128, np.repeat(ERNIE_AXES, 2), np.repeat(J64, 2)),
    "paddleocr_vl": (5e5, 128, np.tile(np.repeat([0, 1, 2], [16, 24, 24]), 2), np.tile(J64, 2)),
    "hunyuan_vl": (1e4 * 1000 ** (128 / 126), 128, np.arange(128) // 32, np.arange(128) % 64),
}


@pytest.mark.parametrize("model", sorted(LAYOUTS))
def test_vl_rotary_tables_follow_the_documented_channel_layout(model):
    theta, dim, axes, freqs = LAYOUTS[model]
    ids = _fixture("vl_ids", f"{model}_ids").table
    cos, sin = _rotary_from_ids(ids, theta, dim, axes, freqs)
    assert np.abs(cos - _fixture("vl_ids", f"{model}_cos").table).max() < 4e-6
    assert np.abs(sin - _fixture("vl_ids", f"{model}_sin").table).max() < 4e-6
    # and a neighbouring layout does not fit (each axis really differs somewhere)
    shifted = np.roll(axes, 2)
    cos, _ = _rotary_from_ids(ids, theta, dim, shifted, freqs)
    assert np.abs(cos - _fixture("vl_ids", f"{model}_cos").table).max() > 1e-2


def test_arithmetic_tables_name_every_capability_once():
    fixtures = library_fixtures.load("arithmetic")
    seen: dict[str, set[str]] = {}
    for f in fixtures:
        preset, _, part = f.name.partition("_")
        part = part.split("_", 1)[1]
        caps = set(f.params["capabilities"])
        assert not seen.get((preset, part), set()) & caps, f.name
        seen.setdefault((preset, part), set()).update(caps)
    assert all(caps == {"default", "avx2", "avx512"} for caps in seen.values()), seen
    inv = {
        cap: f.table
        for f in fixtures
        if f.name.startswith("qwen3-vl_") and "inv_freq" in f.name
        for cap in f.params["capabilities"]
    }
    assert inv["default"][19] == np.float32(0.010262265801429749)  # fl32(1/fl32(5e6^0.296875))
    assert inv["avx512"][19] == np.float32(0.010262266732752323)  # SLEEF's powf, one ulp off


Q25_AXES = np.tile(np.repeat([0, 1, 2], [16, 24, 24]), 2)  # chunked, half-split
Q3_AXES = np.zeros(64, dtype=int)
Q3_AXES[1:60:3], Q3_AXES[2:60:3] = 1, 2  # interleaved T H W …, then T


@pytest.mark.parametrize(
    "name",
    [
        "qwen2.5-omni_audio",
        "qwen2.5-omni_videos",
        "qwen3-omni_videos",
        "qwen3-omni_video_audio_tie_fps30",
    ],
)
def test_omni_rotary_tables_follow_their_sections(name):
    axes = Q25_AXES if name.startswith("qwen2.5") else np.tile(Q3_AXES, 2)
    cos = _fixture("omni_ids", f"{name}_cos")
    ids = _fixture("omni_ids", f"{name}_ids").table[:, cos.params["rotary_tokens"]]
    want, _ = _rotary_from_ids(ids, 1e6, 128, axes, np.tile(J64, 2))
    # the module's angle is a float32 product: up to half an ulp of the angle itself
    tolerance = 2.0**-23 * np.abs(ids).max() + 2e-6
    assert np.abs(want - cos.table).max() < tolerance
    other = np.tile(Q3_AXES, 2) if name.startswith("qwen2.5") else Q25_AXES  # the other layout
    wrong, _ = _rotary_from_ids(ids, 1e6, 128, other, np.tile(J64, 2))
    assert np.abs(wrong - cos.table).max() > 1e-2
