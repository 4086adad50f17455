"""The periodicity figure (``pecli plot-fourier``): drawn data, period marks, identical rebuilds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli import ParameterError
from pecli.core.sinusoidal.fourier import fourier_features
from pecli.figures.sinusoidal.fourier import periodicity_figure, random_network

TWO_PI = 2 * math.pi


def forward(network, inputs):
    """The network's forward pass, written here from its weights."""
    h = inputs
    for j, (w, b) in enumerate(zip(network.weights, network.biases, strict=True)):
        h = h @ w + b
        if j < len(network.weights) - 1:
            h = np.tanh(h)
    return h[:, 0]


def gamma_loop(x, k):
    return np.array(
        [[f(level * v) for level in range(1, k + 1) for f in (math.sin, math.cos)] for v in x]
    )


@pytest.fixture
def drawn():
    x = np.linspace(0.0, 3 * TWO_PI, 1501)  # 500 samples per period
    features = gamma_loop(x, 3)
    network = random_network(6, hidden=32, seed=0)
    output = network(features)
    fig = periodicity_figure(x, features, output, frequencies=np.array([1.0, 2, 3]), period=TWO_PI)
    return x, features, network, output, fig


def test_top_panel_draws_the_features(drawn):
    x, features, _, _, fig = drawn
    lines = [line for line in fig.axes[0].get_lines() if len(line.get_xdata()) > 2]
    labels = ["sin(x)", "cos(x)", "sin(2x)", "cos(2x)", "sin(3x)", "cos(3x)"]
    assert [line.get_label() for line in lines] == labels
    for column, line in enumerate(lines):
        np.testing.assert_array_equal(line.get_xdata(), x)
        np.testing.assert_allclose(line.get_ydata(), features[:, column], rtol=0, atol=1e-15)
    assert math.isclose(lines[0].get_ydata()[125], math.sin(x[125]), abs_tol=1e-15)


def test_bottom_panel_draws_a_periodic_network_output(drawn):
    _, features, network, _, fig = drawn
    line = fig.axes[1].get_lines()[0]
    y = np.asarray(line.get_ydata())
    np.testing.assert_allclose(y, forward(network, features), rtol=0, atol=1e-14)
    np.testing.assert_allclose(y[500:], y[:-500], rtol=0, atol=1e-12)  # shifted by one period
    assert np.ptp(y) > 0.1  # visibly not flat
    assert np.max(np.abs(y[250:750] - y[:500])) > 0.1  # and not periodic with half the period


def test_period_is_marked(drawn):
    *_, fig = drawn
    for ax in fig.axes:
        verticals = sorted(
            line.get_xdata()[0]
            for line in ax.get_lines()
            if len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1]
        )
        np.testing.assert_allclose(verticals, [0, TWO_PI, 2 * TWO_PI, 3 * TWO_PI])
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert "period 2π" in texts
    label = next(t for t in fig.axes[1].texts if t.get_text() == "period 2π")
    assert math.isclose(label.get_position()[0], math.pi)  # centred on the arrow 0 … 2π
    arrow = next(a for a in fig.axes[1].texts if a.get_text() == "")
    assert math.isclose(arrow.xy[0] - arrow.xyann[0], TWO_PI)
    ticks = [t.get_text() for t in fig.axes[1].get_xticklabels()]
    assert ticks == ["0", "π", "2π", "3π", "4π", "5π", "6π"]


def test_random_network_is_fixed_by_its_seed():
    a, b, c = random_network(4, seed=5), random_network(4, seed=5), random_network(4, seed=6)
    for wa, wb in zip(a.weights, b.weights, strict=True):
        np.testing.assert_array_equal(wa, wb)
    assert not np.array_equal(a.weights[0], c.weights[0])
    assert [w.shape for w in a.weights] == [(4, 32), (32, 32), (32, 1)]


def test_without_size_the_periodicity_figure_is_9_by_6_inches_at_100_dpi(run_cli, tmp_path):
    """docs/figures.md: "the periodicity figure 9 × 6" (inches, at 100 dpi): 900 × 600 pixels."""
    from test_figure_options import png_size

    out = tmp_path / "f.png"
    assert run_cli("plot-fourier", "--points", "200", "-o", str(out)).exit_code == 0
    assert png_size(out) == (900, 600)


@pytest.mark.parametrize(("dpi", "refused"), [(962, False), (963, True)])
def test_dpi_alone_is_held_to_50_million_pixels_of_9_by_6_inches(run_cli, tmp_path, dpi, refused):
    """docs/figures.md: at most 50 million pixels, the periodicity figure 9 × 6 inches. By hand:
    9·6·962² = 49,973,976 fits, 9·6·963² = 50,077,926 does not (an SVG: no pixels drawn)."""
    out = tmp_path / "f.svg"
    result = run_cli("plot-fourier", "--points", "20", "--dpi", str(dpi), "-o", str(out))
    assert (result.exit_code == 2) is refused, result.output
    if refused:
        assert "gives 9 × 6 inches at 963 dpi: at most 50 million pixels" in result.stderr
        assert "'--dpi'" in result.stderr and not out.exists()


