"""The correct-rounding certificate: the bound check, the mpmath fallback, planted ties.

Expected values come from mpmath at 200 bits, rounded to float32 by mpmath's own rounding to
24 bits (round to nearest, ties to even) — never from pecli. The ties are real: the exact
``cos(205618·ω_253)`` of a d = 512 table lies 1.5e-16 from a float32 rounding boundary
(found by a scan of 10^8 entries, confirmed here with mpmath).
"""

from __future__ import annotations

import re

import mpmath
import numpy as np
import pytest

from pecli.core import angles, direct, kernels
from pecli.core.certificate import (
    ErrorBound,
    correctly_rounded,
    counting,
    round_certified,
    undecided,
)
from pecli.core.sinusoidal.encoding import encoding_table

#: (position, pair, cosine?) of d = 512, base 10000 entries lying within 2e-16 of a tie.
TIES = [(205618, 253, True), (294739, 81, True), (361949, 243, True)]


def _exact(position: int, pair: int, cosine: bool, d: int = 512) -> tuple[float, mpmath.mpf]:
    """(the float32 value mpmath rounds to, the distance of the exact value to a tie)."""
    with mpmath.workprec(200):
        w = mpmath.mpf(10000) ** (-mpmath.mpf(2 * pair) / d)
        x = (mpmath.cos if cosine else mpmath.sin)(position * w)
        with mpmath.workprec(24):
            rounded = float(+x)
        y = np.float32(rounded)
        neighbours = [np.nextafter(y, np.float32(s)) for s in (-2, 2)]
        ties = [(mpmath.mpf(float(y)) + mpmath.mpf(float(n))) / 2 for n in neighbours]
        return rounded, min(abs(x - t) for t in ties)


def test_undecided_finds_values_next_to_a_float32_tie_only():
    tie = 1 + 2.0**-24  # halfway between the float32 numbers 1 and 1 + 2^-23
    values = np.array([tie - 1e-16, tie + 3e-16, tie - 1e-14, 0.75, 0.1])
    assert undecided(values, ErrorBound(absolute=1e-15), np.float32).tolist() == [0, 1]
    relative = ErrorBound(relative=2.0**-40)  # 2^-40·(1 + 2^-24) ≈ 9.1e-13
    assert undecided(values, relative, np.float32).tolist() == [0, 1, 2]
    assert undecided(values, ErrorBound(absolute=1.0), np.float64).size == 0


@pytest.mark.parametrize(("dtype", "bits"), [(np.float32, 24), (np.float16, 11)])
def test_undecided_widens_each_bound_by_the_largest_values_rounding(dtype, bits):
    """An absolute bound of 1e-15 (4.50 float64 steps of 2^-52 near 1) is widened by 2u·|v|
    (docs/exactness.md: fl(v ± e) is off by u·|v ± e|), one more step near 1: 5.50 steps.
    v five steps below the midpoint 1 + 2^-bits reaches past it (v + e rounds above it) and
    is undecided, though a 0 beside it in the same array needs no widening; 4.50 steps alone
    would end half a step short of the midpoint, and v + e would round onto it, to even."""
    tie = 1 + 2.0**-bits
    values = np.array([0.0, tie - 5 * 2.0**-52, tie - 7 * 2.0**-52])
    assert 1 in undecided(values, ErrorBound(absolute=1e-15), dtype).tolist()
    assert 2 not in undecided(values, ErrorBound(absolute=1e-15), dtype).tolist()


def test_correctly_rounded_rounds_ties_to_even_and_subnormals_on_their_quantum():
    one = mpmath.mpf(1)
    assert correctly_rounded(one + mpmath.mpf(2) ** -24, np.float32) == 1.0
    assert correctly_rounded(one + 3 * mpmath.mpf(2) ** -24, np.float32) == 1 + 2.0**-22
    assert correctly_rounded(mpmath.mpf(2) ** -25 * 3, np.float16) == 2.0**-24 * 2  # tie: even
    assert correctly_rounded(-mpmath.mpf("0.1"), np.float32) == float(np.float32(-0.1))


