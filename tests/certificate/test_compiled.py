"""The certificate's compiled pass (C extension ``_fused``) against its NumPy reference and mpmath.

The compiled pass must write the NumPy pass's bits and flag the same undecided entries, on
random blocks and on values planted at and next to float32 rounding boundaries (every binade,
subnormals, ±0, NaN, ±inf); the planted values are also held to mpmath: a decided entry is the
correctly rounded value of every number within the bound, an undecided one has an interval
that really straddles a boundary. The extension must be built where the tests run (CI builds
it: the certificate's speed is part of the product) unless PECLI_ALLOW_NO_EXTENSION=1.
"""

from __future__ import annotations

import os

import mpmath
import numpy as np
import pytest

from pecli.core import kernels
from pecli.core.certificate import blocks, compiled, correctly_rounded, counting
from pecli.core.certificate.bounds import _ends_differ

ALLOWED_MISSING = os.environ.get("PECLI_ALLOW_NO_EXTENSION") == "1"
needs_extension = pytest.mark.skipif(
    not compiled.usable(), reason="the compiled pass is not built (PECLI_ALLOW_NO_EXTENSION=1)"
)
F32 = np.float32


def test_the_extension_is_built_and_used():
    if ALLOWED_MISSING:
        pytest.skip("PECLI_ALLOW_NO_EXTENSION=1: the NumPy pass is accepted")
    assert compiled._fused is not None, "pecli.core.certificate._fused is not built (pip install)"
    assert compiled.usable(), "NumPy's complex product is neither formula the extension knows"
    assert compiled.BACKEND == "compiled"


def test_numpy_fuses_names_numpys_formula_on_hand_derived_operands():
    # (1 + t)(1 + i) · (1 - t)(1 + i), t = 2^-30: ar·br = ai·bi = 1 - 2^-60 exactly, which
    # rounds to 1; so the real part is 1 - 1 = 0 unfused and (1 - 2^-60) - 1 = -2^-60 fused
    t = 2.0**-30
    a = np.full((2, 4), (1 + t) * (1 + 1j))  # a block, as the kernel multiplies (SIMD loop)
    b = np.full(4, (1 - t) * (1 + 1j))
    re = np.multiply(a, b).real
    assert np.all(re == re[0, 0]) and re[0, 0] in (0.0, -(2.0**-60))
    assert compiled.numpy_fuses() is bool(re[0, 0] == -(2.0**-60))


def test_numpy_fuses_is_false_where_numpy_computes_the_textbook_product(monkeypatch):
    """A CPU without FMA: NumPy's product is ``ar·br − ai·bi``, ``ar·bi + ai·br`` (by hand)."""

    def textbook(a, b):
        a, b = np.broadcast_arrays(a, b)
        return (a.real * b.real - a.imag * b.imag) + 1j * (a.real * b.imag + a.imag * b.real)

    monkeypatch.setattr(compiled.np, "multiply", textbook)
    assert compiled.numpy_fuses.__wrapped__() is False


def test_the_compiled_pass_is_unusable_without_the_extension_or_a_known_product(monkeypatch):
    monkeypatch.setattr(compiled, "numpy_fuses", lambda: None)  # a formula of neither kind
    assert compiled.usable() is False
    monkeypatch.setattr(compiled, "numpy_fuses", lambda: True)
    monkeypatch.setattr(compiled, "_fused", None)  # built without a C compiler
    assert compiled.usable() is False


def _planted() -> np.ndarray:
    """float64 values at, beside and between float32 numbers in every binade, and the specials."""
    exponents = np.arange(-149, 128)
    x = np.ldexp(F32(1), exponents).astype(F32)  # powers of two, subnormals included
    x = np.concatenate([x, np.ldexp(F32(1.5), exponents[1:]).astype(F32)])
    x = np.concatenate([x, np.nextafter(x, F32(np.inf)), [F32(0.1), F32(2.0 / 3), F32(1e-40)]])
    x = x[np.isfinite(x)]
    up = np.nextafter(x, F32(np.inf)).astype(np.float64)
    ties = (x.astype(np.float64) + up) / 2  # exact in float64 (a float32 tie)
    near = [ties, np.nextafter(ties, 0), np.nextafter(ties, np.inf), ties + 1e-16, ties - 1e-16]
    values = np.concatenate([x.astype(np.float64), *near])
    values = np.concatenate([values, -values, [0.0, -0.0, np.nan, np.inf, -np.inf]])
    specials = [np.finfo(F32).max * (1 + 2.0**-24), 2.0**-150, 3 * 2.0**-150, 2.0**-151]
    return np.concatenate([values, specials, np.negative(specials)])


PLANTED = _planted()
#: bounds: none, below any float32 ulp, the consecutive kernel's, one wide enough for 1e-4
BOUNDS = (0.0, 1e-300, kernels.CONSECUTIVE_BOUND.widest(2.0), 2.0**-40)


def _both(anchor, turn, e, split, rows_first=0):
    """The rounded table and the undecided (row, col) set from each pass: compiled, NumPy."""
    results = []
    m, h = anchor.shape
    for use in (True, False):
        table = np.full((rows_first + m + 1, 2 * h), F32(7.0))
        views = (table[:, :h], table[:, h:]) if split else (table[:, 0::2], table[:, 1::2])
        pairs = None if split else kernels._complex_view(*views)
        asked = []

        def exact(rows, cols, dtype, asked=asked):
            asked.extend(zip(rows.tolist(), cols.tolist(), strict=True))
            return np.full(rows.size, -3.0)  # a marker: where the pass put recomputed values

        write = blocks.ProductRounder(*views, pairs, (m, h), e, exact, use_compiled=use)
        assert write.compiled == (use and compiled.usable())
        write(rows_first, rows_first + m, anchor, turn)
        results.append((table, asked))
    return results


