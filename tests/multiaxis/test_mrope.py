"""Qwen-VL M-RoPE: the mrope_section maps, position ids equal to transformers' get_rope_index on a
mixed text + image + video layout, caches equal to its rotary classes, the older release's rule,
the refusals, and the commands."""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import load

from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.multiaxis import AxesSpec, axes_cache
from pecli.core.multiaxis.mrope import Segment, mrope_ids, mrope_plan, parse_tokens
from pecli.core.multiaxis.mrope_presets import MROPE_PRESETS

FIXTURES = {f.name: f for f in load("mrope")}
MODELS = ["qwen2-vl", "qwen2.5-vl", "qwen3-vl"]


def test_qwen2_vl_section_is_chunked_in_both_halves():
    plan = mrope_plan([16, 24, 24], theta=1e6, head_dim=128)
    assert plan.strip() == "T" * 16 + "H" * 24 + "W" * 24
    assert plan.layout == "half-split" and plan.index == tuple(range(64))
    assert set(plan.denominator) == {128}  # one schedule shared by the axes


def test_qwen3_vl_section_is_interleaved():
    plan = mrope_plan([24, 20, 20], theta=5e6, head_dim=128, interleaved=True)
    assert plan.strip() == "THW" * 20 + "TTTT"


def test_qwen3_5_partial_rotary_section():
    plan = MROPE_PRESETS["qwen3.5"].plan()
    assert plan.rotary_dim == 64 and set(plan.denominator) == {64}
    assert plan.strip() == "THW" * 10 + "TH"  # h: j % 3 == 1 and j < 33; w: j < 30


def test_interleaved_sections_may_run_past_the_pairs_as_in_transformers():
    # Qwen3-VL's apply_interleaved_mrope overwrites freqs[..., offset:3·s:3] for h (offset 1)
    # and w (offset 2): with 4 pairs and sections [0, 2, 2], h takes pair 1 and w pair 2
    # (pairs 4 and 5 do not exist), t keeps 0 and 3. 3·2 = 4 + 2 is the most it allows.
    assert mrope_plan([0, 2, 2], theta=100.0, head_dim=8, interleaved=True).strip() == "THWT"
    with pytest.raises(ParameterError, match="exceed the pairs"):
        mrope_plan([0, 1, 3], theta=100.0, head_dim=8, interleaved=True)


@pytest.mark.parametrize("model", MODELS)
def test_ids_are_transformers_get_rope_index(model):
    theirs = FIXTURES[f"{model}_ids"]
    ids, delta = mrope_ids(parse_tokens(theirs.params["tokens"]), model=model)
    assert np.array_equal(ids, theirs.table)
    assert delta == int(FIXTURES[f"{model}_deltas"].table.ravel()[0])


def test_text_after_a_long_video_repeats_positions_in_524_not_in_4():
    segments = parse_tokens("text:2 video:4,2,2 text:1")
    new, _ = mrope_ids(segments, model="qwen2-vl")
    old, delta = mrope_ids(segments, model="qwen2-vl", release="4")
    assert new[:, 2:6].tolist() == [[2, 3, 4, 5], [2, 2, 2, 2], [2, 2, 2, 2]]
    assert new[:, -1].tolist() == [3, 3, 3]  # start + max(h, w) // merge: 3 again
    assert old[:, -1].tolist() == [6, 6, 6] and delta == 0  # the largest id + 1


def test_qwen2_5_interval_of_one_and_a_half_truncates():
    ids, _ = mrope_ids(parse_tokens("video:4,2,2,s=0.75"), model="qwen2.5-vl")
    assert ids[0].tolist() == [0, 1, 3, 4]  # 2 tokens/s · 0.75 s = 1.5 per grid


@pytest.mark.parametrize("model", [*MODELS, "qwen3.5"])
def test_each_preset_is_its_model_s_rotary_class(model):
    """The preset's own section, θ and head (not the fixture's): transformers' cos rows."""
    cos = FIXTURES[f"{model}_cos"]
    ids = FIXTURES[f"{cos.params['model']}_ids"].table.T
    ours = axes_cache(AxesSpec(MROPE_PRESETS[model].plan(), ids, part="cos", arithmetic="float32"))
    assert ulps32(ours, cos.table).max() <= 2


def test_a_segment_made_without_gap_has_no_timestamps():
    # 2 frames of 4×4 patches merged 2×2: t = 0, 0, 0, 0, 1, 1, 1, 1; h, w over 2 × 2
    ids, delta = mrope_ids([Segment("video", (2, 4, 4))], model="qwen2-vl")
    assert ids.tolist() == [[0] * 4 + [1] * 4, [0, 0, 1, 1] * 2, [0, 1] * 4]
    assert delta == 2 - 8  # largest id + 1 − tokens


