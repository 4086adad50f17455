"""Multi-axis rotary embeddings: the issue's golden values, an mpmath reference, the libraries' own
caches (diffusers FluxPosEmbed, Flux2PosEmbed, HunyuanVideo, Wan, get_1d_rotary_pos_embed;
transformers Pixtral, Llama 4 vision), the cache forms and the refusals."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from library_fixtures import load

from pecli.cli.multiaxis.options import parse_numbers, parse_sizes
from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.multiaxis import (
    AxesSpec,
    axes_cache,
    axes_cache_blocks,
    axis_preset,
    per_axis,
    shared,
)
from pecli.core.multiaxis.plan import channel_pairs, plan_frequencies
from pecli.core.multiaxis.presets import AXIS_PRESETS, pixtral_plan, wan_widths
from pecli.core.multiaxis.resolve import resolve_ids, resolve_plan
from pecli.core.rope import RopeSpec, check_spec

mpmath.mp.dps = 40
FIXTURES = {f.name: f for f in load("multiaxis")}


def omega(plan, j):
    """θ^(-2k/D) of pair j, 40 digits (independent of pecli's decimal code)."""
    t, k, d = plan.theta[j], plan.index[j], plan.denominator[j]
    return mpmath.power(mpmath.mpf(t), -mpmath.mpf(2 * k) / d)


@pytest.mark.parametrize(
    ("preset", "pair", "value"),
    [
        ("flux", 9, "0.719685673"),  # axis h (56): ω_1
        ("flux", 1, "0.316227766"),  # axis t (16): ω_1
        ("flux2", 1, "0.6218500"),
        ("flux2", 15, "8.040524e-4"),
        ("wan", 1, "0.657933225"),  # t, width 44
        ("wan", 23, "0.644946677"),  # h, width 42: its own schedule restarts at pair 22
        ("wan", 22, "1"),  # a single shared schedule would give 0.0421697 here
    ],
)
def test_golden_frequencies(preset, pair, value):
    got = plan_frequencies(axis_preset(preset).plan())[0][pair]
    digits = len(value.replace("e-4", "").split(".")[-1]) if "." in value else 12
    assert got == pytest.approx(float(value), rel=10 ** -(digits - 1))
    assert got == float(omega(axis_preset(preset).plan(), pair))


def test_hunyuan_frequencies_are_powers_of_two_exactly():
    w, residual = plan_frequencies(axis_preset("hunyuanvideo").plan())
    assert w[:8].tolist() == [2.0**-i for i in range(8)]
    assert np.all(np.abs(residual[:8]) < 1e-45)  # 50-digit ln and exp: exact to 1e-50


def test_wan_widths_and_the_wrong_shared_schedule():
    assert wan_widths(128) == [44, 42, 42]
    wrong = shared([0] * 64, theta=10000.0, axes=("t",))  # one schedule over the head
    assert float(plan_frequencies(wrong)[0][22]) == pytest.approx(0.0421697, abs=5e-8)


def test_pixtral_angles_of_token_h1_w2():
    plan = axis_preset("pixtral").plan()
    w = plan_frequencies(plan)[0]
    angles = np.where(np.array(plan.axis) == 0, 1.0, 2.0) * w
    assert angles[:4] == pytest.approx([1, 0.5623413, 0.3162278, 0.1778279], abs=5e-8)
    assert angles[16:20] == pytest.approx([1.4997884, 0.8433930, 0.4742747, 0.2667043], abs=5e-8)


def test_llama4_patch_25_is_x2_y2_and_cls_last():
    ids = axis_preset("llama4-vision").ids([24])
    assert ids[25].tolist() == [2.0, 2.0] and ids.shape == (577, 2) and not ids[-1].any()


@pytest.mark.parametrize(
    "name", ["flux", "flux2", "hunyuanvideo", "wan", "pixtral", "llama4-vision", "rope-vit-axial"]
)
def test_frequencies_match_mpmath_to_the_last_bit(name):
    plan = axis_preset(name).plan()
    w, residual = plan_frequencies(plan)
    for j in range(plan.pairs):
        exact = omega(plan, j)
        assert w[j] == float(exact)
        assert abs(mpmath.mpf(w[j]) + mpmath.mpf(residual[j]) - exact) < exact * 1e-30


def reference(plan, ids, form="full"):
    """float64 cos, sin (tokens, rotary_dim) from mpmath, placed by the layout's rule."""
    h = plan.pairs
    cos = np.empty((len(ids), h))
    sin = np.empty_like(cos)
    for r, row in enumerate(ids):
        for j in range(h):
            angle = mpmath.mpf(float(row[plan.axis[j]])) * omega(plan, j)
            cos[r, j], sin[r, j] = float(mpmath.cos(angle)), float(mpmath.sin(angle))
    if form == "half":
        return cos, sin
    full = [np.empty((len(ids), 2 * h)) for _ in (0, 1)]
    for j in range(h):
        a, b = _channels(plan, j)
        for out, values in zip(full, (cos, sin), strict=True):
            out[:, a] = out[:, b] = values[:, j]
    return tuple(full)


def _channels(plan, j):
    """Written from the layout names, not from channel_pairs."""
    h = plan.pairs
    if plan.layout == "interleaved":
        return 2 * j, 2 * j + 1
    if plan.layout == "half-split":
        return j, j + h
    start = plan.axis.index(plan.axis[j])
    size = plan.axis.count(plan.axis[j])
    return 2 * start + (j - start), 2 * start + size + (j - start)


@pytest.mark.parametrize("layout", ["interleaved", "half-split", "half-split-per-axis"])
def test_exact_cache_is_correctly_rounded(layout):
    plan = dataclasses.replace(per_axis([4, 6, 6], theta=[10000.0, 256.0, 2000.0]), layout=layout)
    ids = np.array([[0, 0, 0], [1, 2, 3], [12345, 0.5, -7.25], [2.0**30, 1e6 + 0.5, 3e7]])
    cos_ref, sin_ref = reference(plan, ids)
    cos = axes_cache(AxesSpec(plan, ids, part="cos"))
    sin = axes_cache(AxesSpec(plan, ids, part="sin"))
    assert np.array_equal(cos, cos_ref.astype(np.float32))
    assert np.array_equal(sin, sin_ref.astype(np.float32))
    assert (
        np.max(np.abs(axes_cache(AxesSpec(plan, ids, part="cos", dtype="float64")) - cos_ref))
        < 4e-16
    )


def test_forms_agree_with_each_other():
    plan = axis_preset("flux").plan()
    ids = axis_preset("flux").ids([3, 4], 2)
    full = axes_cache(AxesSpec(plan, ids, dtype="float64"))
    half = axes_cache(AxesSpec(plan, ids, form="half", dtype="float64"))
    z = axes_cache(AxesSpec(plan, ids, form="complex", dtype="float64"))
    m = axes_cache(AxesSpec(plan, ids, form="matrix", dtype="float64"))
    h = plan.pairs
    assert np.array_equal(full[:, 0 : 2 * h : 2], half[:, :h])
    assert np.array_equal(full[:, 2 * h + 1 :: 2], half[:, h:])
    assert np.array_equal(z.real, half[:, :h]) and np.array_equal(z.imag, half[:, h:])
    assert (
        z.dtype == np.complex128
        and axes_cache(AxesSpec(plan, ids, form="complex")).dtype == np.complex64
    )
    assert m.shape == (len(ids), h, 2, 2)
    assert np.array_equal(m[..., 0, 1], -half[:, h:]) and np.array_equal(m[..., 1, 0], half[:, h:])


def test_blocks_concatenate_to_the_whole_cache():
    plan = axis_preset("wan").plan(96)
    ids = axis_preset("wan").ids([3, 4, 5])
    whole = axes_cache(AxesSpec(plan, ids, form="half"))
    parts = np.concatenate(list(axes_cache_blocks(AxesSpec(plan, ids, form="half", rows=7))))
    assert np.array_equal(whole, parts)


def test_channel_pairs_of_the_three_layouts():
    plan = per_axis([2, 4], theta=100.0, axes=("x", "y"))
    assert [c.tolist() for c in channel_pairs(plan)] == [[0, 2, 4], [1, 3, 5]]
    split = dataclasses.replace(plan, layout="half-split-per-axis")
    assert [c.tolist() for c in channel_pairs(split)] == [[0, 2, 3], [1, 4, 5]]


# --- the libraries' own caches ------------------------------------------------------------

CACHES = sorted({n.rsplit("_", 1)[0] for n in FIXTURES if n.endswith("_cos") and "frac" not in n})


def _fixture_case(name):
    cos, sin = FIXTURES[f"{name}_cos"], FIXTURES[f"{name}_sin"]
    preset = axis_preset(cos.params["preset"])
    params = cos.params
    grid = (params.get("grid"), params.get("text", 0), params.get("fps"))
    ids = np.array(params["ids"]) if "ids" in params else preset.ids(*grid)
    return preset, preset.plan(params.get("head_dim")), ids, cos.table, sin.table


@pytest.mark.parametrize("name", CACHES)
def test_model_arithmetic_is_the_library_within_two_ulps(name):
    preset, plan, ids, cos, sin = _fixture_case(name)
    for part, table in (("cos", cos), ("sin", sin)):
        ours = axes_cache(AxesSpec(plan, ids, part=part, arithmetic=preset.dtype))
        bound = 1 if preset.dtype == "float64" else 2  # torch's float32 cos/sin: within 2 ulps
        assert ours.shape == table.shape and ulps32(ours, table).max() <= bound


@pytest.mark.parametrize("name", CACHES)
def test_exact_cache_is_within_the_library_arithmetic_error(name):
    preset, plan, ids, cos, sin = _fixture_case(name)
    # float64 models round only at the end; float32 ones err by a few ulps of each angle
    bound = 0 if preset.dtype == "float64" else 2**-22 * (1 + np.abs(ids).max())
    for part, table in (("cos", cos), ("sin", sin)):
        assert np.max(np.abs(axes_cache(AxesSpec(plan, ids, part=part)) - table)) <= bound


def test_llama4_freqs_ci_complex_form():
    table = FIXTURES["llama4_vision_4x4"].table
    preset = axis_preset("llama4-vision")
    ours = axes_cache(
        AxesSpec(preset.plan(88), preset.ids([4]), form="complex", arithmetic="float32")
    )
    assert ours.dtype == table.dtype == np.complex64
    assert ulps32(ours.real.copy(), table.real.copy()).max() <= 1
    assert ulps32(ours.imag.copy(), table.imag.copy()).max() <= 1
    exact = axes_cache(AxesSpec(preset.plan(88), preset.ids([4]), form="complex"))
    assert np.max(np.abs(exact - table)) < 2e-7


def test_qwen_image_complex_freqs_with_centred_ids():
    table = FIXTURES["qwen_image_text3_5x6"].table
    preset = axis_preset("qwen-image")
    ids = preset.ids([5, 6], 3)
    assert ids[:3].tolist() == [[3.0] * 3, [4.0] * 3, [5.0] * 3]  # max(5//2, 6//2) + k
    assert ids[3].tolist() == [0.0, -3.0, -3.0] and ids[-1].tolist() == [0.0, 1.0, 2.0]
    ours = axes_cache(AxesSpec(preset.plan(), ids, form="complex", arithmetic="float32"))
    assert ours.dtype == table.dtype == np.complex64
    assert ulps32(ours.real.copy(), table.real.copy()).max() <= 1
    assert ulps32(ours.imag.copy(), table.imag.copy()).max() <= 1


def test_cosmos_temporal_theta_and_fps_ids():
    plan = axis_preset("cosmos").plan()
    assert plan.theta[0] == pytest.approx(20671.1557, abs=5e-5) and plan.theta[22] == 10000.0
    assert plan.layout == "half-split" and plan.strip() == "T" * 22 + "H" * 21 + "W" * 21
    ids = axis_preset("cosmos").ids([3, 1, 1], fps=30)
    f = np.float32  # seq / fps * base_fps in float32: 0.8000001, 1.6000001
    assert ids[:, 0].tolist() == [
        0.0,
        float(f(f(1) / f(30)) * f(24)),
        float(f(f(2) / f(30)) * f(24)),
    ]
    assert ids[1, 0] != 0.8


def test_fractional_positions_as_diffusers_get_1d_rotary_pos_embed():
    cos, sin = FIXTURES["fractional_float64_cos"], FIXTURES["fractional_float64_sin"]
    plan = per_axis([16], theta=10000.0, axes=("p",))
    ids = np.array(cos.params["positions"])[:, None]
    for part, table in (("cos", cos.table), ("sin", sin.table)):
        assert (
            ulps32(axes_cache(AxesSpec(plan, ids, part=part, arithmetic="float64")), table).max()
            <= 1
        )
        assert ulps32(axes_cache(AxesSpec(plan, ids, part=part)), table).max() == 0
        # diffusers' default float32 frequencies (angles then float64): thousands of ulps off
        loose = FIXTURES[f"fractional_float32_{part}"].table
        assert 100 < ulps32(axes_cache(AxesSpec(plan, ids, part=part)), loose).max() < 1 << 14


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: per_axis([16, 55], theta=1e4, axes=("a", "b")), "widths"),
        (lambda: per_axis([16, 56], theta=1e4), "widths"),
        (lambda: per_axis([16], theta=1.0, axes=("a",)), "theta"),
        (lambda: per_axis([16], theta=1e4, axes=("a",), layout="zigzag"), "layout"),
        (lambda: shared([0, 0], theta=1e4, axes=("a",), order=[0, 0]), "order"),
        (lambda: shared([0, 0], theta=1e4, axes=("a",), order=[0, 2]), "order"),  # k < D/2 = 2
        (lambda: shared([0, 2], theta=1e4, axes=("a", "b")), "assign"),
        (lambda: axis_preset("flux").plan(64), "head_dim"),
        (lambda: axis_preset("wan").ids([1, 2, 1025]), "grid"),
        (lambda: axis_preset("wan").ids([1, 2]), "grid"),
        (lambda: axis_preset("hunyuanvideo").ids([1, 2, 2], 3), "text"),
        (lambda: axis_preset("stable-diffusion"), "preset"),
        (lambda: pixtral_plan(66), "head_dim"),
        (
            lambda: axes_cache(AxesSpec(per_axis([4], theta=1e4, axes=("a",)), np.ones((2, 2)))),
            "ids",
        ),
        (
            lambda: axes_cache(
                AxesSpec(per_axis([4], theta=1e4, axes=("a",)), np.array([[np.nan]]))
            ),
            "ids",
        ),
        (
            lambda: axes_cache(
                AxesSpec(
                    per_axis([4], theta=1e4, axes=("a",)),
                    np.ones((1, 1)),
                    form="complex",
                    dtype="float16",
                ),
            ),
            "dtype",
        ),
        (
            lambda: axes_cache(
                AxesSpec(
                    per_axis([4], theta=1e4, axes=("a",)),
                    np.ones((1, 1)),
                    form="matrix",
                    part="cos",
                )
            ),
            "part",
        ),
        (
            lambda: axes_cache(
                AxesSpec(per_axis([4], theta=1e4, axes=("a",)), np.ones((1, 1)), arithmetic="bf16")
            ),
            "arithmetic",
        ),
    ],
)
def test_refusals_name_the_parameter(call, parameter):
    with pytest.raises(ParameterError) as caught:
        call()
    assert caught.value.parameter == parameter


