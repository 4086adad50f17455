"""How much of a tensor the checkpoint screen reads: the promise of docs/cli.md.

"the others are screened on their first 64 rows (and four rows of their first 64 columns, for
a transposed table)": rows ``0, 1, h, h + 1`` with ``h = n // 2`` (docs/conventions.md). A
tensor that fails the screen is never read whole. The reads are recorded as the ``part``
callback sees them.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from pecli.analysis.checkpoints.scan import scan_tensors


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