def test_round_certified_recomputes_exactly_the_undecided_entries():
    values = np.array([[1 + 2.0**-24 - 1e-16, 0.5]])
    out = np.empty((1, 2), np.float32)
    asked = []

    def recompute(flat):
        asked.extend(flat.tolist())
        return np.full(flat.size, 1 + 2.0**-23)

    assert round_certified(values, ErrorBound(absolute=1e-15), out, recompute) == 1
    assert asked == [0] and out.tolist() == [[1 + 2.0**-23, 0.5]]


@pytest.mark.parametrize(("position", "pair", "cosine"), TIES)
def test_real_ties_are_within_the_kernel_bound_and_the_certificate_recomputes_them(
    position, pair, cosine
):
    rounded, distance = _exact(position, pair, cosine)
    assert distance < kernels.CONSECUTIVE_BOUND.absolute  # the table's kernel cannot decide
    with counting() as tally:
        row = encoding_table(d=512, n=1, start=position)
    assert tally.recomputed >= 1 and tally.checked == 512
    assert float(row[0, 2 * pair + cosine]) == rounded


def test_a_planted_error_across_a_tie_is_repaired_by_the_fallback(monkeypatch):
    position, pair, cosine = TIES[0]
    rounded, _ = _exact(position, pair, cosine)
    with mpmath.workprec(200):
        w = mpmath.mpf(10000) ** (-mpmath.mpf(2 * pair) / 512)
        x = mpmath.cos(position * w)
        tie = (mpmath.mpf(rounded) + float(np.nextafter(np.float32(rounded), np.float32(-2)))) / 2
        if abs(x - tie) > 1e-15:
            tie = (
                mpmath.mpf(rounded) + float(np.nextafter(np.float32(rounded), np.float32(2)))
            ) / 2
        shift = float(2.5 * (tie - x))  # moves the value across the tie, within the bound
    assert abs(shift) < kernels.CONSECUTIVE_BOUND.absolute
    real = angles.sin_cos

    def planted(angle, out=None):
        s, c = real(angle)
        if np.ndim(angle[0]) == 1 and angle[0].size == 256:  # the super-block phase (the
            # row's value itself at n = 1), not the direct re-evaluation of undecided values
            c = c.copy()
            c[pair] += shift
        return s, c

    monkeypatch.setattr(angles, "sin_cos", planted)
    kernels._anchor_and_steps.cache_clear()
    naive = np.empty((1, 512))
    kernels.fill_sin_cos_consecutive(
        naive[:, 0::2],
        naive[:, 1::2],
        float(position),
        _frequencies()[0],
        omega_residual=_frequencies()[1],
    )
    assert float(np.float32(naive[0, 2 * pair + 1])) != rounded  # rounding alone goes wrong
    with counting() as tally:
        out = np.empty((1, 512), np.float32)
        kernels.fill_sin_cos_consecutive(
            out[:, 0::2],
            out[:, 1::2],
            float(position),
            _frequencies()[0],
            omega_residual=_frequencies()[1],
        )
    kernels._anchor_and_steps.cache_clear()
    assert tally.recomputed >= 1
    assert float(out[0, 2 * pair + 1]) == rounded


def _frequencies() -> tuple[np.ndarray, np.ndarray]:
    w = np.power(10000.0, -np.arange(256) / 256)
    return w, angles.frequency_residuals(w, base=10000.0, denominator=256)