@pytest.mark.parametrize("name", ["flux_text3_4x5", "flux2_text2_3x4", "pixtral_3x5"])
def test_preset_ids_are_the_ids_the_pipeline_built(name):
    params = FIXTURES[f"{name}_cos"].params
    built = axis_preset(params["preset"]).ids(params["grid"], params.get("text", 0))
    assert np.array_equal(built, np.array(params["ids"], dtype=np.float64))


def test_model_arithmetic_rounds_positions_to_its_dtype_first():
    plan = per_axis([4], theta=1e4, axes=("p",))
    w = np.float32(1) / np.float32(100.0)  # ω_1 = 1/10000^(2/4), float32
    p = np.array([0.1, 2.0**24 + 1, 123456789.0, 0.3])
    torch_like = (p.astype(np.float32) * w).astype(np.float32)  # pos.float() * inv_freq
    assert np.any(torch_like != (p * np.float64(w)).astype(np.float32))  # the test can tell
    cos = axes_cache(
        AxesSpec(plan, p[:, None], form="half", part="cos", dtype="float64", arithmetic="float32")
    )
    assert cos[:, 1].tolist() == np.cos(torch_like.astype(np.float64)).astype(np.float32).tolist()


def test_cogvideox_ids_are_the_linspace_crop_in_float32():
    ids = axis_preset("cogvideox").ids([3, 6, 10])
    rows = sorted(set(ids[:, 1].tolist()))
    # grid 6 × 10 in the 30 × 45 base: resized to 27 × 45, crop rows 2 … 29
    step = np.float32((np.float32(29 * 5 / 6) - np.float32(2)) / np.float32(5))
    assert rows[0] == 2.0 and rows[1] == float(np.float32(2 + float(step)))
    assert sorted(set(ids[:, 0].tolist())) == [0.0, 1.0, 2.0]
    assert axis_preset("cogvideox").plan().strip() == "T" * 8 + "H" * 12 + "W" * 12


