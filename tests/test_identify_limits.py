"""identify's limits: how large an error can match, and tables past the positions searched.

Tables are built by slow_formulas.py (the libraries' formulas, one entry at a time).
"""

from __future__ import annotations

import io

import numpy as np
import slow_formulas as slow
from test_identify import identify_table


def test_a_residual_comparable_to_the_values_is_never_a_match():
    # at position 2^23 the float32 allowance alone (2^-22 per unit of position) would be 2:
    # a pair turned by 0.2 rad (entries off by ~0.2, of values in -1 … 1) must not match,
    # however far the position
    table = np.array(slow.pytorch_tutorial(300, 64, start=2**23))
    angle = np.arctan2(table[150, 4], table[150, 5]) + 0.2  # one pair turned, on the circle
    table[150, 4:6] = np.sin(angle), np.cos(angle)
    found = identify_table(table)
    assert not found.matched  # before: a match, residual 0.17, relative 0.085
    assert found.residual > 0.1 and found.relative_residual > 1
    assert found.candidates[0].description.endswith("start 8.38861e+06")  # the reading is found


def test_past_2_to_the_24_the_first_position_is_not_determined(run_cli):
    # pecli compute --d 512 --n 4 --start 16777217: an exact float32 table just past the range
    # searched; before, a start 28 positions off matched with a residual of 2
    table = np.array(slow.pytorch_tutorial(4, 512, start=2**24 + 1), dtype=np.float32)
    found = identify_table(table)
    assert not found.matched and found.command == ""
    assert found.note == "first position not determined (beyond 2^24)"
    buffer = io.BytesIO()
    np.save(buffer, table)
    result = run_cli("identify", "-", input=buffer.getvalue())
    assert result.exit_code == 1
    assert "first position not determined (beyond 2^24)" in result.stderr


def test_just_inside_2_to_the_24_the_start_is_found():
    table = np.array(slow.pytorch_tutorial(4, 512, start=2**24 - 8), dtype=np.float32)
    found = identify_table(table)
    assert found.matched and found.start == 2**24 - 8 and found.residual < 1e-6
