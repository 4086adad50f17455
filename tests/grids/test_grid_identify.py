"""Grid identify at its edges: the smallest grids, and the tolerance of a table's storage
(and the grid arguments refused by name).

The tables are built here from the libraries' formulas (MAE's ``get_2d_sincos_pos_embed`` in
float32 arithmetic, tensor2tensor's ``add_timing_signal_nd``), not by pecli; the tolerance is
the documented one: one unit in the last place of the storage (``2·unit_roundoff``) plus
1e-5 for the producing library's float32 arithmetic.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from pecli.analysis.grids.identify import grid_match, identify_grid
from pecli.cli.text import command_line
from pecli.core.grids import grid_table


def _mae32(h: int, w: int, d: int) -> np.ndarray:
    """MAE's util/pos_embed.py evaluated in float32 as a torch port does (one rounding a step)."""
    f = np.float32
    omega = f(1) / f(10000) ** (np.arange(d // 4, dtype=f) / f(d / 4))
    rows, cols = np.divmod(np.arange(h * w), w)
    half = [np.outer(p.astype(f), omega) for p in (cols, rows)]  # emb_h holds the column
    return np.concatenate([np.concatenate([np.sin(a), np.cos(a)], axis=1) for a in half], axis=1)


def _t2t(shape: tuple[int, ...], pairs: int) -> np.ndarray:
    """add_timing_signal_nd: per axis [sin | cos] of the index, ω_j = 10^(-4·j/(pairs−1))."""
    omega = 10000.0 ** (-np.arange(pairs) / (pairs - 1))
    return np.array(
        [
            np.concatenate([np.concatenate([np.sin(i * omega), np.cos(i * omega)]) for i in index])
            for index in np.ndindex(*shape)
        ]
    )


def test_a_float32_table_of_a_framework_s_float32_arithmetic_is_read():
    table = _mae32(8, 8, 32)
    assert table.dtype == np.float32
    found = grid_match(table)
    assert found is not None and (found.best.preset, found.best.shape) == ("mae", (8, 8))
    assert found.best.max_error < 1e-6  # a few float32 ulps, far inside the 1e-5


def test_a_float32_table_of_unequal_sides_is_read_with_integer_positions():
    """Token 1's position read back from float32 sines is 1 to about 4e-8, so ×32 it is
    1.3e-6 off 32: within 1e-6·32, no diffusers base_size is named and MAE is the reading."""
    found = grid_match(_mae32(6, 32, 16))
    assert found is not None and (found.best.preset, found.best.scale) == ("mae", None)
    assert command_line(found.best.command) == "pecli grid 6 32 --d 16 --preset mae"


def test_a_table_whose_first_token_is_not_at_position_0_is_read_as_no_grid():
    """Token 0 is at position 0 on every axis (sin 0, cos 1) in every preset: moved away from
    it, the table fits no preset and no reading is named, though token 1 fits several."""
    table = _mae32(4, 8, 16)
    table[0] += np.float32(0.25)
    found = identify_grid(table)
    assert found.best is None and not found.matched


def test_a_table_whose_second_token_is_not_at_position_1_is_read_as_no_grid():
    """Token 1 is at 1 on the last axis in every preset but MAE's (whose positions may be
    scaled): a 2 × 2 × 2 tensor2tensor table (d = 18, 3 pairs an axis: no MAE split of d)
    with token 1 moved fits no preset, so no reading is named though token 0 fits."""
    table = _t2t((2, 2, 2), 3)
    assert grid_match(table).best.preset == "t2t-nd"
    table[1] += 0.25
    found = identify_grid(table)
    assert found.best is None and not found.matched


def test_the_best_reading_is_checked_on_65536_rows_spread_over_a_longer_table():
    """docs/grids.md: the best reading is checked on every row, up to 65536 spread evenly, rows
    round(k·(N−1)/65535). A float64 MAE table (the formula of _mae32 in float64) of 2 × 32769
    = 65538 tokens off by 1e-3 on row 32769 (k = 32768; no sample row) is not read."""
    omega = 10000.0 ** (-np.arange(2) / 2)  # d = 8: 2 pairs an axis
    rows, cols = np.divmod(np.arange(2 * 32769), 32769)
    half = [np.outer(p.astype(np.float64), omega) for p in (cols, rows)]
    table = np.concatenate([np.concatenate([np.sin(a), np.cos(a)], axis=1) for a in half], axis=1)
    assert round(32768 * 65537 / 65535) == 32769 and grid_match(table).best.shape == (2, 32769)
    table[32769, 0] += 1e-3
    assert not identify_grid(table).matched


def test_a_float32_table_off_by_far_more_than_float32_arithmetic_is_not_read():
    table = _mae32(8, 8, 32)
    table[37, 5] += np.float32(3e-5)  # 3 × the arithmetic allowance, on one entry
    found = identify_grid(table)
    assert not found.matched and grid_match(table) is None


def _bfloat16_nudged(ulps: int) -> tuple[np.ndarray, np.ndarray]:
    """A bfloat16 MAE table (float64 values rounded once), entries of magnitude 0.5 … 1 moved
    ``ulps`` bfloat16 units (2^-8 there, staying below 1) away from the exact value."""
    exact = _mae32(6, 6, 16).astype(np.float64)
    stored = exact.astype(ml_dtypes.bfloat16).astype(np.float64)
    big = (np.abs(stored) >= 0.5) & (np.abs(stored) <= 1 - ulps * 2.0**-8)
    away = np.where(stored >= exact, 1.0, -1.0)
    nudged = np.where(big, stored + away * ulps * 2.0**-8, stored)
    assert np.array_equal(nudged.astype(ml_dtypes.bfloat16).astype(np.float64), nudged)
    return nudged.astype(np.float32), np.abs(nudged - exact).max()


def test_a_bfloat16_table_one_unit_off_is_read_and_two_units_off_is_not():
    """One bfloat16 unit (2^-8 on 0.5 … 1) beyond the rounding is within one ulp of 1 (2^-7);
    two units beyond it are not."""
    one, error = _bfloat16_nudged(1)
    assert 2.0**-8 <= error <= 2.0**-7  # more than half an ulp: rounding alone cannot explain
    found = identify_grid(one)
    assert found.storage == "bfloat16" and found.matched and found.best.shape == (6, 6)
    two, error = _bfloat16_nudged(2)
    assert 2.0**-7 + 1e-5 < error <= 2.5 * 2.0**-8
    assert identify_grid(two).storage == "bfloat16" and grid_match(two) is None


def test_a_table_off_by_exactly_the_tolerance_is_matched():
    """The tolerance is inclusive: a float64 MAE table (exact sin(0) = 0 at token 0) with that
    zero replaced by exactly ``2·2^-53 + 1e-5`` (one float64 ulp of 1 plus the arithmetic's
    1e-5) is still matched; the next float64 above it is not."""
    tolerance = 2.0**-52 + 1e-5
    omega = 1.0 / 10000.0 ** (np.arange(4) / 4.0)  # MAE's get_1d_sincos_pos_embed, d = 16
    rows, cols = np.divmod(np.arange(16), 4)
    table = np.concatenate(
        [
            np.concatenate([np.sin(np.outer(p, omega)), np.cos(np.outer(p, omega))], 1)
            for p in (cols, rows)
        ],
        1,
    )
    assert table[0, 0] == 0.0
    table[0, 0] = tolerance
    found = identify_grid(table)
    assert found.storage == "float64" and found.matched and found.best.max_error == tolerance
    assert all(other is not found.best for other in found.also)  # ``also``: the *other* ones
    table[0, 0] = np.nextafter(tolerance, 1.0)
    assert grid_match(table) is None


def test_grid_match_reads_a_grid_of_exactly_four_tokens():
    """MAE's 2 × 2 grid (d = 8): the smallest table grid_match takes; 3 rows it does not."""
    found = grid_match(_mae32(2, 2, 8))
    assert found is not None and found.best.shape == (2, 2) and found.best.preset == "mae"
    assert grid_match(_mae32(2, 2, 8)[:3]) is None


@pytest.mark.parametrize("h", [2, 3, 5])
def test_an_h_by_2_grid_is_read_with_its_sides_in_order(h):
    found = grid_match(_mae32(h, 2, 16))
    assert found is not None and found.best.shape == (h, 2)
    assert command_line(found.best.command).startswith(f"pecli grid {h} 2 --d 16 --preset mae")


def test_the_smallest_three_axis_grid_is_read():
    """2 × 2 × 2 = 8 tokens: the first side runs up to tokens // 4 (here 2)."""
    found = identify_grid(_t2t((2, 2, 2), 2))
    assert found.matched and (found.best.preset, found.best.shape) == ("t2t-nd", (2, 2, 2))
    assert found.best.note == "tokens in row-major order of a 2 × 2 × 2 grid"


def test_a_grid_of_more_than_60_tokens_on_3_axes_is_read():
    """4 × 4 × 5 = 80 tokens, tensor2tensor's add_timing_signal_nd (the 3-axis search goes up
    to 10^6 tokens, not 10·6)."""
    found = identify_grid(_t2t((4, 4, 5), 2))
    assert found.matched and (found.best.preset, found.best.shape) == ("t2t-nd", (4, 4, 5))


def test_a_table_that_is_no_grid_of_at_least_4_rows_is_refused_or_unread():
    from pecli.core.errors import ParameterError

    for bad in (np.zeros(8), _mae32(2, 2, 8)[:3]):
        with pytest.raises(ParameterError, match=r"must be a 2-D \(rows, d\) table of at least 4"):
            identify_grid(bad)
    prime = identify_grid(_mae32(1, 7, 8))  # 7 tokens: no grid of sides >= 2
    assert prime.best is None and not prime.matched and prime.also == []


def test_a_reading_in_no_preset_s_own_order_is_still_taken():
    """timm's sines-first layout, column first (timm's own order is row first) on a square
    4 × 4 grid: [sin c·ω | sin r·ω | cos c·ω | cos r·ω], ω = 10^(-4j/2) for d = 8."""
    omega = 10000.0 ** (-np.arange(2) / 2)
    rows, cols = np.divmod(np.arange(16), 4)
    angles = [np.outer(p, omega) for p in (cols, rows)]
    table = np.concatenate([np.sin(a) for a in angles] + [np.cos(a) for a in angles], axis=1)
    found = identify_grid(table)
    assert found.matched and (found.best.preset, found.best.axis_order) == ("timm", (1, 0))
    assert "--preset timm --axis-order 1,0" in command_line(found.best.command)


@pytest.mark.parametrize(
    ("h", "w", "first", "said"),
    [
        (4, 4, "row", False),  # square: the same table for the transposed grid, nothing to say
        (3, 5, "row", True),
        (3, 5, "column", False),
    ],
)
def test_the_transposed_grid_is_named_only_for_a_row_first_table_of_unequal_sides(
    h, w, first, said
):
    if first == "column":
        table = _mae32(h, w, 16)
    else:  # MoCo v3: the first block encodes the row
        table = np.concatenate(np.split(_mae32(h, w, 16), 2, axis=1)[::-1], axis=1)
    found = grid_match(table)
    assert found is not None and found.best.first == f"{first} first"
    assert ("gives this table for a" in found.best.note) == said


def test_diffusers_base_size_past_pi_is_read_through_the_turns_of_the_fastest_pair():
    """diffusers' get_2d_sincos_pos_embed(32, 4, base_size=64): coordinate k of 4 sits at
    k·64/4 = 16k, so token 1's fastest pair has turned 3 times (16 ≈ 2.5·2π): the slowest
    pair (ω = 10^-3.5, no turn below π·10^3.5) gives the turn count."""
    omega = 10000.0 ** (-np.arange(8) / 8)
    rows, cols = np.divmod(np.arange(16), 4)
    half = [np.outer(16.0 * p, omega) for p in (cols, rows)]  # MAE's emb_h holds the column
    table = np.concatenate([np.concatenate([np.sin(a), np.cos(a)], axis=1) for a in half], axis=1)
    found = grid_match(table)
    assert found is not None and (found.best.preset, found.best.scale) == ("mae", 64.0)
    assert (
        command_line(found.best.command)
        == "pecli grid 4 4 --d 32 --preset mae --base-size 64 --dtype float64"
    )


def test_a_base_size_no_small_fraction_gives_is_kept_as_fitted():
    """diffusers' get_2d_sincos_pos_embed(32, 4, base_size=4·√2): coordinate k sits at k·√2.
    The nearest fraction of denominator <= 64, 198/35, is 2.9e-4 off 4·√2 (positions up to
    3·2.9e-4/4 off, far past float64's and the 1e-6 floor), so the fitted base_size stays,
    to float64's rounding, and the table is matched."""
    size = 4 * math.sqrt(2)
    omega = 10000.0 ** (-np.arange(8) / 8)
    rows, cols = np.divmod(np.arange(16), 4)
    half = [np.outer(p * size / 4, omega) for p in (cols, rows)]  # MAE's emb_h holds the column
    table = np.concatenate([np.concatenate([np.sin(a), np.cos(a)], axis=1) for a in half], axis=1)
    found = identify_grid(table)
    assert found.matched and (found.best.preset, found.best.shape) == ("mae", (4, 4))
    assert found.best.scale == pytest.approx(size, rel=1e-12)
    assert found.best.max_error < 1e-13


def test_a_table_no_reading_matches_still_names_its_closest_reading():
    """timm's sines-first layout is timm's alone: 3e-5 off on one entry of a compared row
    (38 of the 24 spread over 64), it is no match, but the reading shown is timm's 8 × 8 with
    that error, not the next candidate."""
    omega = 10000.0 ** (-np.arange(4) / 4)
    rows, cols = np.divmod(np.arange(64), 8)
    angles = [np.outer(p, omega) for p in (rows, cols)]
    table = np.concatenate([np.sin(a) for a in angles] + [np.cos(a) for a in angles], axis=1)
    table[38, 5] += 3e-5
    found = identify_grid(table)
    assert not found.matched and (found.best.preset, found.best.shape) == ("timm", (8, 8))
    assert found.best.max_error == pytest.approx(3e-5, rel=1e-6)


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: grid_table(5, d=8), "shape"),  # not a sequence of sides
        (lambda: grid_table((2, 0), d=8), "shape"),
        (lambda: grid_table((1 << 20, (1 << 20) + 1), d=4, preset="t2t-nd"), "shape"),  # > 2^40
        (lambda: grid_table((2, 2), d=8, base_size="big"), "base_size"),
        (lambda: grid_table((2, 2), d=8, interpolation_scale=2e6), "interpolation_scale"),
        (
            lambda: grid_table((2, 2, 2), d=12, preset="t2t-nd", axis_order="row-first"),
            "axis_order",
        ),
    ],
)
def test_grid_arguments_are_refused_by_name(call, parameter):
    from pecli.core.errors import ParameterError

    with pytest.raises(ParameterError) as caught:
        call()
    assert caught.value.parameter == parameter


def test_an_axis_order_that_is_no_permutation_names_the_axes_it_must_permute():
    from pecli.core.errors import ParameterError

    with pytest.raises(ParameterError) as caught:
        grid_table((2, 3, 4), d=12, preset="t2t-nd", axis_order="0,1,3")
    assert "of the 3 axes 0 … 2 (got '0,1,3')" in str(caught.value)
