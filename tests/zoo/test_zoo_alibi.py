"""ALiBi slopes and bias tensors against the paper's code, MPT, ggml, mpmath and transformers."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from library_fixtures import ids, load

from pecli.analysis.zoo.alibi import identify_alibi_bias, identify_alibi_slopes
from pecli.core.dtypes import ulps32
from pecli.core.errors import ParameterError
from pecli.core.zoo.alibi import CONVENTIONS, VARIANTS, alibi_bias, alibi_exponents, alibi_slopes

FIXTURES = load("zoo")
SLOPES = [f for f in FIXTURES if f.params["kind"] == "slopes"]
BIASES = [f for f in FIXTURES if f.params["kind"] == "bias"]


# --- independent references: the three published recipes, written from their sources -------


def press_get_slopes(n: int) -> list[float]:
    """Press et al.'s ``get_slopes`` (attention_with_linear_biases, fairseq transformer.py)."""

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + press_get_slopes(2 * closest)[0::2][: n - closest]


def mpt_gen_slopes(n: int, alibi_bias_max: float = 8) -> list[float]:
    """MPT's ``gen_slopes``: the next power of two's series, odd ones first, then even ones."""
    p2 = 2 ** math.ceil(math.log2(n))
    slopes = [1.0 / 2 ** (k * alibi_bias_max / p2) for k in range(1, p2 + 1)]
    if p2 != n:
        slopes = (slopes[1::2] + slopes[::2])[:n]
    return slopes


def ggml_slopes(n: int, max_bias: float) -> list[float]:
    """ggml ``soft_max_ext``: ``m0^(h+1)`` below 2^floor(log2 n), then ``m1^(2(h-P)+1)``."""
    p = 2 ** math.floor(math.log2(n))
    m0, m1 = 2 ** (-max_bias / p), 2 ** (-max_bias / 2 / p)
    return [m0 ** (h + 1) if h < p else m1 ** (2 * (h - p) + 1) for h in range(n)]


def exact_slope(n: int, h: int, b: float) -> mpmath.mpf:
    p = 2 ** math.floor(math.log2(n))
    e = mpmath.mpf(h + 1) / p if h < p else mpmath.mpf(2 * (h - p) + 1) / (2 * p)
    return mpmath.power(2, -b * e)


# --- golden values and agreement of the recipes --------------------------------------------


def test_golden_12_and_32_heads():
    assert (-8 * alibi_exponents(12)).tolist() == [
        -1,
        -2,
        -3,
        -4,
        -5,
        -6,
        -7,
        -8,
        -0.5,
        -1.5,
        -2.5,
        -3.5,
    ]
    assert np.round(alibi_slopes(32)[:3], 6).tolist() == [0.840896, 0.707107, 0.594604]


@pytest.mark.parametrize("n", [8, 12, 32, 40, 71])
def test_press_mpt_and_ggml_agree(n):
    ours = alibi_slopes(n, max_bias=8)
    for reference in (press_get_slopes(n), mpt_gen_slopes(n), ggml_slopes(n, 8)):
        np.testing.assert_allclose(ours, reference, rtol=1e-14)


@pytest.mark.parametrize(("n", "b"), [(12, 16), (40, 4), (71, 0.5), (6, 13)])
def test_mpt_and_ggml_agree_at_any_max_bias(n, b):
    ours = alibi_slopes(n, max_bias=b)
    np.testing.assert_allclose(ours, mpt_gen_slopes(n, b), rtol=1e-14)
    np.testing.assert_allclose(ours, ggml_slopes(n, b), rtol=1e-14)


def nearest(x: mpmath.mpf, dtype: type) -> float:
    """``x`` rounded once to ``dtype``: the nearest of three neighbours of a first guess."""
    guess = dtype(float(x))
    candidates = [np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))]
    return float(min(candidates, key=lambda c: abs(mpmath.mpf(float(c)) - x)))


@pytest.mark.parametrize("b", [8.0, 5.0, 0.25])
def test_slopes_correctly_rounded(b):
    """Every slope is the exact 2^(-b·e) rounded once, in float64 and (cast) in float32.

    NumPy's exp2 would miss 639 of these 10752 float64 slopes by 1 ulp; the C library's does not.
    """
    for n in (*range(1, 80), 96, 128, 200):
        ours = alibi_slopes(n, max_bias=b)
        with mpmath.workdps(50):
            exact = [exact_slope(n, h, b) for h in range(n)]
            assert ours.tolist() == [nearest(x, np.float64) for x in exact]
            assert ours.astype(np.float32).tolist() == [nearest(x, np.float32) for x in exact]


