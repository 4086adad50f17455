"""Identify reads any faithfully rounded float32 port (issue 32, "identify breaks").

Each engine's float32 ``pow`` may round an ``inv_freq`` to either float32 neighbour of the
exact value: NumPy's gives ``inv_freq[5] = 0.23713739`` for θ 10000, head 64, where torch's
module gives 0.23713736. A cache at positions 5000 … 7047 built that way (the NumPy port below,
written here, not pecli's arithmetic) was read as "θ 9955, start unknown, per-pair factors".
The other cache takes, for every pair, the float32 neighbour of the exact value (mpmath) that
round-to-nearest does NOT pick: still faithful (within 1 ulp), never anybody's default.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from library_fixtures import load

from pecli.analysis.multiaxis.identify import cache_pairs, identify_axes
from pecli.analysis.rope.cache import identify_cache
from pecli.core.multiaxis.cache import AxesSpec, axes_cache

THETA, DIM, FIRST, ROWS = 10000, 64, 5000, 2048


def numpy_port_inv_freq() -> np.ndarray:
    """``1 / θ^(arange(0, d, 2) / d)`` in float32 with NumPy's own ``power``."""
    exponent = np.arange(0, DIM, 2, dtype=np.float32) / np.float32(DIM)
    return np.float32(1) / np.power(np.float32(THETA), exponent)


