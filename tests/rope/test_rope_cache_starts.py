"""``rope identify`` reads caches that do not start at position 0 (issue 22, "found").

transformers' own float32 caches (tests/fixtures/libraries/rope_starts/, made by
``LlamaRotaryEmbedding`` / ``PhiRotaryEmbedding.forward`` on consecutive position ids by
tools/library_fixtures/generate_rope_starts.py) were read as "unknown, θ = 9993.46,
per-pair factors (longrope?)" with the first position undetermined; pecli's own caches from
position ~10^5 on lost their first position. The expected values are each fixture's own call
(first position, rope_theta, rope type and its fields).
"""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest
from library_fixtures import load
from safetensors.numpy import save_file

from pecli.analysis.rope.cache import identify_cache
from pecli.core.rope import RopeSpec
from pecli.core.rope.framework import transformers_inv_freq

FIXTURES = {f.name: f for f in load("rope_starts")}
CASES = sorted({name.rsplit("_", 1)[0] for name in FIXTURES})


def cache(case: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """The module's cos and sin, both halves (the fixture keeps one: they are equal)."""
    cos, sin = FIXTURES[f"{case}_cos"], FIXTURES[f"{case}_sin"]
    return np.hstack([cos.table] * 2), np.hstack([sin.table] * 2), cos.params


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("given", [False, True], ids=["start-found", "positions-given"])
def test_transformers_float32_caches_from_any_start(case, given):
    cos, sin, params = cache(case)
    start, rope = params["start"], params["config"]["rope_parameters"]
    positions = np.arange(start, start + len(cos)) if given else None
    guess = identify_cache(cos, sin, positions=positions)
    assert guess.start == start
    assert guess.layout == "half-split" and guess.attention_factor == 1.0
    assert guess.rotary_dim == params["rotary_dim"]
    assert guess.rope is not None and guess.rope.rope_type == rope["rope_type"]
    assert guess.theta == rope["rope_theta"]
    if rope["rope_type"] == "llama3":
        assert guess.rope.parameters["factor"] == rope["factor"]
        assert guess.rope.parameters["high_freq_factor"] == rope["high_freq_factor"]
        expected = rope["original_max_position_embeddings"]
        assert guess.rope.parameters["original_max_position_embeddings"] == expected


@pytest.mark.parametrize("case", CASES)
def test_cli_reads_them_from_a_safetensors_dump(run_cli, tmp_path, case):
    cos, sin, params = cache(case)
    save_file({"cos": cos, "sin": sin}, str(tmp_path / "c.safetensors"))
    result = run_cli("rope", "identify", str(tmp_path / "c.safetensors"), "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["start"] == params["start"]
    assert found["theta"] == params["config"]["rope_parameters"]["rope_theta"]


@pytest.mark.parametrize("start", [200000, 1_000_003, 10_000_000, 16_770_000])
@pytest.mark.parametrize("arithmetic", ["exact", "transformers"])
def test_pecli_caches_from_far_starts(run_cli, tmp_path, start, arithmetic):
    """The issue's command: ``rope cache --start 200000 … && rope identify`` gives the start."""
    out = str(tmp_path / "c.npy")
    args = ["--theta", "10000", "--head-dim", "64", "--start", str(start), "--n", "4096"]
    made = run_cli("rope", "cache", *args, "--arithmetic", arithmetic, "-o", out, "-q")
    assert made.exit_code == 0, made.output
    result = run_cli("rope", "identify", out, "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert (found["start"], found["theta"], found["rope_type"]) == (start, 10000.0, "default")


@pytest.mark.parametrize("theta", [10001.0, 12345.0, 750000.0])
@pytest.mark.parametrize("arithmetic", ["transformers", "float64 inv_freq"])
def test_thetas_that_are_not_round_and_inv_freq_rounded_once(theta, arithmetic):
    """θ = 10001 is not snapped to 10000: a reading is kept only if it rebuilds every row.

    The angles are float32 products of float32 positions and a float32 ``inv_freq``: the one
    transformers computes, or the exact one rounded once (code that computes it in float64).
    """
    spec = RopeSpec(theta=theta, head_dim=64)
    if arithmetic == "transformers":
        inv = transformers_inv_freq(spec)
    else:
        inv = np.array(
            [float(1 / mpmath.mpf(theta) ** (mpmath.mpf(i) / 32)) for i in range(32)], np.float32
        )
    angle = np.arange(300000, 302048, dtype=np.float32)[:, None] * inv[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    guess = identify_cache(np.hstack([cos, cos]), np.hstack([sin, sin]))
    assert (guess.start, guess.theta) == (300000, theta)


def test_float32_pow_inv_freq_is_left_undetermined_not_misread():
    """``θ ** x`` in float32 differs from both readings in a few ulps: no start rather than a
    wrong one (a limit, documented in docs/rope.md)."""
    x = np.arange(0, 64, 2, dtype=np.float32) / np.float32(64)
    inv = (np.float32(1) / np.power(np.float32(10000), x)).astype(np.float32)
    angle = np.arange(300000, 302048, dtype=np.float32)[:, None] * inv[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    guess = identify_cache(np.hstack([cos, cos]), np.hstack([sin, sin]))
    assert guess.start in (None, 300000)


def test_a_short_cache_tries_tighter_readings_of_theta():
    """256 rows at 3·10^6 measure ω to ~1e-4: the first reading rounds θ = 10010 to 10000,
    which the rows refuse; a 10 times tighter one reads 10010, which they accept."""
    inv = transformers_inv_freq(RopeSpec(theta=10010.0, head_dim=64))
    angle = np.arange(3_000_000, 3_000_256, dtype=np.float32)[:, None] * inv[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    guess = identify_cache(np.hstack([cos, cos]), np.hstack([sin, sin]))
    assert (guess.start, guess.theta) == (3_000_000, 10010.0)


def test_the_slowest_pairs_phase_gives_the_first_position_without_the_fallbacks():
    """s = 5000, θ 10000, 8 pairs: φ_i = s·ω_i wrapped into (−π, π] (by hand, float64); the
    slowest pair's φ/ω = 1.58/3.16e-4 is s at once, the next pairs (8.9 rad and more: wrapped)
    only refine it (the CRT and float32 fallbacks are not needed)."""
    from pecli.analysis.rope.phases import _start

    omega = 10000.0 ** (-np.arange(8) / 8)
    phi0 = np.angle(np.exp(1j * 5000 * omega))
    assert _start(phi0, omega, 1e-12 * omega, 1e-9) == 5000


def test_a_start_the_slowest_pair_leaves_in_doubt_by_a_turn_is_not_guessed():
    """ω = 0.01 (error 0.99e-4) and 2π/11 (exact), phases of 605.8 and 600 (float64, by
    hand). The slow pair gives s = 605.8 ± 5.94, which at ω = 2π/11 is ± 3.4 rad, more than
    π: 600 and 611 both fit each pair within its error (611·0.01 − 6.058 = 0.052 rad), so
    no start is given. With the slow pair 100 times better (± 0.06) s = 600 is certain; at
    ± 2.52 and ω = 0.52 (± 1.31 rad, below π/2), a slow phase of 601 is resolved to 600."""
    from pecli.analysis.rope.phases import _start

    omega = np.array([0.01, 2 * np.pi / 11])
    phi0 = np.angle(np.exp(1j * np.array([605.8 * 0.01, 600 * omega[1]])))
    assert _start(phi0, omega, np.array([0.99e-4, 1e-12]), 1e-9) is None
    exact = np.angle(np.exp(1j * 600 * omega))
    assert _start(exact, omega, np.array([0.99e-6, 1e-12]), 1e-9) == 600
    omega = np.array([0.01, 0.52])
    phi0 = np.angle(np.exp(1j * np.array([601 * 0.01, 600 * 0.52])))
    assert _start(phi0, omega, np.array([4.2e-5, 1e-12]), 1e-9) == 600


def _stepped(x: float, k: int) -> np.float32:
    """``x`` moved ``k`` float32 numbers up (down for ``k < 0``), by ``nextafter``."""
    y = np.float32(x)
    for _ in range(abs(k)):
        y = np.nextafter(y, np.float32(np.inf if k > 0 else -np.inf))
    return y


@pytest.mark.parametrize(("up", "expected"), [(4, 4), (-4, -4), (5, 4), (-6, -4)])
def test_a_port_within_four_float32_steps_of_the_model_is_read_exactly(up, expected):
    """docs/multiaxis.md: a faithful port's ``ω`` may be any float32 within 4 steps of the model's.

    The port's angles are ``fl32(fl32(s + r)·ω)`` at s = 100000 (each step of ``ω`` moves them
    by more than a float32 ulp there); a port 5 or 6 steps off is read at the nearest allowed
    step, 4, never past it.
    """
    from pecli.analysis.rope.start import nearest_port

    model = np.array([1.0, 0.01], np.float32)
    port = np.array([_stepped(1.0, up), _stepped(0.01, -3)], np.float32)
    rows = np.arange(64)
    p = np.float32(100000) + rows.astype(np.float32)
    phases = np.angle(np.exp(1j * (p[:, None] * port[None, :]).astype(np.float64)))
    picked = nearest_port(phases, rows, 100000, model)
    assert picked.tolist() == [float(_stepped(1.0, expected)), float(_stepped(0.01, -3))]


@pytest.mark.parametrize("first", [10.5, 10.25])
def test_a_cache_between_whole_positions_has_no_first_position(first):
    """cos and sin of p·ω in float64, θ 10000, 8 channels, p = first, first + 1, …: the rows
    are consecutive, but no whole start fits: the fastest pair (ω = 1) misses 10 and 11 by
    ≥ 0.25 rad, far beyond the rounding allowed. θ is still read; the start is left open."""
    omega = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    angles = np.outer(first + np.arange(64), omega)
    angles = np.concatenate([angles, angles], axis=1)  # half-split
    guess = identify_cache(np.cos(angles), np.sin(angles))
    assert guess.start is None and guess.theta == 10000.0
    assert any("first position is not determined" in f for f in guess.findings)
    whole = np.outer(10 + np.arange(64), omega)  # the same from p = 10: start 10
    whole = np.concatenate([whole, whole], axis=1)
    assert identify_cache(np.cos(whole), np.sin(whole)).start == 10


def test_three_pairs_are_enough_for_a_float32_cache_far_out():
    """head_dim 6 (3 pairs, the fewest that fit θ), θ 10000: transformers' float32 inv_freq
    (1, 0.0464, 0.00215) times float32 positions 300000 … 302047, cos and sin in float32.
    The float32 reading of the start needs θ fitted, which 3 pairs allow: start 300000."""
    inv = transformers_inv_freq(RopeSpec(theta=10000.0, head_dim=6))
    angle = np.arange(300000, 302048, dtype=np.float32)[:, None] * inv[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    guess = identify_cache(np.hstack([cos, cos]), np.hstack([sin, sin]))
    assert (guess.start, guess.theta, guess.rotary_dim) == (300000, 10000.0, 6)


def test_two_exact_pairs_pin_a_first_position_far_from_0():
    """head_dim 4, θ 10000: ω = 1 and 0.01, cos + i·sin of (123457 + r)·ω in float64 for rows
    r = 0 … 63 (by hand), ω known to 10^-15: the two pairs' phases agree on one start in
    0 … 2^24, 123457 (the slow pair alone has turned 1234 rad: it cannot say). A third pair
    known only to 2·10^-3 of its ω (not below the 10^-3 that counts) is left out, whatever
    its phase (here a constant 0.5 rad, which fits no start)."""
    from pecli.analysis.rope.start import exact_start

    omega, rows = np.array([1.0, 0.01]), np.arange(64)
    z = np.exp(1j * np.outer(123457 + rows, omega))
    assert exact_start(z, rows, omega, 1e-15 * omega, 2.0**-49) == 123457
    loose = np.column_stack([z, np.full(64, np.exp(0.5j))])
    omega, err = np.append(omega, 1e-4), np.append(1e-15 * omega, 2e-7)
    assert exact_start(loose, rows, omega, err, 2.0**-49) == 123457


def test_a_start_one_pair_pins_only_to_a_few_positions_is_not_guessed():
    """One usable pair, ω = 0.01 ± 5e-5, phase 6.0 rad (600·ω, by hand). Its phase pins the
    start only to 600 ± 600·5e-5/0.01 = ± 3 positions: 597 … 603 all reproduce the phase
    within its error (|k·0.01| ≤ 0.03 rad), so no start is given, though 600 fits exactly.
    With the error 100 times smaller (± 0.03 positions) the start is 600."""
    from pecli.analysis.rope.phases import _start

    omega, phi0 = np.array([0.01]), np.array([6.0])
    assert _start(phi0, omega, np.array([5e-5]), 1e-9) is None
    assert _start(phi0, omega, np.array([5e-7]), 1e-9) == 600


def test_a_pair_known_to_half_its_value_is_not_used_for_the_start():
    """ω = 0.001 ± 5e-4 (half its value: it pins no position) and 0.01 ± 1e-12, phases 0.6
    and 6.0 rad (600·ω, by hand). The slow pair would give 600 ± 300, too wide for the next
    pair to resolve (300·0.01 = 3 rad > π/2): it is skipped, and the exact pair alone gives
    600 ± 1e-7 (6.0 < 2π: no turn to resolve)."""
    from pecli.analysis.rope.phases import _start

    omega, phi0 = np.array([0.001, 0.01]), np.array([0.6, 6.0])
    assert _start(phi0, omega, np.array([5e-4, 1e-12]), 1e-9) == 600


@pytest.mark.parametrize(("misses", "start"), [(7.5, 600), (8.5, None)])
def test_a_pair_missing_the_start_by_more_than_8_of_its_errors_refuses_it(misses, start):
    """ω = 0.01 and 0.5, each ± 1e-6, phases 600·ω (by hand) but the fast pair's moved by
    ``misses``·(ε + 600·1e-6): the slow pair gives 600 ± 0.06, the fast one refines it to 600
    (its move is 0.01 positions). A phase may miss by 8 of its errors (cos and sin rounded,
    as ROW_TOLERANCE): 7.5 keeps 600, 8.5 gives no start."""
    from pecli.analysis.rope.phases import _start

    omega, eps = np.array([0.01, 0.5]), 1e-9
    phi0 = np.angle(np.exp(1j * (600 * omega + [0.0, misses * (eps + 600e-6)])))
    assert _start(phi0, omega, np.full(2, 1e-6), eps) == start
