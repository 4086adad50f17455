"""pecli diff names the causes issue 32 lists, each difference made here without pecli.

The exact reference caches are transformers' formula in float64 written out here
(``inv_freq = 1/θ^(2i/d)``, ``[cos | sin]`` half-split), rounded once to float32. The framework
caches are the libraries' own or written here: transformers' ``LlamaRotaryEmbedding`` from
tests/fixtures/libraries/rope_starts/ (transformers 5.24.0, each fixture's ``call``), and
llama.cpp's ggml loop (``theta *= theta_scale`` pair by pair, in float32) ported below from
ggml-cpu's ``ggml_rope_cache_init``. Each test failed before the causes package: the report
said "none of the known mistakes explains it" (or named a wrong cause: "θ differs").
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from library_fixtures import load

STARTS = {f.name: f for f in load("rope_starts")}


def inv_freq(theta: float = 10000.0, d: int = 64, over: int | None = None) -> np.ndarray:
    """``1/θ^(2i/over)`` for the ``d/2`` pairs (``over`` = d unless a port divides by more)."""
    return 1.0 / theta ** (np.arange(0, d, 2) / (over or d))


def cache(inv: np.ndarray, n: int = 2048, start: int = 0, layout: str = "half-split") -> np.ndarray:
    freqs = np.outer(np.arange(start, start + n, dtype=np.float64), inv)
    emb = np.concatenate([freqs, freqs], 1) if layout == "half-split" else np.repeat(freqs, 2, 1)
    return np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(np.float32)


def report(run_cli, tmp_path, a: np.ndarray, b: np.ndarray, *options: str) -> dict:
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    result = run_cli(
        "diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json", *options
    )
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "case", ["llama_h32_from1000", "llama_h64_from5000", "llama_h64_from10000000"]
)
def test_transformers_float32_cache_against_the_exact_one(run_cli, tmp_path, case):
    cos, sin = STARTS[f"{case}_cos"], STARTS[f"{case}_sin"]
    theirs = np.hstack([cos.table, cos.table, sin.table, sin.table])
    start, dim = cos.params["start"], cos.params["rotary_dim"]
    theta = cos.params["config"]["rope_parameters"]["rope_theta"]
    ours = cache(inv_freq(theta, dim), n=len(theirs), start=start)
    found = report(run_cli, tmp_path, ours, theirs, "--start", str(start))
    assert found["transformations"] == ["arithmetic"], found["causes"]
    assert found["causes"][0].startswith("framework float32 arithmetic: the same RoPE")
    assert "transformers computes inv_freq and p·ω in float32" in found["causes"][0]


def ggml_cache(theta: float, d: int, start: int, n: int) -> np.ndarray:
    """llama.cpp's NEOX cache: ``θ_0 = p``, ``θ_{i+1} = θ_i · base^(-2/d)``, all float32."""
    f32 = np.float32
    scale = f32(math.pow(theta, -2.0 / d))  # powf(freq_base, -2.0f/n_dims)
    angles = np.empty((n, d // 2), np.float32)
    current = np.arange(start, start + n, dtype=np.float32)
    for i in range(d // 2):
        angles[:, i] = current
        current = (current * scale).astype(f32)
    emb = np.concatenate([angles, angles], 1).astype(np.float64)
    return np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(np.float32)


def test_ggml_float32_cache_against_the_exact_one(run_cli, tmp_path):
    ours = cache(inv_freq(10000.0, 128), n=4096, start=0)
    theirs = ggml_cache(10000.0, 128, 0, 4096)
    found = report(run_cli, tmp_path, ours, theirs)
    assert found["transformations"] == ["arithmetic"], found["causes"]
    assert found["causes"][0].startswith("ggml's float32 arithmetic")


def test_layout_and_start_at_once(run_cli, tmp_path):
    a = cache(inv_freq())
    b = cache(inv_freq(), start=1, layout="interleaved")  # rows 1…2048, interleaved
    found = report(run_cli, tmp_path, a, b)
    assert found["transformations"] == ["two-at-once"], found["causes"]
    assert found["causes"] == [
        "two mistakes at once: pair layout swapped (B's columns put in the half-split "
        "order), and first position off by 1: A's row 1 is B's row 0 (B starts 1 position "
        "later)"
    ]


def test_layout_and_start_at_once_on_tables_of_different_lengths(run_cli, tmp_path):
    """An offset alone is named between tables of different lengths; so is it beside a layout
    swap (B of 3000 rows from 300, interleaved, against A of 4096 from 0: no cause before)."""
    a = cache(inv_freq(), n=4096)
    b = cache(inv_freq(), n=3000, start=300, layout="interleaved")
    found = report(run_cli, tmp_path, a, b)
    assert found["transformations"] == ["two-at-once"], found["causes"]
    assert found["causes"][0].startswith(
        "two mistakes at once: pair layout swapped (B's columns put in the half-split order), "
        "and first position off by 300"
    )


def test_fp16_storage(run_cli, tmp_path):
    a = cache(inv_freq())
    found = report(run_cli, tmp_path, a, a.astype(np.float16), "--ulps", "0")
    assert "stored in fp16: B is A rounded once to float16" in found["causes"]


def test_exponent_over_head_dim_instead_of_the_rotated_width(run_cli, tmp_path):
    """Qwen3.6 in one engine: 64 of 256 channels rotated, the exponent divided by 256."""
    a = cache(inv_freq(1e7, 64))
    b = cache(inv_freq(1e7, 64, over=256))
    found = report(run_cli, tmp_path, a, b)
    assert found["transformations"] == ["exponent"], found["causes"]
    assert found["causes"][0].startswith(
        "exponent over head_dim instead of the rotated width: B's θ' = 56.234 = 1e+07^(1/4)"
    )


def test_partial_factor_applied_twice(run_cli, tmp_path):
    """partial_rotary_factor 0.25 of a 256-wide head: 64 channels; applied again: 16."""
    found = report(run_cli, tmp_path, cache(inv_freq(1e6, 64)), cache(inv_freq(1e6, 16)))
    assert found["transformations"] == ["rotated-width"], found["causes"]
    assert (
        "partial_rotary_factor applied twice in B (1/4 of the intended slice)"
        in (found["causes"][0])
    )


def test_full_head_rotated_where_a_slice_should_be(run_cli, tmp_path):
    found = report(run_cli, tmp_path, cache(inv_freq(1e6, 128)), cache(inv_freq(1e6, 32)))
    assert "the full head rotated in A where a slice should be" in found["causes"][0]


def pass_through(rotated: np.ndarray, head: int, at_end: bool) -> np.ndarray:
    """A full-head cache: the rotated channels' cos/sin and cos 1, sin 0 for the rest."""
    half = rotated.shape[1] // 2
    n, rest = len(rotated), head - half
    cos, sin = rotated[:, :half], rotated[:, half:]
    ones, zeros = np.ones((n, rest), np.float32), np.zeros((n, rest), np.float32)
    if at_end:
        return np.hstack([cos, ones, sin, zeros])
    return np.hstack([ones, cos, zeros, sin])


def test_slice_at_the_wrong_end(run_cli, tmp_path):
    rotated = cache(inv_freq(1e4, 32), n=256)
    a, b = pass_through(rotated, 128, True), pass_through(rotated, 128, False)
    found = report(run_cli, tmp_path, a, b)
    assert "rotated slice at the wrong end: A rotates channels 0…31 and passes the rest " in (
        " ".join(found["causes"])
    ), found["causes"]


def test_query_temperature_missing(run_cli, tmp_path):
    """Llama 4's temperature on q: 1 + β·ln(1 + ⌊(p + 1)/s⌋), here s = 64, β = 0.1."""
    a = np.random.default_rng(3).normal(size=(1024, 64)).astype(np.float32)  # q, one head
    p = np.arange(1024.0)
    tempered = (a * (1 + 0.1 * np.log1p(np.floor((p + 1) / 64)))[:, None]).astype(np.float32)
    found = report(run_cli, tmp_path, tempered, a)
    assert found["transformations"] == ["temperature"], found["causes"]
    assert found["causes"][0].startswith(
        "query temperature missing: A = B × 1 + β·ln(1 + ⌊(p + 1)/s⌋), s = 64, β = 0.1 "
    )


def test_attention_factor_on_one_side_only(run_cli, tmp_path):
    a = cache(inv_freq())
    b = a.copy()
    b[:, :64] = (b[:, :64] * np.float32(1.25)).astype(np.float32)
    found = report(run_cli, tmp_path, b, a)
    assert found["causes"] == [
        "attention factor on one side only: A's cos = 1.25 × B's, their sin equal (the "
        "factor belongs on both cos and sin, or on neither)"
    ]


def test_scaling_on_the_wrong_layer_type(run_cli, tmp_path):
    """Gemma 3: a sliding layer (θ 10^4, unscaled) took the full layers' linear factor 8."""
    found = report(run_cli, tmp_path, cache(inv_freq(1e4)), cache(inv_freq(1e4) / 8))
    assert "scaling applied to the wrong layer type" in found["causes"][0], found["causes"]


def test_the_layer_types_ropes_exchanged(run_cli, tmp_path):
    """A sliding layer's RoPE (θ 10^4) against a full one's (θ 10^6, linear 8)."""
    found = report(run_cli, tmp_path, cache(inv_freq(1e4)), cache(inv_freq(1e6) / 8))
    assert found["transformations"] == ["layer-type"], found["causes"]
    assert found["causes"][0].startswith(
        "scaling on the wrong layer type: A is a sliding-window layer's RoPE (θ 10000, "
        "unscaled), B a full-attention layer's (θ 1e+06, linear scaling)"
    )


@pytest.mark.parametrize("swap", [False, True])
def test_json_names_the_transformations(run_cli, tmp_path, swap):
    a, b = cache(inv_freq()), cache(inv_freq(), start=3)
    found = report(run_cli, tmp_path, *((b, a) if swap else (a, b)))
    assert found["transformations"] == ["start"]


def test_the_causes_table_of_porting_md_is_the_registry():
    """docs/porting.md's table lists every cause record, by name, in the registry's order."""
    import re
    from pathlib import Path

    from pecli.analysis.ports.causes import CAUSES

    text = (Path(__file__).parent.parent.parent / "docs" / "porting.md").read_text(encoding="utf-8")
    table = text[text.index("| cause | the test |") :].split("\n\n")[0].splitlines()[2:]
    assert [re.findall(r"`([^`]+)`", row)[0] for row in table] == [c.name for c in CAUSES]


def test_when_none_fits_the_report_lists_what_it_tried_and_the_closest(run_cli, tmp_path):
    """Three mistakes at once (layout, start, a factor): no record, but the layout is nearest."""
    a = cache(inv_freq())
    b = (cache(inv_freq(), start=1, layout="interleaved") * np.float32(1.25)).astype(np.float32)
    found = report(run_cli, tmp_path, a, b)
    assert found["causes"] == [] and found["transformations"] == []
    assert found["closest"].startswith(
        "closest: pair layout swapped (B's columns put in the half-split order), "
    )
    np.save(tmp_path / "b.npy", b)
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    assert (
        "none of the known mistakes explains it (tried: kind, convention, grid, transposed, "
        in result.output
    )
    assert "closest: pair layout swapped" in result.output


def _pair(ra: dict, rb: dict, a: np.ndarray | None = None, b: np.ndarray | None = None):
    from pecli.analysis.ports.causes.tables import Pair

    a = np.zeros((4, 8)) if a is None else a
    b = a if b is None else b
    return Pair(a=a, b=b, dtype="float32", ra=ra, rb=rb, whole_a=a, whole_b=b)


def test_round_bases_read_as_two_bases_not_as_a_head_width():
    """θ = 10^4 against 10^6 over 64 rotated channels: 10^4 = (10^6)^(2/3), so a head of
    64/(2/3) = 96 would fit, but both bases are round (≤ 3 significant digits), so the reading
    is "two bases" first and the exponent reading comes second, inside θ's sentence."""
    from pecli.analysis.ports.causes.readings import exponent_width, theta

    ra = {"kind": "cache", "theta": 1e4, "rotary_dim": 64, "rope_type": "default"}
    rb = {**ra, "theta": 1e6}
    assert exponent_width(_pair(ra, rb)) is None
    words = theta(_pair(ra, rb))
    assert words is not None and "θ = 10000" in words and "1e+06^(2/3)" in words, words


def test_float16_bases_two_percent_apart_differ():
    """fp16 storage allows 2e-3 of relative θ slack; θ 10000 against 10200 (2 %) is beyond it."""
    from pecli.analysis.ports.causes.readings import theta

    ra = {"kind": "cache", "theta": 10000.0, "storage": "float16"}
    assert theta(_pair(ra, {**ra, "theta": 10200.0})) is not None
    assert theta(_pair(ra, {**ra, "theta": 10010.0})) is None  # 0.1 % < 2e-3


def test_offset_found_in_two_row_tables():
    """A's rows are positions 0, 1, 2 of a cache, B's positions 1, 2: B starts one later."""
    from pecli.analysis.ports.causes.shapes import shift

    table = cache(inv_freq(d=8), n=3).astype(np.float64)
    assert shift(table, table[1:], "float32") == (1, "A", "B")


def test_temperature_needs_every_screened_row_scaled_at_its_own_magnitude():
    """Rows B·1, B·1.1, B·1.2, B·1.3 grow like a temperature, but row 2 is small (1e-3) and
    one of its entries is off by 1e-7: about 800 float32 ulps of that row, within 4 ulps of the
    table's magnitude. That row is no scaled copy, so no temperature is named."""
    from pecli.analysis.ports.causes.values import temperature

    q = np.ones((4, 8))
    q[2] *= 1e-3
    p = q * np.array([1.0, 1.1, 1.2, 1.3])[:, None]
    p[2, 0] += 1e-7
    assert temperature(_pair({}, {}, p, q)) is None


def test_a_head_width_reading_needs_the_exponent_to_fit_a_small_fraction():
    """θ' = θ^(2/3) with θ = 1.5e6 (θ' = 13103.7, not round) reads as a 96-wide head over 64
    rotated channels; θ^(2/3 + 1e-3) is 1e-3 off every p/q with q <= 16 near it: no reading."""
    from pecli.analysis.ports.causes.readings import exponent_width

    ra = {"kind": "cache", "theta": 1.5e6, "rotary_dim": 64, "rope_type": "default"}
    fits = exponent_width(_pair(ra, {**ra, "theta": 1.5e6 ** (2 / 3)}))
    assert fits is not None and "θ^(-2i/96)" in fits, fits
    assert exponent_width(_pair(ra, {**ra, "theta": 1.5e6 ** (2 / 3 + 1e-3)})) is None


def test_offset_found_past_rows_that_share_a_pass_through_channel():
    """A partial-rotary cache (cos 1, sin 0 on 96 of 128 channels) and the same from row 5:
    every row matches B's row 0 exactly on the pass-through channels, so only the largest gap
    over a row's channels ranks row 5 first (by construction, B = A[5:])."""
    from pecli.analysis.ports.causes.shapes import shift

    a = pass_through(cache(inv_freq(1e4, 32), n=64), 128, True).astype(np.float64)
    assert shift(a, a[5:], "float32") == (5, "A", "B")
    assert shift(a[5:], a, "float32") == (5, "B", "A")


def test_layout_moves_put_columns_where_their_definitions_say():
    """Half-split ``(i, i + w/2)`` and interleaved ``(2i, 2i + 1)`` orders of a 6-wide row, by
    hand: interleaved 0 3 1 4 2 5 is half-split 0 1 2 3 4 5, and back."""
    from pecli.analysis.ports.causes.tables import to_half_split, to_interleaved

    half = np.array([[0.0, 1, 2, 3, 4, 5], [10, 11, 12, 13, 14, 15]])
    inter = np.array([[0.0, 3, 1, 4, 2, 5], [10, 13, 11, 14, 12, 15]])
    np.testing.assert_array_equal(to_interleaved(half), inter)
    np.testing.assert_array_equal(to_half_split(inter), half)


def test_a_temperature_only_grows_from_the_first_row_to_the_last():
    """Rows B·1, B·1.2, B·1.1, B·1.2: each row a scaled copy, but the factor falls from row 1
    to row 2 while the last row is above the first, so no query temperature (which only grows
    with the position: 1 + β·ln(1 + ⌊(p + 1)/s⌋)); B·1, 1.1, 1.1, 1.2 grows and is one."""
    from pecli.analysis.ports.causes.values import temperature

    q = np.ones((4, 8))
    falls = q * np.array([1.0, 1.2, 1.1, 1.2])[:, None]
    assert temperature(_pair({}, {}, falls, q)) is None
    grows = q * np.array([1.0, 1.1, 1.1, 1.2])[:, None]
    words = temperature(_pair({}, {}, grows, q))
    assert words is not None and words.startswith("query temperature missing: A = B × "), words


def test_framework_arithmetic_of_one_row_measures_no_step_and_names_nothing():
    """One row of a half-split cache at position 5 (written here) on both sides, read as
    caches with no θ: no second row gives B's step ω, so ω is taken as 0 and the
    float32-arithmetic test is not met by a gap of 10^-3 rad (beyond the 8·2^-24 floor)."""
    from pecli.analysis.ports.causes.arithmetic import framework_arithmetic

    reading = {"kind": "cache", "layout": "half-split", "start": 5}
    angles = 5.0 * inv_freq(d=8)
    a = np.concatenate([np.cos(angles), np.cos(angles), np.sin(angles), np.sin(angles)])[None]
    moved = angles + 1e-3
    b = np.concatenate([np.cos(moved), np.cos(moved), np.sin(moved), np.sin(moved)])[None]
    assert framework_arithmetic(_pair(reading, reading, a, b)) is None


def test_rotated_widths_apart_are_one_cause_only_at_the_same_theta():
    """Readings of 64 and 32 rotated channels at θ = 10^4 both: a partial factor applied
    twice (32 = 64 / 2); at θ = 10^4 against 10^6 the widths alone are no such cause."""
    from pecli.analysis.ports.causes.readings import rotated_width

    ra = {"kind": "cache", "theta": 1e4, "rotary_dim": 64, "rope_type": "default"}
    words = rotated_width(_pair(ra, {**ra, "rotary_dim": 32}))
    assert words is not None and "applied twice in B (1/2 of the intended slice)" in words
    assert rotated_width(_pair(ra, {**ra, "rotary_dim": 32, "theta": 1e6})) is None


def test_halves_exchanged_and_start_at_once(run_cli, tmp_path):
    """B = A's rows 1… with its cos and sin halves exchanged (made here): both named."""
    a = cache(inv_freq(), n=256)
    moved = cache(inv_freq(), n=256, start=1)
    half = moved.shape[1] // 2
    b = np.concatenate([moved[:, half:], moved[:, :half]], axis=1)
    found = report(run_cli, tmp_path, a, b)
    assert found["causes"] == [
        "two mistakes at once: sin/cos swapped (B's halves exchanged), and first position "
        "off by 1: A's row 1 is B's row 0 (B starts 1 position later)"
    ], found["causes"]


def test_a_channel_passes_through_only_with_cos_1_and_sin_0():
    """Three rotated channels (a cache written here) and one with cos 0.5, sin 0 at every
    position: first in A, last in B. That channel is no pass-through (its cos is not 1), so
    no slice is at the wrong end; with cos 1 it is, and the slice is named."""
    from pecli.analysis.ports.causes.shapes import slice_end

    rotated = cache(inv_freq(d=6), n=32).astype(np.float64)
    cos, sin = rotated[:, :3], rotated[:, 6:9]  # one cos and one sin per pair
    n = len(rotated)
    for value, named in ((0.5, False), (1.0, True)):
        still = np.full((n, 1), value), np.zeros((n, 1))
        a = np.hstack([still[0], cos, still[1], sin])
        b = np.hstack([cos, still[0], sin, still[1]])
        words = slice_end(_pair({}, {}, a, b))
        assert (words is not None) == named, words
        if named:
            assert "A rotates channels 1…3" in words and "B rotates 0…2" in words, words


def test_the_attention_factor_is_read_on_the_large_entries_only(run_cli, tmp_path):
    """B holds 8 large entries (1 - 2^-20) and 56 small ones (2^-10 + 2^-30) a row; A is B
    × 1.25 exactly on the large ones and 1.25·q + 2^-23 on the small ones (all exact in
    float32; 2^-23 is within 4 ulps of the table's magnitude 1, so the tables still agree as
    A = 1.25 × B). The small entries' ratios are 1.25 + 2^-23/q ≈ 1.25012, most of each row:
    the factor is the median over the large entries, 1.25 exactly, not over all of them."""
    big, small = 1 - 2.0**-20, 2.0**-10 + 2.0**-30
    b = np.full((4, 64), small, np.float32)
    b[:, :8] = big
    a = np.full((4, 64), 1.25 * small + 2.0**-23, np.float32)
    a[:, :8] = 1.25 * big
    assert a[0, 8] == 1.25 * small + 2.0**-23 and a[0, 0] == 1.25 * big  # exact, no rounding
    found = report(run_cli, tmp_path, a, b)
    assert found["causes"] == [
        "attention factor missing: A = 1.25 × B (the factor transformers puts on cos and "
        "sin for yarn / longrope is in one table only)"
    ]


def xpos_table(n: int = 17, d: int = 8, gamma: float = 512.0, layout: str = "interleaved"):
    """torchscale's XPOS queries' scales by hand: ``ζ_i = (2i + 0.4d)/(1.4d)`` to the power
    ``p/γ``, ``p`` from ``−ceil(n/2)`` (``arange(-(n // 2) …)`` centred), in float32."""
    zeta = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)
    p = np.arange(n) - (n + 1) // 2
    scale = zeta[None, :] ** (p[:, None] / gamma)
    wide = np.repeat(scale, 2, 1) if layout == "interleaved" else np.concatenate([scale] * 2, 1)
    return wide.astype(np.float32)


def test_two_xpos_tables_in_swapped_layouts_name_the_layout(run_cli, tmp_path):
    """Two xPos scale tables take their own short list of moves: the layout swap is one."""
    found = report(run_cli, tmp_path, xpos_table(), xpos_table(layout="half-split"))
    assert found["reading_a"]["kind"] == found["reading_b"]["kind"] == "xpos"
    assert (found["reading_a"]["scale_base"], found["reading_a"]["first_position"]) == (512, -9)
    assert any(c.startswith("pair layout swapped") for c in found["causes"]), found["causes"]
