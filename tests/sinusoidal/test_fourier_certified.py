"""``fourier --dtype float32``: every value correctly rounded, certified (docs/exactness.md).

The oracle is independent of pecli: mpmath's ``sin``/``cos`` of the exact angle ``f·s·x``
(``x`` the float64 input, ``f`` the integer frequency, ``s`` the scale, ``mpmath.pi`` for a
``pi`` scale) at 600 bits, rounded once to float32's 24 bits by mpmath (round to nearest, ties
to even; never through a float64, which would round twice). A value below 2^-300 is the exact
0 of a whole number of half turns (mpmath's ``π`` leaves ~1e-170 there). Every value is held
bit for bit. Each test fails on the code before the certificate, which cast NumPy's float64
value to float32 (its docstring shows where).
"""

from __future__ import annotations

import json
import re

import mpmath
import numpy as np
import pytest

from pecli import fourier_features
from pecli.core import direct
from pecli.core.certificate import ErrorBound, counting

LINE = re.compile(r"every value correctly rounded to float32: (0 undecided|\d+ recomputed)")


def exact(x: float, f: float, *, pi: bool, cosine: bool, factor: float = 1.0) -> mpmath.mpf:
    """``sin`` or ``cos`` of ``f·factor·x`` (times ``π``), 600 bits; 0 at a whole half turn."""
    with mpmath.workprec(600):
        angle = mpmath.mpf(x) * mpmath.mpf(f) * mpmath.mpf(factor) * (mpmath.pi if pi else 1)
        y = (mpmath.cos if cosine else mpmath.sin)(angle)
        return mpmath.mpf(0) if abs(y) < mpmath.mpf(2) ** -300 else y


def rounded32(y: mpmath.mpf) -> float:
    """``y`` rounded once to 24 bits, to nearest, ties to even (normal range, or 0)."""
    with mpmath.workprec(24):
        return float(+y)


def oracle(xs: list[float], freqs: list[float], *, pi: bool = False) -> np.ndarray:
    """The correctly rounded float32 γ of ``xs``, one row each: ``sin, cos`` per frequency."""
    rows = [
        [rounded32(exact(x, f, pi=pi, cosine=c)) for f in freqs for c in (False, True)] for x in xs
    ]
    return np.array(rows, dtype=np.float32)


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == np.float32 and got.shape == want.shape
    differ = np.argwhere(got.view(np.uint32) != want.view(np.uint32))
    assert differ.size == 0, [(tuple(i), got[tuple(i)], want[tuple(i)]) for i in differ[:5]]


def test_a_sine_just_below_a_float32_midpoint():
    """x = (1 + 3·2^-24)·2^-26 is a float32 midpoint; sin x = x − x³/6 lies 2^-80.6 below it.

    The float64 sine rounds to the midpoint itself, and the cast then goes to the even
    neighbour above: before, 1.4901164746561335e-08, for the exact 1.4901162970204496e-08.
    """
    x = (1 + 3 * 2.0**-24) * 2.0**-26
    got = fourier_features([x], k=1, dtype=np.float32)
    same_bits(got, oracle([x], [1.0]))
    assert float(got[0, 0]) == 1.4901162970204496e-08


def test_huge_inputs_and_angles_near_multiples_of_half_pi():
    """Harmonics 1 … 11 at x near 1e15, near 1e300 and at float64 multiples of π/2.

    Before: at x = 1000000000074427.6 the sine of 10x was -0.5974124670028687 (exact:
    -0.5974125266075134), at 1000000000096133.5 the cosine of 11x 0.9793542623519897 (exact:
    0.979354202747345), both the float64 value rounded twice; at x = 1.5e300 the cosine of
    3x was -0.7835423350334167 (exact: -0.9200264811515808): the angle's tail had overflowed
    and was dropped, leaving fl(3x).
    """
    xs = [1000000000074427.6, 1000000000096133.5, 1e6 + 0.1, 1.5e300, -2.5e299]
    xs += [float(mpmath.mpf(n) * mpmath.pi / 2) for n in (1, 7, 10**6 + 1, 10**12)]
    freqs = [float(f) for f in range(1, 12)]
    with counting() as tally:
        got = fourier_features(xs, k=11, dtype=np.float32)
    same_bits(got, oracle(xs, freqs))
    assert tally.checked == got.size and tally.recomputed >= 2 * 11 * 2  # every value near 1e300


