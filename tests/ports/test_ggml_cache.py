"""rope cache --arithmetic llama.cpp: ggml's float32 loop, checked against a slow loop written
from ggml_rope_cache_init / rope_yarn (one float32 step at a time) and exact angles."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from safetensors.numpy import load_file

from pecli.core.errors import ParameterError
from pecli.core.ports.ggml_cache import ggml_angles, ggml_cache_blocks
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec

F = np.float32
SPECS = [
    RopeSpec(theta=10000.0, head_dim=16),
    RopeSpec(rope_type="linear", theta=10000.0, head_dim=16, factor=4.0),
    RopeSpec(
        rope_type="llama3",
        theta=500000.0,
        head_dim=32,
        factor=8.0,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
        original_max_position_embeddings=64,
    ),
    RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=32,
        factor=4.0,
        original_max_position_embeddings=256,
    ),
    YARN_RAMP := RopeSpec(  # a ramp inside the head: pairs 20 … 46 (low > 0, high < d/2 - 1)
        rope_type="yarn",
        theta=10000.0,
        head_dim=128,
        factor=4.0,
        original_max_position_embeddings=4096,
    ),
]


def llama3_factors(spec: RopeSpec) -> np.ndarray:
    """What rope_freqs holds for ggml to give transformers' llama3 ω: θ_i / ω_i, float64.

    transformers' ``_compute_llama3_parameters`` written out: ω / factor past the long
    wavelength, ω below the short one, the smoothed mix between; ggml divides θ_i by the
    factor, so the factor is ``1 / ((1 - s) / factor + s)`` in the middle.
    """
    d, length = spec.rotary_dim, spec.original_max_position_embeddings
    low, high = spec.low_freq_factor, spec.high_freq_factor
    out = []
    for i in range(d // 2):
        wavelen = 2 * math.pi * spec.theta ** (2 * i / d)
        smooth = (length / wavelen - low) / (high - low)
        if wavelen < length / high:
            out.append(1.0)
        elif wavelen > length / low:
            out.append(spec.factor)
        else:
            out.append(1 / ((1 - smooth) / spec.factor + smooth))
    return np.array(out)


def slow_angles(spec: RopeSpec, p: int) -> list[F]:
    """ggml_rope_cache_init for one position, scalar float32 operations in ggml's order."""
    d = spec.rotary_dim
    theta_scale = F(float(F(spec.theta)) ** float(F(-2.0) / F(d)))
    freq_scale = F(1.0) / F(spec.factor) if spec.rope_type in ("linear", "yarn") else F(1.0)
    ff = llama3_factors(spec) if spec.rope_type == "llama3" else None
    low = high = 0.0
    if spec.rope_type == "yarn":

        def corr(r):
            return (
                d
                * math.log(spec.original_max_position_embeddings / (r * 2 * math.pi))
                / (2 * math.log(spec.theta))
            )

        low, high = max(0.0, math.floor(corr(32))), min(d - 1.0, math.ceil(corr(1)))
    theta, out = F(p), []
    for i in range(d // 2):
        extrap = theta / F(ff[i]) if ff is not None else theta
        interp = freq_scale * extrap
        if spec.rope_type == "yarn":
            y = F(i - low) / F(max(0.001, high - low))
            mix = F(1) - min(F(1), max(F(0), y))
            interp = interp * (F(1) - mix) + extrap * mix
        out.append(interp)
        theta = theta * theta_scale
    return out


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.rope_type)
@pytest.mark.parametrize("p", [0, 1, 7, 1000, 65535, 1 << 20])
def test_angles_are_the_slow_loops_bit_for_bit(spec, p):
    fast = ggml_angles(rope_frequencies(spec), np.array([p]))[0]
    assert fast.tolist() == [float(v) for v in slow_angles(spec, p)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.rope_type)
