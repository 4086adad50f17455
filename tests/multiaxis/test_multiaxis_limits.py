"""Multi-axis rope at its limits: the largest text count, the narrowest M-RoPE head, a
``rope_scale`` given to a preset that takes none, and a bfloat16 cache rounded once."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pecli.core.dtypes import float_dtype
from pecli.core.errors import ParameterError
from pecli.core.multiaxis import AxesSpec, axes_cache, axis_preset, per_axis
from pecli.core.multiaxis.ids import check_grid, check_text
from pecli.core.multiaxis.mrope import mrope_plan, parse_tokens


def test_text_counts_run_from_0_to_2_to_the_40_inclusive():
    """The documented range of ``check_text``: 0 to 2^40, both ends allowed."""
    assert check_text(0) == 0
    assert check_text(2**40) == 2**40
    for bad in (-1, 2**40 + 1):
        with pytest.raises(ParameterError, match="text"):
            check_text(bad)


@pytest.mark.parametrize(
    ("layout", "total"),
    [
        ("image:1,4096,4097", 4096 * 4097),  # 2^24 + 4096 patches, before any merge
        ("text:16777216 text:1", 2**24 + 1),
        ("video:2,4,4,gap=16777185", 32 + 16777185),  # the timestamp tokens count too
    ],
)
def test_a_layout_past_2_to_the_24_tokens_and_patches_is_refused_before_any_array(layout, total):
    """The new user's ``image:1,100000,100000`` took 18.6 GiB (the OOM killer) before this."""
    with pytest.raises(ParameterError, match=f"at most 2\\^24 .* \\(got '{total:,}'\\)"):
        parse_tokens(layout)
    assert [s.size for s in parse_tokens("text:16777200 image:1,4,4")] == [(16777200,), (1, 4, 4)]


@pytest.mark.parametrize(
    ("layout", "total"),
    [
        ("text:99999999999", 99999999999),  # 745 GiB of ids
        ("audio:16777216 text:1", 2**24 + 1),  # mel frames count
        ("video+audio:2,4,4,s=2,mel=16777185", 32 + 16777185),
    ],
)
def test_an_omni_layout_past_2_to_the_24_is_refused_as_the_vl_ones_are(layout, total):
    """Qwen-Omni's words went unbounded: 'out of memory' after the work, or an internal error."""
    from pecli.core.multiaxis.omni import parse_omni

    with pytest.raises(ParameterError, match=f"at most 2\\^24 .* \\(got '{total:,}'\\)"):
        parse_omni(layout)
    assert [s.size for s in parse_omni("audio:16777215 text:1")] == [(16777215,), (1,)]


def test_a_two_channel_head_is_one_temporal_pair():
    """Qwen2-VL's rule: rotary_dim = head_dim = 2 holds one pair, mrope_section [1, 0, 0]."""
    assert mrope_plan([1, 0, 0], theta=1e6, head_dim=2).strip() == "T"


def test_rope_scale_is_refused_by_name_for_a_preset_without_one():
    """Z-Image takes no ``rope_scale`` (Cosmos alone does): one number is refused as such,
    not read as a count of per-axis scales."""
    with pytest.raises(ParameterError, match="does not apply to z-image") as caught:
        axis_preset("z-image").plan(rope_scale=[2.0])
    assert caught.value.parameter == "rope_scale"


def _bfloat16(x: mpmath.mpf) -> float:
    """``x`` rounded once to bfloat16 (8 significant bits, to nearest): by hand."""
    if x == 0:
        return 0.0
    e = int(mpmath.floor(mpmath.log(abs(x), 2)))
    return float(mpmath.nint(x * mpmath.mpf(2) ** (7 - e)) * mpmath.mpf(2) ** (e - 7))


def test_a_bfloat16_full_cache_in_float64_steps_is_rounded_once():
    """Pair 0 turns by ω = θ^0 = 1, so its angle is the position itself. float64 sin(11446)
    lies just past a bfloat16 tie that rounding through float32 would land on (and round
    to even, the wrong way): the stored value is sin rounded once to bfloat16 (mpmath)."""
    positions = [0, 1, 11446, 15443, 49043]
    plan = per_axis([2], theta=10000.0, axes=("x",))
    ids = np.array([[p] for p in positions], dtype=np.float64)
    spec = AxesSpec(plan, ids, form="full", dtype=float_dtype("bfloat16"), arithmetic="float64")
    got = axes_cache(spec).astype(np.float64)
    with mpmath.workdps(40):
        want = [
            [_bfloat16(f(mpmath.mpf(p))) for f in (mpmath.cos, mpmath.cos, mpmath.sin, mpmath.sin)]
            for p in positions
        ]
    np.testing.assert_array_equal(got, np.array(want))


def test_a_grid_size_may_equal_a_presets_most_and_not_pass_it():
    """``most`` is the largest size allowed: 4 passes ``most=4``, 5 is refused."""
    assert check_grid([4, 1], 2, most=4) == (4, 1)
    with pytest.raises(ParameterError, match="sizes must be <= 4 for this preset"):
        check_grid([5, 1], 2, most=4)


def test_a_grid_size_past_2_to_the_40_is_refused_for_its_token_count():
    """No size of 2^40 + 1 or more fits 2^40 tokens; the refusal says so (not ">= 1")."""
    for size in ((1 << 40) + 1, (1 << 53) + 1):
        with pytest.raises(ParameterError, match=r"grid must hold at most 2\^40 tokens"):
            check_grid([size], 1)
    assert check_grid([1 << 40], 1) == (1 << 40,)