def test_a_pi_scale_is_exact_at_half_turns_of_huge_inputs():
    """``--scale pi`` at x = 1e15 + 0.5: sin 2πx is exactly 0; 0.1 + 1e6 and 1/3 in between.

    Before: sin(2π·(1e15 + 0.5)) was 1.6653345e-16, the angle's double-double being off by
    about 2^-106 of 6.3e15.
    """
    xs = [1e15 + 0.5, -1e15 - 0.25, 1e6 + 0.1, 1 / 3, 2.5]
    got = fourier_features(xs, k=4, scale="pi", dtype=np.float32)
    same_bits(got, oracle(xs, [1.0, 2.0, 3.0, 4.0], pi=True))
    assert got[0, 2] == 0 and got[0, 3] == -1  # sin, cos of 2π·(1e15 + 0.5): a half turn


def test_octaves_up_to_2_60_with_a_pi_scale():
    """Octaves 2^0 … 2^60 times π: from 2^56 on, 2^j·x is an integer and every sine is 0.

    Before: at x = 0.1 the sine of 2^54·π·x was 1.1102230246251565e-16, and 6 more values of
    the row were not 0 (as at 1/3 and 1000.1): the double-double angle of 2^60·π is off by
    about 2^-46, a float32 ulp of 1e-14.
    """
    xs = [0.1, 1 / 3, 1000.1, -0.7]
    got = fourier_features(xs, k=61, frequencies="octave", scale="pi", dtype=np.float32)
    same_bits(got, oracle(xs, [2.0**j for j in range(61)], pi=True))
    assert not got[:, 2 * 56 :: 2].any()  # 2^j·x is an integer for j >= 56: sin 2^j·π·x = 0


def test_the_cli_says_the_certificate(run_cli, tmp_path):
    """The file, its stderr line and ``--json``; the raw inputs are x rounded once.

    Before: ``--json`` was no option of ``fourier`` (status 2), and the values above wrong.
    """
    xs = ["1000000000074427.6", "1000000000096133.5", "0.1"]
    out = tmp_path / "f.npy"
    args = ["fourier", "--k", "11", "--dtype", "float32", "--include-input", "-o", str(out)]
    done = run_cli(*args, "--json", "--", *xs)
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stderr)["certificate"]
    table = np.load(out)
    same_bits(table[:, 1:], oracle([float(x) for x in xs], [float(f) for f in range(1, 12)]))
    same_bits(table[:, :1], np.array([[float(x)] for x in xs], dtype=np.float32))
    assert report["claim"] == "correctly rounded" and report["values"] == table.size
    assert report["checked"] == table.size and LINE.fullmatch(report["message"])
    plain = run_cli(*args, "--", *xs)
    assert plain.stderr.splitlines()[-1] == f"pecli: {report['message']}"


def test_float64_keeps_the_bound_only(run_cli, tmp_path):
    """A float64 table is the kernel's values: "bound only", nothing rounded or checked.

    Before: ``--json`` was no option of ``fourier``.
    """
    done = run_cli("fourier", "--k", "2", "-o", str(tmp_path / "f.npy"), "--json", "--", "0.5")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stderr)["certificate"]
    assert report["claim"] == "error bound" and report["values"] == 4


@pytest.mark.parametrize("x", [0.0, -0.0])
def test_zero_is_exact_without_mpmath(x):
    """sin 0 = 0 and cos 0 = 1 are checked and decided by the bound, which is 0 there.

    Before: the same values, but nothing checked (the tally stayed at 0).
    """
    with counting() as tally:
        got = fourier_features([x], k=3, scale="pi", dtype=np.float32)
    assert got.tolist() == [[0, 1, 0, 1, 0, 1]]
    assert (tally.checked, tally.recomputed) == (6, 0)


def test_every_value_made_undecided_is_recomputed_exactly(monkeypatch):
    """Both paths' bounds widened to 5 %: every value not 0 goes through mpmath.

    The zeros, at whole quarter turns of a π scale, are set exactly with a bound of 0; the ±1
    there and every other value are recomputed, and give the oracle's bits. Before:
    sin(2π·(1e15 + 0.5)) was 1.6653345e-16 (and there was no ``GENERAL_BOUND`` to widen).
    """
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=0.05))
    monkeypatch.setattr(direct, "GENERAL_BOUND", ErrorBound(relative=0.05))
    xs = [0.0, 1e15 + 0.5, 2.5, 0.1, 1000000000074427.6, 1 / 3]
    with counting() as tally:
        got = fourier_features(xs, k=3, frequencies="octave", scale="pi", dtype=np.float32)
    same_bits(got, oracle(xs, [1.0, 2.0, 4.0], pi=True))
    assert (tally.checked, tally.recomputed) == (got.size, np.count_nonzero(got))


