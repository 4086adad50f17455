"""identify on windows of long tables, small and narrow tables, and what it reports when unsure.

A window ``rows[a:b]`` of a table is placed at its true first position, up to 2^24: the cases
of the issue (framework float32 arithmetic, slow formulas, mpmath values) and a hypothesis
sweep over every preset pecli has, d, start, window length, dtype and orientation. Where the
numbers do not determine the answer, identify must say so: every start or preset that fits.
"""

from __future__ import annotations

import json
import shlex

import ml_dtypes
import numpy as np
import pytest
import reference
import slow_formulas as slow
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pecli import PRESETS, encoding_table
from pecli.analysis.sinusoidal.identify import identify_table
from pecli.cli.text import command_line
from pecli.core.errors import ParameterError


def torch_float32(n: int, d: int, base: float = 1e4) -> np.ndarray:
    """The PyTorch tutorial's table as torch computes it: every step in float32."""
    position = np.arange(n, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-np.log(base) / d))
    table = np.zeros((n, d), dtype=np.float32)
    table[:, 0::2], table[:, 1::2] = np.sin(position * div_term), np.cos(position * div_term)
    return table


# -- the cases of the issue ---------------------------------------------------------------------


@pytest.mark.parametrize(("d", "first"), [(16, 50_000), (8, 99_700), (64, 99_700), (8, 5000)])
def test_windows_of_a_framework_table_get_their_first_position(d, first):
    window = torch_float32(first + 300, d)[first:]
    found = identify_table(window)
    assert found.matched and found.start == first and found.starts == [first]
    assert f"pytorch `start` {first}" in found.presets and found.convention in PRESETS
    assert f"--start {first}" in command_line(found.command)


@pytest.mark.parametrize("storage", [np.float32, np.float64])
def test_the_window_at_5000_is_rebuilt_by_the_command_it_prints(run_cli, storage):
    # d = 8, C = 10000: 2000π is an exact period of every pair in real positions, so a real
    # start of 5000 - 2000π = -1283.19 fits as well; only integer positions single out 5000
    window = np.array(slow.pytorch_tutorial(300, 8, start=5000)).astype(storage)
    found = identify_table(window)
    assert found.matched and found.start == 5000 and found.note == ""
    result = run_cli(*shlex.split(command_line(found.command))[1:], "--no-header")
    assert result.exit_code == 0, result.output
    rebuilt = np.loadtxt(result.stdout.splitlines(), delimiter=",")
    np.testing.assert_allclose(
        rebuilt, window, rtol=0, atol=2e-7 if storage == np.float32 else 1e-12
    )


@pytest.mark.parametrize("transposed", [False, True])
def test_a_window_near_ten_million_from_exact_values(transposed):
    first = 10**7 - 12
    window = reference.mp_table(range(first, first + 12), 8)  # correctly rounded float64
    found = identify_table(window.T if transposed else window)
    assert found.matched and found.transposed == transposed
    assert (found.start, found.base, found.layout) == (first, 10000, "interleaved")


@pytest.mark.parametrize("name", ["tensor2tensor", "fairseq", "hf-marian", "whisper"])
@pytest.mark.parametrize(("a", "b"), [(0, 40), (1, 40), (30_000, 30_200), (1_234_567, 1_234_600)])
def test_slices_of_library_tables(name, a, b):
    n = b - a
    if name == "fairseq":  # the weight table: row padding_idx = 1 is zero
        table = slow.fairseq(n, 64, start=a, padding_idx=1 - a if a <= 1 else None)
    else:
        table = slow.preset_table(name, n, 64, 1e4, a)
    found = identify_table(np.float32(table))
    assert found.matched and found.start == a
    assert found.padding_rows == ([1 - a] if name == "fairseq" and a <= 1 else [])


# -- any window of any preset --------------------------------------------------------------------


def preset_window(
    name: str, d: int, a: int, n: int, dtype: str
) -> tuple[np.ndarray, int, int | None]:
    """Rows a … a+n-1 of the preset's table: (window, its first position, padding row in it)."""
    preset = PRESETS[name]
    kwargs = preset.table_kwargs()
    pad = preset.padding_idx
    kwargs["padding_idx"] = pad - a if pad is not None and a <= pad < a + n else None
    kwargs["start"] = preset.start + a
    table = encoding_table(d=d, n=n, dtype=dtype, **kwargs)
    return table, preset.start + a, kwargs["padding_idx"]


