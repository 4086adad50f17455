"""Fourier features γ (docs/fourier.md): golden values, mpmath, grouping, periodicity of f ∘ γ."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pecli import ParameterError, feature_names, fourier_features, fourier_frequencies
from pecli.core.sinusoidal.fourier import parse_scale

GAMMA_05_K3 = [0.4794255386, 0.8775825619, 0.8414709848, 0.5403023059, 0.9974949866, 0.0707372017]
GAMMA_M15_K2 = [-0.9974949866, 0.0707372017, -0.1411200081, -0.9899924966]


def test_golden_values_of_spec_2():
    np.testing.assert_allclose(fourier_features(0.5, k=3)[0], GAMMA_05_K3, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fourier_features(-1.5, k=2)[0], GAMMA_M15_K2, rtol=0, atol=1e-10)


def mp_gamma(x: float, freqs: list[float], scale: float = 1.0) -> list[float]:
    out = []
    for f in freqs:
        angle = mpmath.mpf(f) * mpmath.mpf(scale) * mpmath.mpf(x)
        out += [float(mpmath.sin(angle)), float(mpmath.cos(angle))]
    return out


@pytest.mark.parametrize(
    ("frequencies", "freqs"), [("harmonic", [1, 2, 3, 4, 5]), ("octave", [1, 2, 4, 8, 16])]
)
def test_features_match_mpmath(frequencies, freqs):
    xs = [-7.25, -1.0, 0.0, 0.3, 2.0, 11.5]
    got = fourier_features(xs, k=5, frequencies=frequencies)
    expected = np.array([mp_gamma(x, freqs) for x in xs])
    assert got.shape == (6, 10) and got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)


def test_frequency_schedules():
    np.testing.assert_array_equal(fourier_frequencies(3), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(
        fourier_frequencies(10, frequencies="octave"), 2.0 ** np.arange(10)
    )


def test_coordinates_are_grouped_by_frequency_with_input_first():
    points = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]])
    got = fourier_features(points, k=2, frequencies="octave", include_input=True)
    assert got.shape == (2, 3 + 3 * 2 * 2)
    for r, (x1, x2, x3) in enumerate(points):  # written out from docs/fourier.md, NeRF code order
        expected = [x1, x2, x3]
        for f in (1.0, 2.0):
            expected += [math.sin(f * x1), math.sin(f * x2), math.sin(f * x3)]
            expected += [math.cos(f * x1), math.cos(f * x2), math.cos(f * x3)]
        np.testing.assert_allclose(got[r], expected, rtol=0, atol=1e-15)
    assert feature_names(3, 2, include_input=True) == [
        "x1",
        "x2",
        "x3",
        "sin_1_x1",
        "sin_1_x2",
        "sin_1_x3",
        "cos_1_x1",
        "cos_1_x2",
        "cos_1_x3",
        "sin_2_x1",
        "sin_2_x2",
        "sin_2_x3",
        "cos_2_x1",
        "cos_2_x2",
        "cos_2_x3",
    ]


def test_coordinates_without_input():
    points = np.array([[0.5, -1.5]])
    got = fourier_features(points, k=2)
    a, b = points[0]
    expected = [
        math.sin(a),
        math.sin(b),
        math.cos(a),
        math.cos(b),
        math.sin(2 * a),
        math.sin(2 * b),
        math.cos(2 * a),
        math.cos(2 * b),
    ]
    np.testing.assert_allclose(got, [expected], rtol=0, atol=1e-15)


def test_scalar_and_one_column_give_gamma():
    assert fourier_features(0.5, k=3).shape == (1, 6)
    np.testing.assert_array_equal(
        fourier_features([[0.5], [-1.5]], k=2), fourier_features([0.5, -1.5], k=2)
    )


def test_scale_pi_is_the_nerf_paper_form():
    got = fourier_features(0.3, k=3, frequencies="octave", scale=math.pi)[0]
    np.testing.assert_allclose(got, mp_gamma(0.3, [1, 2, 4], scale=float(mpmath.pi)), atol=1e-15)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1.0),
        ("0.5", 0.5),
        ("pi", math.pi),
        ("2pi", 2 * math.pi),
        ("0.5*pi", math.pi / 2),
        ("π", math.pi),
        ("2 PI", 2 * math.pi),
        ("1e-3", 0.001),
        # the smallest subnormal 2**-1074 times pi is 3.14... * 2**-1074: rounds to 3 * 2**-1074
        ("5e-324pi", 3 * 2.0**-1074),
    ],
)
def test_parse_scale(text, value):
    assert parse_scale(text) == value


# 1e308 * pi = 3.1e308 is past the largest double (1.8e308): not a finite value
@pytest.mark.parametrize("text", ["0", "-1", "pi2", "x", "", "nan", "inf", "2pipi", "1e308pi"])
def test_parse_scale_refuses(text):
    with pytest.raises(ParameterError) as info:
        parse_scale(text)
    assert info.value.parameter == "scale"


def tanh_network(widths: list[int], seed: int):
    """A random network written here from scratch (not pecli's), R^widths[0] -> R."""
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(size=(a, b)) / math.sqrt(a), rng.normal(size=b))
        for a, b in itertools.pairwise(widths)
    ]

    def f(h):
        for j, (w, b) in enumerate(layers):
            h = h @ w + b
            h = np.tanh(h) if j < len(layers) - 1 else h
        return h[:, 0]

    return f


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(1, 8),
    frequencies=st.sampled_from(["harmonic", "octave"]),
    seed=st.integers(0, 2**32 - 1),
    shifts=st.integers(-3, 3),
)
def test_network_on_gamma_is_2pi_periodic(k, frequencies, seed, shifts):
    f = tanh_network([2 * k, 24, 24, 1], seed)
    x = np.linspace(-10.0, 10.0, 201)
    here = f(fourier_features(x, k=k, frequencies=frequencies))
    there = f(fourier_features(x + 2 * math.pi * shifts, k=k, frequencies=frequencies))
    assert np.max(np.abs(there - here)) <= 1e-12
    # and the network is not trivially constant, so the check could fail
    assert np.ptp(here) > 1e-3


