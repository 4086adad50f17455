"""Qwen-VL M-RoPE's edges, derived by hand from transformers' rules (``mrope_section`` maps,
``get_rope_index``): the least rotated width, and the layout-size bound."""

from __future__ import annotations

from pecli.core.multiaxis.mrope import mrope_ids, mrope_plan, parse_tokens


def test_the_smallest_rotated_width_is_one_pair():
    """rotary_dim = 2 (one pair, the least even width) is a map: the pair on t."""
    assert mrope_plan([1, 0, 0], theta=1e6, head_dim=2).strip() == "T"


def test_a_qwen2_5_video_without_seconds_takes_one_second_a_grid():
    """get_rope_index reads second_per_grid_t as 1.0 when none is given: 3 grids of one
    merged token at 2 tokens a second sit at t = 0, 2, 4 (h = w = 0)."""
    ids, delta = mrope_ids(parse_tokens("video:3,2,2"), model="qwen2.5-vl")
    assert ids.tolist() == [[0, 2, 4], [0, 0, 0], [0, 0, 0]]
    assert delta == 5 - 3
