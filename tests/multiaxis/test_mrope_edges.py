"""Qwen-VL M-RoPE's edges, derived by hand from transformers' rules (``mrope_section`` maps,
``get_rope_index``): the least rotated width, and the layout-size bound."""

from __future__ import annotations

import pytest

from pecli.core.errors import ParameterError
from pecli.core.multiaxis.mrope import mrope_ids, mrope_plan, parse_tokens, reused_text_ids


def test_the_smallest_rotated_width_is_one_pair():
    """rotary_dim = 2 (one pair, the least even width) is a map: the pair on t."""
    assert mrope_plan([1, 0, 0], theta=1e6, head_dim=2).strip() == "T"


def test_a_qwen2_5_video_without_seconds_takes_one_second_a_grid():
    """get_rope_index reads second_per_grid_t as 1.0 when none is given: 3 grids of one
    merged token at 2 tokens a second sit at t = 0, 2, 4 (h = w = 0)."""
    ids, delta = mrope_ids(parse_tokens("video:3,2,2"), model="qwen2.5-vl")
    assert ids.tolist() == [[0, 2, 4], [0, 0, 0], [0, 0, 0]]
    assert delta == 5 - 3


def test_an_interleaved_section_one_past_the_most_is_refused():
    """3·s = h + 2 is the most the interleaved map takes (test_mrope's [0, 2, 2] over 4
    pairs); 3 pairs with s_h = 2 (3·2 = 3 + 3) are past it."""
    with pytest.raises(ParameterError, match="exceed the pairs"):
        mrope_plan([1, 2, 0], theta=1e6, head_dim=6, interleaved=True)
    assert mrope_plan([2, 1, 0], theta=1e6, head_dim=6, interleaved=True).strip() == "THT"


def test_a_text_token_on_the_last_frame_s_t_counts_as_reused():
    """Qwen2-VL, 5.24: text 0; a video of 3 frames of one merged token at t = 1, 2, 3; the
    text after it at 1 + max(2, 2)//2 = 2: t = 2, 3, 4. Both 2 and 3 repeat a frame's t."""
    layout = "text:1 video:3,2,2 text:3"
    ids = mrope_ids(parse_tokens(layout), model="qwen2-vl")[0]
    assert ids[0].tolist() == [0, 1, 2, 3, 2, 3, 4]
    assert reused_text_ids(layout, ids, model="qwen2-vl") == 2


def test_texts_in_a_row_after_a_grid_join_the_last_text():
    """text 0; a 1×2×2 image merged 2×2: one token at 1; the 2 + 3 text tokens after it are
    one run from 1 + max(2, 2)//2 = 2: 2 … 6 (the first text keeps its one token)."""
    ids, _ = mrope_ids(parse_tokens("text:1 image:1,2,2 text:2 text:3"), model="qwen2-vl")
    assert ids.tolist() == [[0, 1, 2, 3, 4, 5, 6]] * 3


@pytest.mark.parametrize(
    ("word", "model", "message"),
    [
        ("video:2,4,4,s=0.5", "qwen2-vl", "takes s= for qwen2.5-vl only"),
        ("video:2,4,4,gap=1", "qwen2.5-vl", "takes gap= for qwen3-vl only"),
    ],
)
def test_a_knob_another_model_reads_names_that_model(word, model, message):
    """s= (second_per_grid_t) is read by Qwen2.5-VL's get_rope_index, gap= (timestamp
    tokens) by Qwen3-VL's: the refusal names the one that reads it."""
    with pytest.raises(ParameterError, match=message):
        mrope_ids(parse_tokens(word), model=model)