def test_many_positions_bit_for_bit(spec):
    positions = np.random.default_rng(7).integers(0, 1 << 24, 300)
    fast = ggml_angles(rope_frequencies(spec), positions)
    slow = [[float(v) for v in slow_angles(spec, int(p))] for p in positions]
    assert fast.tolist() == slow


def test_hand_derived_first_pairs():
    angles = ggml_angles(rope_frequencies(RopeSpec(theta=10000.0, head_dim=4)), np.array([1]))
    assert angles.tolist() == [[1.0, float(F(0.01))]]


def test_each_pair_carries_about_one_rounding_more():
    spec = RopeSpec(theta=500000.0, head_dim=128)
    p = 10007
    angles = ggml_angles(rope_frequencies(spec), np.array([p]))[0].astype(np.float64)
    with mpmath.workdps(30):
        exact = np.array([float(p / mpmath.mpf(500000) ** (mpmath.mpf(i) / 64)) for i in range(64)])
    relative = np.abs(angles - exact) / exact
    bound = (np.arange(64) + 4) * 2.0**-24
    assert np.all(relative <= bound)
    assert relative[40:].max() > 4 * 2.0**-24  # more than transformers' two roundings


def test_cos_sin_times_the_attention_factor():
    spec = RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=32,
        factor=3.0,
        attention_factor=1.2,
        original_max_position_embeddings=256,
    )
    block = next(ggml_cache_blocks(CacheSpec(rope_frequencies(spec), 3, start=5, part="cos")))
    angles = np.array([slow_angles(spec, p) for p in (5, 6, 7)], dtype=np.float64)
    internal = F(1) + F(0.1) * F(math.log(3.0))
    mscale = F(F(1.2) / internal) * internal  # llama.cpp passes 1.2/internal, ggml multiplies
    assert mscale != F(1.2)
    expected = np.cos(angles).astype(F) * mscale
    np.testing.assert_array_equal(block, np.concatenate([expected, expected], axis=1))


def test_cli(run_cli, tmp_path):
    out = tmp_path / "c.safetensors"
    result = run_cli(
        "rope",
        "cache",
        "--theta",
        "500000",
        "--head-dim",
        "64",
        "--n",
        "64",
        "--arithmetic",
        "llama.cpp",
        "-o",
        str(out),
        "-q",
    )
    assert result.exit_code == 0, result.output
    spec = RopeSpec(theta=500000.0, head_dim=64)
    angles = np.array([slow_angles(spec, p) for p in range(64)], dtype=np.float64)
    stored = load_file(str(out))
    for part, f in (("cos", np.cos), ("sin", np.sin)):  # half-split: [f(θ) | f(θ)], rounded once
        half = f(angles).astype(F)
        assert stored[part].tobytes() == np.concatenate([half, half], axis=1).tobytes(), part
    assert "metadata agrees" in run_cli("rope", "identify", str(out)).stdout
    for bad, option in (
        (
            ["--rope-type", "dynamic", "--factor", "2", "--max-position-embeddings", "64"],
            "--arithmetic",
        ),
        (["--start", str(1 << 24)], "--start"),
    ):
        result = run_cli("rope", "cache", "--n", "4", "--arithmetic", "llama.cpp", *bad)
        assert result.exit_code == 2 and option in result.stderr


def test_refusals_come_at_the_call_and_blocks_match_any_height():
    """Checked before the first block is asked for (refusals before work); heights: same bits."""
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=16))
    with pytest.raises(ParameterError, match="2\\^24"):
        ggml_cache_blocks(CacheSpec(freqs, 4, start=1 << 24))
    whole = np.concatenate(
        list(ggml_cache_blocks(CacheSpec(freqs, 10, start=3, layout="interleaved")))
    )
    short = np.concatenate(
        list(ggml_cache_blocks(CacheSpec(freqs, 10, start=3, layout="interleaved", rows=3)))
    )
    assert whole.shape == (10, 32) and short.tobytes() == whole.tobytes()