@pytest.mark.parametrize(
    ("theta", "per_axis_theta"), [(5000.0, (5e3,) * 3), ((5e3, 6e3, 7e3), (5e3, 6e3, 7e3))]
)
def test_a_preset_s_theta_is_overridden_by_one_number_or_one_per_axis(theta, per_axis_theta):
    from pecli.core.multiaxis.resolve import resolve_plan

    plan, _ = resolve_plan("wan", theta=theta)  # axes t, h, w
    assert plan.axes == ("t", "h", "w")
    assert plan.theta == tuple(per_axis_theta[a] for a in plan.axis)  # every pair its axis's θ


def test_wan_takes_even_heads_from_12():
    assert wan_widths(12) == [4, 4, 4]  # 12 − 4·(12 // 6), 2·(12 // 6), 2·(12 // 6)
    for head_dim in (10, 13):
        with pytest.raises(ParameterError, match=">= 12"):
            wan_widths(head_dim)


def test_the_cached_frequencies_cannot_be_changed_by_a_caller():
    omega, residual = plan_frequencies(per_axis([16], theta=256.0, axes=("t",)))
    assert omega.tolist() == [2.0**-i for i in range(8)]  # 256^(-2i/16) = 2^-i
    for array in (omega, residual):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0.5


@pytest.mark.parametrize("theta", [math.inf, math.nan, 1.0, (1e4, math.nan, 1e4)])
def test_a_theta_that_is_not_a_finite_number_above_1_is_refused(theta):
    """One rule for every θ (a preset's, each of a per-axis list, a 1-D rope's), one wording."""
    from pecli.core.multiaxis.resolve import resolve_plan

    with pytest.raises(ParameterError, match="theta must be a finite number > 1"):
        resolve_plan("wan", theta=theta)
    with pytest.raises(ParameterError, match="theta must be a finite number > 1"):
        resolve_plan(None, widths=(4, 4, 4), theta=theta)
    bad = theta[1] if isinstance(theta, tuple) else theta
    with pytest.raises(ParameterError, match="theta must be a finite number > 1"):
        check_spec(RopeSpec(theta=bad))