def test_a_one_frame_qwen3_vl_video_needs_no_timestamps():
    # text 0, 1; one frame of 4×4 patches merged 2×2: t = 2, h = 2 + (0, 0, 1, 1),
    # w = 2 + (0, 1, 0, 1); the text after it at 2 + max(H, W) // 2 = 4 (get_rope_index);
    # delta = largest id + 1 − tokens = 5 − 7 = −2
    ids, delta = mrope_ids(parse_tokens("text:2 video:1,4,4 text:1"), model="qwen3-vl")
    assert ids.tolist() == [[0, 1, 2, 2, 2, 2, 4], [0, 1, 2, 2, 3, 3, 4], [0, 1, 2, 3, 2, 3, 4]]
    assert delta == -2


def test_qwen2_5_release_4_multiplies_the_truncated_times_by_tokens_per_second():
    # transformers 4: (arange(4) · 0.75) · 2 = 0, 1.5, 3, 4.5 → 0, 1, 3, 4
    ids, _ = mrope_ids(parse_tokens("video:4,2,2,s=0.75"), model="qwen2.5-vl", release="4")
    assert ids[0].tolist() == [0, 1, 3, 4]


def test_two_texts_in_a_row_are_one_block():
    # text 0, 1; a 1×2×2 image merged 2×2: one token at (2, 2, 2); the text after it at
    # 2 + max(2, 2) // 2 = 3, its 2 + 3 tokens one run 3 … 7
    ids, _ = mrope_ids(parse_tokens("text:2 image:1,2,2 text:2 text:3"), model="qwen2-vl")
    assert ids.tolist() == [[0, 1, 2, 3, 4, 5, 6, 7]] * 3


@pytest.mark.parametrize("model", [*MODELS, "qwen3.5"])
def test_caches_are_the_rotary_classes_own(model):
    cos, sin = FIXTURES[f"{model}_cos"], FIXTURES[f"{model}_sin"]
    p = cos.params
    plan = mrope_plan(
        p["section"],
        theta=p["theta"],
        head_dim=p["head_dim"],
        partial_rotary_factor=p.get("partial_rotary_factor", 1.0),
        interleaved=p["interleaved"],
    )
    ids = FIXTURES[f"{p['model']}_ids"].table.T
    for part, table in (("cos", cos.table), ("sin", sin.table)):
        assert (
            ulps32(axes_cache(AxesSpec(plan, ids, part=part, arithmetic="float32")), table).max()
            <= 2
        )
        assert np.max(np.abs(axes_cache(AxesSpec(plan, ids, part=part)) - table)) < 1e-5


@pytest.mark.parametrize(
    ("tokens", "model", "parameter"),
    [
        ("text:5 picture:1,2,2", "qwen2-vl", "tokens"),
        ("image:1,2", "qwen2-vl", "tokens"),
        ("text:2,s=1", "qwen2-vl", "tokens"),
        ("video:2,4,4,s=0.5", "qwen2-vl", "tokens"),  # s= is Qwen2.5-VL's
        ("video:2,4,4,gap=1", "qwen2.5-vl", "tokens"),  # gap= is Qwen3-VL's
        ("video:2,4,4", "qwen3-vl", "tokens"),  # frames need timestamps between them
        ("image:1,4,4 image:1,4,4", "qwen2-vl", "tokens"),  # transformers reads one block
        ("image:1,3,4", "qwen2-vl", "tokens"),  # H not a multiple of the merge
        ("", "qwen2-vl", "tokens"),
        ("text:2", "qwen9", "model"),
    ],
)
def test_bad_layouts_are_refused(tokens, model, parameter):
    with pytest.raises(ParameterError) as caught:
        mrope_ids(parse_tokens(tokens), model=model)
    assert caught.value.parameter == parameter


@pytest.mark.parametrize(
    ("head_dim", "factor"), [(7, 1.0), (128, 1.5), (128, 0.0), (2, 0.5), (12, 0.25)]
)
def test_an_odd_or_empty_rotated_width_is_refused(head_dim, factor):
    # int(head_dim · factor): 7, 192 (a factor > 1), 0, 1, 3 — each refused on its own
    with pytest.raises(ParameterError, match="head_dim"):
        mrope_plan([1, 1, 1], theta=1e6, head_dim=head_dim, partial_rotary_factor=factor)


def test_the_smallest_three_axis_width_is_one_pair_each():
    assert mrope_plan([1, 1, 1], theta=1e6, head_dim=6).strip() == "THW"


@pytest.mark.parametrize(
    ("section", "interleaved"), [([16, 24, 23], False), ([16, 24], False), ([4, 30, 30], True)]
)
def test_bad_sections_are_refused(section, interleaved):
    with pytest.raises(ParameterError, match="mrope_section"):
        mrope_plan(section, theta=1e6, head_dim=128, interleaved=interleaved)