#: One chosen window per preset: d = 2, odd d (a zero column, a sine, sine-d+1), fairseq's
#: padding row inside and at the first row, three rows, starts near 2^24, both dtypes and
#: orientations; hypothesis adds 6 random ones (80 random examples took 29-69 s).
CHOSEN_WINDOWS = [
    ("diffusers", 9, 2**24 - 300, 300, "float32", True),
    ("distilbert", 33, 3, 50, "float64", False),
    ("fairseq", 8, 0, 5, "float32", False),
    ("fairseq", 5, 1, 40, "float64", True),
    ("hf-marian", 3, 0, 3, "float32", False),
    ("ldm", 2, 0, 3, "float32", False),  # its rebuild named diffusers, which compute refuses
    ("ldm", 130, 1000, 300, "float64", False),
    ("musicgen", 3, 5, 20, "float64", False),
    ("lucidrains", 2, 2, 17, "float32", True),
    ("mlx", 512, 12_345_678, 8, "float32", False),
    ("musicgen", 16, 0, 3, "float64", True),
    ("positional-encodings", 5, 70_000, 60, "float32", False),
    ("pytorch", 64, 2**24 - 300, 299, "float64", True),
    ("tensor2tensor", 4, 1, 100, "float32", False),
    ("vaswani", 8, 0, 3, "float64", False),
]


def _with_chosen_windows(test):
    for name, d, a, n, dtype, transposed in reversed(CHOSEN_WINDOWS):
        test = example(name=name, d=d, a=a, n=n, dtype=dtype, transposed=transposed)(test)
    return test


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@_with_chosen_windows
@given(
    name=st.sampled_from(sorted(PRESETS)),
    d=st.sampled_from([2, 3, 4, 5, 8, 9, 16, 33, 64, 130, 512]),
    a=st.one_of(st.integers(0, 3), st.integers(0, 2**24 - 300)),
    n=st.integers(3, 300),
    dtype=st.sampled_from(["float32", "float64"]),
    transposed=st.booleans(),
)
def test_any_window_of_any_preset_is_placed(name, d, a, n, dtype, transposed):
    try:
        window, first, pad = preset_window(name, d, a, n, dtype)
    except ParameterError:  # an odd d the preset refuses, tensor2tensor frequencies at d = 2
        assume(False)
    assume(n - (pad is not None) >= 2)
    found = identify_table(window.T if transposed else window)
    assert found.matched and found.transposed == transposed
    assert found.start == min(found.starts)
    if found.start != first:  # only where the rows do not tell, and then it says so
        assert len(found.starts) > 1 and "not determined" in found.note
    assert found.padding_rows == ([] if pad is None else [pad])
    zero_column = d % 2 == 1 and PRESETS[name].odd_d == "zero"  # else an odd d ends in a sine
    assert found.zero_components == ([d] if zero_column else [])
    assert found.storage == dtype
    assert bool(found.presets) == (pad is None or pad == PRESETS[name].padding_idx)
    rebuilt = compute(
        command_line(found.command)
    )  # the command it prints runs and gives the window
    if found.start == first:
        np.testing.assert_array_equal(rebuilt, window)
    else:
        np.testing.assert_allclose(rebuilt, window, rtol=0, atol=1e-3)


def compute(command: str) -> np.ndarray:
    """Run a ``pecli compute …`` line in-process and load the table it writes.

    Tables go to stdout as .npy, except bfloat16, which the command writes to pe.safetensors.
    """
    import io

    from cli_runner import CliRunner
    from safetensors.numpy import load_file

    from pecli.cli import app

    runner, args = CliRunner(), shlex.split(command)[1:]
    if "pe.safetensors" in args:
        with runner.isolated_filesystem():
            result = runner.invoke(app, args)
            assert result.exit_code == 0, result.output
            (table,) = load_file("pe.safetensors").values()
            return table
    result = runner.invoke(app, [*args, "--format", "npy"])
    assert result.exit_code == 0, result.output
    return np.load(io.BytesIO(result.stdout_bytes))