def test_the_yarn_ramp_runs_between_llama_cpps_floored_and_ceiled_pairs():
    """``rope_yarn_ramp``: y = (i - low) / max(0.001, high - low), mix = 1 - clamp(y, 0, 1).

    The correction range of the spec, from ``ggml_rope_yarn_corr_dims`` (mpmath), is 20 … 46:
    pairs up to 20 keep the extrapolated angle, pairs from 46 on the interpolated one (θ/4),
    and pair 33, halfway, the float32 mean of the two.
    """

    def corr(r):
        return 128 * mpmath.log(4096 / (r * 2 * mpmath.pi)) / (2 * mpmath.log(10000))

    assert (mpmath.floor(corr(32)), mpmath.ceil(corr(1))) == (20, 46)
    p = 1000
    angles = ggml_angles(rope_frequencies(YARN_RAMP), np.array([p]))[0]
    theta, extrap = F(p), []
    for _ in range(64):  # ggml's θ, one float32 product per pair
        extrap.append(theta)
        theta = theta * F(F(10000.0) ** F(-2 / 128))
    extrap = np.array(extrap, dtype=F)
    interp = F(0.25) * extrap
    assert angles[:21].tolist() == extrap[:21].tolist()
    assert angles[46:].tolist() == interp[46:].tolist()
    assert angles[33] == interp[33] * F(0.5) + extrap[33] * F(0.5)
    assert interp[21] < angles[21] < extrap[21] and interp[45] < angles[45] < extrap[45]


def test_positions_up_to_2_to_the_24_minus_1_and_no_further():
    """ggml's float positions are exact below 2^24: the last one allowed is 2^24 - 1."""
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=16))
    (last,) = ggml_cache_blocks(CacheSpec(freqs, 2, start=(1 << 24) - 2, part="cos"))
    assert last.shape == (2, 16)
    assert ggml_angles(freqs, np.array([(1 << 24) - 1]))[0, 0] == 16777215.0
    for start, n in (((1 << 24) - 1, 2), (1 << 24, 1)):
        with pytest.raises(ParameterError, match="2\\^24"):
            ggml_cache_blocks(CacheSpec(freqs, n, start=start))


@pytest.mark.parametrize("rows", [-1, 2.5])
def test_a_bad_block_height_is_refused_at_the_call_by_every_cache(rows):
    """rows=-1 gave llama.cpp's and transformers' caches no block at all (an empty cache,
    silently) and the exact one a ValueError mid-iteration; table_blocks refuses it. Every
    cache takes its rows from one CacheSpec, which refuses them when it is made."""
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=16))
    with pytest.raises(ParameterError, match="rows must be an integer from 1") as caught:
        CacheSpec(freqs, 4, rows=rows)  # no cache function reached: refused before any block
    assert caught.value.parameter == "rows"
    with pytest.raises(ParameterError, match="rows must be"):
        CacheSpec(freqs, 2, rows=-1, positions=np.array([0.5, 1.5]))


@pytest.mark.parametrize(("original", "refused"), [(10**38, False), (10**39, True)])
def test_a_yarn_factor_whose_float32_inverse_overflows_is_refused(original, refused):
    """YaRN's factor from the lengths, ``max / original``: 1e-38 or 1e-39. ggml's
    ``freq_scale = 1/factor`` is float32, whose largest value is 3.4028235e38 (IEEE 754
    binary32): 1e38 is one, 1e39 overflows to infinity and is refused as the factor's fault."""
    spec = RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=4,
        max_position_embeddings=1,
        original_max_position_embeddings=original,
    )
    freqs = rope_frequencies(spec)
    if not refused:
        assert np.isfinite(ggml_angles(freqs, np.array([0, 1]))).all()
        return
    with pytest.raises(ParameterError) as caught:
        ggml_angles(freqs, np.array([0, 1]))
    assert caught.value.parameter == "factor"
    assert "must be at least 3e-39" in str(caught.value)  # 1/3e-39 < 3.4028235e38: finite
