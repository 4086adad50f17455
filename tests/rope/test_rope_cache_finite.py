"""A cache with a value that is not finite is refused wherever it sits, named by row and column.

``identify_cache`` reads only some rows of a long cache (the first 1024, then a thinning
ladder), but a NaN or an infinity anywhere means the file is no cache a rotary module makes:
it was refused at row 5 and read as θ 10000, status 0, at row 1024 of 1026. Every row is now
checked (in blocks, so no copy of a large cache is made), through the command too.
"""

from __future__ import annotations

import numpy as np
import pytest
from cli_runner import CliRunner

from pecli.analysis.rope.cache import identify_cache
from pecli.cli import app
from pecli.core.errors import ParameterError


def _cache(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """A half-split cache of θ 10000 over 16 channels: cos(p·ω), sin(p·ω), ω = θ^(-k/8)."""
    angles = np.arange(rows)[:, None] * 10000.0 ** (-np.arange(8) / 8)
    return np.tile(np.cos(angles), 2), np.tile(np.sin(angles), 2)


@pytest.mark.parametrize(("row", "value"), [(5, np.nan), (1024, np.nan), (1025, -np.inf)])
def test_a_value_not_finite_in_any_row_is_refused_by_its_place(row, value):
    cos, sin = _cache(1026)
    assert identify_cache(cos=cos, sin=sin).theta == pytest.approx(1e4)
    sin[row, 11] = value
    with pytest.raises(ParameterError) as caught:
        identify_cache(cos=cos, sin=sin)
    assert caught.value.parameter == "file"
    assert f"(finite numbers only) (got 'sin[{row}, 11]')" in str(caught.value)


def test_the_command_refuses_a_nan_in_a_row_it_does_not_sample(tmp_path):
    cos, sin = _cache(1026)
    cos[1024, 0] = np.nan
    path = tmp_path / "cache.npz"
    np.savez(path, cos=cos, sin=sin)
    result = CliRunner().invoke(app, ["rope", "identify", str(path)])
    assert result.exit_code == 2, result.output
    assert "cos[1024, 0]" in result.output and "Traceback" not in result.output


def test_a_cache_wider_than_a_block_is_checked_a_row_at_a_time():
    """Blocks hold 2^16 values: a table of 3 rows of 65538 columns (one row more than a block)
    is checked row by row; the NaN in its last entry is still found and named."""
    cos, sin = np.ones((3, 65538)), np.zeros((3, 65538))
    sin[2, 65537] = np.nan
    with pytest.raises(ParameterError) as caught:
        identify_cache(cos=cos, sin=sin)
    assert "(finite numbers only) (got 'sin[2, 65537]')" in str(caught.value)


def test_a_table_of_no_columns_has_no_value_not_finite():
    """3 rows of 0 columns hold no value at all, so none that is not finite; in tables of one
    column or of 300 × 256 (blocks of 2^16 values: 256 rows) the first is named by its place."""
    from pecli.analysis.rope.cache import _first_not_finite

    assert _first_not_finite(np.ones((3, 0))) is None
    one = np.ones((4, 1))
    one[3, 0] = np.inf
    assert _first_not_finite(one) == "3, 0"
    one[0, 0] = np.nan  # the first row of the first block
    assert _first_not_finite(one) == "0, 0"
    tall = np.ones((300, 256))  # blocks of 256 rows: more rows than columns, two blocks
    tall[299, 7] = np.nan
    assert _first_not_finite(tall) == "299, 7"


def test_a_cache_of_no_columns_is_refused_as_no_cache(tmp_path):
    """0 columns are an even count but no pair: a usage error (2), not an internal one."""
    path = tmp_path / "empty.npz"
    np.savez(path, cos=np.ones((3, 0)), sin=np.zeros((3, 0)))
    result = CliRunner().invoke(app, ["rope", "identify", str(path)])
    assert result.exit_code == 2, result.output
    assert "an even number >= 2 of columns" in result.output
    with pytest.raises(ParameterError, match="cos: 3 × 0, sin: 3 × 0"):
        identify_cache(cos=np.ones((3, 0)), sin=np.zeros((3, 0)))


@pytest.mark.parametrize(
    ("shapes", "named"),
    [
        (((4, 8), (5, 8)), "cos: 4 × 8, sin: 5 × 8"),
        (((8,), None), r"\(got '8'\)"),  # one table: its shape alone (no cos label)
        (((2, 8), (2, 8)), "cos: 2 × 8, sin: 2 × 8"),
    ],
)
def test_tables_of_two_row_counts_or_one_axis_are_no_cache(shapes, named):
    """A cache is 2-D, cos and sin of one shape (a row per position), of at least 3 rows: 4
    cos rows beside 5 sin rows, a vector of 8 values, or 2 rows of 8 columns, is refused as
    no cache, naming the shapes it got (one table's without a name: it may be [cos | sin])."""
    cos, sin = (None if s is None else np.full(s, 0.5) for s in shapes)
    with pytest.raises(ParameterError, match=f"at least 3 rows.*{named}"):
        identify_cache(cos, sin)
