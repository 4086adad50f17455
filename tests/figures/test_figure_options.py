"""What every plot command shares (--dpi, --size) and the fixes to plot-waves and heatmap.

docs/figures.md#figure-files, docs/figures.md#sine-curves, docs/figures.md#heatmap.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from pecli import encoding_table
from pecli.figures.sinusoidal.article import heatmap_figure
from pecli.figures.sinusoidal.waves import default_pairs, wave_curves, waves_figure

#: One short run of every command that draws, without -o.
DRAWING = {
    "plot-waves": ["plot-waves", "--stop", "20", "--points", "50"],
    "heatmap": ["heatmap", "--d", "16", "--n", "20"],
    "plot-fourier": ["plot-fourier", "--points", "200"],
    "precision": ["precision", "--d", "16", "--n", "50", "-q"],
    "plot-similarity": ["plot-similarity", "--d", "32", "--max-offset", "50"],
    "plot-spectrum": ["plot-spectrum", "--d", "32", "--context", "100"],
}


def png_size(path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_every_drawing_command_takes_dpi_and_size():
    import typer

    from pecli.cli import app

    group = typer.main.get_command(app)
    drawing = [
        name
        for name in group.commands
        if name.startswith("plot-") or name in ("heatmap", "precision")
    ]
    assert set(DRAWING) <= set(drawing)
    for name in drawing:
        options = {o for p in group.commands[name].params for o in p.opts}
        assert {"--dpi", "--size"} <= options, name


@pytest.mark.parametrize("name", [name for name in DRAWING if name != "precision"])
def test_data_that_leads_to_the_figure_s_file_is_refused_before_any_work(run_cli, tmp_path, name):
    """``--data d.csv`` where d.csv is a symbolic link to the figure's file: one file would
    replace the other, and the CSV was lost with status 0. Refused, under --data, and nothing
    is written. A hard link is a name of its own: each is replaced apart, both written."""
    figure, data = tmp_path / "fig.png", tmp_path / "d.csv"
    data.symlink_to("fig.png")
    result = run_cli(*DRAWING[name], "-o", str(figure), "--data", str(data))
    assert result.exit_code == 2
    assert "'--data'" in result.stderr and "is the figure's file" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["d.csv"] and not figure.exists()

    data.unlink()
    figure.write_bytes(b"old")
    data.hardlink_to(figure)
    assert run_cli(*DRAWING[name], "-o", str(figure), "--data", str(data)).exit_code == 0
    assert figure.read_bytes()[:4] == b"\x89PNG" and data.read_bytes()[:4] != b"\x89PNG"


@pytest.mark.parametrize("name", list(DRAWING))
def test_dpi_and_size_give_the_pixels_asked_for(run_cli, tmp_path, name):
    out = tmp_path / "f.png"
    result = run_cli(*DRAWING[name], "--size", "4", "3", "--dpi", "50", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert png_size(out) == (200, 150)


@pytest.mark.parametrize("name", ["heatmap", "plot-similarity"])
def test_without_dpi_and_size_the_figure_keeps_its_own(run_cli, tmp_path, name):
    out = tmp_path / "f.png"
    assert run_cli(*DRAWING[name], "-o", str(out)).exit_code == 0
    assert png_size(out) == (900, 450)


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["--dpi", "5"], "--dpi", "from 10 to 1200"),
        (["--dpi", "nan"], "--dpi", "from 10 to 1200"),
        (["--size", "0.5", "3"], "--size", "from 1 to 100"),
        (["--dpi", "1200"], "--dpi", "50 million pixels"),
        (["--size", "100", "100", "--dpi", "300"], "--size", "50 million pixels"),
    ],
)
@pytest.mark.parametrize("name", ["plot-waves", "precision", "plot-spectrum"])
def test_bad_dpi_or_size_is_a_usage_error_and_writes_nothing(
    run_cli, tmp_path, monkeypatch, name, args, option, words
):
    monkeypatch.chdir(tmp_path)
    result = run_cli(*DRAWING[name], *args, "-o", "f.png")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and option in result.stderr and words in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_ends_of_the_dpi_and_size_ranges_are_allowed_and_no_more():
    """docs/cli.md: ``--dpi`` 10 to 1200 dots per inch, ``--size`` 1 to 100 inches a side."""
    from pecli.core.errors import ParameterError
    from pecli.core.figure_rules import check_figure_size

    for size, dpi in [((1, 1), 10), ((1, 1), 1200), ((100, 1), 10), ((1, 100), 10)]:
        assert check_figure_size(size, dpi) == ((float(size[0]), float(size[1])), float(dpi))
    for dpi in (9.99, 1200.01):
        with pytest.raises(ParameterError, match="from 10 to 1200"):
            check_figure_size((1, 1), dpi)
    for size in [(0.99, 1), (100.01, 1), (1, 0.99), (1, 100.01)]:
        with pytest.raises(ParameterError, match="from 1 to 100"):
            check_figure_size(size, 10)


def test_fifty_million_pixels_are_allowed_and_half_a_pixel_more_is_not():
    """docs/cli.md: at most 50 million pixels. 10 × 5 inches at 1000 dpi are exactly
    50,000,000; at 1000.000005 dpi they are 50 · 1000.000005² = 50,000,000.5 (to 1e-9)."""
    from pecli.core.errors import ParameterError
    from pecli.core.figure_rules import check_figure_size

    assert check_figure_size((10, 5), 1000) == ((10.0, 5.0), 1000.0)
    with pytest.raises(ParameterError, match="at most 50 million pixels"):
        check_figure_size((10, 5), 1000.000005)


# --- plot-waves --------------------------------------------------------------------------


def test_default_pairs_fit_d_and_keep_the_article_s_at_512():
    assert default_pairs(512) == [1, 10, 50, 100]
    assert default_pairs(1024) == [1, 19, 99, 199]  # the same wavelengths
    for d in (2, 4, 6, 8, 64, 100, 130, 131072):
        pairs = default_pairs(d)
        assert pairs and pairs[0] == 1 and max(pairs) <= d // 2
        assert pairs == sorted(set(pairs))


def test_plot_waves_at_d_64_draws_pairs_that_exist_and_says_which(run_cli, tmp_path):
    out, data = tmp_path / "w.png", tmp_path / "w.csv"
    result = run_cli("plot-waves", "--d", "64", "-o", str(out), "--data", str(data))
    assert result.exit_code == 0, result.output
    assert "pecli: drew pairs 1, 2, 7, 13 (the article's 1, 10, 50, 100 scaled to d = 64)" in (
        result.stderr
    )
    assert data.read_text().splitlines()[0] == "position,sin_1,sin_2,sin_7,sin_13"
    quiet = run_cli("plot-waves", "--d", "64", "-o", str(out), "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    given = run_cli("plot-waves", "--d", "64", "--pairs", "3", "-o", str(out))
    assert "drew pairs" not in given.stderr  # only pairs pecli chose are named
    for bad in ("0", "7"):  # refused in one line: no pairs named for a d that is not drawn
        refused = run_cli("plot-waves", "--d", bad, "-o", str(tmp_path / "bad.svg"))
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr


def test_plot_waves_at_d_512_names_the_article_s_own_pairs(run_cli, tmp_path):
    """docs/figures.md: the article's pairs 1, 10, 50, 100 are drawn as they are at d = 512."""
    out = tmp_path / "w.png"
    result = run_cli("plot-waves", "--stop", "20", "--points", "50", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "pecli: drew pairs 1, 10, 50, 100 (the article's)\n" in result.stderr


def test_a_stop_too_close_to_start_is_a_usage_error(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for stop in ("5e-324", "1e-320"):
        result = run_cli("plot-waves", "--stop", stop)
        assert result.exit_code == 2 and "'--stop'" in result.stderr
        assert "--points 2501 distinct positions" in result.stderr
    result = run_cli("plot-waves", "--start", "1e15", "--stop", "1000000000000001")
    assert result.exit_code == 2 and "'--stop'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def _inside_figure(fig) -> bool:
    fig.draw_without_rendering()
    legend = fig.axes[0].get_legend().get_window_extent()
    box = fig.bbox
    return (
        box.x0 <= legend.x0 and legend.x1 <= box.x1 and box.y0 <= legend.y0 <= legend.y1 <= box.y1
    )


@pytest.mark.parametrize("count", [4, 16, 17, 32])
def test_long_legends_stay_inside_the_figure(count):
    pairs = list(range(1, count + 1))
    x = np.linspace(0, 50, 101)
    fig = waves_figure(x, wave_curves(x, d=512, pairs=pairs), pairs=pairs, d=512, base=1e4)
    assert _inside_figure(fig)
    assert fig.axes[0].get_legend()._ncols == (1 if count <= 16 else 2)
    colours = {str(line.get_color()) for line in fig.axes[0].get_lines()}
    assert len(colours) == count  # no colour repeats after ten lines


def test_more_than_ten_lines_span_viridis_from_end_to_end():
    """docs/figures.md: beyond ten pairs the lines take distinct colours from viridis; spread
    over the whole map, the first is viridis's darkest (#440154) and the last its brightest
    (#fde725), the map's published ends. Ten lines keep the default cycle (tab10's colours)."""
    from matplotlib.colors import to_hex

    pairs = list(range(1, 12))
    x = np.linspace(0, 50, 11)
    fig = waves_figure(x, wave_curves(x, d=512, pairs=pairs), pairs=pairs, d=512, base=1e4)
    colours = [to_hex(line.get_color()) for line in fig.axes[0].get_lines()]
    assert (colours[0], colours[-1], len(set(colours))) == ("#440154", "#fde725", 11)
    ten = waves_figure(
        x, wave_curves(x, d=512, pairs=pairs[:10]), pairs=pairs[:10], d=512, base=1e4
    )
    tab10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]  # the default cycle's
    assert [to_hex(line.get_color()) for line in ten.axes[0].get_lines()][:5] == tab10


def test_more_pairs_than_fit_are_refused_with_the_rule(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("plot-waves", "--pairs", ",".join(map(str, range(1, 34))))
    assert result.exit_code == 2 and "'--pairs'" in result.stderr
    assert "1 to 32 pairs" in result.stderr and "(got 33 pairs)" in result.stderr


def test_legend_prints_large_wavelengths_with_thousands_separators():
    x = np.linspace(0, 10, 11)
    fig = waves_figure(x, wave_curves(x, d=512, pairs=[249]), pairs=[249], d=512, base=1e4)
    # λ_249 = 2π · 10000^(496/512) = 47116.9…
    assert fig.axes[0].get_lines()[0].get_label() == "i = 249 (λ = 47,120)"


@pytest.mark.parametrize(
    ("value", "label"),
    [
        (999.94, "999.9"),
        (1000.0, "1,000"),
        (-1000.0, "-1,000"),
        (1234.4, "1,234"),
        (47116.9, "47,120"),
    ],
)
def test_a_label_takes_thousands_separators_from_1000_on(value, label):
    """Four significant digits below 1000; from 1000 on (1000 itself included), whole numbers
    rounded to four significant digits, with separators."""
    from pecli.figures.style import number_label

    assert number_label(value) == label


def test_a_legend_in_a_subfigure_fits_the_whole_figure_s_height():
    """40 entries, rows = 16 at 4.5 inches: 16·9 / 4.5 = 32 rows fit in a 9-inch figure, so
    2 columns, though the subfigure holding the axes has no size of its own."""
    from matplotlib.figure import Figure

    from pecli.figures.style import legend_outside

    fig = Figure(figsize=(6, 9))
    ax = fig.subfigures(1, 2)[0].subplots()
    for k in range(40):
        ax.plot([0, 1], [k, k], label=str(k))
    legend_outside(ax, title="pair")
    assert ax.get_legend()._ncols == 2


def test_panels_draw_one_axes_per_pair_sharing_x():
    pairs = [1, 10, 50, 100]
    x = np.linspace(0, 250, 2501)
    curves = wave_curves(x, d=512, pairs=pairs)
    fig = waves_figure(x, curves, pairs=pairs, d=512, base=1e4, panels=True)
    assert len(fig.axes) == 4
    for ax, column in zip(fig.axes, range(4), strict=True):
        (line,) = ax.get_lines()
        np.testing.assert_array_equal(line.get_ydata(), curves[:, column])
        assert ax.get_xlim() == (0.0, 250.0)
    assert fig.axes[-1].get_xlabel() == "position"
    assert len(waves_figure(x, curves, pairs=pairs, d=512, base=1e4).axes) == 1  # the default


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_panels_are_byte_reproducible(run_cli, tmp_path, suffix):
    a, b = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    for out in (a, b):
        assert run_cli("plot-waves", "--panels", "--d", "64", "-q", "-o", str(out)).exit_code == 0
    assert a.read_bytes() == b.read_bytes()


# --- heatmap -----------------------------------------------------------------------------


def test_heatmap_d_3_quotes_the_heatmap_s_own_rule(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("heatmap", "--d", "3")
    assert result.exit_code == 2
    assert "even integer from 2 to 8192 for a heatmap" in result.stderr
    assert "131072" not in result.stderr
    padded = run_cli("heatmap", "--d", "5", "--convention", "tensor2tensor", "-q")
    assert padded.exit_code == 0, padded.output  # a preset that pads odd d


def _drawn_values(fig):
    """The heatmap's pixels inside its axes, mapped back through the colormap to values."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    rgb = np.asarray(canvas.buffer_rgba())[..., :3].astype(np.float64)
    box, height = fig.axes[0].get_window_extent(), rgb.shape[0]
    left, bottom = int(np.ceil(box.x0)) + 1, int(np.ceil(box.y0)) + 1
    right, top = int(np.floor(box.x1)) - 1, int(np.floor(box.y1)) - 1
    pixels = rgb[height - top : height - bottom, left:right][::-1]  # row 0 at the bottom
    lut = colormaps["RdBu_r"](np.linspace(0, 1, 256))[:, :3] * 255
    # the nearest colour of the colormap, found once per distinct colour (a few thousand)
    colours, where = np.unique(pixels.reshape(-1, 3), axis=0, return_inverse=True)
    nearest = np.argmin(((colours[:, None, :] - lut) ** 2).sum(axis=-1), axis=-1)
    return nearest[where.ravel()].reshape(pixels.shape[:2]) / 255 * 2 - 1, (left, bottom)


def _block_errors(fig, table, block=16):
    """|mean of the drawn values − mean of the table's cells| over blocks of pixels."""
    values, (left, bottom) = _drawn_values(fig)
    to_data = fig.axes[0].transData.inverted()
    n, d = table.shape
    errors = []
    for y in range(0, values.shape[0] - block + 1, block):
        for x in range(0, values.shape[1] - block + 1, block):
            corners = [(left + x, bottom + y), (left + x + block, bottom + y + block)]
            (p0, c0), (p1, c1) = to_data.transform(corners)
            cols = (np.arange(1, n + 1) >= p0) & (np.arange(1, n + 1) < p1)
            rows = (np.arange(1, d + 1) >= c0) & (np.arange(1, d + 1) < c1)
            cells = table[np.ix_(cols, rows)].mean()
            errors.append(abs(values[y : y + block, x : x + block].mean() - cells))
    return np.array(errors)


def test_a_heatmap_takes_1_to_10000_positions_and_2_to_8192_components():
    """docs/cli.md and docs/figures.md: ``--n`` 1 to 10000, ``--d`` up to 8192, even unless
    a preset pads it; both ends of each range are drawn, one past them refused by name."""
    from pecli.core.errors import ParameterError
    from pecli.figures.sinusoidal.article import check_heatmap_size

    for n, d in [(1, 2), (10_000, 2), (1, 8192), (1, 3)]:
        check_heatmap_size(n=n, d=d)
    for n, d, name in [(0, 2, "n"), (10_001, 2, "n"), (1, 1, "d"), (1, 8193, "d")]:
        with pytest.raises(ParameterError) as refused:
            check_heatmap_size(n=n, d=d)
        assert refused.value.parameter == name
    check_heatmap_size(n=1, d=2, pad_odd_d=False)  # even d needs no padding
    with pytest.raises(ParameterError, match="odd only with presets that pad it"):
        check_heatmap_size(n=1, d=3, pad_odd_d=False)


def test_a_big_heatmap_shows_the_table_s_local_means_not_a_moire():
    table = encoding_table(d=512, n=2048, dtype="float64")  # 4 × 1.4 cells per pixel
    fig = heatmap_figure(table)
    assert fig.axes[0].images[0].get_interpolation() == "hanning"
    errors = _block_errors(fig, table)
    assert errors.max() < 0.08, errors.max()  # measured 0.037
    fig.axes[0].images[0].set_interpolation("nearest")  # the old drawing: one cell a pixel
    assert _block_errors(fig, table).max() > 0.15  # measured 0.245: the moiré arcs


def test_a_small_heatmap_draws_every_cell_as_a_sharp_block():
    table = encoding_table(d=128, n=100, dtype="float64")  # 7 × 2.9 pixels per cell
    fig = heatmap_figure(table)
    assert fig.axes[0].images[0].get_interpolation() == "nearest"
    values, (left, bottom) = _drawn_values(fig)
    ys, xs = np.mgrid[0 : values.shape[0], 0 : values.shape[1]]
    centres = np.column_stack([left + xs.ravel() + 0.5, bottom + ys.ravel() + 0.5])
    position, component = fig.axes[0].transData.inverted().transform(centres).T
    cells = table[np.rint(position).astype(int) - 1, np.rint(component).astype(int) - 1]
    off = np.abs(values.ravel() - cells) > 2 / 255  # one colour step of the colormap
    assert off.mean() < 0.02, off.mean()  # only pixels on a cell border may differ


@pytest.mark.parametrize("name", list(DRAWING))
def test_every_drawing_command_s_help_shows_an_example(run_cli, name):
    result = run_cli(name, "--help")
    assert result.exit_code == 0
    assert f"Example: pecli {name}" in result.output
    assert "--dpi" in result.output and "--size" in result.output


def test_the_legend_stands_right_of_the_axes_at_its_top():
    """legend_outside's promise: the legend right of the axes, inside the figure; drawn, its
    box starts past the axes' right edge and its top is the axes' top (less a small pad)."""
    from pecli.figures.style import legend_outside, new_figure

    fig = new_figure()
    ax = fig.subplots()
    for k in range(3):
        ax.plot([0, 1], [k, k], label=str(k))
    legend_outside(ax, title="pair")
    fig.draw_without_rendering()
    box, axes = ax.get_legend().get_window_extent(), ax.bbox
    assert axes.x1 < box.x0 and box.x1 <= fig.bbox.x1
    assert axes.y1 - 0.05 * axes.height < box.y1 <= axes.y1
