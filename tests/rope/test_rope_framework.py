"""``rope cache --arithmetic transformers``: transformers' float32 steps, against its own output."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from library_fixtures import load
from safetensors import safe_open

from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, cache_blocks
from pecli.core.rope.config import spec_from_config
from pecli.core.rope.framework import (
    float32_cache_blocks,
    framework_cache_blocks,
    transformers_inv_freq,
)

FIXTURES = {f.name: f for f in load("rope")}
#: Fixtures whose inv_freq pecli's float32 steps give bit for bit.
BIT_EXACT = [
    "default",
    "linear",
    "llama31",
    "partial_05",
    "partial_025",
    "deepseek_yarn",
    "yarn_mscale",
    "yarn_attention_factor",
    "yarn_factor_below_1",
    "llama3_bands",
]
#: …and those whose cache takes torch's cos/sin (1 ulp) times an attention factor (1 more).
#: …and those kept for their inv_freq: yarn's degenerate and clamped correction ranges.
INV_BIT_EXACT = [
    *BIT_EXACT,
    "yarn_factor_null",
    "yarn_mscale_alone",
    "yarn_degenerate",
    "yarn_high_clamp",
    "yarn_mscale_all_dim",
    "no_theta",
    "partial_both",
]
#: …and those where torch's CPU pow (within 1 ulp, not correctly rounded) differs in a pair.
POW_ULP = ["qwen_yarn", "gptoss_yarn"]


def _spec(name: str) -> RopeSpec:
    return spec_from_config(FIXTURES[f"{name}_inv_freq"].params["config"])[0]


@pytest.mark.parametrize("name", INV_BIT_EXACT)
def test_inv_freq_is_transformers_bit_for_bit(name):
    ours = transformers_inv_freq(_spec(name))
    assert ours.dtype == np.float32
    assert np.array_equal(ours.view(np.int32), FIXTURES[f"{name}_inv_freq"].table.view(np.int32))


@pytest.mark.parametrize("name", POW_ULP)
def test_inv_freq_differs_at_most_by_torch_s_pow_ulp(name):
    ulps = ulps32(transformers_inv_freq(_spec(name)), FIXTURES[f"{name}_inv_freq"].table)
    assert ulps.max() == 1 and np.count_nonzero(ulps) <= 2


def _cache(name: str, part: str, blocks) -> np.ndarray:
    freqs = rope_frequencies(_spec(name))
    fixture = FIXTURES[f"{name}_{part}"]
    return np.concatenate(
        [next(blocks(CacheSpec(freqs, 1, start=p, part=part))) for p in fixture.params["positions"]]
    )


@pytest.mark.parametrize("part", ["cos", "sin"])
@pytest.mark.parametrize("name", BIT_EXACT)
def test_cache_is_within_one_ulp_of_transformers_where_exact_is_not(name, part):
    fixture = FIXTURES[f"{name}_{part}"].table
    ours = _cache(name, part, framework_cache_blocks)
    ulps = ulps32(ours, fixture)
    assert ulps.max() <= 1 and np.count_nonzero(ulps) < 0.2 * ulps.size  # torch's cos/sin: 1 ulp
    exact = _cache(
        name, part, lambda spec: cache_blocks(dataclasses.replace(spec, dtype="float64"))
    )
    assert np.abs(exact - fixture).max() > 100 * np.abs(ours.astype(np.float64) - fixture).max()


def test_float32_angles_are_what_positions_past_2_24_round_to():
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=4))
    block = next(
        framework_cache_blocks(CacheSpec(freqs, 2, start=2**24, part="sin", dtype="float64"))
    )
    assert block[0, 0] == block[1, 0]  # position 2^24 + 1 is 2^24 in float32
    assert block[0, 0] == float(np.float32(math.sin(2**24)))  # sin of it, rounded to float32


@pytest.mark.parametrize("rows", [1, 3])
def test_blocks_of_any_height_go_on_from_where_the_last_stopped(rows):
    fixture = FIXTURES["default_sin"]  # transformers' own rows at positions 0, 1, 2, 3, 100, …
    assert fixture.params["positions"][:4] == [0, 1, 2, 3]
    freqs = rope_frequencies(_spec("default"))
    ours = np.concatenate(list(framework_cache_blocks(CacheSpec(freqs, 4, part="sin", rows=rows))))
    assert ulps32(ours, fixture.table[:4]).max() <= 1


def test_positions_up_to_2_53_and_not_past_it():
    freqs = rope_frequencies(RopeSpec(theta=10000.0, head_dim=4))
    last = next(
        framework_cache_blocks(CacheSpec(freqs, 2, start=2**53 - 2, part="cos"))
    )  # 2^53 − 1 last
    # float32 positions (spaced 2^30 there): 2^53 − 2 and 2^53 − 1 are both 2^53, so both rows
    # are cos(2^53 · ω) for transformers' float32 ω = 1 and 0.01, half-split (mpmath, exact)
    with mpmath.workdps(40):
        row = [float(mpmath.cos(mpmath.mpf(float(np.float32(w))) * 2**53)) for w in (1.0, 0.01)]
    row *= 2
    assert ulps32(last, np.array([row, row], np.float32)).max() <= 1
    for start, n in ((2**53 - 1, 2), (-(2**53), 1)):  # |start| + n = 2^53 + 1
        with pytest.raises(ParameterError, match="start"):
            framework_cache_blocks(CacheSpec(freqs, n, start=start))


def test_other_rope_types_are_refused_naming_the_option(run_cli):
    with pytest.raises(ParameterError, match="arithmetic"):
        transformers_inv_freq(
            RopeSpec(rope_type="dynamic", factor=2.0, max_position_embeddings=4096)
        )
    result = run_cli(
        "rope",
        "cache",
        "--rope-type",
        "longrope",
        "--arithmetic",
        "transformers",
        "--short-factor",
        "1,1",
        "--long-factor",
        "2,2",
        "--head-dim",
        "4",
        "--factor",
        "2",
        "--original-max-position-embeddings",
        "4096",
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("pecli rope cache: error: Invalid value for '--arithmetic'")


def test_cli_writes_the_framework_cache_and_says_so(run_cli, tmp_path):
    args = [
        "--rope-type",
        "llama3",
        "--theta",
        "500000",
        "--factor",
        "8",
        "--low-freq-factor",
        "1",
        "--high-freq-factor",
        "4",
        "--original-max-position-embeddings",
        "8192",
        "--n",
        "9",
        "--start",
        "8183",
        "--arithmetic",
        "transformers",
    ]
    for name in ("c.npy", "c.safetensors"):
        assert run_cli("rope", "cache", *args, "-o", str(tmp_path / name)).exit_code == 0
    table = np.load(tmp_path / "c.npy")
    with safe_open(tmp_path / "c.safetensors", framework="numpy") as handle:
        cos, meta = handle.get_tensor("cos"), handle.metadata()
    assert meta["arithmetic"] == "transformers" and np.array_equal(cos, table[:, :128])
    row = FIXTURES["llama31_cos"].params["positions"].index(8191)
    assert ulps32(table[-1, :128], FIXTURES["llama31_cos"].table[row]).max() <= 1


def test_a_cache_with_no_rotated_pairs_is_one_block_of_empty_rows():
    """``rotary_dim`` 0 (no pair rotated): the n rows come out as one block, 0 columns wide.

    The block height is ``BLOCK_CELLS // pairs`` with pairs counted as at least 1, so zero
    pairs must neither divide by zero nor split the rows: 5 rows, ``cos`` and ``sin``
    (2·0 columns), in a single ``(5, 0)`` float32 block.
    """
    form = ("half-split", np.dtype(np.float32), "both")
    blocks = list(
        float32_cache_blocks(
            lambda a, b: np.zeros((b - a, 0), np.float32), 5, 0, np.float32(1), form
        )
    )
    assert [(b.shape, b.dtype) for b in blocks] == [((5, 0), np.dtype(np.float32))]


def test_a_row_wider_than_a_block_comes_out_one_row_at_a_time():
    """More pairs than ``BLOCK_CELLS`` (2**20) cells: each block is still at least one row.

    ``2**20 + 1`` pairs, 2 positions, ``cos`` in half-split: two blocks of one row each,
    ``2·(2**20 + 1)`` columns, all ``cos 0 = 1``.
    """
    pairs = (1 << 20) + 1
    form = ("half-split", np.dtype(np.float32), "cos")
    blocks = list(
        float32_cache_blocks(
            lambda a, b: np.zeros((b - a, pairs), np.float32), 2, pairs, np.float32(1), form
        )
    )
    assert [b.shape for b in blocks] == [(1, 2 * pairs)] * 2
    assert all(np.all(b == 1) for b in blocks)


def test_llama3_s_medium_band_takes_a_wavelength_equal_to_its_high_edge():
    """transformers' llama3 smooths a pair whose wavelength is the high edge (``~(wavelen <
    high_freq_wavelen)``). L 8192, low 1, high 7, factor 8: the edge is float32(8192/7) =
    1170.2858, and the pair of base power 186.25676 has float32(2π)/(1/186.25676) exactly
    that. Its smooth factor (8192/1170.2858 − 1)/6 rounds to 1 − 2^-24, so it gets
    inv·(1 − 2^-24) + inv·2^-24/8 with inv = 0.0053689326 in [2^-8, 2^-7) (ulp 2^-31):
    inv·2^-24 is 0.69 ulp, inv·2^-27 0.09 ulp, hence inv's float32 predecessor — not inv,
    which a pair outside both bands keeps."""
    from types import SimpleNamespace

    from pecli.core.rope import float32_formulas

    pos = np.float32([186.25676])
    inv = np.float32(1) / pos
    assert np.float32(2 * math.pi) / inv == np.float32(8192 / 7) == np.float32(1170.2858)
    assert (np.float32(8192) / np.float32(8192 / 7) - 1) / 6 == np.float32(1 - 2**-24)
    fields = dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=7.0)
    spec = SimpleNamespace(**fields, original_max_position_embeddings=8192)
    out = float32_formulas.llama3(spec, pos)
    assert out[0] == np.nextafter(inv[0], np.float32(0)) == np.float32(0.005368932)
