"""float16 and bfloat16 tables: each value the exact one rounded once, checked with mpmath.

The nearest half-precision number is chosen here among the neighbours of a guess by comparing
exact (40-digit) distances, ties to the even bit pattern: nothing of pecli's rounding is used.
"""

from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest
from reference import mp_pe

import pecli
from pecli.core.dtypes import round_once

HALF = {"float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}


def correctly_rounded(exact: mpmath.mpf, dtype: np.dtype) -> int:
    """Bit pattern of the ``dtype`` number nearest to ``exact`` (ties to an even pattern)."""
    guess = int(np.array([float(exact)]).astype(dtype).view(np.uint16)[0])
    best: tuple[mpmath.mpf, int, int] | None = None
    for bits in (guess - 1, guess, guess + 1):
        value = float(np.array([bits & 0xFFFF], dtype=np.uint16).view(dtype)[0])
        if not np.isfinite(value):
            continue
        key = (abs(mpmath.mpf(value) - exact), bits & 1, bits & 0xFFFF)
        best = key if best is None or key[:2] < best[:2] else best
    assert best is not None
    return best[2]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("start", [0, 999_950])
def test_every_value_is_the_exact_one_rounded_once(name, start):
    d, n = 32, 50
    table = pecli.encoding_table(d=d, n=n, start=start, dtype=name)
    assert table.dtype == HALF[name]
    bits = table.view(np.uint16)
    for r in range(n):
        exact = mp_pe(start + r, d)
        assert [correctly_rounded(v, HALF[name]) for v in exact] == bits[r].tolist()


def test_bfloat16_avoids_the_double_rounding_of_a_cast_through_float32():
    """ml_dtypes' float64 cast rounds to float32 first; pecli rounds once (mpmath decides)."""
    wide = pecli.encoding_table(d=512, n=4000, start=0, dtype="float64")
    ours = pecli.encoding_table(d=512, n=4000, start=0, dtype="bfloat16").view(np.uint16)
    cast = wide.astype(ml_dtypes.bfloat16).view(np.uint16)
    rows, cols = np.nonzero(ours != cast)
    assert 0 < rows.size < 100  # a few values lie that close to a bfloat16 tie
    for r, c in zip(rows, cols, strict=True):
        exact = mp_pe(r, 512)[c]
        assert correctly_rounded(exact, HALF["bfloat16"]) == ours[r, c] != cast[r, c]


def test_round_once_on_hand_made_ties():
    bf16 = HALF["bfloat16"]
    just_above, just_below = 1 + 2**-8 + 2**-40, 1 + 2**-8 - 2**-40
    tie_even, tie_odd = 1 + 2**-8, 1 + 3 * 2**-8  # ties: to 1 and to 1 + 2^-6 (even patterns)
    values = np.array([just_above, just_below, tie_even, tie_odd, -just_above, 0.0, 1e-45])
    got = round_once(values, bf16).astype(np.float64)
    want = [1 + 2**-7, 1.0, 1.0, 1 + 2**-6, -(1 + 2**-7), 0.0, 0.0]
    assert got.tolist() == want
    assert round_once(values, np.dtype(np.float16)).tolist() == values.astype(np.float16).tolist()


def test_streamed_half_tables_are_the_same_bits_as_one_piece():
    whole = pecli.encoding_table(d=10, n=50, start=3, dtype="bfloat16")
    blocks = pecli.table_blocks(d=10, n=50, start=3, dtype="bfloat16", rows=7)
    assert np.concatenate(list(blocks)).view(np.uint16).tolist() == whole.view(np.uint16).tolist()


def test_positions_accept_half_dtypes_too():
    row = pecli.positional_encoding(1, d=4, dtype=ml_dtypes.bfloat16)
    exact = mp_pe(1, 4)
    assert row.view(np.uint16)[0].tolist() == [
        correctly_rounded(v, HALF["bfloat16"]) for v in exact
    ]


def test_float16_csv_holds_each_value_exactly(run_cli):
    result = run_cli("compute", "--d", "8", "--n", "20", "--dtype", "float16", "--no-header")
    assert result.exit_code == 0, result.output
    values = np.array([[float(c) for c in line.split(",")] for line in result.stdout.split()])
    table = pecli.encoding_table(d=8, n=20, dtype="float16")
    assert values.tolist() == table.astype(np.float64).tolist()  # exact, not just close


def test_exact_in_bfloat16_on_bits_agrees_with_the_ml_dtypes_round_trip():
    """exact_in reads bfloat16 from float32 bits; ml_dtypes' cast and back is the reference."""
    from pecli.core.dtypes import exact_in

    rng = np.random.default_rng(7)
    halves = rng.integers(0, 2**16, 4000, dtype=np.uint16)  # every bf16: exact by definition
    halves = halves[(halves & 0x7F80) != 0x7F80]  # finite ones
    exact = halves.view(ml_dtypes.bfloat16).astype(np.float64)
    near = np.concatenate([exact * (1 + 2.0**-12), exact + 2.0**-140, [3.4e38, 1e-45, 2.0**-149]])
    for value in np.concatenate([exact[:300], near[:300], near[-3:]]):
        one = np.array([value])
        with np.errstate(over="ignore"):
            reference = bool(one.astype(ml_dtypes.bfloat16).astype(np.float64)[0] == value)
        assert exact_in(one, "bfloat16") == reference, value
    assert exact_in(exact, "bfloat16")
