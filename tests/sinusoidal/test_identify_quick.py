"""identify's quick pass (the fit on the first 256 rows) gives what the full fit gives.

Each table is identified twice: as ``identify`` does it, and with the quick pass made the full
fit (``QUICK_ROWS = FIT_ROWS``, the 2048-row fit of before). Every field of the report must be
the same but ``base_fit`` (the base the rows measure, a diagnostic: measured on fewer rows).
The tables that could fool a fit on the first rows (later rows that differ, another base after
row 300, padding rows, half-precision rows whose slow pairs move only after row 256) must be
fitted again in full; the clean ones must not (else the speed-up is silently gone). Tables are
built by slow_formulas.py (the libraries' formulas, one entry at a time).
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest
import slow_formulas as slow

from pecli.analysis.sinusoidal.identify import identify_table
from pecli.analysis.sinusoidal.identify import passes as search
from pecli.analysis.sinusoidal.identify.fitting import FIT_ROWS

QUICK = search.QUICK_ROWS  # 256


def table(name, n, d, dtype=np.float32, base=10000.0, start=None) -> np.ndarray:
    return np.array(slow.preset_table(name, n, d, base, start)).astype(dtype)


def both(values: np.ndarray, monkeypatch, fitted_rows) -> tuple[dict, dict, list[int]]:
    """The report as identify gives it, the full fit's report, and the rows each pass fitted."""
    quick = dataclasses.asdict(identify_table(values))
    used = list(fitted_rows)
    monkeypatch.setattr(search, "QUICK_ROWS", FIT_ROWS)
    full = dataclasses.asdict(identify_table(values))
    measured = [report.pop("base_fit") for report in (quick, full)]
    assert measured[0] == pytest.approx(measured[1], rel=1e-4, nan_ok=True)  # fewer rows
    return quick, full, used


CLEAN = {
    "pytorch float32": (table("pytorch", 600, 64), "pytorch", 0),
    "vaswani float64": (table("vaswani", 400, 32, np.float64), "vaswani", 1),
    "tensor2tensor odd d": (table("tensor2tensor", 300, 33), "tensor2tensor", 0),
    "fairseq padding row": (np.array(slow.fairseq(500, 34), np.float32), "fairseq", 0),
    "distilbert odd d": (table("distilbert", 300, 33, np.float64), "distilbert", 0),
    "mlx sqrt(2/d)": (table("mlx", 300, 64), "mlx", 0),
    "ldm cos-sin": (table("ldm", 300, 64), "ldm", 0),
    "bfloat16 window": (table("pytorch", 600, 64, ml_dtypes.bfloat16, start=1000), "pytorch", 1000),
    "float16 window": (table("pytorch", 1000, 128, np.float16, start=5), "pytorch", 5),
    "far window": (table("pytorch", 300, 64, start=2**20), "pytorch", 2**20),
    "transposed": (table("pytorch", 400, 64).T.copy(), "pytorch", 0),
}


@pytest.mark.parametrize("case", CLEAN, ids=list(CLEAN))
def test_clean_tables_are_read_on_their_first_rows_as_in_full(case, monkeypatch, fitted_rows):
    values, preset, start = CLEAN[case]
    quick, full, passes = both(values, monkeypatch, fitted_rows)
    assert quick == full
    assert passes == [QUICK] * 2  # both orientations, the quick pass only
    assert quick["matched"] and quick["start"] == start
    assert preset in [p.split()[0] for p in quick["presets"]]  # LDM's is also diffusers'


def later_rows_differ() -> np.ndarray:
    values = table("pytorch", 600, 64)
    angle = np.arctan2(values[500, 4], values[500, 5]) + 0.2  # one pair turned, on the circle
    values[500, 4:6] = np.sin(angle), np.cos(angle)
    return values


def another_base_after_row_300() -> np.ndarray:
    return np.vstack([table("pytorch", 300, 64), table("pytorch", 300, 64, base=500.0, start=300)])


def zero_rows_first() -> np.ndarray:
    values = table("pytorch", 600, 64)
    values[:20] = 0  # padding rows: the live rows fitted are 20 … 275
    return values


def angle_scale_2() -> np.ndarray:
    """[sin | cos] of 2 p ω_j (an angle scale, which identify does not fit): both orders fail."""
    omega = 10000.0 ** (-np.arange(16) / 16)
    angles = 2 * np.arange(400)[:, None] * omega
    return np.hstack([np.sin(angles), np.cos(angles)]).astype(np.float32)


FOOLING = {
    "an angle scale of 2": (angle_scale_2(), False),
    "a row after 256 differs": (later_rows_differ(), False),
    "another base after row 300": (another_base_after_row_300(), False),
    # d = 4, C = 1e8: ω_1 = 1e-4 moves 0.026 rad in 256 rows, below 50 bfloat16 roundings
    "bfloat16 slow pair": (table("pytorch", 2000, 4, ml_dtypes.bfloat16, base=1e8), True),
    # bfloat16, d = 4, C = 100: starts 3 and 4272946 give the same rows (not determined)
    "bfloat16, starts tie": (table("pytorch", 300, 4, ml_dtypes.bfloat16, 100.0, 3), True),
    "amplitude 0.5": (0.5 * table("pytorch", 300, 16), True),  # measured on the rows
    # d = 4: paper C and tensor2tensor C^(1/2) are both round; 256 rows of a half-precision
    # table measure k too coarsely to tell which reading the full fit's slopes put first
    "float16 slow pair": (table("pytorch", 2000, 4, np.float16, base=1e8), True),
    "bfloat16 d = 4": (table("distilbert", 700, 4, ml_dtypes.bfloat16, start=65536).T, True),
}


@pytest.mark.parametrize("case", FOOLING, ids=list(FOOLING))
def test_tables_the_first_rows_would_misread_are_fitted_in_full(case, monkeypatch, fitted_rows):
    values, matched = FOOLING[case]
    quick, full, passes = both(values, monkeypatch, fitted_rows)
    assert quick == full
    assert passes == [QUICK] * 2 + [FIT_ROWS] * 2  # quick pass, then the full fit
    assert quick["matched"] is matched


def test_padding_rows_before_the_fit_rows_are_skipped_and_named(monkeypatch, fitted_rows):
    quick, full, passes = both(zero_rows_first(), monkeypatch, fitted_rows)
    assert quick == full and passes == [QUICK] * 2
    assert quick["matched"] and quick["start"] == 0 and quick["padding_rows"] == list(range(20))


# C = 1234.5 is no round base: at 257 rows its reading is fitted again in full; at 256 not
@pytest.mark.parametrize(("n", "base"), [(200, 1e4), (QUICK, 1234.5)])
def test_a_short_table_is_fitted_once(monkeypatch, fitted_rows, n, base):
    """A table of at most 256 rows: the quick pass is the full fit, nothing is fitted twice."""
    values = table("pytorch", n, 16, np.float16, base=base, start=3)
    quick, full, passes = both(values, monkeypatch, fitted_rows)
    assert quick == full and passes == [QUICK] * 2
    assert quick["matched"] and quick["start"] == 3