def test_a_wide_bound_sends_many_entries_to_the_fallback_and_they_match_mpmath(monkeypatch):
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=1e-9))
    with counting() as tally:
        table = encoding_table(d=8, n=50, start=1000)
    assert tally.recomputed > 0 and tally.checked == table.size
    for r, c in zip(*np.nonzero(np.ones(table.shape, bool)), strict=True):
        assert float(table[r, c]) == _exact(1000 + int(r), int(c) // 2, bool(c % 2), d=8)[0]


def _mp_float32(x: mpmath.mpf) -> float:
    with mpmath.workprec(24):
        return float(+x)


def test_grid_values_go_through_the_fallback_and_match_mpmath(monkeypatch):
    from pecli.core import grids

    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=1e-9))
    h_side, w_side, d = 3, 5, 16
    with counting() as tally:
        table = grids.grid_table((h_side, w_side), d=d, preset="mae")
    assert tally.recomputed > 0
    quarter = d // 4  # MAE: [sin(w·ω), cos(w·ω), sin(h·ω), cos(h·ω)], ω_j = 10000^(-j/(d/4))
    with mpmath.workprec(200):
        omega = [mpmath.mpf(10000) ** (-mpmath.mpf(j) / quarter) for j in range(quarter)]
        for t in range(h_side * w_side):
            row, col = divmod(t, w_side)
            expected = [
                _mp_float32(f(p * w))
                for p in (col, row)
                for f in (mpmath.sin, mpmath.cos)
                for w in omega
            ]
            assert table[t].tolist() == expected


def test_cli_writers_report_the_certificate_on_stderr_and_in_metadata(run_cli, tmp_path):
    import json
    import struct

    said = "pecli: every value correctly rounded to float32: 0 undecided"
    grid = run_cli("grid", "4", "4", "--d", "16", "-o", str(tmp_path / "g.npy"))
    assert grid.exit_code == 0 and grid.stderr.splitlines()[-1] == said
    table = run_cli("compute", "--d", "8", "--n", "9", "-o", str(tmp_path / "t.safetensors"))
    assert table.exit_code == 0 and table.stderr.splitlines()[-1] == said
    raw = (tmp_path / "t.safetensors").read_bytes()
    header = json.loads(raw[8 : 8 + struct.unpack("<Q", raw[:8])[0]])
    assert header["__metadata__"]["pecli_certificate"] == said.removeprefix("pecli: ")
    quiet = run_cli("compute", "--d", "8", "--n", "9", "-q", "-o", str(tmp_path / "q.npy"))
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_rope_cache_entry_next_to_a_tie_is_recomputed_and_reported(run_cli, tmp_path):
    position, pair, _ = TIES[0]  # θ = 10000, head_dim 512: the inverse frequencies of d = 512
    rounded, distance = _exact(position, pair, True)
    assert distance < kernels.CONSECUTIVE_BOUND.absolute
    args = ["--theta", "10000", "--head-dim", "512", "--n", "1", "--start", str(position)]
    done = run_cli("rope", "cache", *args, "--part", "cos", "-o", str(tmp_path / "c.npy"))
    assert done.exit_code == 0, done.stderr
    said = done.stderr.splitlines()[-1]
    assert re.fullmatch(r"pecli: every value correctly rounded to float32: \d+ recomputed", said)
    row = np.load(tmp_path / "c.npy")[0]
    assert [float(row[pair]), float(row[pair + 256])] == [rounded, rounded]  # half layout


def test_a_frequency_next_to_a_tie_is_summed_exactly():
    from pecli.core.certificate import rounded_sum

    tie = 1 + 2.0**-24  # the float64 head is the tie itself; the tail decides
    out = np.empty(3, np.float32)
    hi, lo = np.array([tie, tie, 0.75]), np.array([1e-30, -1e-30, 1e-20])
    assert rounded_sum(hi, lo, out) == 2
    assert out.tolist() == [1 + 2.0**-23, 1.0, 0.75]


def test_rope_freqs_npy_is_certified_and_matches_mpmath(run_cli, tmp_path):
    args = ["--theta", "500000", "--head-dim", "128", "-o", str(tmp_path / "f.npy")]
    done = run_cli("rope", "freqs", *args)
    assert done.exit_code == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "pecli: every value correctly rounded to float32: 0 undecided"
    )
    with mpmath.workprec(200):
        expected = [
            _mp_float32(mpmath.mpf(500000) ** (-mpmath.mpf(2 * i) / 128)) for i in range(64)
        ]
    assert np.load(tmp_path / "f.npy").tolist() == expected


