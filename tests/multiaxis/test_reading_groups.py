"""The token grouping of identify-axes' steps, against plain Python sorts of the id rows.

``_groups`` and ``_steps`` sort integer ids by one mixed-radix int64 key (``_packed``) and
fractional ids by a lexsort over the columns: both must order and group tokens as sorting the
rows as tuples does (ties by token number), which the oracles below do in pure Python.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.multiaxis.reading import _groups, _packed, _steps


def python_groups(rows: np.ndarray) -> list[int]:
    """Per row, its group of equal rows, groups numbered in the order of their first row."""
    seen: dict[tuple[float, ...], int] = {}
    return [seen.setdefault(tuple(r.tolist()), len(seen)) for r in rows + 0.0]


def shuffled_ids(rng: np.random.Generator, scale: float) -> np.ndarray:
    grid = np.array([(t, h, w) for t in range(3) for h in range(5) for w in range(7)], float)
    ids = np.concatenate([grid, grid[:20], -grid[:9] - 4])  # repeats and negative ids
    return rng.permutation(ids) * scale


@pytest.mark.parametrize("scale", [1.0, 0.25, 7.5], ids=["integers", "quarters", "linspace"])
def test_groups_number_equal_rows_in_the_order_of_their_first(scale):
    rng = np.random.default_rng(4)
    ids = shuffled_ids(rng, scale)
    for direction in np.eye(3):
        along = ids[:, int(np.flatnonzero(direction)[0])]
        keys = ids - along[:, None] * direction + 0.0
        assert _groups(keys).tolist() == python_groups(keys)


def test_packed_keys_sort_as_the_rows_do_ties_by_row():
    rng = np.random.default_rng(5)
    ids = shuffled_ids(rng, 1.0)
    columns = [ids[:, 2], ids[:, 0], ids[:, 1]]  # the first most significant
    order = np.argsort(_packed(columns), kind="stable").tolist()
    rows = list(zip(*(c.tolist() for c in columns), strict=True))
    assert order == sorted(range(len(rows)), key=lambda i: (rows[i], i))


@pytest.mark.parametrize(
    "column",
    [np.array([0.0, 0.5]), np.array([0.0, 2.0**53]), np.array([0.0, 2.0**40, 1.0])],
    ids=["fraction", "past-2^53", "radix-product-past-2^62"],
)
def test_packed_refuses_what_one_int64_key_cannot_order(column):
    assert _packed([column, column]) is None


@pytest.mark.parametrize(
    "column",
    [
        np.array([5.0, -3.0, 5.0, 0.0, -0.0, 2.0, -3.0]),  # integers, one pass
        np.array([0.0, 7.5, 2.5, 7.5]),  # linspace ids: np.unique
        np.array([0.0, 1e6, 3.0]),  # a span past 4n: np.unique
        np.array([]),
    ],
    ids=["integers", "fractions", "sparse", "empty"],
)
def test_positions_are_numpys_unique_and_inverse(column):
    from pecli.analysis.multiaxis.compare import _positions

    where, back = _positions(column)
    expected, inverse = np.unique(column, return_inverse=True)
    assert where.tolist() == expected.tolist() and back.tolist() == inverse.tolist()
    assert where.dtype == expected.dtype


GRID = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 3]]  # (h, w) of tokens 0 to 4


@pytest.mark.parametrize(
    ("ids", "direction", "steps"),
    [
        ([[0], [3], [4], [10]], [1], [(1, 2, 1.0), (0, 3, 10.0)]),  # gap 4 - 3, span 10 - 0
        ([[0], [7.5], [2.5], [5]], [1], [(0, 2, 2.5), (0, 1, 7.5)]),  # linspace: t0-t2 first
        (GRID, [0, 1], [(0, 1, 1.0), (2, 4, 3.0)]),  # rows h: the widest is h = 1, 0 to 3
        (GRID, [1, 0], [(0, 2, 1.0), (0, 2, 1.0)]),  # columns w: w = 0 and 1 span 1, first
        ([[0, -3], [0, 0], [1, 0], [1, 1]], [0, 1], [(2, 3, 1.0), (0, 1, 3.0)]),  # -3 to 0
        ([[0], [1], [1], [2]], [1], [(0, 1, 1.0), (0, 3, 2.0)]),  # a repeated id: its first
        ([[0, 0], [0, 1]], [1, 0], []),  # every group one token: no step
    ],
    ids=["integers", "linspace", "along-w", "along-h", "negative", "repeat", "none"],
)
def test_steps_are_the_first_smallest_gap_and_the_first_widest_span(ids, direction, steps):
    """(u, v, k) pairs derived by hand: tokens grouped by their other ids, each group sorted
    along ``direction``; the first smallest gap inside a group, the first widest group."""
    assert _steps(np.array(ids, dtype=float), np.array(direction, dtype=float)) == steps
