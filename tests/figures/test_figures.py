"""The article's figures (docs/figures.md): drawn data, orientation and byte-identical rebuilds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import mp_pe

from pecli import encoding_table
from pecli.figures.sinusoidal.article import heatmap_figure, wave_curves, waves_figure


def test_heatmap_draws_components_by_positions_with_component_1_at_the_bottom():
    fig = heatmap_figure(encoding_table(d=128, n=100, dtype="float64"), start=1)
    ax = fig.axes[0]
    image = ax.images[0]
    drawn = np.asarray(image.get_array())
    assert drawn.shape == (128, 100)
    assert image.origin == "lower"  # row 0 of the array is drawn at the bottom
    assert math.isclose(
        drawn[0, 0], math.sin(1), abs_tol=1e-15
    )  # bottom left (docs/figures.md#heatmap)
    assert math.isclose(drawn[127, 99], 0.9999333247, abs_tol=1e-10)  # top right
    assert image.get_clim() == (-1.0, 1.0)
    left, right, bottom, top = image.get_extent()
    assert (left + 0.5, right - 0.5, bottom + 0.5, top - 0.5) == (1, 100, 1, 128)
    assert ax.get_xlabel() == "position" and ax.get_ylabel() == "component"
    assert len(fig.axes) == 2  # the colorbar


def test_wave_lines_match_spec_at_position_100():
    positions = np.linspace(0, 250, 2501)
    pairs = [1, 10, 50, 100]
    fig = waves_figure(
        positions, wave_curves(positions, d=512, pairs=pairs), pairs=pairs, d=512, base=1e4
    )
    lines = fig.axes[0].get_lines()
    assert len(lines) == 4
    expected = [-0.5063656411, -0.0826907135, -0.9922746965, 0.2982480962]
    for line, i, value in zip(lines, pairs, expected, strict=True):
        x, y = line.get_xdata(), line.get_ydata()
        k = int(np.argmin(np.abs(x - 100)))
        assert x[k] == 100.0
        assert math.isclose(y[k], value, abs_tol=1e-10)
        assert math.isclose(y[k], float(mp_pe(100, 512)[2 * i - 2]), abs_tol=1e-12)
        assert f"i = {i}" in line.get_label()


# png and svg of these commands: test_committed_figures.py rebuilds the committed files byte
# for byte (a stronger check than two builds alike); pdf has no committed file
@pytest.mark.parametrize("suffix", ["pdf"])
@pytest.mark.parametrize("command", [["heatmap", "--d", "128", "--n", "100"], ["plot-waves"]])
def test_two_builds_are_byte_identical(run_cli, tmp_path, command, suffix):
    first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    assert run_cli(*command, "-o", str(first)).exit_code == 0
    assert run_cli(*command, "-o", str(second)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.stat().st_size > 1000


def test_plot_without_output_writes_default_name_and_says_so(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("heatmap", "--d", "8", "--n", "5")
    assert result.exit_code == 0
    assert (tmp_path / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "heatmap.png" in result.stderr


def test_data_export_of_both_figures(run_cli, tmp_path):
    result = run_cli(
        "heatmap",
        "--d",
        "8",
        "--n",
        "5",
        "-o",
        str(tmp_path / "h.svg"),
        "--data",
        str(tmp_path / "h.npy"),
    )
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(
        np.load(tmp_path / "h.npy"), encoding_table(d=8, n=5, dtype="float64")
    )
    result = run_cli(
        "plot-waves",
        "--pairs",
        "1,2",
        "--stop",
        "10",
        "--points",
        "11",
        "-o",
        str(tmp_path / "w.png"),
        "--data",
        str(tmp_path / "w.csv"),
    )
    assert result.exit_code == 0, result.output
    data = np.genfromtxt(tmp_path / "w.csv", delimiter=",", names=True)
    assert data.dtype.names == ("position", "sin_1", "sin_2")
    np.testing.assert_allclose(
        data["sin_2"], np.sin(np.arange(11) / 10000 ** (2 / 512)), atol=1e-15
    )


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["plot-waves", "--pairs", "3,0"], "--pairs': must be integers >= 1 (got 3,0)"),
        (["plot-waves", "--pairs", "1,x"], "--pairs"),
        (["plot-waves", "--pairs", "300"], "--pairs"),
        (["plot-waves", "--stop", "-1"], "--stop"),
        (["plot-waves", "--points", "1"], "--points"),
        (["heatmap", "-o", "h.jpg2"], "--output"),
        (["heatmap", "--data", "h.xlsx"], "--data"),
        (["heatmap", "--d", "7"], "--d"),
    ],
)
def test_plot_usage_errors(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and option in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_failed_figure_keeps_the_previous_figure_and_data(run_cli, tmp_path, monkeypatch):
    from pecli.io import writing

    figure, data = tmp_path / "h.png", tmp_path / "h.npy"
    figure.write_bytes(b"old figure")
    data.write_bytes(b"old data")

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing, "save_figure_to", disk_full)
    result = run_cli("heatmap", "--d", "8", "--n", "5", "-o", str(figure), "--data", str(data))
    assert result.exit_code == 1 and "No space left" in result.stderr
    assert (figure.read_bytes(), data.read_bytes()) == (b"old figure", b"old data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.npy", "h.png"]


def test_figure_and_data_are_renamed_together_even_if_a_signal_arrives(tmp_path):
    # a signal between the two renames used to leave new data beside the old figure
    import os
    import signal

    from pecli.io import guard

    seen = []
    previous = signal.signal(signal.SIGTERM, lambda number, frame: seen.append(number))
    try:
        with guard.signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            assert seen == []  # held while the renames run
        assert seen == [signal.SIGTERM]  # and delivered right after
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_the_similarity_figure_keeps_the_zero_line_in_view_when_every_curve_is_positive():
    from pecli.figures.sinusoidal.similarity import similarity_figure

    offsets = np.arange(50.0)
    figure = similarity_figure(offsets, {"C = 100": 0.6 + 0.4 * np.cos(offsets / 9)}, d=64)
    low, high = figure.axes[0].get_ylim()
    assert (low, high) == pytest.approx((-0.1, 1.05))  # min(-0.1, 0.2 - 0.05)


def test_the_precision_plot_spans_a_decade_below_half_its_smallest_error():
    """Errors from 2.5e-4 to 0.03 and a threshold of 1e-3: half the smallest is 1.25e-4, so the
    y axis starts at 1e-4; twice the largest is 0.06, so it ends at 0.1 (the rule in
    ``error_range``'s docstring, by hand)."""
    import numpy as np

    from pecli.analysis.sinusoidal.precision import PrecisionReport
    from pecli.figures.sinusoidal.article import error_range

    report = PrecisionReport(
        "float32",
        np.array([1.0, 10.0]),
        framework_error=np.array([0.0, 0.03]),  # a row without error: not a value of the span
        pecli_error=np.array([2.5e-4, 5e-4]),
        threshold=1e-3,
        first_exceeding=None,
        largest_exact=0,
    )
    assert error_range(report) == (1e-4, 0.1)