def test_the_command_line_reads_words_the_core_takes_numbers():
    assert parse_numbers("1e4, 256", "theta") == (1e4, 256.0)
    assert parse_sizes("3x4×5", "grid") == (3, 4, 5)
    with pytest.raises(ParameterError, match="theta must be a number, or one per axis"):
        parse_numbers("", "theta")


def test_id_source_has_no_text_tokens_unless_asked():
    source = axis_preset("flux").id_source((2, 2))
    assert source.text == 0 and axis_preset("flux").id_source((2, 2), 3).text == 3


# -- refusals and plain grids (each value below is written out by hand) -------------------


def test_a_plain_grid_without_a_preset_is_row_major_and_takes_no_text():
    plan, _ = resolve_plan(None, widths=(4, 4), theta=100.0)
    ids = resolve_ids(plan, None, grid=(2, 3), text=0, ids=None)
    assert ids.rows(0, ids.n).tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    with pytest.raises(ParameterError, match="text needs a `preset`"):
        resolve_ids(plan, None, grid=(2, 3), text=1, ids=None)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: parse_numbers("ten", "theta"), "theta"),
        (lambda: resolve_plan("flux", theta=1.0), "theta must be a finite number > 1"),
        (lambda: axis_preset("flux").id_source([2, 2], text=-1), "text must be an integer from 0"),
        (lambda: axis_preset("lucidrains-axial").plan(6), "head_dim must be a multiple of 4"),
        (lambda: axis_preset("rope-vit-axial").plan(6), "head_dim must be a multiple of 4"),
        (
            lambda: axis_preset("cogvideox").plan(12),
            "head_dim must be a multiple of 8 for CogVideoX",
        ),
        (lambda: axis_preset("flux").plan(2), "head_dim must be an integer from 4 to 65536"),
        (lambda: axis_preset("flux").plan(65537), "head_dim must be an integer from 4 to 65536"),
        (lambda: axis_preset("flux").id_source([2, 2], fps=1.0), "fps is a video preset's"),
        (lambda: axis_preset("cosmos").id_source([1, 1, 1], fps=0.0), "fps is a video preset's"),
        (lambda: shared([0, 2], theta=100.0, axes=("h", "w")), "assign must name axes 0 … 1 "),
        (lambda: resolve_plan(None, widths=(4, 8)), "`widths` without `theta`"),
        (lambda: resolve_plan(None, theta=100.0), "`theta` without `widths`"),
        (
            lambda: resolve_ids(
                resolve_plan(None, widths=(4, 4), theta=100.0)[0],
                None,
                grid=(1, 2),
                text=0,
                ids=np.zeros((2, 2)),
            ),
            "ids goes without `grid`",
        ),
    ],
)
def test_bad_preset_arguments_name_the_option_and_rule(call, words):
    with pytest.raises(ParameterError, match=words):
        call()