def test_scale_pi_gives_period_2():
    f = tanh_network([6, 16, 1], seed=7)
    x = np.linspace(-3, 3, 101)
    here = f(fourier_features(x, k=3, scale=math.pi))
    np.testing.assert_allclose(f(fourier_features(x + 2, k=3, scale=math.pi)), here, atol=1e-12)
    assert np.max(np.abs(f(fourier_features(x + 1, k=3, scale=math.pi)) - here)) > 1e-2


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: fourier_features(1.0, k=0), "k"),
        (lambda: fourier_features(1.0, k=2.5), "k"),
        (lambda: fourier_features(1.0, k=2, frequencies="cubic"), "frequencies"),
        (lambda: fourier_features(1.0, k=2000, frequencies="octave"), "k"),
        (lambda: fourier_features(1.0, k=2, scale=0), "scale"),
        (lambda: fourier_features(1.0, k=2, dtype="int8"), "dtype"),
        (lambda: fourier_features([1.0, np.nan], k=2), "x"),
        (lambda: fourier_features(np.zeros((2, 2, 2)), k=2), "x"),
        (lambda: fourier_features(np.array(["a"]), k=2), "x"),
    ],
)
def test_invalid_arguments(call, parameter):
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    ("scale", "mp_scale"),
    [
        (1.0, lambda: 1),
        (0.1, lambda: 0.1),
        ("pi", lambda: +mpmath.pi),
        ("0.5pi", lambda: mpmath.pi / 2),
    ],
)
@pytest.mark.parametrize("frequencies", ["harmonic", "octave"])
def test_large_angles_are_within_two_ulps_of_each_value(scale, mp_scale, frequencies):
    # angles up to ~1e10: f·s·x rounded to float64 first would be off by ~1e-6 there
    xs = [1000.3, -12345.678, 300000.1]
    got = fourier_features(xs, k=16, frequencies=frequencies, scale=scale)
    freqs = fourier_frequencies(16, frequencies=frequencies)
    with mpmath.workdps(40):
        _assert_within_two_ulps(xs, freqs, got, mpmath.mpf(mp_scale()))  # at 40 digits


def test_points_past_1e300_lose_the_angle_s_tail_not_its_value():
    """Past ~1e300 the double-double product's tail overflows (Veltkamp's split of x·2^27):
    the tail is dropped and sin/cos are of x·f itself, exact here (f = 1, 2; scale 1), so
    within two ulps of mpmath at 400 digits (the angles have 309 digits before the point)."""
    xs = [-3e305, 1.5e307, 8.5e307]
    got = fourier_features(xs, k=2)
    with mpmath.workdps(400):
        _assert_within_two_ulps(xs, [1.0, 2.0], got, mpmath.mpf(1))


