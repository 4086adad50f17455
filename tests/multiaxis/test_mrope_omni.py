"""Qwen2.5-Omni and Qwen3-Omni TMRoPE ids and caches against transformers 5.25's own.

tests/fixtures/libraries/omni_ids holds each thinker's ``get_rope_index`` output on a token
layout (its segments and seconds per grid in the provenance) and its text rotary embedding's
cos / sin (tools/library_fixtures/generate_omni_ids.py). The audio token counts are the
issue's, derived by hand from the models' convolution strides.
"""

from __future__ import annotations

import numpy as np
import pytest
from library_fixtures import load

from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.multiaxis import AxesSpec, axes_cache
from pecli.core.multiaxis.omni import audio_tokens, omni_ids, parse_omni
from pecli.core.multiaxis.resolve import resolve_ids, resolve_plan

FIXTURES = {f.name: f for f in load("omni_ids")}
SEPARATE = sorted(n[: -len("_ids")] for n in FIXTURES if n.endswith("_ids"))


def tokens_of(params: dict) -> str:
    """The fixture's segments as a --tokens layout."""
    seconds = iter(params.get("second_per_grids_float32") or [])
    words = []
    for kind, size, *rest in params["segments"]:
        if kind in ("text", "audio"):
            words.append(f"{kind}:{size}")
            continue
        extra = f",s={next(seconds)!r}" if kind.startswith("video") else ""
        extra += f",mel={rest[1]}" if kind == "video+audio" else ""
        words.append(f"{kind}:{','.join(map(str, size))}{extra}")
    return " ".join(words)


@pytest.mark.parametrize(
    ("model", "counts"),
    [("qwen2.5-omni", [25, 250, 750, 750]), ("qwen3-omni", [13, 130, 390, 391])],
)
def test_audio_tokens_of_the_issue(model, counts):
    assert [audio_tokens(n, model) for n in (100, 1000, 3000, 3001)] == counts
    fixture = FIXTURES[f"{model}_audio_ids"].params
    assert fixture["audio_tokens"] == counts  # what the model itself counted


@pytest.mark.parametrize("name", SEPARATE)
def test_ids_and_deltas_are_get_rope_index(name):
    params = FIXTURES[f"{name}_ids"].params
    model = params["model"]
    plan, preset = resolve_plan(model)
    assert preset.per_second == params["position_id_per_seconds"] or "pps25" in name
    ids, delta = omni_ids(
        parse_omni(tokens_of(params)), model=model, per_second=params["position_id_per_seconds"]
    )
    assert np.array_equal(ids, FIXTURES[f"{name}_ids"].table.astype(np.float64))
    assert np.float32(delta) == FIXTURES[f"{name}_deltas"].table.ravel()[0]
    if "pps25" not in name:  # the preset's own --tokens route gives the same ids
        source = resolve_ids(plan, preset, grid=None, text=0, ids=None, tokens=tokens_of(params))
        assert np.array_equal(source.rows(0, source.n).T, ids)


def test_video_at_fps_10_has_t_0_5_10_15():
    """grid_t 4 of 2-frame patches at 10 fps: 0.2 s a grid, 25 ids a second."""
    ids, _ = omni_ids(parse_omni("video:4,2,2,s=0.2"), model="qwen2.5-omni", per_second=25)
    assert ids[0, 1:5].tolist() == [1 + t for t in (0, 5, 10, 15)]  # after the start token


@pytest.mark.parametrize("name", SEPARATE)
def test_cache_is_the_library_s(name):
    cos = FIXTURES.get(f"{name}_cos")
    if cos is None:
        pytest.skip("no cos table for this layout")
    model = FIXTURES[f"{name}_ids"].params["model"]
    plan, _ = resolve_plan(model)
    ids = FIXTURES[f"{name}_ids"].table.T.astype(np.float64)[cos.params["rotary_tokens"]]
    for part in ("cos", "sin"):
        table = FIXTURES[f"{name}_{part}"].table
        ours = axes_cache(AxesSpec(plan, ids, part=part, arithmetic="float32"))
        assert ours.shape == table.shape and ulps32(ours, table).max() <= 2