def test_wrong_variants_are_what_ports_do():
    # the first n slopes of 16 heads for 12 heads: 2^(-0.5 k)
    np.testing.assert_allclose(
        alibi_slopes(12, variant="next-power-of-two"), 2.0 ** (-0.5 * np.arange(1, 13)), rtol=1e-15
    )
    np.testing.assert_allclose(
        alibi_slopes(12, variant="geometric-at-n"),
        [2 ** (-8 * (h + 1) / 12) for h in range(12)],
        rtol=1e-15,
    )
    assert alibi_slopes(8, variant="zero-based")[0] == 1.0


# --- bias tensors against transformers -------------------------------------------------------


@pytest.mark.parametrize("fixture", SLOPES, ids=ids(SLOPES))
def test_bloom_slopes(fixture):
    """transformers computes in float32 by torch.pow: within 16 ulps of the exact slope."""
    ours = alibi_slopes(fixture.params["heads"]).astype(np.float32)
    ulps = ulps32(ours, fixture.table)
    assert ulps.max() <= 16


@pytest.mark.parametrize("fixture", BIASES, ids=ids(BIASES))
def test_bias_tensors(fixture):
    p = fixture.params
    slopes = alibi_slopes(p["heads"], max_bias=p["max_bias"])
    ours = alibi_bias(
        slopes,
        fixture.table.shape[-1],
        convention=p["convention"],
        attention_mask=p.get("attention_mask"),
    )
    table = fixture.table.reshape(ours.shape)
    if p["convention"] == "falcon":  # bfloat16 slopes × bfloat16 positions: bit for bit
        assert np.array_equal(ours.astype(np.float32), table)
    else:  # float32 slopes (a few ulps off) times the position
        np.testing.assert_allclose(ours, table, rtol=2e-6, atol=0)


def test_falcon_rounds_positions_past_256():
    """Falcon multiplies in bfloat16: position 257 becomes 256 (a tie, to even) first."""
    from pecli.core.dtypes import float_dtype, round_once

    def bf16(x):
        return round_once(np.asarray(x, dtype=np.float64), float_dtype("bfloat16")).astype(float)

    (fixture,) = [f for f in BIASES if f.name == "falcon_bias_plain_h12"]
    m = bf16(alibi_slopes(12))
    assert np.array_equal(fixture.table[:, 0, 257], bf16(m * 256))
    assert not np.array_equal(fixture.table[:, 0, 257], bf16(m * 257))


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def test_conventions_agree_after_softmax():
    m, k = alibi_slopes(5), 9
    causal = alibi_bias(m, k)
    future = ~np.isfinite(causal)
    for convention in ("bloom", "mpt"):
        row = np.broadcast_to(alibi_bias(m, k, convention=convention), causal.shape)
        masked = np.where(future, -np.inf, row)
        np.testing.assert_allclose(_softmax(masked), _softmax(causal), rtol=1e-12)
    symmetric = alibi_bias(m, k, convention="symmetric")
    assert np.array_equal(np.where(future, -np.inf, symmetric), causal)
    assert not np.array_equal(np.where(future, 0, causal), np.where(future, 0, symmetric) * 0)


def test_decoding_queries_are_the_last_positions():
    full = alibi_bias([0.25], 6)
    assert np.array_equal(alibi_bias([0.25], 6, n_query=2), full[:, 4:])


# --- identify ----------------------------------------------------------------------------


def port_slopes(variant: str, n: int, b: float) -> list[float]:
    """Each series as the code that has it computes it: ggml's for the paper's, then the three
    mistakes of ports (the next power of two's first ``n``, ``(h+1)/n``, the ``+ 1`` dropped)."""
    p, up = 2 ** math.floor(math.log2(n)), 2 ** math.ceil(math.log2(n))
    return {
        "press": lambda: ggml_slopes(n, b),
        "next-power-of-two": lambda: [2 ** (-b * (h + 1) / up) for h in range(n)],
        "geometric-at-n": lambda: [2 ** (-b * (h + 1) / n) for h in range(n)],
        "zero-based": lambda: [2 ** (-b * (h if h < p else h - p) / p) for h in range(n)],
    }[variant]()


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("n", "b"), [(3, 8), (12, 8), (20, 8), (40, 4), (71, 8), (96, 16)])
def test_identify_each_variant(variant, n, b):
    fit = identify_alibi_slopes(np.array(port_slopes(variant, n, b), dtype=np.float32))
    assert (fit.heads, fit.variant, fit.max_bias, fit.matched) == (n, variant, b, True)