# --- the commands ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["npy", "csv", "json"])
def test_mrope_ids_command_writes_transformers_ids(run_cli, tmp_path, fmt):
    theirs = FIXTURES["qwen2.5-vl_ids"]
    out = tmp_path / f"ids.{fmt}"
    result = run_cli(
        "rope",
        "mrope-ids",
        "--model",
        "qwen2.5-vl",
        "--tokens",
        theirs.params["tokens"],
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "rope_deltas = -60" in result.stderr
    if fmt == "npy":
        ids = np.load(out)
        assert ids.dtype == np.int64
    elif fmt == "csv":
        ids = np.loadtxt(out, delimiter=",", skiprows=1, dtype=np.int64).T
    else:
        record = json.loads(out.read_text())
        ids = np.array(record["position_ids"])
        assert record["rope_deltas"] == -60
    assert np.array_equal(ids, theirs.table)


def test_axes_command_with_a_qwen_preset_is_the_rotary_class(run_cli, tmp_path):
    theirs = FIXTURES["qwen3-vl_sin"]
    out = tmp_path / "c.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "qwen3-vl",
        "--tokens",
        theirs.params["tokens"],
        "--part",
        "sin",
        "--arithmetic",
        "model",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert ulps32(np.load(out), theirs.table).max() <= 2


def test_axes_command_reads_transformers_3_by_seq_ids(run_cli, tmp_path):
    ids = FIXTURES["qwen2-vl_ids"].table
    np.save(tmp_path / "ids.npy", ids.astype(np.float64))
    out = tmp_path / "c.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "qwen2-vl",
        "--ids",
        str(tmp_path / "ids.npy"),
        "--part",
        "cos",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    theirs = FIXTURES["qwen2-vl_cos"]  # transformers' rotary class on these ids, float32
    assert theirs.params["model"] == "qwen2-vl"
    ours = np.load(out)
    assert ours.shape == theirs.table.shape and np.max(np.abs(ours - theirs.table)) < 1e-5


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["rope", "mrope-ids", "--tokens", "text:2 video:2,4,4"], "--tokens"),  # fine: control
        (["rope", "mrope-ids", "--tokens", "video:2,4,4,s=2"], "--tokens"),
        (
            ["rope", "mrope-ids", "--tokens", "text:1", "--tokens-per-second", "0"],
            "--tokens-per-second",
        ),
        (["rope", "mrope-ids", "--tokens", "text:1", "-o", "ids.txt"], "--output"),
        (["rope", "axes", "--preset", "qwen2-vl", "--grid", "2x2"], "--tokens"),
        (["rope", "axes", "--preset", "flux", "--tokens", "text:1"], "--tokens"),
    ],
)
def test_command_refusals(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args)
    if args[-1] == "text:2 video:2,4,4":
        assert result.exit_code == 0  # the control: the same words without the mistake
        return
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_time_index_is_transformers_float32_product():
    # fps 0.6, 2 frames per grid: s = 2/0.6; torch 2.13 computes (arange(4) * (25 * s)).long()
    # in float32 as [0, 83, 166, 249], where 3 · 25 · 2/0.6 = 250 exactly
    segments = parse_tokens(f"video:4,2,2,s={2 / 0.6!r}")
    ids, _ = mrope_ids(segments, model="qwen2.5-vl", tokens_per_second=25)
    assert ids[0].tolist() == [0, 83, 166, 249]


def test_a_negative_section_is_refused_even_when_the_sum_is_right():
    with pytest.raises(ParameterError, match="mrope_section"):
        mrope_plan([-2, 34, 32], theta=1e6, head_dim=128)


def test_tokens_per_second_and_merge_size_take_1_and_2_to_the_20_and_nothing_past():
    """By hand from get_rope_index: image patches unmerged (merge 1) sit at start + (row, col);
    Qwen2.5-VL's video time is frame · second_per_grid_t · tokens_per_second."""
    qwen2, qwen25 = MROPE_PRESETS["qwen2-vl"], MROPE_PRESETS["qwen2.5-vl"]
    ids, delta = qwen2.token_ids("text:1 image:1,2,3", spatial_merge_size=1)
    assert ids.array.T.tolist() == [
        [0, 1, 1, 1, 1, 1, 1],
        [0, 1, 1, 1, 2, 2, 2],
        [0, 1, 2, 3, 1, 2, 3],
    ]
    assert delta == 4 - 7
    ids, _ = qwen25.token_ids("video:3,2,2,s=1.0", tokens_per_second=1)  # 3 frames of 1 token
    assert ids.array[:, 0].tolist() == [0, 1, 2]
    ids, delta = qwen25.token_ids("video:3,2,2,s=1.0", tokens_per_second=1 << 20)
    assert ids.array[:, 0].tolist() == [0, 1 << 20, 1 << 21] and delta == (1 << 21) + 1 - 3
    for name, value in [
        ("tokens_per_second", 0),
        ("spatial_merge_size", (1 << 20) + 1),
        ("tokens_per_second", 2.0),
    ]:
        with pytest.raises(ParameterError, match=f"{name} must be an integer from 1 to 2\\^20"):
            qwen25.token_ids("text:2", **{name: value})