# png and svg of plot-fourier (--k 3 is its default): test_committed_figures.py rebuilds the
# committed files byte for byte; pdf has no committed file
@pytest.mark.parametrize("suffix", ["pdf"])
def test_two_builds_are_byte_identical(run_cli, tmp_path, suffix):
    first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    assert run_cli("plot-fourier", "-o", str(first)).exit_code == 0
    assert run_cli("plot-fourier", "-o", str(second)).exit_code == 0
    assert first.read_bytes() == second.read_bytes() and first.stat().st_size > 1000


def test_data_export_octave_scale_pi(run_cli, tmp_path):
    result = run_cli(
        "plot-fourier",
        "--k",
        "2",
        "--frequencies",
        "octave",
        "--scale",
        "pi",
        "--periods",
        "2",
        "--points",
        "9",
        "-o",
        str(tmp_path / "f.svg"),
        "--data",
        str(tmp_path / "f.csv"),
    )
    assert result.exit_code == 0, result.output
    data = np.genfromtxt(tmp_path / "f.csv", delimiter=",", names=True)
    assert data.dtype.names == ("x", "sin_1", "cos_1", "sin_2", "cos_2", "f")
    np.testing.assert_allclose(data["x"], np.linspace(0, 4, 9), atol=1e-15)  # period 2
    np.testing.assert_allclose(data["cos_2"], np.cos(2 * np.pi * data["x"]), atol=1e-14)
    np.testing.assert_allclose(data["f"][4:], data["f"][:5], atol=1e-12)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--periods", "1"], "--periods"),
        (["--points", "1"], "--points"),
        (["--k", "0"], "--k"),
        (["--k", "65"], "--k"),  # docs/cli.md: 1 to 64
        (["--seed", "-1"], "--seed"),
        (["--hidden", "0"], "--hidden"),
        (["--scale", "x"], "--scale"),
        (["-o", "f.gif"], "--output"),
    ],
)
def test_plot_fourier_usage_errors(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("plot-fourier", *args)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and option in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_figure_takes_64_frequencies_as_docs_cli_md_says():
    from pecli.figures.sinusoidal.fourier import periodicity

    assert periodicity(k=64, points=11).features.shape == (11, 128)


def test_legend_names_the_scaled_frequencies():
    x = np.linspace(0, 4, 201)
    freqs = np.array([1.0, 2.0]) * np.pi  # --scale pi
    features = fourier_features(x, k=2, scale=np.pi)
    fig = periodicity_figure(x, features, features[:, 0], frequencies=freqs, period=2.0)
    labels = [line.get_label() for line in fig.axes[0].get_lines()][:4]  # then the period lines
    assert labels == ["sin(πx)", "cos(πx)", "sin(2πx)", "cos(2πx)"]


def test_a_figure_takes_the_bounds_docs_fourier_md_gives():
    """docs/fourier.md: 3 periods by default, `--periods` 2 to 1000, `--points` 2 to 100000,
    `--hidden` 1 to 256 (each end taken, but 10^5 points, slow; one beyond refused naming it)."""
    from pecli.figures.sinusoidal.fourier import periodicity

    default = periodicity(k=1, points=3)
    assert default.x.tolist() == pytest.approx([0.0, 3 * math.pi, 6 * math.pi])  # 3 × 2π
    for name, least, most in [("periods", 2, 1000), ("points", 2, 100_000), ("hidden", 1, 256)]:
        for value in (least, most) if name != "points" else ():  # 10^5 points: too slow
            periodicity(k=1, **{"points": 2, name: value})
        for value in (least - 1, most + 1):
            with pytest.raises(ParameterError) as caught:
                periodicity(k=1, **{"points": 2, name: value})
            assert caught.value.parameter == name


def test_a_window_that_starts_inside_a_period_marks_the_whole_periods_in_it():
    """x from 2.5 to 13 with period 2π: the multiples inside are 2π ≈ 6.28 and 4π ≈ 12.57
    (0 and 6π lie outside); two frequencies, so the title says k = 2."""
    x = np.linspace(2.5, 13.0, 43)
    features = gamma_loop(x, 2)
    fig = periodicity_figure(
        x, features, features[:, 0], frequencies=np.array([1.0, 2.0]), period=TWO_PI
    )
    for ax in fig.axes:
        verticals = sorted(
            line.get_xdata()[0]
            for line in ax.get_lines()
            if len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1]
        )
        np.testing.assert_allclose(verticals, [TWO_PI, 2 * TWO_PI])
    assert fig.axes[0].get_title().startswith("Fourier features γ(x), k = 2, and")
    # the arrow spans one period, from the first whole one (2π), level, above the output
    arrow = next(a for a in fig.axes[1].texts if a.get_text() == "")
    assert (arrow.xyann[0], arrow.xy[0]) == pytest.approx((TWO_PI, 2 * TWO_PI))
    assert arrow.xy[1] == arrow.xyann[1] > features[:, 0].max()
    label = next(t for t in fig.axes[1].texts if t.get_text() == "period 2π")
    assert label.get_position()[1] < fig.axes[1].get_ylim()[1]  # arrow and label in the panel
    # a flat output (f = 0 everywhere) is still drawn inside the panel, below its arrow
    flat = periodicity_figure(x, features, np.zeros(43), frequencies=np.ones(2), period=TWO_PI)
    low, high = flat.axes[1].get_ylim()
    assert low < 0 < high