def test_video_with_audio_interleaves_by_time():
    """Qwen2.5-Omni: 2-second chunks (50 ids), video chunk then audio chunk, shared marks."""
    ids, _ = omni_ids(
        parse_omni("video+audio:4,2,2,s=1.0,mel=400"), model="qwen2.5-omni", per_second=25
    )
    t = ids[0]
    assert t[:2].tolist() == [0, 0] and t[-2:].tolist() == [101, 101]  # two marks, one id each
    assert t[2:4].tolist() == [1, 26]  # frames at 0 and 25: the first 2 s of video
    assert t[4:6].tolist() == [1, 2] and t[4 + 50 - 1] == 50  # then 50 audio ids, 0 … 49
    assert t[54] == 51  # the next video chunk: frames at 50 and 75


def test_bad_layouts_name_tokens():
    for words in ("audio:0", "image:1,4", "audio:10,s=1", "speech:3", "video+audio:2,2,2,s=1"):
        with pytest.raises(ParameterError) as caught:
            parse_omni(words)
        assert caught.value.parameter == "tokens"


@pytest.mark.parametrize(("model", "least"), [("qwen2.5-omni", 3), ("qwen3-omni", 1)])
def test_audio_of_no_token_names_the_least_mel_frames_by_hand(model, least):
    """Qwen2.5-Omni: ((L − 1)//2 + 1 − 2)//2 + 1 tokens is 0 for L = 1, 2 and 1 for L = 3;
    Qwen3-Omni's tower gives L = 1 one token already (transformers' formulas, by hand)."""
    assert [audio_tokens(m, model) for m in range(1, least + 1)] == [0] * (least - 1) + [1]
    if least > 1:
        with pytest.raises(ParameterError, match=f"at least {least} mel frames"):
            omni_ids(parse_omni("audio:2"), model=model, per_second=25)


@pytest.mark.parametrize("name", ["qwen2.5-omni_audio_only", "qwen3-omni_audio_only"])
def test_identify_axes_names_the_omni_cache(run_cli, tmp_path, name):
    """An audio layout is read as Omni words (it failed as a Qwen-VL layout before)."""
    cos, sin = FIXTURES[f"{name}_cos"].table, FIXTURES[f"{name}_sin"].table
    path = tmp_path / "omni.npy"
    np.save(path, np.concatenate([cos, sin], axis=1))
    tokens = tokens_of(FIXTURES[f"{name}_ids"].params)
    result = run_cli("rope", "identify-axes", str(path), "--tokens", tokens)
    assert result.exit_code == 0, result.output
    assert f"{name.split('_')[0]}: matches" in result.stdout


@pytest.mark.parametrize("merge", [0, -2, (1 << 20) + 1, 2.0])
def test_an_omni_spatial_merge_size_out_of_range_is_refused(merge):
    from pecli.core.multiaxis.omni import OMNI_PRESETS

    preset = next(iter(OMNI_PRESETS.values()))
    with pytest.raises(ParameterError) as error:
        preset.token_ids("text:2", spatial_merge_size=merge)
    assert error.value.parameter == "spatial_merge_size"


@pytest.mark.parametrize(
    "word", ["image:1,0,4", "video:0,2,2", "audio:0", "video+audio:2,2,0,s=1,mel=8"]
)
def test_an_omni_segment_with_a_size_of_zero_is_refused(word):
    with pytest.raises(ParameterError) as error:
        parse_omni(f"text:2 {word}")
    assert error.value.parameter == "tokens"


@pytest.mark.parametrize("grid", ["image:1,3,4", "image:1,4,3", "image:1,3,3"])
def test_a_grid_side_that_is_no_multiple_of_the_merge_size_is_refused(grid):
    """Qwen's vision tower merges 2 × 2 patches: H and W must both be multiples of 2."""
    with pytest.raises(ParameterError) as caught:
        omni_ids(parse_omni(grid), model="qwen2.5-omni", per_second=25)
    assert caught.value.parameter == "tokens" and "multiples of spatial_merge_size 2" in str(
        caught.value.rule
    )
