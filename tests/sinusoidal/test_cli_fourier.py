"""``pecli fourier`` and ``pecli wavelengths`` on the command line."""

from __future__ import annotations

import io
import json
import math
import subprocess

import numpy as np
import pytest
from test_fourier import GAMMA_05_K3, GAMMA_M15_K2


def table(text: str) -> tuple[list[str], np.ndarray]:
    lines = text.strip().splitlines()
    return lines[0].split(","), np.array([line.split(",") for line in lines[1:]], dtype=float)


def test_fourier_values_golden(run_cli):
    result = run_cli("fourier", "--k", "3", "0.5")
    assert result.exit_code == 0, result.output
    header, values = table(result.stdout)
    assert header == ["sin_1", "cos_1", "sin_2", "cos_2", "sin_3", "cos_3"]
    np.testing.assert_allclose(values, [GAMMA_05_K3], atol=1e-10)


@pytest.mark.parametrize("args", [["--", "-1.5", "0.5"], ["-1.5", "0.5"]])
def test_fourier_negative_values(run_cli, args):
    result = run_cli("fourier", "--k", "2", *args)
    assert result.exit_code == 0, result.output
    _, values = table(result.stdout)
    expected_05 = GAMMA_05_K3[:4]
    np.testing.assert_allclose(values, [GAMMA_M15_K2, expected_05], atol=1e-10)


def test_fourier_linspace_octave_scale_and_input(run_cli):
    result = run_cli(
        "fourier",
        "--linspace",
        "-1",
        "1",
        "5",
        "--k",
        "3",
        "--frequencies",
        "octave",
        "--scale",
        "pi",
        "--include-input",
    )
    assert result.exit_code == 0, result.output
    header, values = table(result.stdout)
    assert header[:3] == ["x", "sin_1", "cos_1"] and values.shape == (5, 7)
    for row, x in zip(values, [-1.0, -0.5, 0.0, 0.5, 1.0], strict=True):
        expected = [x]
        for f in (1, 2, 4):
            expected += [math.sin(f * math.pi * x), math.cos(f * math.pi * x)]
        np.testing.assert_allclose(row, expected, atol=1e-15)


def test_fourier_linspace_of_one_point_is_its_start(run_cli):
    """NUM = 1, the least: numpy.linspace's one point is START (0.25), γ = sin, cos of it."""
    result = run_cli("fourier", "--linspace", "0.25", "9", "1", "--k", "1", "--dtype", "float64")
    assert result.exit_code == 0, result.output
    header, values = table(result.stdout)
    assert header == ["sin_1", "cos_1"]
    np.testing.assert_allclose(values, [[math.sin(0.25), math.cos(0.25)]], rtol=1e-15)


def test_fourier_linspace_takes_the_values_arguments_take(run_cli):
    """No ±2^53 on --linspace: 1e20 is a value x as an argument is (γ takes any finite x)."""
    spaced = run_cli("fourier", "--linspace", "0", "1e20", "2")
    given = run_cli("fourier", "--", "0", "1e20")
    assert spaced.exit_code == 0 and given.exit_code == 0, spaced.output
    assert spaced.stdout == given.stdout