def test_power_of_two_heads_cannot_tell_the_first_three_apart():
    fit = identify_alibi_slopes(alibi_slopes(32))
    assert fit.variant == "press" and fit.also == {"next-power-of-two": 8, "geometric-at-n": 8}


@pytest.mark.parametrize("fixture", SLOPES + BIASES, ids=ids(SLOPES + BIASES))
def test_identify_library_tensors(fixture):
    p = fixture.params
    if p["kind"] == "slopes":
        fit = identify_alibi_slopes(fixture.table)
    else:
        bias = identify_alibi_bias(fixture.table)
        assert bias.matched and bias.convention == p["convention"]
        assert bias.left_padding == (3 if p.get("attention_mask") else 0)
        fit = bias.slope_fit
        assert fit.bfloat16 == (p["convention"] == "falcon")
    assert (fit.heads, fit.max_bias, fit.variant, fit.matched) == (
        p["heads"],
        p["max_bias"],
        "press",
        True,
    )


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_identify_each_convention(convention):
    bias = alibi_bias(alibi_slopes(20, max_bias=6), 30, convention=convention).astype(np.float32)
    fit = identify_alibi_bias(bias[None])  # with a batch axis
    assert (fit.convention, fit.slope_fit.heads, fit.slope_fit.max_bias) == (convention, 20, 6)
    assert fit.matched


def test_identify_causal_with_finfo_min_mask_and_broadcast_key_rows():
    bias = alibi_bias(alibi_slopes(8), 16)
    hf = np.where(np.isfinite(bias), bias, np.finfo(np.float32).min).astype(np.float32)
    assert identify_alibi_bias(hf).convention == "causal"
    rows = np.broadcast_to(alibi_bias(alibi_slopes(8), 16, convention="bloom"), (8, 16, 16))
    assert identify_alibi_bias(rows).convention == "bloom"


def test_identify_refuses_what_is_no_alibi():
    with pytest.raises(ParameterError, match="no ALiBi bias"):
        identify_alibi_bias(np.random.default_rng(0).normal(size=(4, 1, 10)))
    with pytest.raises(ParameterError, match="positive"):
        identify_alibi_slopes([0.5, -0.25])
    assert not identify_alibi_slopes([0.5, 0.3, 0.01]).matched


# --- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: alibi_slopes(0), "heads"),
        (lambda: alibi_slopes(True), "heads"),
        (lambda: alibi_slopes(8, max_bias=0), "max_bias"),
        (lambda: alibi_slopes(8, max_bias=float("nan")), "max_bias"),
        (lambda: alibi_slopes(8, variant="press2"), "variant"),
        (lambda: alibi_bias([0.5], 4, convention="t5"), "convention"),
        (lambda: alibi_bias([0.5], 4, n_query=5), "queries"),
        (lambda: alibi_bias([0.5], 4, n_query=0), "queries"),  # 1 to n: no query is no tensor
        (lambda: alibi_bias([0.5], 0), "n"),
        (lambda: alibi_bias(np.ones(64), 1 << 12), "n"),
        (lambda: alibi_bias([0.5], 3, attention_mask=[1, 1, 1]), "attention_mask"),
        (
            lambda: alibi_bias([0.5], 3, convention="bloom", attention_mask=[1, 2, 1]),
            "attention_mask",
        ),
        (lambda: alibi_bias([[0.5]], 3), "slopes"),
    ],
)
def test_refusals(call, parameter):
    with pytest.raises(ParameterError) as error:
        call()
    assert error.value.parameter == parameter


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 300),
    quarters=st.integers(1, 128),
    variant=st.sampled_from(VARIANTS),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_identify_reads_any_series_back(n, quarters, variant, dtype):
    """The series and max_bias that made the slopes are the reading, or listed as as good."""
    b = quarters / 4
    fit = identify_alibi_slopes(alibi_slopes(n, max_bias=b, variant=variant).astype(dtype))
    assert fit.matched and fit.heads == n
    readings = {fit.variant: fit.max_bias, **fit.also}
    if variant == "zero-based" and n == 1:  # the one slope is 1 whatever b is
        return
    assert readings.get(variant) == b


