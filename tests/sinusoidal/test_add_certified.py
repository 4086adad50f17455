"""``add --dtype float32``: each ``x + pe(pos)`` correctly rounded, certified (docs/exactness.md).

The oracle is independent of pecli: ``x + sin(p·ω)`` (or ``cos``) with ``ω = C^(-2j/d)`` in
mpmath at 600 bits, rounded once to float32's 24 bits by mpmath (never through a float64,
which would round twice). Each test fails on the code before the certificate, which added the
float64 table to the data and cast the sum (its docstring shows where).
"""

from __future__ import annotations

import json

import mpmath
import numpy as np

from pecli.core import direct
from pecli.core.certificate import ErrorBound, counting
from pecli.core.sinusoidal.apply import add_encoding


def oracle(x: np.ndarray, start: int, base: float = 10000.0) -> np.ndarray:
    """The correctly rounded float32 ``x + pe``, interleaved sin/cos columns."""
    n, d = x.shape
    want = np.empty((n, d), dtype=np.float32)
    with mpmath.workprec(600):
        for r in range(n):
            for j in range(d // 2):
                angle = (start + r) * mpmath.mpf(base) ** (-mpmath.mpf(2 * j) / d)
                for c, f in ((0, mpmath.sin), (1, mpmath.cos)):
                    y = mpmath.mpf(float(x[r, 2 * j + c])) + f(angle)
                    with mpmath.workprec(24):
                        want[r, 2 * j + c] = float(+y)
    return want


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == np.float32 and got.shape == want.shape
    differ = np.argwhere(got.view(np.uint32) != want.view(np.uint32))
    assert differ.size == 0, [(tuple(i), got[tuple(i)], want[tuple(i)]) for i in differ[:5]]


def _pe64(start: int, n: int, d: int) -> np.ndarray:
    """The float64 table as NumPy computes it (the terms the data is planted against)."""
    p = np.arange(start, start + n, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    pe = np.empty((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return pe


def test_a_sum_that_cancels_the_encoding():
    """x = −fl(pe): the float64 sum is exactly 0, the exact one pe − fl(pe), about 1e-17.

    Before: 0.0 in every entry; now sin 1 − fl(sin 1) = 1.7768452e-18 (rounded once), and so on.
    """
    x = -_pe64(1, 3, 4)
    with counting() as tally:
        got = add_encoding(x, start=1, dtype=np.float32)
    same_bits(got, oracle(x, 1))
    assert np.all(got != 0) and (tally.checked, tally.recomputed) == (12, 12)


def test_a_float64_sum_on_a_float32_midpoint():
    """x = M − fl(pe) for the float32 midpoints M next to 1 + pe: the float64 sum is M.

    The cast then goes to the even neighbour; the exact sum is off M by pe − fl(pe), on
    either side. Before: the entries where that side was the odd neighbour's (half of them)
    were one float32 ulp off.
    """
    pe = _pe64(1, 8, 8)
    near = (1 + pe).astype(np.float32).astype(np.float64)
    midpoint = near + np.spacing(near.astype(np.float32)).astype(np.float64) / 2
    x = midpoint - pe
    assert np.count_nonzero(x + pe == midpoint) >= 48  # of 64: the float64 sum on M
    got = add_encoding(x, start=1, dtype=np.float32)
    same_bits(got, oracle(x, 1))


def test_position_0_sums_are_exact_even_on_a_midpoint():
    """At position 0, x + 0 and x + 1 are rational: a tie is rounded to even, in integers.

    1 + 3·2^-24 lies halfway between 1 + 2^-23 and 1 + 2^-22: to the latter. Before: the
    same values, but nothing checked (the tally stayed at 0).
    """
    x = np.array([[3 * 2.0**-24 + 1, 3 * 2.0**-24, 2.0**-24, 2.0**-24]])
    with counting() as tally:
        got = add_encoding(x, start=0, dtype=np.float32)
    same_bits(got, oracle(x, 0))
    assert got[0, 1] == 1 + 2.0**-22 and tally.checked == 4


def test_every_sum_made_undecided_is_recomputed_exactly(monkeypatch):
    """The direct bound widened to 5 %: every sum goes through mpmath, or integers at 0.

    Before: the cancelling sums were 0.0 (and nothing was recomputed).
    """
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=0.05))
    x = np.vstack([-_pe64(0, 3, 6), np.full((2, 6), 2.0**-24)])
    with counting() as tally:
        got = add_encoding(x, start=0, dtype=np.float32)
    same_bits(got, oracle(x, 0))
    assert tally.recomputed == got.size - 3  # not the sines at position 0: bound 0


def test_the_cli_says_the_certificate(run_cli, tmp_path):
    """The file against mpmath, the stderr line and ``--json``; float64: the bound only.

    Before: ``--json`` was no option of ``add`` (status 2), and the sums were 0.0.
    """
    data = tmp_path / "x.npy"
    np.save(data, -_pe64(1, 4, 6))
    out = tmp_path / "a.npy"
    done = run_cli("add", str(data), "-o", str(out), "--json")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stderr)["certificate"]
    same_bits(np.load(out), oracle(np.load(data), 1))
    assert report == {
        "claim": "correctly rounded",
        "checked": 24,
        "recomputed": 24,
        "values": 24,
        "message": "every value correctly rounded to float32: 24 recomputed",
    }
    plain = run_cli("add", str(data), "-o", str(out))
    assert plain.stderr.splitlines()[-1] == "pecli: " + report["message"]
    wide = run_cli("add", str(data), "--dtype", "float64", "-o", str(out), "--json")
    assert json.loads(wide.stderr)["certificate"]["claim"] == "error bound"