def test_whole_quarter_turns_of_a_pi_scale_need_no_recomputation():
    """Integer and half-integer x at π scales: 0 and ±1 set exactly, nothing recomputed.

    Every sine of ``pi`` at an integer x is exactly 0, which the bound cannot decide from the
    double-double angle: each went to mpmath (20 µs), 2 s for 10,000 rows of 8 harmonics.
    Before: sin(4π·1e15) was -5.5511151e-17 and cos(2π·3.75) 3.9443045e-31, both exactly 0.
    """
    xs = np.array([0.0, 1.0, -2.5, 2.0**40 + 0.5, 1e15, 0.25, 3.75])
    for scale, freqs in (("pi", "harmonic"), ("0.5pi", "octave"), ("3pi", "harmonic")):
        with counting() as tally:
            got = fourier_features(xs, k=6, frequencies=freqs, scale=scale, dtype=np.float32)
        factor = {"pi": 1.0, "0.5pi": 0.5, "3pi": 3.0}[scale]
        fs = [float(f if freqs == "harmonic" else 2 ** (f - 1)) for f in range(1, 7)]
        same_bits(got, oracle(list(xs), [f * factor for f in fs], pi=True))
        exact = np.isin(got, [0.0, 1.0, -1.0])
        assert tally.recomputed <= np.count_nonzero(~exact), scale


@pytest.mark.parametrize("scale", ["1", "pi", "0.3"])
def test_the_float64_values_lie_within_the_bound_of_either_path(scale):
    """The kernel's float64 values against mpmath, at angles to 2^70·x: inside ``sin_cos_bound``.

    Past 2^25 the tails reach 2^-27 and the general path ``s·cos lo + c·sin lo`` is taken, whose
    bound (``GENERAL_BOUND``, 20u and 36u·|lo|) ``direct_bound`` did not state. Before: there
    was no ``sin_cos_bound``.
    """
    from pecli.core.sinusoidal.fourier import _angles
    from pecli.core.sinusoidal.fourier_scale import scale_terms

    xs, k = np.array([[0.1], [1 / 3], [12345.678], [-7.5]]), 71
    freqs = np.ldexp(1.0, np.arange(k))
    factor, pi = scale_terms(scale)
    angle, lost = _angles(xs, freqs, (factor, pi))
    bound = direct.sin_cos_bound(angle)
    got = fourier_features(xs, k=k, frequencies="octave", scale=scale).reshape(4, k, 2)
    general = np.any(np.abs(angle[1]) >= 2.0**-27)  # the exact octaves of "1": none
    assert not lost.any() and general == (scale != "1")
    assert bound.relative == (direct.GENERAL_BOUND if general else direct.DIRECT_BOUND).relative
    with mpmath.workprec(400):
        for i, x in enumerate(xs[:, 0]):
            for j, f in enumerate(freqs):
                for c in (0, 1):
                    y = exact(x, f, pi=pi, cosine=bool(c), factor=factor)
                    e = float(bound.absolute[i, j, 0]) + bound.relative * abs(got[i, j, c])
                    assert abs(float(y - got[i, j, c])) <= e, (x, f, c)


@pytest.mark.parametrize("x", [1.5, 3.5, -3.5, 2**23 + 0.5])
def test_a_tiny_input_on_a_float32_tie_is_decided(x):
    """x = k·2^-149, k a half-integer, is a float32 tie (subnormal, or the least normal's
    half-step below 2^-126); sin x lies x³/6 below it, 2^-300 relative, which 256 bits could
    not decide: the command stopped with "undecided at 256 bits". sin rounds toward 0, to
    the even neighbour's other side when it must; cos x is 1. The oracle rounds on the
    subnormal grid 2^-149 by hand (mpmath, 1200 bits)."""
    value = x * 2.0**-149
    with mpmath.workprec(1200):
        steps = mpmath.sin(mpmath.mpf(value)) / mpmath.mpf(2) ** -149  # just inside |k|
        want = float(mpmath.floor(abs(steps)) * (1 if steps > 0 else -1)) * 2.0**-149
    got = fourier_features(value, k=1, dtype=np.float32)[0]
    assert (float(got[0]), float(got[1])) == (want, 1.0)
    assert abs(want) < abs(value)