def test_grid_sizes_and_id_arrays_are_checked_for_their_axes():
    from pecli.core.multiaxis.ids import GridIds, check_grid, check_ids

    with pytest.raises(ParameterError, match="grid sizes must be integers >= 1"):
        check_grid([0, 2], 2)
    with pytest.raises(ParameterError, match=r"grid must hold at most 2\^40 tokens"):
        check_grid([1 << 20, (1 << 20) + 1], 2)
    assert check_grid([1 << 20, 1 << 20], 2) == (1 << 20, 1 << 20)  # exactly 2^40 tokens
    assert check_ids(np.arange(3.0), 1).array.tolist() == [
        [0.0],
        [1.0],
        [2.0],
    ]  # one axis: a column
    plan = per_axis([4, 4, 4], theta=10000.0)
    wrong = GridIds((2, 2), axes=2, columns=(0, 1))
    with pytest.raises(ParameterError, match=r"ids must have one column per axis \(3\)"):
        axes_cache(AxesSpec(plan, wrong))
    with pytest.raises(ParameterError, match="part must be both, cos or sin"):
        axes_cache(AxesSpec(plan, np.zeros((2, 3)), part="tan"))


def test_rope_vit_axial_ids_run_x_first():
    """RoPE-ViT: x = i mod W in the first column, y = i div W in the second (W = 3)."""
    ids = axis_preset("rope-vit-axial").ids([2, 3])
    assert ids.tolist() == [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]


