"""Qwen-VL M-RoPE's edges, derived by hand from transformers' rules (``mrope_section`` maps,
``get_rope_index``): the least rotated width, and the layout-size bound."""

from __future__ import annotations

from pecli.core.multiaxis.mrope import mrope_plan


def test_the_smallest_rotated_width_is_one_pair():
    """rotary_dim = 2 (one pair, the least even width) is a map: the pair on t."""
    assert mrope_plan([1, 0, 0], theta=1e6, head_dim=2).strip() == "T"
