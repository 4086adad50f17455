"""--convention and the low-level knobs on compute, heatmap and plot-waves; pecli conventions."""

from __future__ import annotations

import libraries as lib
import numpy as np
import pytest


def test_conventions_lists_every_preset(run_cli):
    result = run_cli("conventions")
    assert result.exit_code == 0
    for name in ("vaswani", "pytorch", "tensor2tensor", "fairseq", "hf-marian", "diffusers"):
        assert name in result.stdout
    assert "whisper" in result.stdout.lower()


def test_compute_with_a_preset_writes_the_library_table(run_cli, tmp_path):
    out = tmp_path / "f.npy"
    result = run_cli("compute", "--convention", "fairseq", "--d", "33", "--n", "40", "-o", str(out))
    assert result.exit_code == 0, result.output
    np.testing.assert_allclose(np.load(out), lib.fairseq(40, 33, 1), atol=3e-8)


def test_explicit_options_override_the_preset(run_cli):
    result = run_cli(
        "compute",
        "--convention",
        "hf-marian",
        "--d",
        "4",
        "--n",
        "1",
        "--start",
        "1",
        "--layout",
        "cos-sin",
        "--schedule",
        "tensor2tensor",
    )
    header, row = result.stdout.strip().splitlines()
    assert header == "cos_1,cos_2,sin_1,sin_2"
    expected = [np.cos(1), np.cos(1e-4), np.sin(1), np.sin(1e-4)]
    np.testing.assert_allclose([float(v) for v in row.split(",")], expected, rtol=1e-7)


def test_diffusers_flags_on_compute(run_cli):
    result = run_cli(
        "compute",
        "--convention",
        "diffusers",
        "--flip-sin-to-cos",
        "--downscale-freq-shift",
        "0",
        "--d",
        "6",
        "--n",
        "3",
        "--dtype",
        "float64",
        "--no-header",
    )
    got = np.loadtxt(result.stdout.splitlines(), delimiter=",")
    np.testing.assert_allclose(got, lib.diffusers(np.arange(3), 6, True, 0), atol=1e-15)


@pytest.mark.parametrize(
    "args",
    [
        ["--convention", "tensor2tensor"],  # its own guard: ln(C) / max(h - 1, 1), ω = [1]
        ["--convention", "diffusers", "--downscale-freq-shift", "0.5"],  # 0 / (1 - 0.5): ω = [1]
    ],
)
def test_one_pair_tables_that_their_library_defines(run_cli, args):
    # by hand: h = 1, so the one frequency is C^0 = 1 and row p is [sin p, cos p]
    result = run_cli("compute", *args, "--d", "2", "--n", "3", "--dtype", "float64", "--no-header")
    assert result.exit_code == 0, result.output
    got = np.loadtxt(result.stdout.splitlines(), delimiter=",")
    p = np.arange(3.0)
    np.testing.assert_allclose(got, np.stack([np.sin(p), np.cos(p)], axis=1), atol=1e-15)


def test_heatmap_and_plot_waves_take_conventions(run_cli, tmp_path):
    data = tmp_path / "h.csv"
    result = run_cli(
        "heatmap",
        "--convention",
        "whisper",
        "--d",
        "8",
        "--n",
        "5",
        "-o",
        str(tmp_path / "h.png"),
        "--data",
        str(data),
    )
    assert result.exit_code == 0, result.output
    lines = data.read_text().splitlines()
    assert lines[0].startswith("sin_1,sin_2,sin_3,sin_4,cos_1")
    got = np.loadtxt(lines[1:], delimiter=",")
    np.testing.assert_allclose(got, lib.whisper(5, 8), atol=1e-15)
    waves = tmp_path / "w.csv"
    result = run_cli(
        "plot-waves",
        "--schedule",
        "tensor2tensor",
        "--d",
        "8",
        "--pairs",
        "4",
        "--points",
        "3",
        "--stop",
        "2",
        "-o",
        str(tmp_path / "w.png"),
        "--data",
        str(waves),
    )
    assert result.exit_code == 0, result.output
    got = np.loadtxt(waves.read_text().splitlines()[1:], delimiter=",")
    np.testing.assert_allclose(got[:, 1], np.sin(np.array([0, 1, 2]) * 1e-4), rtol=1e-12)