def test_fourier_coordinates_from_a_file_to_npy(run_cli, tmp_path):
    points = np.array([[0.5, -1.5], [2.0, 3.0], [-0.25, 0.0]])
    np.save(tmp_path / "p.npy", points.astype(">f4"))
    out = tmp_path / "g.npy"
    result = run_cli(
        "fourier",
        "-i",
        str(tmp_path / "p.npy"),
        "--k",
        "2",
        "--include-input",
        "--dtype",
        "float32",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    got = np.load(out, allow_pickle=False)
    assert got.shape == (3, 2 + 2 * 2 * 2) and got.dtype == np.dtype("<f4")
    p = points.astype(np.float32).astype(np.float64)
    for r, (a, b) in enumerate(p):
        expected = [
            a,
            b,
            math.sin(a),
            math.sin(b),
            math.cos(a),
            math.cos(b),
            math.sin(2 * a),
            math.sin(2 * b),
            math.cos(2 * a),
            math.cos(2 * b),
        ]
        np.testing.assert_array_equal(got[r], np.array(expected, dtype=np.float32))


def test_fourier_coordinates_from_csv_with_header(run_cli, tmp_path):
    (tmp_path / "p.csv").write_text("u,v\n0.5,-1.5\n")
    result = run_cli("fourier", "-i", str(tmp_path / "p.csv"), "--k", "2")
    assert result.exit_code == 0, result.output
    header, values = table(result.stdout)
    assert header == [
        "sin_1_x1",
        "sin_1_x2",
        "cos_1_x1",
        "cos_1_x2",
        "sin_2_x1",
        "sin_2_x2",
        "cos_2_x1",
        "cos_2_x2",
    ]
    g05, g15 = GAMMA_05_K3[:4], GAMMA_M15_K2  # γ per coordinate, interleaved by frequency
    expected = [g05[0], g15[0], g05[1], g15[1], g05[2], g15[2], g05[3], g15[3]]
    np.testing.assert_allclose(values, [expected], atol=1e-10)


def test_fourier_from_stdin_pipe(pecli_cmd):
    done = subprocess.run(
        [*pecli_cmd, "fourier", "-i", "-", "--k", "3", "--no-header"],
        input="0.5\n-1.5\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    values = np.loadtxt(io.StringIO(done.stdout), delimiter=",")
    np.testing.assert_allclose(values[0], GAMMA_05_K3, atol=1e-10)
    np.testing.assert_allclose(values[1, :4], GAMMA_M15_K2, atol=1e-10)


@pytest.mark.parametrize(
    ("args", "hint", "message"),
    [
        ([], "'VALUES...', '--input' or '--linspace'", "give exactly one source"),
        (["1", "--linspace", "0", "1", "3"], "'--linspace'", "give exactly one source"),
        (["nan"], "'VALUES...'", "must be finite numbers (got nan)"),
        (["abc"], "'VALUES...'", "'abc' is not a number"),
        (["--kk", "3", "1"], "'VALUES...'", "'--kk' is neither a number nor an option"),
        (["1", "--k", "0"], "'--k'", "must be an integer from 1"),
        (["1", "--scale", "-pi"], "'--scale'", "must be a number > 0"),
        (["1", "--scale", "tau"], "'--scale'", "must be a number > 0"),
        (["1", "--frequencies", "cubic"], "'--frequencies'", "cubic"),
        (["--linspace", "0", "1", "0"], "'--linspace'", "NUM must be an integer from 1"),
        (["--linspace", "0", "inf", "3"], "'--linspace'", "finite"),
        (  # the values x of γ, not positions: the rule is theirs, not ±2^53's
            ["--linspace", "0", "nan", "5"],
            "'--linspace'",
            "START and STOP must be finite numbers (got 0 nan)",
        ),
        (  # docs/fourier.md: "at most 10,000,000 values"; one past it (-o: no 10^7 rows shown)
            ["--linspace", "0", "1", "10000001", "--k", "1", "--dtype", "float32", "-o", "g.npy"],
            "'--linspace'",
            "NUM must be an integer from 1 to 10000000 (got 10000001)",
        ),
        (["-i", "cube.npy"], "'--input'", "(got shape (2, 2, 2))"),
        (["-i", "bad.csv"], "'--input'", "(got 'one' on line 2, column 1)"),
        (["1", "-o", "g.xlsx"], "'--output'", "must end in .csv, .npy"),
        # 3 · 1e308 overflows whatever x: the scale is named, not x = 1 (a new user's find)
        (["--k", "3", "--scale", "1e308", "1"], "'--scale'", "times the largest frequency 3"),
    ],
)
def test_fourier_usage_errors(run_cli, tmp_path, monkeypatch, args, hint, message):
    monkeypatch.chdir(tmp_path)
    np.save("cube.npy", np.zeros((2, 2, 2)))
    (tmp_path / "bad.csv").write_text("1\none\n")
    before = sorted(tmp_path.iterdir())
    result = run_cli("fourier", *args)
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert hint in line and message in line, line
    assert result.stdout == "" and sorted(tmp_path.iterdir()) == before


# ---- wavelengths ----------------------------------------------------------------------

GOLDEN_WAVELENGTHS = {1: 6.2831853, 10: 8.6857009, 50: 36.6272969, 100: 221.3374328}


def test_wavelengths_csv_has_the_golden_values(run_cli):
    result = run_cli("wavelengths", "--d", "512", "--format", "csv")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "pair,sin_component,cos_component,omega,wavelength"
    assert len(lines) == 1 + 256
    rows = {int(line.split(",")[0]): line.split(",") for line in lines[1:]}
    for i, lam in GOLDEN_WAVELENGTHS.items():
        assert rows[i][1:3] == [str(2 * i - 1), str(2 * i)]
        assert math.isclose(float(rows[i][4]), lam, abs_tol=1e-7)
        assert math.isclose(float(rows[i][3]) * float(rows[i][4]), 2 * math.pi, rel_tol=1e-15)
    assert math.isclose(float(rows[256][4]), 2 * math.pi * 10000 ** (510 / 512), rel_tol=1e-14)


def test_wavelengths_json_for_any_base(run_cli, tmp_path):
    out = tmp_path / "w.json"
    result = run_cli("wavelengths", "--d", "6", "--base", "64", "-o", str(out))
    assert result.exit_code == 0, result.output
    records = json.loads(out.read_text())
    assert [r["pair"] for r in records] == [1, 2, 3]
    for r in records:
        assert r["omega"] == pytest.approx(64 ** (-2 * (r["pair"] - 1) / 6), rel=1e-15)
        assert r["wavelength"] == pytest.approx(2 * math.pi * 4 ** (r["pair"] - 1), rel=1e-15)


def test_wavelengths_rich_table(run_cli):
    result = run_cli("wavelengths", "--d", "512")
    assert result.exit_code == 0, result.output
    assert "λ_i (positions)" in result.stdout and "pair i" in result.stdout
    row_10 = next(line for line in result.stdout.splitlines() if " 19, 20 " in line)
    assert "8.685700" in row_10 and "\x1b[" not in result.stdout  # no colour off a terminal


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--d", "7"], "--d"),
        (["--base", "0"], "--base"),
        (["--format", "xml"], "--format"),
        (["-o", "w.xml"], "--output"),
    ],
)
def test_wavelengths_usage_errors(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("wavelengths", *args)
    assert result.exit_code == 2 and option in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_wavelengths_into_head_is_quiet(pecli_cmd):
    done = subprocess.run(
        f"{' '.join(pecli_cmd)} wavelengths --d 4096 | head -n 2",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) == 2


def test_overflowing_choices_name_their_option(run_cli, tmp_path):
    result = run_cli("fourier", "--include-input", "--dtype", "float32", "--k", "1", "1e300")
    assert result.exit_code == 2 and "'--dtype': must be float64" in result.stderr
    result = run_cli("plot-fourier", "--scale", "1e-308", "-o", str(tmp_path / "f.png"))
    assert result.exit_code == 2 and "'--scale'" in result.stderr
    assert result.stderr.count("\n") == 1 and list(tmp_path.iterdir()) == []


def test_octave_columns_are_named_by_their_frequency(run_cli):
    """sin_4 is sin(4x): octave frequencies 1, 2, 4 name the columns (issue 12, item 8)."""
    result = run_cli("fourier", "--k", "3", "--frequencies", "octave", "0.5")
    header, row = result.stdout.splitlines()
    assert header == "sin_1,cos_1,sin_2,cos_2,sin_4,cos_4"
    values = dict(zip(header.split(","), map(float, row.split(",")), strict=True))
    assert values["sin_4"] == pytest.approx(math.sin(2.0), abs=1e-15)


def test_fourier_rows_across_blocks_are_each_their_own(run_cli, tmp_path):
    """5,000 rows x 128 features are computed in blocks: every row, the last of one block and
    the first of the next included, is γ of its own x (mpmath, 30 digits)."""
    import mpmath

    out = tmp_path / "ff.npy"
    result = run_cli("fourier", "--linspace", "0", "3", "5000", "--k", "64", "-o", str(out))
    assert result.exit_code == 0, result.output
    got = np.load(out)
    x = np.linspace(0, 3, 5000)
    mpmath.mp.dps = 30
    for row in (0, 2047, 2048, 4095, 4096, 4999):
        expected = [
            float(f(mpmath.mpf(float(x[row])) * j))
            for j in range(1, 65)
            for f in (mpmath.sin, mpmath.cos)
        ]
        np.testing.assert_allclose(got[row], expected, rtol=0, atol=2.3e-16)


def test_each_command_s_help_gives_its_own_range_of_k(run_cli):
    """``fourier --help`` spoke of "64 for plot-fourier", a limit of another command."""
    words = {"fourier": "1 to 65536, 1024 with octave", "plot-fourier": "1 to 64"}
    for command, said in words.items():
        help_text = " ".join(run_cli(command, "--help").stdout.split())
        k_line = help_text[help_text.index("--k INTEGER") :][:120]
        assert said in k_line and ("plot-fourier" not in k_line), (command, k_line)