def other_neighbour_inv_freq() -> np.ndarray:
    """Per pair, the float32 neighbour of the exact ``θ^(-2i/d)`` that is not the nearest."""
    mpmath.mp.prec = 100
    out = []
    for i in range(DIM // 2):
        exact = mpmath.power(THETA, mpmath.mpf(-2 * i) / DIM)
        near = np.float32(float(exact))
        if mpmath.mpf(float(near)) == exact:  # exact (i = 0): keep it
            out.append(near)
            continue
        side = np.float32(np.inf) if mpmath.mpf(float(near)) < exact else np.float32(-np.inf)
        out.append(np.nextafter(near, side))
    return np.array(out, np.float32)


def float32_cache(inv_freq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """transformers' arithmetic: float32 positions times float32 ω, cos/sin of float32 angles."""
    positions = np.arange(FIRST, FIRST + ROWS, dtype=np.float32)
    angles = positions[:, None] * inv_freq[None, :]
    emb = np.concatenate([angles, angles], axis=1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def test_numpy_pow_differs_from_torch_at_pair_5():
    # the numbers: torch's module gives 0.23713736 (the correctly rounded value)
    assert numpy_port_inv_freq()[5] == np.float32(0.23713739)
    assert other_neighbour_inv_freq()[5] != np.float32(float(mpmath.power(THETA, -10 / 64)))


@pytest.mark.parametrize("port", [numpy_port_inv_freq, other_neighbour_inv_freq])
def test_faithful_float32_ports_are_read_with_their_start_and_theta(port):
    guess = identify_cache(*float32_cache(port()))
    assert guess.start == FIRST
    assert guess.rope is not None and guess.rope.rope_type == "default"
    assert guess.theta == THETA and guess.rotary_dim == DIM


# transformers' own M-RoPE caches (tests/fixtures/libraries/arithmetic/, written by
# tools/library_fixtures/generate_arithmetic.py: Qwen*VLTextRotaryEmbedding(config)(x, ids) in
# transformers 5.25.0, torch 2.13.0+cpu, once per ATen CPU capability). On avx2 torch's pow is
# SLEEF's: inv_freq[19] of Qwen3-VL is 0.010262267, the scalar pow's 0.010262266, so the avx2
# cache was "(e) the position ids differ" for the very preset that made it.
ARITHMETIC = {f.name: f for f in load("arithmetic")}
VL_CACHES = sorted(
    name.removesuffix("_cos")
    for name in ARITHMETIC
    if name.endswith("_cos") and name.split("_")[0] in ("qwen2-vl", "qwen2.5-vl", "qwen3-vl")
)


@pytest.mark.parametrize("case", VL_CACHES)
def test_identify_axes_matches_transformers_cache_on_every_capability(case):
    preset = case.split("_")[0]
    cos, sin = (ARITHMETIC[f"{case}_{part}"].table for part in ("cos", "sin"))
    ids = ARITHMETIC[f"{preset}_default_ids"].table.T.astype(np.float64)
    head_dim = ARITHMETIC[f"{case}_cos"].params["head_dim"]
    cache = cache_pairs({"cos": cos, "sin": sin})  # float64 pairs, stored as the fixture's dtype
    found = identify_axes(cache, preset=preset, head_dim=head_dim, ids=ids, grid=None, text=0)
    verdict = found.verdicts[preset]
    assert verdict.matches, verdict.differences
    assert verdict.arithmetic == "float32"


def test_the_avx2_inv_freq_is_the_other_neighbour_of_the_exact_value():
    mpmath.mp.prec = 100
    exact = mpmath.power(5e6, mpmath.mpf(-38) / 128)
    below, above = (ARITHMETIC[f"qwen3-vl_{c}_inv_freq"].table[19] for c in ("default", "avx2"))
    assert mpmath.mpf(float(below)) < exact < mpmath.mpf(float(above))
    assert np.nextafter(below, np.float32(1)) == above


@pytest.mark.parametrize("case", VL_CACHES)
def test_arithmetic_model_is_transformers_within_two_ulps(case):
    """``--arithmetic model`` (float32 steps) against the module's own cos/sin, every capability.

    The scalar pow gives the model's inv_freq bit for bit; SLEEF's (avx2) one pair one ulp
    off, which moves those angles by at most p·ulp: the bound is then per pair the nearest
    float32 ω, as identify-axes allows (2 ulps of cos and sin either way).
    """
    from pecli.core.dtypes import ulps32
    from pecli.core.multiaxis.cache import model_frequencies
    from pecli.core.multiaxis.resolve import resolve_plan

    preset, capability = case.split("_")
    plan, _ = resolve_plan(preset, head_dim=ARITHMETIC[f"{case}_cos"].params["head_dim"])
    theirs = ARITHMETIC[f"{case}_inv_freq"].table
    ours = model_frequencies(plan, np.float32)
    assert ulps32(ours, theirs).max() <= (0 if capability == "default" else 1)
    if capability == "default":
        ids = ARITHMETIC[f"{preset}_default_ids"].table.T.astype(np.float64)
        cos, sin = (
            axes_cache(AxesSpec(plan, ids, form="full", part=p, arithmetic="float32"))
            for p in ("cos", "sin")
        )
        assert ulps32(cos, ARITHMETIC[f"{case}_cos"].table).max() <= 2
        assert ulps32(sin, ARITHMETIC[f"{case}_sin"].table).max() <= 2


def hunyuan_port(neighbour: bool) -> np.ndarray:
    """HunyuanVideo's cache written out in float32 (θ 256, axes 16/56/56 channels, interleaved).

    ``neighbour``: the h axis's ``inv_freq[1]`` takes the other float32 neighbour of the exact
    256^(-2/56) = 0.820335356…: 0.8203353 where NumPy's pow gives 0.8203354 (both within
    0.54 ulp), as another engine's pow may.
    """
    grid = np.meshgrid(np.arange(4), np.arange(6), np.arange(6), indexing="ij")
    ids = np.stack(grid, -1).reshape(-1, 3).astype(np.float32)
    angles = []
    for axis, width in enumerate((16, 56, 56)):
        k = np.arange(0, width, 2, dtype=np.float32)
        inv = np.float32(1) / np.power(np.float32(256.0), k / np.float32(width))
        if axis == 1 and neighbour:
            inv[1] = np.float32(0.8203353) if inv[1] != np.float32(0.8203353) else inv[1]
        angles.append(ids[:, axis : axis + 1] * inv[None, :])
    emb = np.repeat(np.concatenate(angles, 1).astype(np.float32), 2, axis=1).astype(np.float64)
    return np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(np.float32)


@pytest.mark.parametrize("neighbour", [False, True])
def test_identify_axes_reads_a_hunyuanvideo_port_with_either_neighbour(
    run_cli, tmp_path, neighbour
):
    exact = mpmath.power(256, mpmath.mpf(-2) / 56)
    assert abs(mpmath.mpf(float(np.float32(0.8203353))) - exact) < mpmath.mpf(2) ** -24 * 0.54
    assert abs(mpmath.mpf(float(np.float32(0.8203354))) - exact) < mpmath.mpf(2) ** -24 * 0.54
    np.save(tmp_path / "port.npy", hunyuan_port(neighbour))
    result = run_cli(
        "rope",
        "identify-axes",
        str(tmp_path / "port.npy"),
        "--preset",
        "hunyuanvideo",
        "--grid",
        "4x6x6",
    )
    assert result.exit_code == 0, result.output
    assert "hunyuanvideo: matches (float32 arithmetic)" in result.output
