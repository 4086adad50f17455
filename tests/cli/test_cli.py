"""The command line: compute's outputs, exit statuses and messages (docs/cli.md)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from reference import mp_table

from pecli import encoding_table

GOLDEN_12 = [  # docs/encoding.md: pe(1), pe(2) for d = 4
    [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004],
    [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067],
]


def parse_csv(text: str) -> tuple[list[str], np.ndarray, list[list[str]]]:
    lines = text.strip().splitlines()
    cells = [line.split(",") for line in lines[1:]]
    return lines[0].split(","), np.array(cells, dtype=np.float64), cells


def significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].replace("-", "").replace(".", "")
    return max(len(mantissa.strip("0")), 1)


def test_compute_csv_to_stdout_is_the_golden_table(run_cli):
    result = run_cli("compute", "--d", "4", "--n", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    header, values, _ = parse_csv(result.stdout)
    assert header == ["sin_1", "cos_1", "sin_2", "cos_2"]
    np.testing.assert_allclose(values, GOLDEN_12, atol=3e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_csv_round_trips_bit_for_bit_with_shortest_text(run_cli, tmp_path, dtype):
    out = tmp_path / "pe.csv"
    result = run_cli(
        "compute", "--d", "16", "--n", "300", "--start", "0", "--dtype", dtype, "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    _, _, cells = parse_csv(out.read_text())
    parsed = np.array(cells, dtype=dtype)  # parse straight into the stored dtype
    expected = encoding_table(d=16, n=300, start=0, dtype=dtype)
    np.testing.assert_array_equal(parsed, expected)
    # shortest: as few significant digits as numpy's shortest round-trip text (Dragon4)
    kind = np.dtype(dtype).type
    for cell in (c for row in cells for c in row):
        reference = np.format_float_scientific(kind(cell), unique=True)
        assert significant_digits(cell) <= significant_digits(reference), (cell, reference)


def test_npy_round_trips_bit_for_bit(run_cli, tmp_path):
    out = tmp_path / "pe.npy"
    result = run_cli("compute", "--d", "512", "--n", "100", "-o", str(out))
    assert result.exit_code == 0, result.output
    loaded = np.load(out, allow_pickle=False)
    assert loaded.dtype == np.dtype("<f4") and loaded.flags.c_contiguous
    np.testing.assert_array_equal(loaded, encoding_table(d=512, n=100))
    np.testing.assert_allclose(loaded[:, :8], mp_table(range(1, 101), 512)[:, :8], atol=3e-8)


def test_npy_to_stdout_with_format(run_cli):
    result = run_cli("compute", "--d", "4", "--n", "3", "--format", "npy", "--dtype", "float64")
    assert result.exit_code == 0
    loaded = np.load(io.BytesIO(result.stdout_bytes), allow_pickle=False)
    np.testing.assert_array_equal(loaded, encoding_table(d=4, n=3, dtype="float64"))


def test_format_overrides_suffix_and_no_header(run_cli, tmp_path):
    out = tmp_path / "table.txt"
    result = run_cli(
        "compute", "--d", "4", "--n", "2", "--format", "csv", "--no-header", "-o", str(out)
    )
    assert result.exit_code == 0
    assert len(out.read_text().splitlines()) == 2
    np.testing.assert_allclose(np.loadtxt(out, delimiter=","), GOLDEN_12, atol=3e-8)


def test_start_zero_gives_framework_table(run_cli):
    result = run_cli("compute", "--d", "4", "--n", "1", "--start", "0", "--no-header")
    assert result.stdout.strip() == "0.0,1.0,0.0,1.0"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--d", "3"], "--d"),
        (["--d", "0"], "--d"),
        (["--d", "-2"], "--d"),
        (["--n", "0"], "--n"),
        (["--base", "0"], "--base"),
        (["--base", "-5"], "--base"),
        (["--base", "nan"], "--base"),
        (["--base", "inf"], "--base"),
        (["--dtype", "int8"], "--dtype"),
        (["--format", "xlsx"], "--format"),
        (["-o", "table.xlsx"], "--output"),
        (["-o", "no/such/folder/t.csv"], "--output"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("compute", *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert option in lines[0] and "Traceback" not in result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_every_command_has_help_with_an_example(run_cli):
    from pecli.cli import app

    names = [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]
    assert {"compute", "heatmap", "plot-waves"} <= set(names)
    for name in names:
        result = run_cli(name, "--help")
        assert result.exit_code == 0
        assert "Example: pecli " + name in result.stdout, name


def test_version(run_cli):
    from pecli import __version__

    result = run_cli("--version")
    assert result.exit_code == 0
    version, certificate = result.stdout.splitlines()
    assert version == f"pecli {__version__}"
    if os.environ.get("PECLI_ALLOW_NO_EXTENSION") != "1":  # tests/certificate/test_compiled.py
        assert certificate == "certificate: compiled pass"
    assert certificate.startswith(("certificate: compiled pass", "certificate: NumPy pass ("))


def test_installed_console_script(pecli_cmd):
    ok = subprocess.run(
        [*pecli_cmd, "compute", "--d", "4", "--n", "2", "--format", "csv"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0 and ok.stderr == ""
    assert ok.stdout.splitlines()[0] == "sin_1,cos_1,sin_2,cos_2"
    np.testing.assert_allclose(
        np.loadtxt(ok.stdout.splitlines()[1:], delimiter=","), GOLDEN_12, atol=3e-8
    )
    bad = subprocess.run(
        [*pecli_cmd, "compute", "--d", "5"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "'--d'" in bad.stderr and "even" in bad.stderr


@pytest.mark.parametrize("args", [["compute", "-o", "{tmp}/x.npy"], ["--help"], ["--version"]])
def test_commands_that_draw_nothing_import_no_matplotlib_polars_or_core(tmp_path, args):
    argv = [a.format(tmp=tmp_path) for a in args]
    heavy = (
        "matplotlib",
        "polars",
        "rich",
        "pecli.analysis.sinusoidal.identify",
        "pecli.core.sinusoidal.fourier",
    )
    code = (
        "import sys; from pecli.cli import app; from typer.testing import CliRunner;"
        f"r = CliRunner().invoke(app, {argv!r});"
        "assert r.exit_code == 0, r.output;"
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    if args[0].startswith("--"):  # not even the table code
        code = code.replace(
            repr(heavy), repr(("pecli.core.sinusoidal.encoding", "pecli.core.kernels"))
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip() == "[]", out.stderr


def test_a_bug_is_still_one_line_with_status_1(run_cli, monkeypatch):
    import pecli.core.sinusoidal.encoding as command

    def broken(**kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(command, "table_blocks", broken)
    result = run_cli("compute", "--d", "4")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "pecli compute: error: internal error: ZeroDivisionError: simulated bug "
        "(PECLI_TRACEBACK=1 shows where)"
    ]
    monkeypatch.setenv("PECLI_TRACEBACK", "1")
    assert isinstance(run_cli("compute", "--d", "4").exception, ZeroDivisionError)


def test_a_table_no_command_rebuilds_has_an_empty_command_line():
    from pecli.analysis.rebuild import Rebuild
    from pecli.cli.text import command_line

    assert command_line(Rebuild()) == ""