def test_identify_a_bloom_row_of_two_keys():
    """The fewest keys a slope shows in, 2: BLOOM's row m·j is (0, m). 12 heads of
    max_bias 8 (press): 2^-1 … 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (hand-derived)."""
    m = [2.0 ** -(i + 1) for i in range(8)] + [2.0 ** -(i + 0.5) for i in range(4)]
    fit = identify_alibi_bias(np.array([[[0.0, s]] for s in m]))
    assert (fit.convention, fit.left_padding, fit.matched) == ("bloom", 0, True)
    assert fit.slopes.tolist() == m
    assert (fit.slope_fit.heads, fit.slope_fit.max_bias, fit.slope_fit.variant) == (12, 8, "press")


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("perturb", [False, True])
def test_identify_reports_the_largest_error_by_hand(causal, perturb):
    """The reported error is max |t - (-m·|i-j|)| / (m·(k-1)) over unmasked entries, m read at
    distance 1; by hand in float64 here, for rows that are shifted copies and rows that are not."""
    n, k, q = 4, 30, 12
    slopes = np.array([0.5, 0.3, 0.11, 0.071])
    i, j = np.arange(k - q, k)[:, None], np.arange(k)[None, :]
    t = (-slopes[:, None, None] * np.abs(i - j)).astype(np.float32)
    if causal:
        t[:, j[0] > i[:, 0, None]] = -np.inf if not perturb else np.finfo(np.float32).min
    if perturb:
        t[2, 5, 3] += np.float32(1e-6)
    m = -t[:, q - 1, k - 2].astype(np.float64)
    exact = -m[:, None, None] * np.abs(i - j)
    kept = np.isfinite(t) & (t > -1e30)
    errors = [np.abs(t[h] - exact[h])[kept[h]].max() / (m[h] * (k - 1)) for h in range(n)]
    fit = identify_alibi_bias(t)
    assert fit.convention == ("causal" if causal else "symmetric")
    assert fit.error == max(errors)


def test_slopes_below_float32_normal_range_name_the_head_and_the_bound():
    """12 heads (by hand, the paper's series): slopes 2^(-b·k/16), k = 2, 4, … 16, then 1, 3, 5, 7.

    With b = 200 the first slope below 2^-126 is head 5's (k = 12: 2^-150); the largest k is
    16, so b may be at most 126·16/16 = 126 (not 126·16/1, the smallest k's bound).
    """
    with pytest.raises(ParameterError) as error:
        alibi_slopes(12, max_bias=200, dtype="float32")
    message = str(error.value)
    assert "head 5 would be 2^-150" in message, message
    assert "at most 126 with 12 heads" in message, message


def test_a_tensor_whose_later_query_rows_differ_is_not_read_as_one_broadcast_row():
    """BLOOM's key-only rows m·j (m = 1/2, 1/4, by hand) on query rows 0 and 1, doubled on row 2.

    Every query row of a broadcast key-only tensor is the same row: this one is not, and no
    other convention rebuilds it, so it is refused (the same tensor without row 2's change
    is BLOOM's).
    """
    row = np.array([0.5, 0.25])[:, None] * np.arange(6.0)[None, :]
    t = np.repeat(row[:, None, :], 3, axis=1)
    assert identify_alibi_bias(t).convention == "bloom"
    t[:, 2, :] *= 2
    with pytest.raises(ParameterError, match="no ALiBi bias"):
        identify_alibi_bias(t)


def test_a_report_of_one_sequence_has_no_batch_fields():
    """BLOOM's key-only rows m·j for one sequence (m = 1/2, 1/4, by hand): no batch to report."""
    row = np.array([0.5, 0.25])[:, None] * np.arange(6.0)[None, :]
    report = identify_alibi_bias(row[:, None, :]).report()
    assert report["convention"] == "bloom" and report["matched"]
    assert "batch" not in report and "batch_padding" not in report


def test_a_key_only_tensor_read_a_head_at_a_time_reads_every_head():
    """MPT's key-only rows m·(j - (k-1)) for 2 heads of max_bias 8 (by hand: 2^-4, 2^-8) over
    k = 2^19 + 1 keys: more than 2^20 values, so the tensor is read one head per block.

    Head 1's first key is moved by 2^-10 of itself, the largest value of its row: its relative
    error is 2^-10 (> the float32 tolerance 1e-5), and the tensor does not match. A reading that
    stopped after the first block would find head 0 exact.
    """
    k = (1 << 19) + 1
    m = np.array([2.0**-4, 2.0**-8])
    t = (m[:, None] * (np.arange(k, dtype=np.float64) - (k - 1)))[:, None, :]
    t[1, 0, 0] *= 1 + 2.0**-10
    fit = identify_alibi_bias(t)
    assert fit.convention == "mpt" and fit.slopes.tolist() == m.tolist()
    assert fit.error == 2.0**-10 and not fit.matched