@pytest.mark.parametrize("command", ["compute", "heatmap"])
@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--convention", "bert"], "--convention"),
        (["--layout", "blocked"], "--layout"),
        (["--schedule", "t2t"], "--schedule"),
        (["--schedule", "shift:x"], "--schedule"),
        (["--schedule", "shift:inf"], "--schedule"),
        (["--schedule", "shift:4", "--d", "8"], "--d"),  # the rule names the schedule too
        (  # d = 2(⌊S⌋ + 1) = 2e308 by hand: a number of a few digits, not of 309
            ["--schedule", "shift:1e308", "--d", "8"],
            "must be at least 2e+308 for the shift:1e+308 schedule (d // 2 - S > 0): past the "
            "largest d, 131072, so no d holds it (got 8)",
        ),
        (["--padding-idx", "-1"], "--padding-idx"),
        (["--padding-idx", "100"], "--padding-idx"),
        (["--padding-idx", "x"], "--padding-idx"),
        (["--start", "1.5"], "--start"),
        (["--flip-sin-to-cos"], "--flip-sin-to-cos"),
        (["--downscale-freq-shift", "0"], "--downscale-freq-shift"),
        (["--convention", "diffusers", "--downscale-freq-shift", "nan"], "--downscale-freq-shift"),
        # h - S > 0 with h = d/2 = 4 (by hand): named as the shift the user typed, not --d
        (
            ["--convention", "diffusers", "--d", "8", "--downscale-freq-shift", "300"],
            "'--downscale-freq-shift': must be less than 4,",
        ),
        (
            ["--convention", "diffusers", "--d", "8", "--downscale-freq-shift", "1e20"],
            "'--downscale-freq-shift': must be less than 4,",
        ),
        (
            ["--convention", "diffusers", "--d", "8", "--downscale-freq-shift", "4"],
            "'--downscale-freq-shift': must be less than 4,",
        ),
        (  # odd d = 9: 4 pairs of sin and cos and a column of zeros, h = 9 // 2 = 4
            ["--convention", "diffusers", "--d", "9", "--downscale-freq-shift", "4"],
            "must be less than 4, half of --d (9), rounded down:",
        ),
        # diffusers divides by d // 2 - S with no guard (exponent / (half_dim - shift)): at
        # d = 2 and 3, S = 1 is 0/0, NaN; tensor2tensor's max(h - 1, 1) is not diffusers'
        (
            ["--convention", "diffusers", "--d", "2", "--downscale-freq-shift", "1"],
            "'--downscale-freq-shift': must be less than 1, half of --d (2):",
        ),
        (
            ["--convention", "diffusers", "--d", "3", "--downscale-freq-shift", "1"],
            "must be less than 1, half of --d (3), rounded down:",
        ),
        # the default shift is that 1 too: the same formula, so no table at d = 2 or 3 either
        (
            ["--convention", "diffusers", "--d", "2"],
            "'--d': must be at least 4 with --convention diffusers: its --downscale-freq-shift, "
            "1 by default, needs d // 2 - S > 0",
        ),
        (["--convention", "diffusers", "--d", "3"], "'--d': must be at least 4 with --conv"),
        (["--convention", "whisper", "--d", "9"], "--d"),
    ],
)
def test_bad_knobs_are_one_line_with_status_2(
    run_cli, tmp_path, monkeypatch, command, args, option
):
    monkeypatch.chdir(tmp_path)
    result = run_cli(
        command,
        "--n",
        "10",
        *args,
        "-o",
        str(tmp_path / f"x.{'png' if command == 'heatmap' else 'csv'}"),
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and option in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "option"),
    [(["--schedule", "x"], "--schedule"), (["--layout", "x"], "--layout")],
)
def test_plot_waves_bad_knobs(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("plot-waves", *args)
    assert result.exit_code == 2 and option in result.stderr
    assert list(tmp_path.iterdir()) == []


def _options(command: str) -> dict[str, tuple[tuple[str, ...], str | None]]:
    import typer.main

    from pecli.cli import app

    group = typer.main.get_command(app)
    params = group.commands[command].params  # type: ignore[attr-defined]
    return {p.name: (tuple(p.opts), getattr(p, "help", None)) for p in params}


CONVENTION_OPTIONS = {
    "convention",
    "layout",
    "schedule",
    "start",
    "padding_idx",
    "flip_sin_to_cos",
    "downscale_freq_shift",
}


@pytest.mark.parametrize(
    ("command", "missing"),
    [
        ("compute", set()),
        ("heatmap", set()),
        ("precision", set()),
        ("plot-waves", {"start", "padding_idx"}),
    ],
)
def test_convention_options_are_declared_once_and_shared(command, missing):
    """Every command that takes a convention offers the same options with the same help."""
    reference = _options("compute")
    options = _options(command)
    for name in CONVENTION_OPTIONS - missing:
        assert options[name] == reference[name], name
    if missing:  # plot-waves' --start is its x axis, not the table's first position
        assert "padding_idx" not in options
        assert options["start"] != reference["start"]


def test_the_conventions_table_names_fairseq_s_padding_row_only(run_cli):
    # fairseq's SinusoidalPositionalEmbedding keeps row padding_idx = 1 all zero; the
    # article's table has no padding row.
    lines = {
        line.split()[0]: line.split()
        for line in run_cli("conventions").stdout.splitlines()
        if line.strip()
    }
    assert lines["fairseq"][4:6] == ["row", "1"]
    assert lines["vaswani"][4] == "-"
    # MLX's SinusoidalPositionalEncoding scales every value by sqrt(2/d) (its default
    # `scale`); no other preset has a factor
    assert lines["mlx"][6:8] == ["amplitude", "sqrt(2/d)"]
    assert [lines[name][6] for name in ("vaswani", "pytorch", "whisper")] == ["-"] * 3


@pytest.mark.parametrize(("base", "refused"), [("1e-151", True), ("1e-149", False)])
def test_a_base_below_1_keeps_every_frequency_below_1e300(run_cli, base, refused):
    """d = 4, S = 1.5: ω_2 = C^(-1/(2 - 1.5)) = C^-2, by hand 1e302 (finite, refused) or 1e298."""
    args = ["--convention", "diffusers", "--downscale-freq-shift", "1.5", "--d", "4", "--n", "1"]
    result = run_cli("compute", *args, "--base", base, "--format", "csv")
    if refused:
        assert result.exit_code == 2 and "'--base'" in result.stderr
        assert f"below 1e300 (with this d and schedule) (got {base})" in result.stderr
    else:
        assert result.exit_code == 0, result.output