def test_an_angle_past_float64_names_the_largest_point():
    """2 · 1e308 overflows float64 (its largest finite value is 1.797e308): refused naming x,
    with the largest |x| (1e308, not the first point), and float32 inputs past 3.4e38 too."""
    with pytest.raises(ParameterError) as info:
        fourier_features([0.5, -1e308, 2.0], k=2)
    assert (info.value.parameter, info.value.value) == ("x", 1e308)
    with pytest.raises(ParameterError) as info:
        fourier_features([0.5, -1e39], k=1, include_input=True, dtype="float32")
    assert (info.value.parameter, info.value.value) == ("dtype", 1e39)


def _assert_within_two_ulps(xs, freqs, got, mp_scale):
    for x, row in zip(xs, got, strict=True):
        for f, sin_value, cos_value in zip(freqs, row[0::2], row[1::2], strict=True):
            angle = mpmath.mpf(f) * mp_scale * mpmath.mpf(x)
            for value, exact in ((sin_value, mpmath.sin(angle)), (cos_value, mpmath.cos(angle))):
                error = abs(mpmath.mpf(float(value)) - exact)
                assert error <= 2 * np.spacing(abs(float(exact))), (x, f, value, exact)


def test_scale_pi_as_text_is_exact_pi():
    got = fourier_features([1.0, 2.0, 0.5, -3.0, 1e6 + 1], k=4, scale="pi")
    # sin(lπ·x) for integer x and l, and cos for half-integer lx, are exactly 0; the rest ±1
    assert set(np.unique(got)) <= {-1.0, 0.0, 1.0}
    np.testing.assert_array_equal(got[0], [0, -1, 0, 1, 0, -1, 0, 1])
    assert fourier_features(1.0, k=1, scale=math.pi)[0, 0] == pytest.approx(1.2246e-16, rel=1e-4)


@pytest.mark.parametrize("factor", [1e16, 1e20, 2.0**70, 1e300])
def test_float64_at_huge_multiples_of_pi_is_exact_at_quarter_turns(factor):
    """x·f·factor an integer or a half-integer: the float64 values are exactly 0 and ±1, as
    mpmath's sinpi/cospi give them (the float32 ones already were). At ``1e300pi`` the
    float64 sine of x = 1 was -0.90, π being held to 2^-106 only in the double-double angle."""
    xs = [1.0, 0.5, -3.0, 2.5]
    got = fourier_features(xs, k=3, scale=f"{factor!r}pi")
    for x, row in zip(xs, got, strict=True):
        for f, sin_value, cos_value in zip((1, 2, 3), row[0::2], row[1::2], strict=True):
            t = mpmath.mpf(x) * f * mpmath.mpf(factor)
            assert (sin_value, cos_value) == (mpmath.sinpi(t), mpmath.cospi(t)), (x, f)


@pytest.mark.parametrize(
    ("scale", "x", "factor", "times_pi"),
    [
        ("1e300pi", -7.1e-290, 1e300, True),  # angle 2.2e11: was 1.4e-5 off
        ("1e300pi", 1e-300, 1e300, True),  # sin_2 had the wrong sign
        ("3e305", 1.234e-290, 3e305, False),  # no π: the factor itself overflowed the split
    ],
)
def test_float64_keeps_the_angle_s_tail_when_a_factor_is_past_1e299(scale, x, factor, times_pi):
    """A factor past ~1e299 overflowed Dekker's split in the double-double product: the
    angle's tail was dropped and its float64 head, good to 2^-53 only, went to sin and cos.
    Each value is now within 2 float64 ulps of mpmath's, plus the double-double angle's own
    2^-100 relative error (an absolute error of the sine), as at any other angle."""
    got = fourier_features(x, k=2, scale=scale)[0]
    for f, sin_value, cos_value in zip((1, 2), got[0::2], got[1::2], strict=True):
        with mpmath.workprec(400):
            angle = mpmath.mpf(x) * f * mpmath.mpf(factor) * (mpmath.pi if times_pi else 1)
            pairs = ((sin_value, mpmath.sin(angle)), (cos_value, mpmath.cos(angle)))
            for value, exact in pairs:
                error = abs(mpmath.mpf(float(value)) - exact)
                allowed = 2 * np.spacing(abs(float(exact))) + abs(float(angle)) * 2.0**-100
                assert error <= allowed, (f, value, exact)


def test_octaves_run_to_2_to_the_1023_the_largest_finite_power_of_two():
    """k = 1024 octaves 2^0 … 2^1023 (float64's largest power of two, 2^1024 overflows);
    k = 1025 is refused naming k."""
    octaves = fourier_frequencies(1024, frequencies="octave")
    assert octaves[-1] == 2.0**1023 and octaves.size == 1024
    with pytest.raises(ParameterError) as caught:
        fourier_frequencies(1025, frequencies="octave")
    assert caught.value.parameter == "k"