def _same(results):
    (a, asked_a), (b, asked_b) = results
    assert a.view(np.uint32).tobytes() == b.view(np.uint32).tobytes()
    assert sorted(asked_a) == sorted(asked_b)  # (NumPy asks the sines, then the cosines)
    return b, asked_b


@needs_extension
@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("h", [1, 2, 3, 7, 64, 257, 300])
def test_random_blocks_give_numpys_bits_and_undecided_sets(h, split):
    rng = np.random.default_rng(h + 1000 * split)
    for trial in range(12):
        m = int(rng.integers(1, 40))
        anchor = np.exp(1j * rng.uniform(-4, 4, (m, h)))
        turn = np.exp(1j * rng.uniform(-4, 4, h))
        e = float(rng.choice([kernels.CONSECUTIVE_BOUND.widest(2.0), 1e-9, 2.0**-26]))
        _, asked = _same(_both(anchor, turn, e, split, rows_first=trial % 3))
        if e == 2.0**-26:
            assert asked  # a wide bound leaves some undecided: the sets compared are not empty


@needs_extension
@pytest.mark.parametrize("e", BOUNDS)
@pytest.mark.parametrize("split", [False, True])
def test_planted_values_give_numpys_bits_and_agree_with_mpmath(e, split):
    values = PLANTED
    if values.size % 2:
        values = np.append(values, 0.5)
    # anchor · (1 + 0i): the real part is the planted value exactly (ar·1 - ai·0), the
    # imaginary part the neighbouring planted value (ar·0 + ai·1)
    anchor = np.empty((1, values.size // 2), dtype=np.complex128)
    anchor.real, anchor.imag = values[0::2], values[1::2]
    turn = np.ones(anchor.shape[1], dtype=np.complex128)
    with np.errstate(invalid="ignore", over="ignore"):
        table, asked = _same(_both(anchor, turn, e, split))
        expected = np.multiply(anchor, turn)[0]
    if split:  # the same bits as the NumPy pass; held to mpmath once, interleaved
        return
    h = anchor.shape[1]
    undecided = {c for r, c in asked if r == 0}
    wide = np.empty(2 * h)
    wide[0::2], wide[1::2] = expected.real, expected.imag
    row = np.empty(2 * h, dtype=F32)
    row[0::2], row[1::2] = (
        (table[0, :h], table[0, h:]) if split else (table[0, 0::2], table[0, 1::2])
    )
    for col in range(2 * h):
        v = wide[col]
        if col in undecided:
            assert row[col] == -3.0  # recomputed where flagged
            if np.isfinite(v):  # fl(v ± e) lies within v ± slack: the interval straddles
                with mpmath.workprec(300):
                    slack = mpmath.mpf(e) * (1 + 2.0**-50) + 2 * abs(mpmath.mpf(v)) * 2.0**-53
                    ends = [correctly_rounded(mpmath.mpf(v) + s * slack, F32) for s in (-1, 1)]
                assert ends[0] != ends[1], (v, e)
            continue
        if not np.isfinite(v):
            assert row[col] == F32(v) or (np.isnan(v) and np.isnan(row[col]))
            continue
        # a value within the bound rounds as v does: v itself, and v ± e/2 where the bound
        # covers fl(v ± e) (e >= 4u|v|, as ErrorBound's widening makes every real bound)
        points = [mpmath.mpf(v)]
        if e >= 4 * 2.0**-53 * abs(v):
            points += [mpmath.mpf(v) - mpmath.mpf(e) / 2, mpmath.mpf(v) + mpmath.mpf(e) / 2]
        with mpmath.workprec(300):
            for point in points:
                got = correctly_rounded(point, F32)
                assert abs(got) > np.finfo(F32).max or row[col] == got, (v, e, float(row[col]))


@needs_extension
@pytest.mark.parametrize("e", [*BOUNDS, "per value"])
def test_ends_differ_is_numpys_on_planted_and_random_values(e):
    rng = np.random.default_rng(5)
    values = np.concatenate([PLANTED, rng.uniform(-2, 2, 5000), rng.standard_normal(5000) * 1e-6])
    bound = np.abs(values) * 2.0**-30 if e == "per value" else e
    with np.errstate(invalid="ignore"):
        bound = np.nan_to_num(bound, nan=0.0, posinf=0.0) if e == "per value" else bound
        reference = np.flatnonzero(_ends_differ(values, bound, np.dtype(F32)))
    found = np.frombuffer(compiled.ends_differ(values, bound), np.int64)
    assert found.tolist() == reference.tolist()
    assert np.isnan(values[found]).any()  # NaN always differs


@needs_extension
def test_the_kernel_writes_the_same_table_and_tally_either_way(monkeypatch):
    omega = 10000.0 ** (-np.arange(256) / 256)
    tables, tallies = [], []
    for use in (True, False):
        monkeypatch.setattr(compiled, "usable", lambda use=use: use)
        out = np.empty((3000, 512), dtype=F32)  # position 0 inside: its sines are undecided
        with counting() as tally:
            kernels.fill_sin_cos_consecutive(out[:, 0::2], out[:, 1::2], -1000.0, omega)
        tables.append(out)
        tallies.append((tally.checked, tally.recomputed))
    assert tables[0].tobytes() == tables[1].tobytes()
    assert tallies[0] == tallies[1] and tallies[0][0] == 3000 * 512 and tallies[0][1] >= 256
