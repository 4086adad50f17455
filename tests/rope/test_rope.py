"""RoPE frequencies and caches: known values, transformers' own output, an mpmath reference."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import rope_reference as ref
from library_fixtures import ids, load

from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, cache_blocks, rope_cache
from pecli.core.rope.cache_spec import rope_layout
from pecli.core.rope.config import spec_from_config

LLAMA31 = RopeSpec(
    rope_type="llama3",
    theta=500000.0,
    head_dim=128,
    factor=8.0,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
    original_max_position_embeddings=8192,
)
GPT_OSS = RopeSpec(
    rope_type="yarn",
    theta=150000.0,
    head_dim=64,
    factor=32.0,
    original_max_position_embeddings=4096,
    truncate=False,
)
QWEN = RopeSpec(
    rope_type="yarn", theta=1e6, head_dim=128, factor=4.0, original_max_position_embeddings=32768
)
FIXTURES = {f.name: f for f in load("rope")}
INV = [f for f in FIXTURES.values() if f.name.endswith("_inv_freq")]


def test_llama31_keeps_29_pairs_smooths_6_divides_29():
    freqs = rope_frequencies(LLAMA31)
    assert freqs.scaling == ("unchanged",) * 29 + ("smoothed",) * 6 + ("interpolated",) * 29
    assert freqs.attention_factor == 1.0


def test_yarn_attention_factor_is_0_1_ln_f_plus_1():
    assert rope_frequencies(QWEN).attention_factor == pytest.approx(
        0.1 * math.log(4) + 1, abs=1e-15
    )
    assert round(rope_frequencies(QWEN).attention_factor, 6) == 1.138629


def test_gpt_oss_correction_range_is_not_rounded():
    notes = rope_frequencies(GPT_OSS).notes
    assert (round(notes["ramp_low"], 4), round(notes["ramp_high"], 4)) == (8.0928, 17.398)
    truncated = rope_frequencies(RopeSpec(**{**GPT_OSS.__dict__, "truncate": True})).notes
    assert (truncated["ramp_low"], truncated["ramp_high"]) == (8.0, 18.0)


def test_deepseek_mscale_ratio_is_one():
    spec = RopeSpec(
        rope_type="yarn",
        theta=1e4,
        head_dim=64,
        factor=40.0,
        mscale=1.0,
        mscale_all_dim=1.0,
        original_max_position_embeddings=4096,
    )
    assert rope_frequencies(spec).attention_factor == 1.0


@pytest.mark.parametrize(
    ("spec", "exact"),
    [
        (LLAMA31, ref.llama3(500000.0, 128, 8, 1, 4, 8192)),
        (GPT_OSS, ref.yarn(150000.0, 64, 32, 4096, truncate=False)),
        (QWEN, ref.yarn(1e6, 128, 4, 32768)),
        (RopeSpec(theta=10000.0, head_dim=64), ref.default(10000.0, 64)),
    ],
    ids=["llama31", "gpt-oss", "qwen-yarn", "default"],
)
def test_inv_freq_and_residual_match_mpmath(spec, exact):
    freqs = rope_frequencies(spec)
    for w, r, e in zip(freqs.inv_freq, freqs.residual, exact, strict=True):
        assert float(e) == w  # the nearest float64
        assert abs(mpmath.mpf(w) + mpmath.mpf(r) - e) <= 1e-30 * e


@pytest.mark.parametrize("fixture", INV, ids=ids(INV))
def test_inv_freq_matches_transformers_within_float32(fixture):
    spec, _ = spec_from_config(fixture.params["config"], seq_len=fixture.params.get("seq_len"))
    freqs = rope_frequencies(spec)
    assert freqs.inv_freq.shape == fixture.table.shape
    # float32 θ^(2i/dim): the exponent rounded (2^-24 relative) times ln θ <= 14, then pow
    assert np.allclose(fixture.table, freqs.inv_freq, rtol=15 * 2.0**-24, atol=0)
    assert freqs.attention_factor == pytest.approx(fixture.params["attention_scaling"], rel=1e-15)


@pytest.mark.parametrize("fixture", INV, ids=ids(INV))
@pytest.mark.parametrize("part", ["cos", "sin"])
def test_cache_matches_transformers_within_its_float32_error(fixture, part):
    spec, _ = spec_from_config(fixture.params["config"], seq_len=fixture.params.get("seq_len"))
    freqs = rope_frequencies(spec)
    cache = FIXTURES[fixture.name.replace("inv_freq", part)]
    p = np.array(cache.params["positions"], dtype=np.float64)[:, None]
    ours = np.stack(
        [
            rope_cache(CacheSpec(freqs, 1, start=int(q), dtype="float64"))[part == "sin"][0]
            for q in p[:, 0]
        ]
    )
    w32 = np.tile(fixture.table.astype(np.float64), 2)
    # transformers' angle error: p·|ω32 − ω| + the float32 rounding of p·ω32, then sin/cos
    bound = p * np.abs(w32 - np.tile(freqs.inv_freq, 2)) + 2.0**-24 * p * w32 + 2e-7
    assert np.all(np.abs(ours - cache.table) <= 1.5 * bound * freqs.attention_factor)


def test_gptj_interleaved_cache_rotates_like_transformers():
    table, rotated = FIXTURES["gptj_table"], FIXTURES["gptj_rotated"]
    positions = table.params["positions"]
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=64))
    x = np.linspace(-1.0, 1.0, 64, dtype=np.float32).astype(np.float64)
    turned = np.empty_like(x)
    turned[0::2], turned[1::2] = -x[1::2], x[0::2]  # rotate_every_two
    for row, q in enumerate(positions):
        cos, sin = rope_cache(CacheSpec(freqs, 1, start=q, layout="gptj", dtype="float64"))
        assert np.allclose(x * cos[0] + turned * sin[0], rotated.table[row], atol=4e-6 * max(q, 1))
        # GPT-J's buffer is pecli's [S|C] halves: sin block, then cos block
        assert np.allclose(
            np.concatenate([sin[0][0::2], cos[0][0::2]]),
            table.table[row],
            atol=2e-7 * max(q, 1) + 1e-7,
        )


@pytest.mark.parametrize("layout", ["half-split", "interleaved"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cache_is_correctly_rounded_against_mpmath(layout, dtype):
    positions = [0, 1, 7, 4095, 131071, 1_000_003, 9_999_991]
    freqs = rope_frequencies(GPT_OSS)
    exact = ref.yarn(150000.0, 64, 32, 4096, truncate=False)
    scale = 0.1 * mpmath.log(32) + 1
    for q in positions:
        cos, sin = rope_cache(CacheSpec(freqs, 1, start=q, layout=layout, dtype=dtype))
        want_cos, want_sin = ref.cache_row(q, exact, scale, layout)
        for ours, want in ((cos[0], want_cos), (sin[0], want_sin)):
            if dtype == "float32":
                assert np.array_equal(ours, np.array([float(v) for v in want], np.float32))
            else:
                assert (
                    max(abs(float(o) - float(w)) for o, w in zip(ours, want, strict=True)) < 2e-15
                )


def test_blocks_are_bit_identical_to_one_piece_and_to_a_later_start():
    freqs = rope_frequencies(LLAMA31)
    whole = np.concatenate(list(cache_blocks(CacheSpec(freqs, 300, start=5))))
    pieces = np.concatenate(list(cache_blocks(CacheSpec(freqs, 300, start=5, rows=7))))
    tail = np.concatenate(list(cache_blocks(CacheSpec(freqs, 100, start=205))))
    assert np.array_equal(whole, pieces) and np.array_equal(whole[200:], tail)


@pytest.mark.parametrize("start", [2**53, -(2**53), 2**53 - 1])
def test_the_last_position_may_not_pass_2_to_the_53(start):
    # positions start … start+n-1 with |start| + n <= 2^53; 2^53 - 1 + 2 = 2^53 + 1 is too far
    with pytest.raises(ParameterError, match=r"\|start\| \+ n <= 2\^53"):
        cache_blocks(CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 2, start=start))
    # the last position allowed is computed, and is the formula's row there (mpmath, 40 digits)
    (row,) = cache_blocks(CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 1, start=2**53 - 1))
    cos, sin = ref.cache_row(2**53 - 1, ref.default(10000.0, 4), 1, "half-split")
    assert np.array_equal(row, [np.array([float(v) for v in cos + sin], np.float32)])


@pytest.mark.parametrize("layout", ["half-split", "interleaved"])
@pytest.mark.parametrize("part", ["both", "cos", "sin"])
def test_chunked_blocks_are_the_mpmath_rows(monkeypatch, layout, part):
    """Several kernel chunks of several blocks each, the last of both partial: every row is
    the correctly rounded float32 of the formula (tests/rope_reference.py), row by row."""
    import pecli.core.rope.cache as cache

    monkeypatch.setattr(cache, "CHUNK_CELLS", 60)  # h = 4, rows = 5: chunks of 15 rows
    freqs = rope_frequencies(GPT_OSS.__class__(**{**GPT_OSS.__dict__, "head_dim": 8}))
    exact = ref.yarn(150000.0, 8, 32, 4096, truncate=False)
    scale = 0.1 * mpmath.log(32) + 1
    start, n = 1_000_003, 47
    blocks = [
        b.copy()
        for b in cache_blocks(
            CacheSpec(freqs, n, start=start, layout=layout, part=part, rows=5, reuse=2)
        )
    ]
    assert [len(b) for b in blocks] == [5] * 9 + [2]
    table = np.concatenate(blocks)
    for row in range(n):
        cos, sin = ref.cache_row(start + row, exact, scale, layout)
        want = {"both": cos + sin, "cos": cos, "sin": sin}[part]
        assert np.array_equal(table[row], np.array([float(v) for v in want], np.float32)), row


@pytest.mark.parametrize(
    ("name", "layout"),
    [
        ("rotate_half", "half-split"),
        ("GPT-NeoX", "half-split"),
        ("llama.cpp-neox", "half-split"),
        ("vllm-neox", "half-split"),
        ("mlx", "half-split"),
        ("flash-attn", "half-split"),
        ("gptj", "interleaved"),
        ("meta", "interleaved"),
        ("llama.cpp-norm", "interleaved"),
        ("mlx-traditional", "interleaved"),
        ("flash-attn-interleaved", "interleaved"),
    ],
)
def test_layout_aliases(name, layout):
    assert rope_layout(name) == layout


@pytest.mark.parametrize(
    ("spec", "parameter", "words"),
    [
        (RopeSpec(head_dim=63), "head_dim", "must be even"),
        (RopeSpec(rope_type="linear", factor=0.5), "factor", "must be >= 1"),
        (
            RopeSpec(
                rope_type="llama3",
                factor=0.5,
                low_freq_factor=1,
                high_freq_factor=4,
                original_max_position_embeddings=8192,
            ),
            "factor",
            "must be >= 1",
        ),
        (RopeSpec(rope_type="ntk"), "rope_type", "default, linear, dynamic, yarn, longrope"),
        (RopeSpec(rope_type="yarn", factor=4.0), "original_max_position_embeddings", "required"),
        (RopeSpec(head_dim=10, partial_rotary_factor=0.5), "partial_rotary_factor", "even"),
    ],
)
def test_bad_specs_name_the_field(spec, parameter, words):
    with pytest.raises(ParameterError, match=words) as caught:
        rope_frequencies(spec)
    assert caught.value.parameter == parameter


def test_config_missing_a_field_names_it():
    config = {
        "head_dim": 128,
        "rope_theta": 5e5,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0},
    }
    with pytest.raises(
        ParameterError, match="field low_freq_factor is required by rope_type 'llama3'"
    ):
        spec_from_config(config)


def test_v4_and_v5_configs_give_the_same_spec_and_findings_name_the_traps():
    v4 = {
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {
            "type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    }
    v5 = {
        "head_dim": 128,
        "max_position_embeddings": 131072,
        "rope_parameters": {"rope_theta": 500000.0, **v4["rope_scaling"]},
    }
    (a, notes_a), (b, notes_b) = spec_from_config(v4), spec_from_config(v5)
    assert a == b == RopeSpec(**{**LLAMA31.__dict__, "max_position_embeddings": 131072})
    assert any("'type'" in n for n in notes_a) and any("rope_parameters" in n for n in notes_b)
    assert any("refuses it or silently applies no scaling" in n for n in notes_a)


def test_phase_errors_per_decade_against_hand_derived_and_mpmath_values():
    import ml_dtypes

    from pecli.analysis.rope.precision import rope_phase_errors

    freqs = rope_frequencies(LLAMA31)
    rows = {(r.scenario, r.first): r for r in rope_phase_errors(freqs, 131072)}
    # ω_0 = 1: bf16 positions are exact to 256, then 4 apart up to 1023 (error 2), 512 apart
    # past 65536 (error up to 256)
    assert rows["bf16-positions", 10].phase < 1e-5 and rows["bf16-positions", 100].phase == 2.0
    assert 250 <= rows["bf16-positions", 100000].phase <= 256
    # fp32: ω rounded (2^-24 relative) and the product rounded (2^-24): at most 2^-23·p·ω_0
    for first in (0, 10, 100, 1000, 10000, 100000):
        row = rows["fp32", first]
        assert 0 < row.phase <= 2.0**-23 * row.last
    exact = ref.llama3(500000.0, 128, 8, 1, 4, 8192)
    worst = 0.0
    for p in range(10):
        for e in exact:
            w = np.float32(np.float32(float(e)).astype(ml_dtypes.bfloat16))
            worst = max(worst, abs(float(np.float32(p) * w) - p * e))
    assert rows["bf16-inv-freq", 0].phase == pytest.approx(worst, rel=1e-12)


IDENTIFIED = {
    "default": ("default", 500000.0, {}),
    "linear": ("linear", 10000.0, {"factor": 4.0}),
    "llama31": (
        "llama3",
        500000.0,
        {
            "factor": 8.0,
            "unchanged": 29,
            "smoothed": 6,
            "original_max_position_embeddings": 8192.0,
            "high_freq_factor": 4.0,
        },
    ),
    "qwen_yarn": ("yarn", 1e6, {"factor": 4.0, "ramp_low": 23.0, "ramp_high": 40.0}),
    "gptoss_yarn": ("yarn", 150000.0, {"factor": 32.0}),
    "deepseek_yarn": ("yarn", 10000.0, {"factor": 40.0, "ramp_low": 10.0, "ramp_high": 23.0}),
    "proportional": ("proportional", 1e6, {"rope_angles": 16, "factor": 8.0}),
    "partial_025": ("default", 10000.0, {}),
    "dynamic_8192": ("default", 30527.7, {}),
    "phi3_longrope": ("unknown", math.nan, {}),
}


@pytest.mark.parametrize("case", sorted(IDENTIFIED))
def test_identify_recognises_transformers_inv_freq(case):
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    guess = identify_inv_freq(FIXTURES[f"{case}_inv_freq"].table)
    kind, theta, params = IDENTIFIED[case]
    assert guess.rope_type == kind and guess.storage == "float32"
    assert guess.theta == theta or (math.isnan(theta) and math.isnan(guess.theta))
    assert {k: guess.parameters[k] for k in params} == params
    if case == "gptoss_yarn":  # not truncated: the exact correction range
        assert guess.parameters["ramp_low"] == pytest.approx(8.0928, abs=1e-4)
        assert any("truncate false" in f for f in guess.findings)


def test_identify_bf16_llama2_buffer_and_a_damaged_first_frequency():
    import ml_dtypes

    from pecli.analysis.rope.inv_freq import identify_inv_freq

    exact = rope_frequencies(RopeSpec(theta=10000.0, head_dim=128)).inv_freq
    guess = identify_inv_freq(exact.astype(ml_dtypes.bfloat16))
    assert (guess.rope_type, guess.theta, guess.storage) == ("default", 10000.0, "bfloat16")
    damaged = exact.copy()
    damaged[0] = 1 - 2.0**-40  # not 1: re-initialised or overwritten
    assert any("not exactly 1" in f for f in identify_inv_freq(damaged).findings)


def test_factors_that_dip_between_two_ends_of_factor_1_are_no_ramp():
    """Pairs 8 … 20 of θ = 10^4 (d = 128) slowed by 10, 9.2, … 0.4 millionths (each step back
    under the 1e-6 tolerance), every other pair exact: the slowest pair is divided by 1, so
    this is no linear, yarn or llama3 ramp (they divide it by f > 1): per-pair factors."""
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    q = np.ones(64)
    q[8:21] = 1 - 1e-6 * (10 - 0.8 * np.arange(13))
    inv = 10000.0 ** (-np.arange(64) * 2.0 / 128) * q
    guess = identify_inv_freq(inv, tolerance=np.full(64, 1e-6))
    assert (guess.rope_type, guess.theta, guess.parameters) == ("unknown", 10000.0, {})
    assert guess.findings[0].startswith("per-pair factors (longrope?): 1, 1,")


@pytest.mark.parametrize(
    ("scale", "kind", "factor"),
    [
        (1 / 8, "linear", 8.0),
        (4.0, "unknown", 0.25),
        (2000.0, "unknown", 1 / 2000),
        (1 / 3.3, "linear", 3.3),
    ],
)
def test_every_frequency_scaled_alike_reads_the_factor_where_round_factors_live(
    scale, kind, factor
):
    """ω_i = scale · θ^(-2i/d) in float32: a linear factor 1/scale, snapped to n or 1/n.

    A factor below 1 (frequencies raised; transformers' linear validation warns about it)
    is no rope_type pecli computes: unknown, with the factor and why. It was read as linear
    with factor 0.0 for ω_0 = 2000 (snapped to the nearest integer, 0) and 0.2499999994 for 4.
    """
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    inv = (scale * 10000.0 ** (-np.arange(0, 64, 2) / 64)).astype(np.float32)
    guess = identify_inv_freq(inv)
    assert (guess.rope_type, guess.theta) == (kind, 10000.0)
    assert guess.parameters["factor"] == pytest.approx(factor, rel=1e-7)
    if factor in (8.0, 0.25, 1 / 2000):  # round: exactly n or 1/n
        assert guess.parameters["factor"] == factor
    assert any("below 1" in f for f in guess.findings) == (kind == "unknown")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start", [-1, -5, -4097])
def test_position_zero_is_exactly_cos_1_sin_0_after_a_negative_start(start, dtype):
    """cos 0 = 1, sin 0 = 0 at every frequency, wherever position 0 falls (it was 2e-17)."""
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=8))
    cos, sin = rope_cache(CacheSpec(freqs, -start + 2, start=start, dtype=dtype))
    assert np.array_equal(cos[-start], np.ones(8)) and np.array_equal(sin[-start], np.zeros(8))


def test_per_pair_factors_that_rise_and_fall_are_not_read_as_a_ramp():
    """A longrope-like buffer: θ = 10000, dim 16, each pair divided by its own factor, not in
    order (2 then 1.5): neither yarn's nor llama3's monotone transition."""
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    factors = np.array([1, 1, 1, 2, 1.5, 4, 4, 4.0])
    guess = identify_inv_freq(10000.0 ** (-np.arange(8) * 2 / 16) / factors)
    assert (guess.rope_type, guess.theta) == ("unknown", 10000.0)
    assert guess.findings == ["per-pair factors (longrope?): 1, 1, 1, 2, 1.5, 4, 4, 4"]


def test_a_theta_no_nine_digit_number_fits_is_kept_as_fitted():
    """θ = 10^4·π over 16 pairs at a 10^-12 tolerance: its 9-digit rounding 31415.9265 moves
    the slowest pair by 10^-10 relative, so the fit itself is returned."""
    from pecli.analysis.rope.inv_freq import fit_theta

    theta = 10000 * math.pi
    fitted, scale, run = fit_theta(theta ** (-np.arange(16) * 2 / 32), 32, np.full(16, 1e-12))
    assert fitted == pytest.approx(theta, rel=1e-13) and fitted != float(f"{fitted:.9g}")
    assert scale == pytest.approx(1.0, rel=1e-13) and run == 16


def test_a_frequency_measured_loosely_stays_in_the_run_within_its_own_tolerance():
    """Four frequencies of θ = 10^4 over 64 channels, the last off by 10^-6 relative but
    measured to ±2·10^-6 (the others to 10^-9): all four are one geometric run. Its least
    squares slope of ln ω over i = 0…3 moves by δ·(3 − 1.5)/5 = 0.3·δ, δ = ln(1 + 10^-6), so
    θ = exp(−32·slope) is 10^4·exp(−9.6·δ) (hand-derived)."""
    from pecli.analysis.rope.inv_freq import fit_theta

    w = 1e4 ** (-np.arange(4) * 2 / 64)
    w[3] *= 1 + 1e-6
    tol = np.array([1e-9, 1e-9, 1e-9, 2e-6])
    fitted, _, run = fit_theta(w, 64, tol)
    assert run == 4 and fitted == pytest.approx(1e4 * math.exp(-9.6 * math.log1p(1e-6)), rel=1e-9)


def test_values_recomputed_in_a_later_chunk_are_those_of_their_own_positions(monkeypatch):
    """A float16 YaRN cache from position 3, split into chunks of 2 rows, every value exact.

    The kernel fills its scratch a chunk at a time; under an attention factor the values are
    certified after the product, and with the kernel's bound widened every one is recomputed
    exactly at its position. Rows 2 and 4 begin later chunks: they must be positions 5 and 7,
    ``1.3·cos(p·10000^(-2i/8))`` by mpmath at 200 bits, rounded to float16 by mpmath.
    """
    from planted import rounded

    from pecli.core import kernels
    from pecli.core.certificate import ErrorBound
    from pecli.core.dtypes import float_dtype
    from pecli.core.rope import cache as rope_cache_module

    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=0.05))
    monkeypatch.setattr(rope_cache_module, "CHUNK_CELLS", 8)  # 4 pairs × 2 rows: 2-row chunks
    yarn = RopeSpec(
        head_dim=8,
        rope_type="yarn",
        factor=1.0,  # the default frequencies, and the attention factor given
        attention_factor=1.3,
        original_max_position_embeddings=2048,
    )
    spec = CacheSpec(rope_frequencies(yarn), 5, start=3, dtype=float_dtype("float16"), rows=2)
    cache = np.concatenate(list(cache_blocks(spec)))
    with mpmath.workprec(200):
        omega = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / 8) for i in range(4)]
        for r, row in enumerate(cache):
            angles = [(3 + r) * w for w in omega]
            cos = [rounded(mpmath.mpf(1.3) * mpmath.cos(a), "float16") for a in angles]
            sin = [rounded(mpmath.mpf(1.3) * mpmath.sin(a), "float16") for a in angles]
            assert row.astype(np.float64).tolist() == cos + cos + sin + sin, r


def test_a_proportional_head_with_no_rotating_pair_has_frequencies_of_zero():
    """proportional with int(8·0.1) = 0 rotated channels: every pair passes through, ω = 0 and
    λ infinite (no wavelength to overflow)."""
    spec = RopeSpec(head_dim=8, rope_type="proportional", partial_rotary_factor=0.1)
    freqs = rope_frequencies(spec)
    assert freqs.inv_freq.tolist() == [0.0] * 4


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_a_linear_factor_is_read_from_a_half_precision_buffer(dtype):
    """transformers' linear scaling divides inv_freq by the factor: θ = 10^4 over 32 channels
    divided by 4, stored as float16 or bfloat16 (rounding 2^-11 or 2^-8 relative): ω_0 = 0.25,
    three quarters below 1, far past the dtype's tolerance of a few roundings, so linear
    with factor 4, θ 10^4."""
    import ml_dtypes

    from pecli.analysis.rope.inv_freq import identify_inv_freq

    stored = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    inv = (10000.0 ** (-np.arange(0, 32, 2) / 32) / 4).astype(stored)
    guess = identify_inv_freq(inv)
    assert (guess.rope_type, guess.theta, guess.storage) == ("linear", 10000.0, dtype)
    assert guess.parameters == {"factor": 4.0}


def test_the_run_of_constant_ratios_ends_past_4_tolerances():
    """ln ω_i = −i/2 (θ = e^4 over 16 channels) at a tolerance of 10^-6, ω_5's 2·10^-6, with
    ω_5 on moved by 4.5 of ω_5's tolerances times |ln ω_5| = 2.5 (the rule: a ratio
    ω_(i+1)/ω_i is the first's within 4·max(tol_0, tol_(i+1))·max(1, |ln ω_(i+1)|)): the
    run stops at 5 frequencies; moved by 3.5, all 8 run."""
    from pecli.analysis.rope.inv_freq import fit_theta

    tol = np.full(8, 1e-6)
    tol[5] = 2e-6
    for moved, run in ((4.5, 5), (3.5, 8)):
        logs = -np.arange(8) / 2
        logs[5:] += moved * 2e-6 * 2.5
        assert fit_theta(np.exp(logs), 16, tol)[2] == run


@pytest.mark.parametrize(("theta", "dim"), [(500000.0, 128), (1e6, 128), (1e6, 64)])
def test_a_float16_inv_freq_with_subnormal_pairs_reads_its_theta(theta, dim):
    """Llama 3's and Qwen's inv_freq cast to float16, as a half-precision checkpoint stores it
    (float32 powers, then the cast): the slowest pairs fall below 2^-14, where float16's
    spacing is 2^-24 whatever the value, so their relative error is far above u (they read
    'unknown', θ 499749, before)."""
    exact = 1.0 / np.float32(theta) ** (np.arange(0, dim, 2, dtype=np.float32) / dim)
    stored = exact.astype(np.float16)
    assert stored.min() < 2.0**-14  # subnormal pairs are there
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    guess = identify_inv_freq(stored)
    assert (guess.rope_type, guess.theta, guess.storage) == ("default", theta, "float16")
