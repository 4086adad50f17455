"""``rope probe``'s small rules, each at the value that tells it: hand-derived numbers.

The boundaries (a tolerance met exactly, 2^53, the rows searched), the words of the verdict
and the summary (sections counted in pairs, a temperature's formula, the three closest
pairings), the dtype named for two dtypes, and the readings that leave a quantity unread.
"""

from __future__ import annotations

import numpy as np
import pytest
from probe_rotations import half_split, turned_by_axes

from pecli.analysis.rope.probe import probe_rope, token_positions
from pecli.analysis.rope.probe.verdict import report, summary, verdict
from pecli.core.errors import ParameterError


def test_positions_up_to_2_to_the_53_are_taken_and_the_next_float_is_refused():
    """float64 holds every integer up to 2^53 = 9007199254740992 (IEEE 754, 53-bit
    significand); the next float64 is 2^53 + 2: refused as past 2^53."""
    assert token_positions(np.array([0.0, 2.0**53]), 2, 1)[1, 0] == 9007199254740992.0
    with pytest.raises(ParameterError) as caught:
        token_positions(np.array([0.0, 2.0**53 + 2]), 2, 1)
    assert caught.value.value == 9007199254740994.0


def test_the_rows_searched_are_the_512_turned_most():
    """600 rows weighted 0 … 599 (|p|): the 512 largest weights are rows 88 … 599, in order."""
    from pecli.analysis.rope.probe.structure import search_rows

    assert search_rows(600, np.arange(600.0)).tolist() == list(range(88, 600))
    assert search_rows(600, np.arange(600.0)[::-1]).tolist() == list(range(512))


def test_the_storage_named_is_the_coarser_of_the_two_dtypes():
    """Vectors stored as float16 before and float64 after (unchanged: NoPE): the tolerances
    follow the coarser dtype, float16, and it is the storage reported; swapped, too."""
    q = np.random.default_rng(0).standard_normal((3, 1, 8))
    p = np.arange(3.0)[:, None]
    assert probe_rope(q.astype(np.float16), q, p).storage == "float16"
    assert probe_rope(q, q.astype(np.float16), p).storage == "float16"
    assert probe_rope(q.astype(np.float32), q.astype(np.float32), p).storage == "float32"


def test_a_plain_rotation_reports_no_temperature_and_a_factor_of_1():
    """Full half-split RoPE (θ 10^4) on q, nothing scaled: the temperature is ``none``, its
    factor 1 (q multiplied by 1), and no form."""
    q = np.random.default_rng(1).standard_normal((5, 2, 16))
    p = np.array([0.0, 1, 2, 7, 300])
    post = half_split(q, p[:, None] * 1e4 ** (-np.arange(8) / 8))
    data = report(probe_rope(q, post, p[:, None]))
    assert data["temperature"] == {"kind": "none", "factor": 1.0, "forms": []}


def test_no_pairing_found_reads_no_gain_of_any_row():
    """Channels reversed (no rotation of pairs): no pairing, so no row's gain was read."""
    q = np.random.default_rng(7).standard_normal((4, 2, 16))
    reading = probe_rope(q, q[..., ::-1].copy(), np.arange(1.0, 5.0)[:, None])
    assert reading.pairing is None and reading.gain.size == 0
    assert report(reading)["gains"] == []


def test_the_mistral_temperature_is_named_by_its_formula():
    """Mistral's ``1 + β·ln(1 + floor(p/L))`` with β 0.2, L 4096 (transformers'
    get_llama_4_attn_scale) on a half-split rotation: the verdict writes that formula."""
    q = np.random.default_rng(6).standard_normal((6, 2, 32))
    p = np.array([0.0, 1, 4095, 4096, 9000, 40000])
    post = half_split(q, p[:, None] * 1e4 ** (-np.arange(16) / 16))
    post *= (1 + 0.2 * np.log(1 + np.floor(p / 4096)))[:, None, None]
    words = verdict(probe_rope(q, post, p[:, None]))
    assert "a query temperature: Mistral's llama_4_scaling_beta: " in words
    assert "1 + β·ln(1 + floor(p/L)), β 0.2, L 4096" in words