def test_an_angle_of_exactly_zero_is_given_without_mpmath(monkeypatch):
    import mpmath

    from pecli.core.certificate import sin_cos_exact

    def refuse(*args):
        raise AssertionError("mpmath called for an exact zero angle")

    monkeypatch.setattr(mpmath, "sin", refuse)
    monkeypatch.setattr(mpmath, "cos", refuse)
    zero, w = np.zeros(2), np.array([1.0, 1e-4])
    found = sin_cos_exact((zero, zero, w, zero), np.array([False, True]), np.float32, factor=0.5)
    assert found.tolist() == [0.0, 0.5]  # sin 0 = 0 and 0.5·cos 0 = 0.5, by hand


def test_an_angle_of_zero_times_a_factor_float32_cannot_hold_is_rounded_into_float32():
    """cos 0 · 0.1 is the float64 0.1, which float32 holds only as 13421773 / 2^27.

    By hand: 0.1 · 2^27 = 13421772.8 rounds to 13421773 (a yarn attention factor is such a
    float64; the mutation sample of seed 15 kept it unrounded).
    """
    from pecli.core.certificate import sin_cos_exact

    zero, w = np.zeros(2), np.array([1.0, 1.0])
    found = sin_cos_exact((zero, zero, w, zero), np.array([True, False]), np.float32, factor=0.1)
    assert found.tolist() == [13421773 / 2**27, 0.0]