@pytest.mark.parametrize("name", list(AXIS_PRESETS))
def test_each_preset_rotates_the_whole_of_its_default_head(name):
    """A preset's head_dim is its plan's width: no column left out, none past the head."""
    preset = axis_preset(name)
    assert preset.plan().rotary_dim == preset.head_dim


def test_allegro_default_head_is_the_models():
    """diffusers 0.42.1 ``AllegroTransformer3DModel(attention_head_dim=96)``; the table diffusers
    made for the fixture (``get_3d_rotary_pos_embed_allegro(96, …)``) is that wide."""
    cos = FIXTURES["allegro_2x3x4_cos"]
    assert axis_preset("allegro").head_dim == cos.table.shape[1] == 96


@pytest.mark.parametrize("head_dim", [4, 8, 10, 5, 9, 15])
def test_identify_s_head_dim_is_taken_even_and_refused_odd(head_dim):
    """Rotary pairs: an even width (4, 8, 10) passes the options' check, an odd one (5, 9, 15)
    is named, whatever else it divides by."""
    from pecli.core.multiaxis.resolve import check_id_options

    if head_dim % 2 == 0:
        assert check_id_options(head_dim=head_dim, grid=(4, 4), text=0) is None
    else:
        with pytest.raises(ParameterError, match="head_dim must be even"):
            check_id_options(head_dim=head_dim, grid=(4, 4), text=0)
