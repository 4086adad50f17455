"""identify over a generated matrix: presets × d × base × start × storage dtype.

The tables identify is given are built by slow_formulas.py, slow loops transcribed from each
library's own code, never by pecli's generator: a mistake shared by the generator and the
recogniser would otherwise cancel out.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import shlex
from types import SimpleNamespace
from typing import TYPE_CHECKING

import libraries as lib
import ml_dtypes
import numpy as np
import pytest
import slow_formulas as slow

from pecli import PRESETS, convention

if TYPE_CHECKING:
    from click.testing import Result

STORAGE = {
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}
PRESET_NAMES = [
    "vaswani",
    "pytorch",
    "tensor2tensor",
    "fairseq",
    "hf-marian",
    "diffusers",
    "whisper",
]


def identify_table(table) -> SimpleNamespace:
    """``pecli identify - --json`` on ``table`` sent as .npy: the public face of identify.

    (Through the command line, not ``pecli.analysis``, whose modules may move.) The report's
    keys become attributes; ``inf`` scores, written as null, come back as ``inf``.
    """
    from cli_runner import CliRunner

    from pecli.cli import app

    buffer = io.BytesIO()
    np.save(buffer, np.asarray(table))
    result: Result = CliRunner().invoke(app, ["identify", "-", "--json"], input=buffer.getvalue())
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert report["matched"] == (result.exit_code == 0)
    report["shape"] = tuple(report["shape"])
    for key in ("residual", "relative_residual"):
        report[key] = math.inf if report[key] is None else report[key]
    report["candidates"] = [
        SimpleNamespace(**{**c, "score": math.inf if c["score"] is None else c["score"]})
        for c in report["candidates"]
    ]
    return SimpleNamespace(**report)


def matrix():
    """Every preset × storage, with d, base and start varied across the cases."""
    widths, bases, starts = [8, 64, 1024, 9, 130], [100.0, 1e4, 1e6, 500.0], [None, 0, 3, 17]
    for k, (name, storage) in enumerate(itertools.product(PRESET_NAMES, STORAGE)):
        for m in range(4):
            d = widths[(k + m) % len(widths)]
            if d % 2 and not convention(name).pad_odd_d:
                d += 1
            yield name, d, bases[(k + 2 * m) % len(bases)], starts[(k + m) % 4], storage


@pytest.mark.parametrize(("name", "d", "base", "start", "storage"), list(matrix()))
def test_identifies_every_table_of_the_matrix(name, d, base, start, storage):
    conv = convention(name, start=start)
    table = np.array(slow.preset_table(name, 120, d, base, start))  # float64, by the library
    found = identify_table(table.astype(STORAGE[storage]))
    assert found.matched and not found.transposed
    assert found.storage == storage
    assert (found.layout, found.start) == (conv.layout, conv.start)
    assert (found.schedule, found.base) == (conv.schedule, base)
    assert found.padding_rows == ([] if conv.padding_idx is None else [conv.padding_idx])
    assert found.zero_components == ([d] if d % 2 else [])  # 1-based: component d
    if conv.name != "custom":  # a named preset is named (diffusers = tensor2tensor here)
        assert any(p.split()[0] == name for p in found.presets), found.presets


def test_equivalent_readings_are_both_reported():
    # tensor2tensor with C = 1000 at d = 8 is exactly hf-marian's paper schedule with C = 10000
    found = identify_table(lib.tensor2tensor(40, 8, max_timescale=1000.0))
    assert found.matched
    assert "C = 10000" in found.equivalent or "C = 1000" in found.equivalent
    assert {p.split()[0] for p in found.presets} >= {"tensor2tensor", "hf-marian"}


@pytest.mark.parametrize("d", [16, 512])
def test_transposed_tables_are_recognised(d):
    # cos-sin blocks from 0 with the paper's frequencies: Stable Diffusion's timestep table
    table = np.array(slow.diffusers(range(64), d, flip_sin_to_cos=True, downscale_freq_shift=0))
    found = identify_table(table.astype(np.float32).T)
    assert found.matched and found.transposed and found.layout == "cos-sin"
    assert found.shape == (d, 64)


def test_recovers_an_unlisted_base_numerically():
    table = np.array(slow.pytorch_tutorial(200, 256, base=7321.0))
    found = identify_table(table)
    assert found.matched and found.schedule == "paper"
    assert found.base_fit == pytest.approx(7321.0, rel=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("base", "start"), [("7321", 0), ("12345", 1), ("10000", 1), ("500.5", 7)])
def test_the_suggested_command_gives_the_short_base_and_rebuilds_the_table(
    run_cli, tmp_path, base, start, dtype
):
    """A float64 table at C = 7321 was told '--base 7321.000000000008' (the angles' last bits);
    12345 was read as tensor2tensor's 9196.69952807497. The shortest decimal that reproduces
    the table is given, and the command it prints writes the same table again."""
    made = tmp_path / "made.npy"
    args = ["--d", "64", "--n", "50", "--start", str(start), "--base", base, "--dtype", dtype]
    assert run_cli("compute", *args, "-o", str(made), "-q").exit_code == 0
    result = run_cli("identify", str(made))
    assert result.exit_code == 0, result.output
    command = result.stdout.split("rebuild with: ")[1].split("\n")[0].split()
    assert command[command.index("--base") + 1] == base, command
    again = tmp_path / "again.npy"
    assert run_cli(*command[1:], "-o", str(again), "-q").exit_code == 0
    assert np.array_equal(np.load(again), np.load(made))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_shorter_base_is_given_only_when_it_reproduces_the_table_exactly(dtype):
    """float64 tells 7321.000123 from 7321, and so does float32: 428 of its 3200 entries
    differ by an ulp. 7321 was given for float32, and its command wrote another table."""
    told = 7321.000123
    from pecli import encoding_table
    from pecli.analysis.sinusoidal.identify import identify_table
    from pecli.cli.text import command_line

    found = identify_table(encoding_table(d=64, n=50, base=7321.000123, dtype=dtype))
    command = command_line(found.command)
    assert found.matched and found.base == told and f"--base {told:g}" in command


@pytest.mark.parametrize(
    ("args", "base"),
    [
        # paper 152400000 (4 digits) within an ulp; tensor2tensor's 12345 is the table's own
        (["--convention", "whisper", "--d", "4", "--n", "200", "--base", "12345"], "12345"),
        (["--d", "64", "--n", "50", "--base", "7321.000123"], "7321.000123"),
        # the fitter's round 100000 (fit 99999) rebuilt this float64 table 5e-6 off
        (["--d", "8", "--n", "64", "--base", "99999", "--dtype", "float64"], "99999"),
    ],
)
def test_a_base_that_rebuilds_the_table_beats_a_shorter_one_that_does_not(
    run_cli, tmp_path, args, base
):
    """The shortest base within the storage's rounding was given even where a longer one
    rebuilt the table bit for bit: the printed command wrote a table an ulp off."""
    made, again = tmp_path / "made.npy", tmp_path / "again.npy"
    assert run_cli("compute", *args, "-o", str(made), "-q").exit_code == 0
    found = json.loads(run_cli("identify", str(made), "--json").stdout)
    command = shlex.split(found["command"])
    assert command[command.index("--base") + 1] == base, command
    assert run_cli(*command[1:], "-o", str(again), "-q").exit_code == 0
    assert np.load(again).tobytes() == np.load(made).tobytes()


@pytest.mark.parametrize("d", [3, 8])
@pytest.mark.parametrize("zero", [[3], [0, 1], [3, 7]])
def test_the_command_rebuilds_the_table_or_the_note_says_what_it_does_not(
    run_cli, tmp_path, d, zero
):
    """--padding-idx zeroes one row: with two zero rows the command rebuilt them as positions
    and nothing said so."""
    made = tmp_path / "made.npy"
    preset = "tensor2tensor" if d % 2 else "pytorch"
    assert (
        run_cli(
            "compute", "--convention", preset, "--d", str(d), "--n", "20", "-o", str(made), "-q"
        ).exit_code
        == 0
    )
    table = np.load(made)
    table[zero] = 0
    np.save(made, table)
    result = run_cli("identify", str(made), "--json")
    found = json.loads(result.stdout)
    assert result.exit_code == 0 and found["padding_rows"] == zero, result.output
    again = tmp_path / "again.npy"
    assert run_cli(*shlex.split(found["command"])[1:], "-o", str(again), "-q").exit_code == 0
    rebuilt = np.load(again)
    others = np.ones(20, bool)
    others[zero] = False
    assert np.array_equal(rebuilt[others], table[others])
    if len(zero) == 1:
        assert np.array_equal(rebuilt, table) and found["note"] == ""
    else:
        rows = ", ".join(map(str, zero))
        assert not np.array_equal(rebuilt, table)
        assert f"does not rebuild the zero rows {rows}" in found["note"]
        text = run_cli("identify", str(made)).stdout.splitlines()
        assert text[-2].startswith("rebuild with: ") and text[-1] == f"note: {found['note']}"


def test_tables_from_the_libraries_own_formulas():
    assert identify_table(lib.fairseq(60, 33, padding_idx=1)).presets[0] == "fairseq"
    assert "whisper" in identify_table(lib.whisper(50, 384).astype(np.float16)).presets
    sd = identify_table(lib.diffusers(np.arange(80), 320, True, 0).astype(np.float32))
    assert sd.presets == ["diffusers --flip-sin-to-cos --downscale-freq-shift 0", "ldm"]


def test_framework_float32_arithmetic_still_matches():
    # the PyTorch tutorial computed in float32 up to position 3000: errors near 1e-4
    position = np.arange(3000, dtype=np.float32)[:, None]
    div = np.exp(np.arange(0, 64, 2, dtype=np.float32) * np.float32(-np.log(10000.0) / 64))
    table = np.zeros((3000, 64), dtype=np.float32)
    table[:, 0::2], table[:, 1::2] = np.sin(position * div), np.cos(position * div)
    found = identify_table(table)
    assert found.matched and found.residual > 1e-5
    assert found.presets == ["pytorch", "distilbert", "positional-encodings"]  # same even table


@pytest.mark.parametrize(
    "table",
    [
        np.random.default_rng(0).uniform(-1, 1, (40, 16)),
        np.array(slow.vaswani(40, 16)) * ([1.01, 1] * 8),  # sines 1 % larger: on no circle
        np.array(slow.vaswani(20, 16) + slow.vaswani(20, 16, start=500)),
    ],
)
def test_no_match_lists_closest_candidates(table):
    found = identify_table(table)
    assert not found.matched
    assert found.candidates and found.candidates[0].score > 1
    assert [c.score for c in found.candidates] == sorted(c.score for c in found.candidates)


def test_a_factor_on_every_value_is_an_amplitude(run_cli):
    # every pair on a circle of radius 1.01 (sin² + cos² = 1.01²): the article's table with
    # --amplitude 1.01, which the command rebuilds; MLX's sqrt(2/d) is named after MLX
    table = np.array(slow.vaswani(40, 16)) * 1.01
    found = identify_table(table)
    assert found.matched and found.presets == [] and "--amplitude 1.01" in found.command
    result = run_cli(*shlex.split(found.command)[1:], "--no-header", "--dtype", "float64")
    assert result.exit_code == 0, result.output
    rebuilt = np.loadtxt(result.stdout.splitlines(), delimiter=",")
    np.testing.assert_allclose(rebuilt, table, rtol=0, atol=1e-12)
    mlx = np.array(slow.whisper(40, 16)) * np.sqrt(2 / 16)
    assert identify_table(mlx).presets == ["mlx"]


def test_the_rebuild_command_is_a_line_a_shell_runs(run_cli):
    """The paper's table from position 0 times sqrt(2/8) = 0.5: identify reads the amplitude
    as sqrt(2/d) and printed ``--amplitude sqrt(2/d)``, a syntax error in bash (the
    parentheses); the value is quoted now, and the line parses and rebuilds the table."""
    import subprocess

    table = np.array(slow.vaswani(40, 8, start=0)) * 0.5
    found = identify_table(table)
    assert "--amplitude 'sqrt(2/d)'" in found.command
    parsed = subprocess.run(["bash", "-n", "-c", found.command], capture_output=True, check=False)
    assert parsed.returncode == 0, parsed.stderr
    result = run_cli(*shlex.split(found.command)[1:], "--no-header", "--dtype", "float64")
    rebuilt = np.loadtxt(result.stdout.splitlines(), delimiter=",")
    np.testing.assert_allclose(rebuilt, table, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("d", "n"), [(4, 4), (4, 50), (10, 4), (6, 50)])
def test_an_amplitude_of_a_float32_table_is_its_shortest_decimal(run_cli, d, n):
    """The article's table from position 0 times 0.5, rounded once to float32: its mean
    radius is 0.499999998 (float32 rounding), which identify printed and whose table is not
    this one (cmp differed); within 4 float32 unit roundoffs the shortest decimal, 0.5, is
    the amplitude, and the printed command rebuilds the table bit for bit."""
    table = (np.array(slow.vaswani(n, d, start=0)) * 0.5).astype(np.float32)
    found = identify_table(table)
    assert found.command.endswith("--amplitude 0.5"), found.command
    result = run_cli(*shlex.split(found.command)[1:], "--format", "npy")
    rebuilt = np.load(io.BytesIO(result.stdout_bytes))
    np.testing.assert_array_equal(rebuilt, table)


def test_cli_identify_npy_csv_bf16_and_json(run_cli, tmp_path):
    out = tmp_path / "pe.csv"
    assert (
        run_cli(
            "compute", "--convention", "fairseq", "--d", "64", "--n", "30", "-o", str(out)
        ).exit_code
        == 0
    )
    result = run_cli("identify", str(out), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["presets"][0] == "fairseq" and report["padding_rows"] == [1]
    written = np.loadtxt(out, delimiter=",", skiprows=1, dtype=np.float32)  # fairseq's table
    np.testing.assert_array_equal(written, np.float32(slow.fairseq(30, 64)))
    bf16 = tmp_path / "pe.npy"
    np.save(bf16, np.array(slow.vaswani(50, 32)).astype(ml_dtypes.bfloat16))
    result = run_cli("identify", str(bf16))
    assert result.exit_code == 0 and "bfloat16" in result.stdout and "vaswani" in result.stdout


def test_cli_identify_no_match_exits_1(run_cli, tmp_path):
    path = tmp_path / "noise.npy"
    np.save(path, np.random.default_rng(1).normal(size=(30, 8)))
    result = run_cli("identify", str(path))
    assert result.exit_code == 1
    assert "Closest candidates" in result.stdout
    assert result.stderr.count("\n") == 1 and "matches no convention" in result.stderr


@pytest.mark.parametrize("content", [None, "a,b\nx,y\n", "1,2\n3\n"])
def test_cli_identify_bad_file_exits_2(run_cli, tmp_path, content):
    path = tmp_path / "t.csv"
    if content is not None:
        path.write_text(content)
    result = run_cli("identify", str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "'FILE'" in result.stderr
    assert "Traceback" not in result.stderr


# -- identify reads stdin ---------------------------------------------------------------------


def test_cli_identify_reads_npy_on_stdin_keeping_its_dtype(pecli_cmd):
    import io
    import subprocess

    buffer = io.BytesIO()
    np.save(buffer, lib.tensor2tensor(80, 64).astype(np.float16))  # written by the library
    proc = subprocess.run(
        [*pecli_cmd, "identify", "-", "--json"], input=buffer.getvalue(), capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["schedule"], report["layout"]) == ("tensor2tensor", "sin-cos")
    assert (report["start"], report["storage"]) == (0, "float16")


def test_cli_identify_reads_csv_on_stdin(run_cli):
    table = lib.pytorch_tutorial(60, 32).astype(np.float32)
    text = ",".join(f"c{j}" for j in range(32)) + "\n"
    text += "\n".join(",".join(f"{v:.9g}" for v in row) for row in table) + "\n"
    result = run_cli("identify", "-", "--json", input=text)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["layout"], report["start"], report["base"]) == ("interleaved", 0, 10000)


def test_cli_identify_stdin_limits_and_cleans_up(run_cli, monkeypatch, tmp_path):
    import tempfile

    from pecli.io import reading

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(reading, "MAX_STDIN_BYTES", 1 << 20)
    monkeypatch.setattr(reading, "MAX_CSV_BYTES", 1 << 20)  # CSV on a pipe: the smaller bound
    big = "0.5,0.25\n" * 200_000  # 1.8 MB
    result = run_cli("identify", "-", input=big)
    assert result.exit_code == 2 and "at most 1,048,576 bytes from a pipe" in result.stderr
    noise = "\n".join("0.3,0.1,0.7,0.2" for _ in range(20))
    result = run_cli("identify", "-", input=noise)
    assert result.exit_code == 1 and "the table on stdin matches no" in result.stderr
    assert list(tmp_path.iterdir()) == []  # the copies of stdin are gone


def test_zero_bytes_are_binary_data_not_a_csv_header(run_cli, tmp_path):
    path = tmp_path / "zeros.npy"
    path.write_bytes(bytes(5000))
    result = run_cli("identify", str(path))
    assert result.exit_code == 2 and "must be .npy or CSV text (got binary data)" in result.stderr


@pytest.mark.parametrize("storage", ["float32", "float16", "float64"])
def test_csv_storage_is_the_dtype_whose_shortest_text_was_written(run_cli, storage):
    # a float32 table written as shortest float32 text ("0.84147096") parses to float64
    # numbers that are not float32 values: the storage is found from the text
    table = lib.pytorch_tutorial(40, 16).astype(storage)
    text = "\n".join(",".join(np.format_float_positional(v, unique=True) for v in r) for r in table)
    result = run_cli("identify", "-", "--json", input=text + "\n")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["storage"] == storage
    # the tutorial's float64 arithmetic is a few ulps off; rounded to 16 bits or less, exact
    assert report["residual"] <= (1e-14 if storage == "float64" else 0.0)
    assert ("--dtype float64" in report["command"]) == (storage == "float64")


def test_csv_too_large_to_parse_whole_is_refused_before_parsing(run_cli, tmp_path, monkeypatch):
    from pecli.io import reading

    monkeypatch.setattr(reading, "MAX_CSV_BYTES", 1000)
    path = tmp_path / "big.csv"
    path.write_text("0.5,0.25\n" * 200)  # 1800 bytes
    result = run_cli("identify", str(path))
    assert result.exit_code == 2 and "must be at most 0.000953674 MiB as CSV" in result.stderr


def test_cli_identify_reads_a_named_pipe(pecli_cmd, tmp_path):
    import io
    import os
    import subprocess
    import threading

    fifo = tmp_path / "table.npy"
    os.mkfifo(fifo)

    buffer = io.BytesIO()
    np.save(buffer, lib.pytorch_tutorial(30, 16).astype(np.float32))

    def feed():
        fifo.write_bytes(buffer.getvalue())

    writer = threading.Thread(target=feed)
    writer.start()
    proc = subprocess.run([*pecli_cmd, "identify", str(fifo), "--json"], capture_output=True)
    writer.join(timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["storage"] == "float32"


# -- what identify must not be talked into -----------------------------------------------------


def with_zero_column(table):
    return [[*row, 0.0] for row in table]


#: Odd-width tables (d = 33) ending in a zero column, and the presets that make each one.
ODD_TABLES = {
    "tensor2tensor": (slow.tensor2tensor(60, 33), ["tensor2tensor", "diffusers"]),
    "fairseq": (slow.fairseq(60, 33, padding_idx=1), ["fairseq"]),
    "diffusers": (slow.diffusers(range(60), 33), ["tensor2tensor", "diffusers"]),
    "stable-diffusion": (
        slow.diffusers(range(60), 33, flip_sin_to_cos=True, downscale_freq_shift=0),
        ["diffusers --flip-sin-to-cos --downscale-freq-shift 0", "ldm"],
    ),
    # tables of presets that refuse an odd d, padded by hand: the same numbers, other shape
    "whisper + zero column": (
        with_zero_column(slow.whisper(60, 32)),
        ["tensor2tensor", "diffusers"],
    ),
    "article + zero column": (with_zero_column(slow.vaswani(60, 32)), []),
    "pytorch + zero column": (with_zero_column(slow.pytorch_tutorial(60, 32)), []),
    "hf-marian + zero column": (
        with_zero_column(slow.hf_marian(60, 32)),
        ["diffusers --downscale-freq-shift 0"],
    ),
}


@pytest.mark.parametrize("case", list(ODD_TABLES))
def test_odd_width_is_never_named_after_a_preset_that_refuses_it(run_cli, case):
    rows, expected = ODD_TABLES[case]
    table = np.array(rows)
    found = identify_table(table)
    assert found.matched and found.zero_components == [33]
    named = {p.split()[0] for p in found.presets}
    refusing = {name for name, preset in PRESETS.items() if not preset.pad_odd_d}
    assert {"whisper", "hf-marian", "vaswani", "pytorch"} <= refusing
    assert not named & refusing, found.presets
    assert found.presets == expected
    # the command identify suggests runs, and writes this very table
    command = shlex.split(found.command)
    assert command[0] == "pecli"
    result = run_cli(*command[1:], "--no-header")
    assert result.exit_code == 0, result.output
    np.testing.assert_allclose(
        np.loadtxt(result.stdout.splitlines(), delimiter=","), table, atol=1e-13
    )


@pytest.mark.parametrize(
    ("rows", "preset"),
    [(slow.hf_marian(60, 33), "hf-marian"), (slow.hf_marian(60, 9, start=5000), "hf-marian")],
)
def test_odd_width_marian_is_named_with_its_last_sine(rows, preset):
    # HF Marian with an odd d has one more sine than cosines and no zero column: its own
    # rule (odd_d = sine), so identify names it and finds no zero column
    found = identify_table(np.array(rows))
    assert found.matched and found.zero_components == [] and found.presets[0].split()[0] == preset
    assert (found.schedule, found.base) == ("paper", 10000)


def test_errors_beyond_float32_arithmetic_are_not_a_match():
    # 3e-5 is far more than float32 arithmetic gives near positions 10 … 100 (2^-22 per unit
    # of position: 2.4e-5 at position 100), so these few entries must spoil the match
    table = np.array(slow.vaswani(100, 64))
    for row, column in [(9, 3), (50, 7), (77, 40), (98, 63)]:
        table[row, column] += 3e-5 if column % 2 else -3e-5
    found = identify_table(table)
    assert not found.matched and found.relative_residual > 1


@pytest.mark.parametrize(("factor", "matched"), [(0.8, True), (1.25, False)])
def test_the_allowed_error_is_2_to_the_minus_22_per_unit_of_position(factor, matched):
    # documented: one unit in the last place of the storage plus 2^-22 (1 + position); in
    # float64 the first term is negligible, so the bound shows at positions 11 and 1000
    table = np.array(slow.vaswani(1000, 64))
    table[999, 10] += factor * 2.0**-22 * 1001
    table[10, 11] -= factor * 2.0**-22 * 12
    found = identify_table(table)
    assert found.matched is matched
    assert found.relative_residual == pytest.approx(factor, rel=1e-3)


def test_the_help_says_what_the_command_below_the_reading_is(run_cli):
    """identify --help named no command and no note, though every match prints both."""
    text = " ".join(run_cli("identify", "--help").stdout.split())
    assert "command that rebuilds the table" in text and "rebuilds it exactly" in text
    assert "note: line" in text and "more than one all-zero row" in text