def test_alibi_slopes_report_their_proof_and_match_mpmath(run_cli, tmp_path):
    import mpmath

    done = run_cli("alibi", "slopes", "--heads", "12", "-o", str(tmp_path / "s.npy"))
    assert done.exit_code == 0, done.stderr
    said = (
        "pecli: every value correctly rounded to float32: proven (exact powers, docs/exactness.md)"
    )
    assert done.stderr.splitlines()[-1] == said
    slopes = np.load(tmp_path / "s.npy")
    with mpmath.workprec(200):  # 8 heads: 2^(-(h+1)), then 2^(-(2h+1)/2) of the 16-head series
        exact = [mpmath.mpf(2) ** (-(h + 1)) for h in range(8)]
        exact += [mpmath.mpf(2) ** (-mpmath.mpf(2 * (h - 8) + 1) / 2) for h in range(8, 12)]
    assert slopes.tolist() == [correctly_rounded(x, np.float32) for x in exact]
    quiet = run_cli("alibi", "slopes", "--heads", "12", "-q", "-o", str(tmp_path / "q.npy"))
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_timestep_table_under_a_wide_bound_matches_mpmath_and_is_reported(
    monkeypatch, run_cli, tmp_path
):
    # both kernels' bounds widened: many entries go to the fallback; FLUX's t·1000 is folded
    # into the angle exactly, [cos | sin], ω_j = 10000^(-j/(d/2)) (diffusers' flip_sin_to_cos)
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=1e-6))
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=1e-6))
    times, d = ["0.1", "0.25", "0.7"], 8
    done = run_cli(
        "timestep", "--model", "flux", "--d", str(d), *times, "-o", str(tmp_path / "t.npy")
    )
    assert done.exit_code == 0, done.stderr
    said = done.stderr.splitlines()[-1]
    assert re.fullmatch(r"pecli: every value correctly rounded to float32: \d+ recomputed", said)
    assert int(said.split()[-2]) > len(times) * d // 2  # most of the 24 values: recomputed
    table = np.load(tmp_path / "t.npy")
    with mpmath.workprec(200):
        omega = [mpmath.mpf(10000) ** (-mpmath.mpf(j) / (d // 2)) for j in range(d // 2)]
        for row, t in zip(table, times, strict=True):
            angles = [mpmath.mpf(t) * 1000 * w for w in omega]
            expected = [_mp_float32(mpmath.cos(a)) for a in angles]
            expected += [_mp_float32(mpmath.sin(a)) for a in angles]
            assert row.tolist() == expected


def test_xpos_scales_under_a_wide_bound_match_mpmath_and_are_reported(
    monkeypatch, run_cli, tmp_path
):
    from pecli.core.zoo import xpos

    def wide(scales, exponents):  # every scale undecided: all from mpmath
        return ErrorBound(absolute=np.full(scales.shape, 1e-3))

    monkeypatch.setattr(xpos, "xpos_bound", wide)
    n, d = 5, 8
    done = run_cli("xpos", "--head-dim", str(d), "--n", str(n), "-o", str(tmp_path / "x.npy"))
    assert done.exit_code == 0, done.stderr
    # 5 rows x 4 pairs: every one (1 ± 1e-3 straddles a boundary too)
    assert done.stderr.splitlines()[-1] == (
        "pecli: every value correctly rounded to float32: 20 recomputed"
    )
    table = np.load(tmp_path / "x.npy")
    with mpmath.workprec(200):  # torchscale: positions t − ceil(5/2) = −3 … 1, γ = 512
        for row, p in zip(table, range(-3, 2), strict=True):
            zeta = [
                (2 * mpmath.mpf(i) + mpmath.mpf(4) * d / 10) / (mpmath.mpf(14) * d / 10)
                for i in range(d // 2)
            ]
            expected = [_mp_float32(z ** (mpmath.mpf(p) / 512)) for z in zeta for _ in (0, 1)]
            assert row.tolist() == expected


def test_xpos_float64_scales_lie_within_their_bound_of_mpmath():
    from pecli.core.zoo import xpos

    n, d, offset = 7, 64, 100_000  # positions near 5e4: |y| up to ~120
    scales = xpos.xpos_scales(n, d, offset=offset)[:, ::2]
    positions = xpos.xpos_positions(n, offset=offset)
    bound = xpos.xpos_bound(scales, positions / 512.0).at(scales)
    with mpmath.workprec(200):
        for r, p in enumerate(positions):
            for i in range(d // 2):
                x = (mpmath.mpf(10 * i + 2 * d) / (7 * d)) ** (mpmath.mpf(int(p)) / 512)
                assert abs(scales[r, i] - x) <= bound[r, i]


def test_round_certified_rounds_a_decided_bfloat16_value_once():
    """1 + 2^-8 + 2^-30 lies just above a bfloat16 tie (by hand): once rounded it is 1 + 2^-7.

    A cast through float32 first rounds it to the tie 1 + 2^-8, which then goes to even, 1.0;
    the bound (1e-15) keeps it far from the tie, so it is decided and never recomputed.
    """
    from pecli.core.dtypes import float_dtype

    out = np.empty(1, float_dtype("bfloat16"))
    asked = round_certified(np.array([1 + 2.0**-8 + 2.0**-30]), ErrorBound(1e-15), out, None)
    assert asked == 0 and float(out[0]) == 1 + 2.0**-7


@pytest.mark.parametrize(
    ("position", "omega", "cosine"),
    [(1.1, 0.3, False), (1000.7, 1e-4, True), (12345.0, 0.7390851332151607, False)],
)
def test_sin_cos_exact_of_a_double_double_angle_is_mpmaths(position, omega, cosine):
    """The fallback's value against mpmath at 300 bits on the exact product of the float64s."""
    from pecli.core.certificate.fallback import sin_cos_exact

    with mpmath.workprec(300):
        angle = mpmath.mpf(position) * mpmath.mpf(omega)
        exact = (mpmath.cos if cosine else mpmath.sin)(angle)
        expected = float(np.float32(float(exact)))  # far from a float32 tie, checked:
        gap = abs(exact - mpmath.mpf(expected)) / mpmath.mpf(
            float(np.spacing(np.float32(expected)))
        )
        assert gap < 0.49
    terms = (np.array([position]), np.zeros(1), np.array([omega]), np.zeros(1))
    assert sin_cos_exact(terms, np.array([cosine]), np.float32).tolist() == [expected]


@pytest.mark.parametrize(
    ("position", "omega", "cosine"), [(1.1, 0.3, False), (1000.7, 1e-4, True), (7.0, 0.5, True)]
)
def test_sin_cos_exact_times_a_double_double_factor_is_mpmaths(position, omega, cosine):
    """A table's amplitude sqrt(2/3) as a double-double (hi, lo) (mpmath at 300 bits): the
    value, mpmath's sin or cos of the exact product times hi + lo, rounded to float32 (far
    from a float32 tie, checked); the factor's own 2^-100 joins the margin, not more."""
    from pecli.core.certificate.fallback import sin_cos_exact

    with mpmath.workprec(300):
        amplitude = mpmath.sqrt(mpmath.mpf(2) / 3)
        hi = float(amplitude)
        lo = float(amplitude - hi)
        angle = mpmath.mpf(position) * mpmath.mpf(omega)
        exact = (mpmath.cos if cosine else mpmath.sin)(angle) * (mpmath.mpf(hi) + lo)
        expected = float(np.float32(float(exact)))
        spacing = mpmath.mpf(float(np.spacing(np.float32(expected))))
        assert abs(exact - expected) / spacing < 0.49
    terms = (np.array([position]), np.zeros(1), np.array([omega]), np.zeros(1))
    found = sin_cos_exact(terms, np.array([cosine]), np.float32, factor=(hi, lo))
    assert found.tolist() == [expected]


def test_correctly_rounded_just_below_a_power_of_two_whose_log_rounds_up():
    """2^100·(1 − 2^-50): its log2 at 53 bits rounds to 100, one too high (100 − 1.3·10^-15
    is within half an ulp of 100, 2^-47, by hand); the exponent is stepped back to 99, and the
    value rounds up to 2^100 in float32, down to 2^100 − 2^50 in float64 (exact there)."""
    with mpmath.workprec(53):  # mpmath's default (another test may leave it changed)
        x = mpmath.mpf(2) ** 100 * (1 - mpmath.mpf(2) ** -50)  # exact at 53 bits
        assert mpmath.floor(mpmath.log(x, 2)) == 100  # the case the second loop is for
        assert correctly_rounded(x, np.float32) == 2.0**100
        assert correctly_rounded(x, np.float64) == 2.0**100 - 2.0**50


def test_a_proven_certificate_recomputes_nothing():
    """Values rounded once under a proof (ALiBi's exact powers): all checked, none undecided,
    none recomputed, and it says which dtype."""
    from pecli.core.certificate.tally import Certificate

    said = Certificate.proven(np.float32, 12)
    assert (said.claim, said.checked, said.recomputed, said.values) == ("proven", 12, 0, 12)
    assert said.certified and "correctly rounded to float32: proven" in said.message


def test_widest_is_one_bound_covering_every_values_own():
    """``widest(largest)``: one bound for every value up to ``largest``; with an absolute part
    per value that is the largest of them, 3e-15, widened as :meth:`ErrorBound.at` documents:
    + 2u·|v| for fl(v ± e) at |v| = 0.5, and the absolute part by (1 + 4u)."""
    u = 2.0**-53
    bound = ErrorBound(absolute=np.array([1e-15, 3e-15, 2e-15]))
    assert bound.widest(0.5) == pytest.approx(3e-15 * (1 + 4 * u) + 0.5 * 2 * u, rel=1e-15, abs=0)
    assert ErrorBound(absolute=1e-15).widest(0.5) == pytest.approx(1.1110223e-15, rel=1e-7, abs=0)


def test_a_bound_that_just_reaches_a_midpoint_leaves_it_undecided():
    """``0 ± 2^-150`` touches the float32 midpoint between 0 and the least subnormal 2^-149;
    the absolute part widened by ``(1 + 4u)`` (exactly ``1 + 2^-51``) goes past it: undecided."""
    assert ErrorBound(absolute=1.0).at(np.array([0.0])).tolist() == [1 + 2.0**-51]
    assert undecided(np.array([0.0]), ErrorBound(absolute=2.0**-150), np.float32).tolist() == [0]
