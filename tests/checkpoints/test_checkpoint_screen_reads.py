"""How much of a tensor the checkpoint screen reads: the promise of docs/cli.md.

"the others are screened on their first 64 rows (and four rows of their first 64 columns, for
a transposed table)": rows ``0, 1, h, h + 1`` with ``h = n // 2`` (docs/conventions.md). A
tensor that fails the screen is never read whole. The reads are recorded as the ``part``
callback sees them.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from pecli.analysis.checkpoints.scan import SCREEN_TOLERANCE, scan_tensors


def test_a_tensor_that_fails_the_screen_is_read_on_its_first_64_rows_and_columns_only():
    table = np.random.default_rng(5).uniform(-3, 3, size=(100, 80)).astype(np.float32)
    reads, loads = [], []

    def part(key, index):
        reads.append(tuple((s.start, s.stop) for s in index))
        return table[index]

    head = SimpleNamespace(key="w", shape=table.shape, dtype="float32")
    found = scan_tensors([head], part=part, load=loads.append)[0]
    assert found.verdict == "not sinusoidal" and loads == []
    first_rows = ((0, 64), (None, None))
    h = 100 // 2  # the transposed reading: 100 components, rows 0, 1, h, h + 1 of it
    four_rows = {((r, r + 1), (0, 64)) for r in (0, 1, h, h + 1)}
    assert reads[0] == first_rows and set(reads[1:]) == four_rows and len(reads) == 5


def test_finiteness_is_judged_on_every_row_of_any_width_and_dtype():
    """Finite means finite in the stored dtype: 1e300 is a finite float64 (not float32's inf),
    bfloat16's inf is inf; a row wider than the 2^20-value block is still judged, whole."""
    import ml_dtypes

    from pecli.analysis.checkpoints.scan import _finite

    assert _finite(np.full((3, 4), 1e300))
    wide = np.zeros((2, 2**20 + 2), np.float16)
    assert _finite(wide)
    wide[1, -1] = np.inf
    assert not _finite(wide)
    wide[1, -1], wide[0, 0] = 0, -np.inf  # the first row too
    assert not _finite(wide)
    b16 = np.zeros((70, 8), ml_dtypes.bfloat16)
    b16[69, 7] = np.inf
    assert not _finite(b16)


def _noise_part(shape):
    """``part`` of a header-only tensor of ``shape``: noise of the slice's size, made on demand."""
    rng = np.random.default_rng(3)

    def part(key, index):
        size = [len(range(*s.indices(n))) for s, n in zip(index, shape, strict=True)]
        return rng.uniform(-3, 3, size=size).astype(np.float32)

    return part


@pytest.mark.parametrize(
    ("shape", "skipped"),
    [
        ((2**13, 2**13), False),
        ((2**13, 2**13 + 1), True),
        ((2**25, 2), False),
        ((2**25 + 1, 2), True),
    ],
)
def test_a_table_of_more_than_2_26_values_is_skipped_by_its_header(shape, skipped):
    """docs/conventions.md: "(n, d) … with n, d >= 2 and at most 2^26 values": exactly 2^26
    is screened (on its first rows, never loaded); one row or column more is skipped unread."""
    head = SimpleNamespace(key="w", shape=shape, dtype="float32")
    part = _noise_part(shape)
    found = scan_tensors([head], part=part, load=lambda key: pytest.fail("loaded"))[0]
    if skipped:
        assert found.verdict == "skipped"
        assert found.reason == f"more than 2^26 values ({shape[0] * shape[1]})"
    else:
        assert found.verdict == "not sinusoidal" and found.residual > SCREEN_TOLERANCE


@pytest.mark.parametrize("shape", [(64, 1), (1, 64), (1, 64, 1), (1, 1, 64)])
def test_a_table_of_one_row_or_one_column_is_skipped_by_its_header(shape):
    """docs/conventions.md: a table is ``(n, d)``, ``(1, n, d)`` or ``(n, 1, d)``
    "with n, d >= 2"."""
    head = SimpleNamespace(key="w", shape=shape, dtype="float32")
    found = scan_tensors([head], part=_noise_part(shape), load=lambda key: pytest.fail("loaded"))
    assert found[0].verdict == "skipped" and found[0].reason.startswith("shape is not (n, d)")


@pytest.mark.parametrize("shape", [(1, 3, 5, 6), (1, 2, 3, 4, 6), (1, 7, 6), (7, 1, 6), (7, 6)])
def test_any_run_of_tokens_is_read_as_numpy_s_flattened_rows(shape):
    """Tokens ``a … b-1`` of a ``(1, H, W, d)`` or ``(1, T, H, W, d)`` table (a run that starts
    and ends inside a row of H, as the screen's rows h, h + 1 do) are NumPy's ``reshape(-1, d)``
    rows ``a:b``, whatever H-rows the read has to cover."""
    from pecli.analysis.checkpoints.scan import _view

    array = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    flat = array.reshape(-1, shape[-1])
    read = _view(lambda key, index: array[index], "pe", shape)
    for a in range(len(flat)):
        for b in range(a + 1, len(flat) + 1):
            assert np.array_equal(read(slice(a, b), slice(0, 4)), flat[a:b, 0:4]), (a, b)


def test_an_even_width_keeps_its_last_column_even_when_it_is_zero():
    """[sin | cos] halves of d = 6 (written here) whose third pair is (1, 0) on every row: on the
    circle (1² + 0² = 1), so the residual is rounding only. Only an odd width's zero column is
    set aside; this one is a cosine, and no grid layout of width 6 pairs these columns."""
    from pecli.analysis.checkpoints.screen import circle_residual

    p = np.arange(21.0)[:, None]  # an odd number of rows: only the width's parity counts
    ones, zeros = np.ones((21, 1)), np.zeros((21, 1))
    table = np.hstack([np.sin(p), np.sin(p / 10), ones, np.cos(p), np.cos(p / 10), zeros])
    assert circle_residual(table) < 1e-12


@pytest.mark.parametrize("rows", [1, 20])
def test_a_table_of_one_pair_is_screened(rows):
    """d = 2, ``[sin p, cos p]`` (written here): one pair, on the circle to rounding; on one
    row too. Made (0.6, 0.6) on its first row: 0.28 off (|0.36 + 0.36 - 1|, by hand)."""
    from pecli.analysis.checkpoints.screen import circle_residual

    p = np.arange(7.0, 7.0 + rows)
    table = np.stack([np.sin(p), np.cos(p)], axis=1)
    assert circle_residual(table) < 1e-12
    table[0] = 0.6
    assert circle_residual(table) == pytest.approx(0.28, abs=1e-12)


def test_a_transposed_position_off_the_circle_counts_even_if_its_values_are_all_1():
    """[sin | cos] of d = 8 (written here) stored transposed, position 0 made 1.0 in every
    component: rows 0, 1, h, h + 1 pair 1 with 1, off the circle by |1 + 1 - 1| = 1 in every
    layout, so the residual is 1 (only all-zero positions are set aside)."""
    from pecli.analysis.checkpoints.screen import columns_residual

    angles = np.outer(np.arange(40.0), 10000.0 ** (-np.arange(4) / 4))
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1).T  # (8, 40)
    table[:, 0] = 1.0
    assert columns_residual(lambda r, c: table[r, c], 8, 40) == pytest.approx(1.0, abs=1e-12)


def test_one_row_on_the_unit_circles_passes_the_circle_screen():
    """One nonzero row is enough to judge: (sin 1, cos 1) and (sin 0.01, cos 0.01) lie on
    the unit circle (sin² + cos² = 1 to a few ulps); zero rows are dropped first."""
    from pecli.analysis.checkpoints.screen import circle_residual

    row = [math.sin(1.0), math.cos(1.0), math.sin(0.01), math.cos(0.01)]
    assert circle_residual(np.array([[0.0] * 4, row])) < 1e-15
    assert circle_residual(np.zeros((2, 4))) == math.inf  # no row left: nothing to judge