def test_mrope_sections_are_counted_in_pairs():
    """Qwen2-VL's M-RoPE by hand: 16 pairs, half-split, ω_j = 10^4^(−j/16), pairs 0–3 turned
    by the t id, 4–9 by h, 10–15 by w (mrope_section [4, 6, 6]): 4, 6 and 6 pairs."""
    q, post, ids = turned_by_axes(np.repeat([0, 1, 2], [4, 6, 6]).tolist())
    data = report(probe_rope(q, post, ids))
    assert data["sections"]["mrope_section"] == [4, 6, 6]
    assert "M-RoPE sections [4, 6, 6] (t 4, h 6, w 6 pairs)" in data["verdict"]
    assert "axis of each pair: t 0–3, h 4–9, w 10–15" in summary(data)


def test_the_summary_lists_the_three_closest_pairings():
    """Half-split RoPE over channels 0–31 of 64: many slices are tried; the summary names the
    three closest, the half-split slice that fits (score ≤ 1) first."""
    q = np.random.default_rng(5).standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = q.copy()
    post[..., :32] = half_split(q[..., :32], p[:, None] * 1e4 ** (-np.arange(16) / 16))
    data = report(probe_rope(q, post, p[:, None]))
    assert len(data["tried"]) > 3
    line = [s for s in summary(data) if s.startswith("pairings tried")]
    listed = line[0].split(": ", 1)[1].split("; ")
    assert len(listed) == 3 and listed[0].startswith("half-split over channels 0–31 (")


def test_a_pair_is_read_only_when_it_has_one_omega_and_a_worst_residual_within_2():
    """OmegaFit: readings 1 is determined (2 is ambiguous), worst at most 2 σ is consistent.
    Pair 6 at worst = 2 exactly is kept; pair 7 at 2.5 and pair 5 with 2 readings are not."""
    from pecli.analysis.rope.probe.frequencies import read_frequencies
    from pecli.analysis.rope.probe.omega import OmegaFit

    w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    readings = np.ones(8, dtype=int)
    readings[5] = 2
    worst = np.zeros(8)
    worst[6:] = [2.0, 2.5]
    f = read_frequencies([OmegaFit(w, 1e-12 * w, readings, worst)])
    known = [True] * 5 + [False, True, False]
    assert f.axes[:, 0].tolist() == known
    assert np.isfinite(f.omega).tolist() == known
    assert f.omega[6] == w[6]


def test_rows_are_proportional_with_the_residual_met_exactly():
    """x = [1, 0], y = [1, 0.5]: the least-squares gain is x·y / x·x = 1, the residual
    |y − x| is [0, 0.5]; a tolerance of exactly 0.5 accepts the row, 0.25 does not."""
    from pecli.analysis.rope.probe.structure import proportional

    x, y = np.array([[1.0, 0.0]]), np.array([[1.0, 0.5]])
    assert proportional(x, y, np.array([0.5])) is True
    assert proportional(x, y, np.array([0.25])) is False


@pytest.mark.parametrize(("sigmas", "kept"), [(2.5, True), (3.5, False)])
def test_identify_s_theta_is_kept_within_3_uncertainties_of_the_fit(monkeypatch, sigmas, kept):
    """ω_j = 10000^(−j/4), j = 0…3 (dim 8), measured to 1e-12: each pair's relative tolerance
    is the float32 floor 4e-6, and θ's relative uncertainty is (dim/2)·4e-6/√Σ(j − 1.5)² =
    4·4e-6/√5. identify reading θ 2.5 of them away is kept, 3.5 away dropped."""
    from types import SimpleNamespace

    from pecli.analysis.rope.probe import frequencies

    spread = 4 * 4e-6 / 5**0.5
    guess = SimpleNamespace(theta=10000.0 * (1 + sigmas * spread), rope_type="default")
    monkeypatch.setattr(frequencies, "identify_inv_freq", lambda w, tolerance: guess)
    findings: list[str] = []
    theta = frequencies._theta(10000.0 ** (-np.arange(4) / 4), np.full(4, 1e-12), findings)
    assert theta.error == pytest.approx(spread, rel=1e-9)
    assert (theta.guess is guess) is kept
    assert bool(findings) is not kept