def test_a_table_the_rows_do_not_place_lists_every_start():
    # d = 2 in bfloat16, 3 rows: 710 mod 2π ≈ 6e-5 is far below bfloat16's rounding, so the
    # rows from 290, 1000, 1710, … are the same numbers; the smallest start is given
    window = np.array(slow.pytorch_tutorial(3, 2, start=1000)).astype(ml_dtypes.bfloat16)
    found = identify_table(window)
    assert found.matched and "not determined" in found.note
    assert found.start == 290 and {290, 1000, 1710} <= set(found.starts)
    rebuilt = compute(command_line(found.command)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(rebuilt, window)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(("name", "d"), [("pytorch", 16), ("distilbert", 9)])
def test_the_command_keeps_a_half_precision_storage(name, d, dtype):
    # compute rounds once from the exact value: --dtype gives the very table; bfloat16 goes
    # to .safetensors, since .npy cannot hold it
    table = encoding_table(d=d, n=40, dtype=dtype, **PRESETS[name].table_kwargs())
    found = identify_table(table)
    assert (
        found.matched
        and found.storage == dtype
        and f"--dtype {dtype}" in command_line(found.command)
    )
    assert ("-o pe.safetensors" in command_line(found.command)) == (dtype == "bfloat16")
    rebuilt = compute(command_line(found.command))
    assert rebuilt.dtype == table.dtype
    np.testing.assert_array_equal(rebuilt, table)


# -- small and narrow tables ---------------------------------------------------------------------


@pytest.mark.parametrize("storage", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("d", [4, 5])
@pytest.mark.parametrize("n", [3, 10, 40])
def test_narrow_tensor2tensor_tables_are_recognised(d, n, storage):
    found = identify_table(np.array(slow.tensor2tensor(n, d)).astype(storage))
    assert found.matched and found.start == 0 and found.schedule == "tensor2tensor"
    assert found.presets[0] == "tensor2tensor" and found.base == 10000
    # h = 2: the paper schedule with C = 10^8 is the same table, and says so
    assert "paper schedule with C = 1e+08" in found.equivalent
    # the slow pair turns by 10^-4 per row: in half precision these rows cannot tell the base
    assert ("the base is not determined" in found.note) == (storage != np.float32)


def test_fairseq_three_rows_of_width_two():
    # tensor2tensor's guard max(h - 1, 1) leaves ω = [1]; row 1 is fairseq's padding row,
    # and pecli's fairseq preset makes this table at d = 2 too
    table = np.float32([[0, 1], [0, 0], [np.sin(2), np.cos(2)]])
    found = identify_table(table)
    assert found.matched and found.start == 0 and found.padding_rows == [1]
    assert found.presets == ["fairseq"] and found.convention == "fairseq"
    np.testing.assert_array_equal(compute(command_line(found.command)), table)


def test_width_two_names_every_preset_that_fits():
    # at d = 2 interleaved and sin-cos are the same columns, and any base gives ω = [1]
    found = identify_table(np.float32(slow.pytorch_tutorial(20, 2)))
    assert found.matched and {"pytorch", "hf-marian"} <= set(found.presets)
    assert found.equivalent == "any base (d = 2)"


def test_two_rows_are_enough():
    found = identify_table(np.float32(slow.pytorch_tutorial(2, 64)))
    assert found.matched and (found.start, found.base) == (0, 10000)
    # DistilBERT's and tatp22's rules differ from the tutorial only at an odd d
    assert found.presets == ["pytorch", "distilbert", "positional-encodings"]


@pytest.mark.parametrize("shape", [(1, 8), (8, 1), (1, 1)])
def test_fewer_than_two_rows_is_a_usage_error(run_cli, tmp_path, shape):
    path = tmp_path / "t.npy"
    np.save(path, np.ones(shape, dtype=np.float32))
    result = run_cli("identify", str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "'FILE'" in result.stderr
    assert "at least 2 rows (positions) and 2 columns" in result.stderr
    with pytest.raises(ParameterError, match="too few to tell"):
        identify_table(np.ones(shape))


def test_a_table_of_zeros_is_a_usage_error(run_cli, tmp_path):
    path = tmp_path / "zeros.npy"
    np.save(path, np.zeros((5, 8), dtype=np.float32))
    result = run_cli("identify", str(path))
    assert result.exit_code == 2, result.output
    assert "must have at least 2 rows or 2 columns that are not all zero" in result.stderr
    assert "(got 0 non-zero row(s) of 5, 0 non-zero column(s) of 8)" in result.stderr


# -- what the report carries ---------------------------------------------------------------------


def test_no_match_reports_no_preset_and_no_command(run_cli, tmp_path):
    path = tmp_path / "noise.npy"
    np.save(path, np.random.default_rng(3).normal(size=(30, 8)))
    result = run_cli("identify", str(path), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["matched"] is False
    assert (report["presets"], report["command"], report["convention"]) == ([], "", "")


def test_the_report_carries_convention_start_padding_zero_columns_and_storage(run_cli, tmp_path):
    path = tmp_path / "f.npy"
    np.save(path, np.array(slow.fairseq(50, 9)).astype(ml_dtypes.bfloat16))
    result = run_cli("identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["convention"] == "fairseq" and report["start"] == 0 and report["starts"] == [0]
    assert (report["padding_rows"], report["zero_components"]) == ([1], [9])
    assert report["storage"] == "bfloat16" and report["note"] == ""


def test_a_start_that_is_no_integer_gets_no_command():
    found = identify_table(encoding_table(d=16, n=50, start=0.5))
    assert (
        found.matched
        and found.start == pytest.approx(0.5, abs=1e-6)
        and command_line(found.command) == ""
    )
    assert "not an integer" in found.note


def test_a_negative_start_gets_a_command_that_compute_takes():
    window = encoding_table(d=16, n=50, start=-20)
    found = identify_table(window)
    assert found.matched and found.start == -20
    np.testing.assert_array_equal(compute(command_line(found.command)), window)
