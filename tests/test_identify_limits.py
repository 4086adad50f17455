"""identify's limits: how large an error can match, and tables past the positions searched.

Tables are built by slow_formulas.py (the libraries' formulas, one entry at a time).
"""

from __future__ import annotations

import io
import json
import shlex

import ml_dtypes  # noqa: F401 - bfloat16 for safetensors
import numpy as np
import pytest
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


@pytest.mark.parametrize(
    ("args", "start", "base"),
    [
        (["--d", "8", "--n", "3", "--start", "1000"], 1000, 10000),  # before: C = 980, 5228717
        (["--d", "4", "--n", "2"], 1, 10000),  # before: start 5529380 and --base 100000000
    ],
    ids=["d8-n3-start1000", "d4-n2"],
)
def test_narrow_bfloat16_tables_get_the_reading_that_rebuilds_them(
    run_cli, tmp_path, args, start, base
):
    out = tmp_path / "pe.safetensors"
    assert run_cli("compute", *args, "--dtype", "bfloat16", "-o", str(out), "-q").exit_code == 0
    stored = safetensors_table(out)
    d, n = stored.shape[1], stored.shape[0]
    want = np.array(slow.vaswani(n, d, start=start))  # the exact table, rounded once
    assert np.abs(stored.astype(np.float64) - want).max() <= 2.0**-8
    result = run_cli("identify", str(out), "--key", "positional_encoding", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)[0]["identification"]
    assert (found["start"], found["base"], found["residual"]) == (start, base, 0)
    # a few bfloat16 rows may not determine the start or the base: the note may say so, but
    # the base it gives is the one of the reading and of the command
    assert "C = " not in found["note"] or f"C = {base} is given" in found["note"]
    assert f"--base {base} " in found["command"]
    again = tmp_path / "again.safetensors"
    command = shlex.split(found["command"])
    command[command.index("-o") + 1] = str(again)
    assert run_cli(*command[1:], "-q").exit_code == 0  # the printed command, run
    assert safetensors_table(again).tobytes() == stored.tobytes()


def safetensors_table(path) -> np.ndarray:
    from safetensors import safe_open

    with safe_open(path, framework="numpy") as f:
        return f.get_tensor("positional_encoding")


def test_an_amplitude_of_sqrt_2_over_d_is_named_and_other_columns_say_how_far_off():
    """A table scaled by sqrt(2/d) (a normalised encoding) is read with that exact amplitude."""
    from pecli.analysis.identify.amplitude import circle_radius

    table = np.array(slow.preset_table("pytorch", 50, 64, 10000.0)) * np.sqrt(2 / 64)
    found = identify_table(table.astype(np.float32))
    assert found.matched and found.command.endswith("--amplitude sqrt(2/d)")
    # rows (3, 3) and (1, 0): sin² + cos² is 18 and 1, so |sin² + cos² − 1| is up to 17
    with pytest.raises(ValueError, match=r"\(\|sin² \+ cos² - 1\| up to 17\)"):
        circle_radius(np.array([[3.0], [1.0]]), np.array([[3.0], [0.0]]))


@pytest.mark.parametrize("name", ["distilbert", "positional-encodings"])  # two odd-d rules
def test_d_3_tables_read_their_base_from_the_extra_sine(name):
    """d = 3: one pair (ω_0 = 1) and a lone sine of ω_1 = C^(-2/3); only it tells C = 500."""
    table = np.array(slow.preset_table(name, 40, 3, 500.0))
    found = identify_table(table)
    assert found.matched and (found.schedule, found.base) == ("paper", 500.0)
    assert found.command.startswith(f"pecli compute --convention {name} --d 3 --n 40 --base 500")


def test_one_pair_at_a_fractional_start_is_read_with_c_10000_and_no_command():
    """d = 2 (ω_0 = 1 for every base): start 2.5 is read exactly; compute takes integers only."""
    found = identify_table(np.array(slow.preset_table("pytorch", 20, 2, 10000.0, 2.5)))
    assert found.matched and (found.start, found.base) == (2.5, 10000.0)
    assert found.command == "" and "not an integer" in found.note
    assert "pytorch --start 2.5" in found.presets


def test_one_pair_at_an_integer_start_gets_c_10000_in_its_command():
    """d = 2: any base gives ω_0 = 1; the reading and its command say C = 10000 (the default)."""
    found = identify_table(np.array(slow.preset_table("pytorch", 20, 2, 10000.0, 3)))
    assert found.matched and (found.start, found.base) == (3, 10000.0)
    assert found.command == (
        "pecli compute --convention pytorch --start 3 --d 2 --n 20 --base 10000 --dtype float64"
    )


def test_a_fractional_start_reproduced_exactly_wins_over_a_far_integer_start():
    """float32, d = 8, start 2.5: start 2865135 also fits within the float32 framework
    allowance (error 7e-5), but only 2.5 reproduces the rows to the storage's rounding."""
    table = np.array(slow.preset_table("pytorch", 20, 8, 10000.0, 2.5)).astype(np.float32)
    found = identify_table(table)
    assert found.matched and found.start == pytest.approx(2.5, abs=1e-6)
    assert found.residual <= 2.0**-24 and found.command == ""


def test_a_float64_fractional_start_wins_over_a_far_integer_start():
    """float64, d = 8, start 2.5 (PyTorch's tutorial formula): 2.5 is read, not 2865135.

    The tutorial's ``exp(2j · (-ln C / d))`` and pecli's ``C^(-2j/d)`` differ by up to 6 units
    of 2^-53 in ``ω_j``, so pecli's rebuild from exactly 2.5 is 2.5 ulps of 1 off (5.6e-16, above
    4 unit roundoffs): that is the producer's float64 arithmetic, allowed per unit of position.
    Start 2865135 is 7.4e-5 off (3e11 ulps): the table tells the two apart by far.
    """
    table = np.array(slow.preset_table("pytorch", 20, 8, 10000.0, 2.5))
    found = identify_table(table)
    assert found.matched and found.start == 2.5 and found.starts == [2.5]
    assert found.residual == pytest.approx(2.5 * 2.0**-52, rel=1e-6) and found.command == ""
    assert "not an integer" in found.note
    far = next(c for c in found.candidates if c.description.endswith("start 2.86514e+06"))
    assert far.residual == pytest.approx(7.37e-5, rel=1e-2)  # still tried, and far off


def test_a_float64_integer_start_is_exact_within_its_producers_arithmetic():
    """The allowance for a float64 producer grows with the position (2^-50 per unit)."""
    from pecli.analysis.identify.residuals import exact_error

    assert exact_error("float32", 1e6, 10) == 4 * 2.0**-24  # float32: its rounding only
    assert exact_error("float64", 0, 1) == 4 * 2.0**-53 + 2.0**-50
    assert exact_error("float64", -30, 20) == 4 * 2.0**-53 + 31 * 2.0**-50  # the farthest row
    table = np.array(slow.preset_table("pytorch", 40, 64, 10000.0, 100_000))
    found = identify_table(table)
    assert found.matched and found.start == 100_000
    assert found.command.startswith("pecli compute --convention pytorch --start 100000 --d 64")