def test_a_bfloat16_tensor_off_by_exactly_the_tolerance_matches():
    """The bfloat16 tolerance 2^-7 is inclusive. MPT's rows m·(j - 4) for 2 heads of max_bias 8
    (by hand: m = 2^-4, 2^-8), 5 keys: every value a bfloat16 number. Head 1's first key,
    -2^-6, moved to -(2^-6 + 2^-13) (8 significant bits: still bfloat16) is off by
    2^-13 / 2^-6 = 2^-7 of the row's largest value, exactly the tolerance.
    """
    m = np.array([2.0**-4, 2.0**-8])
    t = (m[:, None] * (np.arange(5.0) - 4))[:, None, :]
    t[1, 0, 0] = -(2.0**-6 + 2.0**-13)
    fit = identify_alibi_bias(t)
    assert fit.convention == "mpt" and (fit.error, fit.tolerance) == (2.0**-7, 2.0**-7)
    assert fit.matched and fit.slope_fit.matched
    t[1, 0, 0] = -(2.0**-6 + 2.0**-12)  # 2^-6 off: past the tolerance
    assert not identify_alibi_bias(t).matched


def test_a_mask_of_exactly_minus_1e30_is_a_mask():
    """Values at or below -1e30 are a mask (HF's finfo.min is below it): -1e30 itself too.

    A causal head of slope 1/2 over 3 keys, by hand: rows (0, ·, ·), (-1/2, 0, ·),
    (-1, -1/2, 0), its masked entries -1e30, reads as causal exactly. MPT's key-only row
    (-1, -1/2, 0) with its first key -1e30 has a masked key, which no key-only convention
    has: it is no ALiBi bias.
    """
    x = -1e30
    t = np.array([[[0.0, x, x], [-0.5, 0.0, x], [-1.0, -0.5, 0.0]]])
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.error, fit.slopes.tolist()) == ("causal", 0.0, [0.5])
    with pytest.raises(ParameterError, match="no ALiBi bias"):
        identify_alibi_bias(np.array([[[x, -0.5, 0.0]]]))


@pytest.mark.parametrize("convention", ["causal", "symmetric"])
def test_the_diagonal_is_plus_zero(convention):
    """-m·|i - j| by hand for m = 1/2, 1/4 over 3 keys; at i = j it is +0.0, never -0.0
    (what -(m·0) gives), so a saved tensor prints and compares bit for bit as 0."""
    bias = alibi_bias([0.5, 0.25], 3, convention=convention)
    x = -math.inf if convention == "causal" else None
    for h, m in enumerate((0.5, 0.25)):
        rows = [[0.0, -m, -2 * m], [-m, 0.0, -m], [-2 * m, -m, 0.0]]
        expected = [
            [x if x is not None and j > i else v for j, v in enumerate(r)]
            for i, r in enumerate(rows)
        ]
        assert bias[h].tolist() == expected
    assert not np.signbit(np.diagonal(bias, axis1=1, axis2=2)).any()


@pytest.mark.parametrize("bits", [53, 24, 11, 8])
def test_a_power_just_below_one_rounds_up_to_one(bits):
    """2^(-2^-60·k) = 1 - 2^-60·k·ln 2 + …, for k = 1, 3 less than 2^-58 below 1: nearer 1 than
    the format's next number below it, 1 - 2^-bits, so it rounds (up, across a power of two)
    to 1 = 2^(bits-1)·2^(1-bits) with a mantissa of ``bits`` bits."""
    from fractions import Fraction

    from pecli.core.zoo.alibi.powers import rounded_powers

    one = (1 << (bits - 1), 1 - bits)
    assert rounded_powers(Fraction(1, 1 << 60), [1, 3], bits) == [one, one]


def test_a_short_significand_is_shifted_left_to_the_working_precision():
    """5·2^3 = 40 = 160·2^-2, 160 the 8-bit mantissa; and 2^(-c·0) = 1 for c = 10^7, whose
    2^-c (about 10^-3010300) is below the decimal context's 10^-999999: 0, shifted up as is."""
    from fractions import Fraction

    from pecli.core.zoo.alibi.powers import _normal, exp2_multiples

    assert _normal(5, 3, 8) == (160, -2)
    assert exp2_multiples(Fraction(10**7), [0], "float64").tolist() == [1.0]