def test_qwen2_5_takes_2_tokens_per_second_by_default():
    """Qwen2.5-VL's released vision config (and pecli's documented default): 2 per second."""
    ids, _ = MROPE_PRESETS["qwen2.5-vl"].token_ids("video:3,2,2,s=1.0")
    assert ids.array[:, 0].tolist() == [0, 2, 4]


@pytest.mark.parametrize("model", [*MODELS, "qwen3.5"])
def test_each_preset_holds_the_numbers_transformers_ran(model):
    """The generator's model settings (the fixture's provenance), not a cache within 2 ulps:
    θ + 1 or another head width moves no cos row of the fixtures by that much."""
    ran, preset = FIXTURES[f"{model}_cos"].params, MROPE_PRESETS[model]
    assert (preset.section, preset.theta, preset.head_dim) == (
        tuple(ran["section"]),
        ran["theta"],
        ran["head_dim"],
    )
    assert preset.partial_rotary_factor == ran.get("partial_rotary_factor", 1.0)
    assert preset.interleaved == ran["interleaved"]


def test_a_qwen3_vl_video_takes_a_gap_of_one_timestamp_token():
    """2 frames of 4×4 patches merged 2×2 (4 tokens each) with 1 timestamp token between.

    By hand from get_rope_index: each frame is a one-frame video (t index 0); frame 1 at 0,
    h = (0, 0, 1, 1), w = (0, 1, 0, 1); the timestamp at its largest id + 1 = 2 on every axis;
    frame 2 at 3: t = 3, h = 3 + (0, 0, 1, 1), w = 3 + (0, 1, 0, 1); delta = 5 − 9.
    """
    ids, delta = mrope_ids(parse_tokens("video:2,4,4,gap=1"), model="qwen3-vl")
    assert ids.tolist() == [
        [0, 0, 0, 0, 2, 3, 3, 3, 3],
        [0, 0, 1, 1, 2, 3, 3, 4, 4],
        [0, 1, 0, 1, 2, 3, 4, 3, 4],
    ]
    assert delta == 5 - 9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"model": "qwen4-vl"},
            "model must be one of qwen2-vl, qwen2.5-vl, qwen3-vl (got 'qwen4-vl')",
        ),
        ({"model": "qwen2-vl", "release": "5"}, "release must be one of 5.24, 4 (got '5')"),
    ],
)
def test_an_unknown_model_or_release_lists_the_ones_there_are(kwargs, message):
    """transformers' three Qwen-VL ``get_rope_index`` models, and its releases 5.24 and 4."""
    with pytest.raises(ParameterError) as caught:
        mrope_ids(parse_tokens("text:2"), **kwargs)
    assert str(caught.value) == message


@pytest.mark.parametrize("size", [(0, 4, 4), (1, 0, 4), (1, 4, 0)])
def test_a_grid_segment_with_a_side_of_0_is_refused(size):
    """A Segment built by hand (not through parse_tokens) with T, H or W = 0 places no tokens:
    mrope_ids refuses it by the --tokens grid rule rather than failing on an empty block."""
    with pytest.raises(ParameterError) as caught:
        mrope_ids([Segment("text", (2,)), Segment("image", size)], model="qwen2-vl")
    assert caught.value.parameter == "tokens"
    assert "grids need T, H, W >= 1" in str(caught.value)


@pytest.mark.parametrize("word", ["video:2,4,4,fps=2", "image:1,4,4,s=1", "text:2,gap=1"])
def test_knobs_other_than_a_videos_s_and_gap_are_refused_when_read(word):
    """The documented grammar: only video:T,H,W takes ``,s=`` and ``,gap=``; anything else
    (an unknown knob, a knob on an image or text) is refused by parse_tokens itself."""
    with pytest.raises(ParameterError, match="s= and gap= on videos only"):
        parse_tokens(word)


@pytest.mark.parametrize("word", ["text:0", "image:1,0,4", "video:2,2,0"])
def test_a_run_of_no_tokens_is_refused_when_read(word):
    """Each size is a count of tokens >= 1 (the grammar's rule): a 0 anywhere is refused."""
    with pytest.raises(ParameterError, match="sizes >= 1"):
        parse_tokens(word)
