"""Every figure fit to print (issue 23): readable at its printed size, text kept as text.

Looked at as a reader would: PNG at 100 dpi, SVG's ``<text>`` elements, PDF's fonts.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba

from pecli.core.grids import grid_column_names, grid_table

#: Every command that draws, with small arguments, and where its figure goes.
DRAWING = {
    "plot-waves": ["plot-waves"],
    "heatmap": ["heatmap", "--d", "16", "--n", "20"],
    "plot-fourier": ["plot-fourier", "--k", "2", "--points", "200"],
    "plot-similarity": ["plot-similarity", "--d", "64"],
    "plot-spectrum": ["plot-spectrum", "--d", "64"],
    "plot-grid": ["plot-grid", "6", "6", "--d", "32"],
    "plot-grid --similarity": ["plot-grid", "6", "6", "--d", "32", "--similarity"],
    "precision": ["precision", "--d", "16", "--n", "200"],
}


def svg_texts(path) -> list[str]:
    """The text of every ``<text>`` element of an SVG file, in order."""
    root = ET.parse(path).getroot()
    return ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]


def draw(run_cli, tmp_path, name: str, *extra: str, suffix: str = "svg"):
    out = tmp_path / f"{name.replace(' ', '_')}.{suffix}"
    result = run_cli(*DRAWING[name], *extra, "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("name", list(DRAWING))
def test_svg_keeps_text_as_text_and_every_drawing_command_takes_a_title(run_cli, tmp_path, name):
    default = svg_texts(draw(run_cli, tmp_path, name))
    assert len(default) >= 5  # labels, ticks and title, searchable and editable
    assert not [t for t in default if t.startswith("pecli ")]  # no title is a command line
    texts = svg_texts(draw(run_cli, tmp_path, name, "--title", "Figure 3: mine"))
    assert "Figure 3: mine" in texts
    untitled = svg_texts(draw(run_cli, tmp_path, name, "--title", ""))
    assert len(untitled) == len(default) - 1  # "" leaves no title


def test_pdf_embeds_truetype_not_type3_fonts(run_cli, tmp_path):
    pdf = draw(run_cli, tmp_path, "plot-waves", suffix="pdf").read_bytes()
    assert b"/Type3" not in pdf and b"/FontFile2" in pdf  # Type 42: TrueType outlines


def test_the_default_waves_figure_keeps_fast_pairs_apart(run_cli, tmp_path):
    """Pairs 1 and 10 (λ 6.3 and 8.7) cross 40 times over 0 … 250: one panel each."""
    svg = draw(run_cli, tmp_path, "plot-waves")
    axes = re.findall(r'<g id="(axes_\d+)">', svg.read_text())
    assert len(axes) == 4
    texts = svg_texts(svg)
    assert "i = 1" in texts and "i = 10" in texts  # each panel names its pair
    one = svg_texts(draw(run_cli, tmp_path, "plot-waves", "--one-axes"))
    assert "i = 1 (λ = 6.283)" in one  # the article's single axes, on request


def test_grid_channels_are_ticked_at_whole_patches():
    from pecli.figures.grids import grid_channels_figure

    table = grid_table((14, 14), d=64, dtype="float64")
    names = grid_column_names(64)
    picked = [0, 2, 32, 34]  # plot-grid's default channels: four panels of 14 × 14
    fig = grid_channels_figure(
        table[:, picked], (14, 14), names=[names[k] for k in picked], title="t"
    )
    fig.draw_without_rendering()
    for ax in [ax for ax in fig.axes if ax.images]:
        ticks = np.concatenate([ax.get_xticks(), ax.get_yticks()])
        np.testing.assert_array_equal(ticks, np.round(ticks))


@pytest.mark.parametrize("shape", [(3, 2), (2, 3)])  # left alone, matplotlib ticks 0, 0.5, 1 …
def test_tiny_grids_are_ticked_at_whole_patches_in_both_figures(shape):
    from pecli.figures.grids import grid_channels_figure, patch_similarity_figure

    table = grid_table(shape, d=16, dtype="float64")
    names = grid_column_names(16)
    channels = grid_channels_figure(table[:, [0, 2]], shape, names=names[:2], title="t")
    similar = patch_similarity_figure(table, shape, patch=(0, 0), title="t")
    for fig in (channels, similar):
        fig.draw_without_rendering()
        for ax in [ax for ax in fig.axes if ax.images]:
            for ticks in (ax.get_xticks(), ax.get_yticks()):
                assert len(ticks) >= 2
                np.testing.assert_array_equal(ticks, np.round(ticks))


def _white_runs(row: np.ndarray) -> list[int]:
    """Lengths of the runs of white pixels strictly inside a row of RGBA pixels."""
    white = np.all(row[:, :3] >= 250, axis=1)
    runs, count = [], 0
    for is_white in white:
        if is_white:
            count += 1
        elif count:
            runs.append(count)
            count = 0
    return runs


def test_the_similarity_mosaic_reads_as_tiles_at_page_size():
    """At 100 dpi the 14 × 14 mosaic's tiles stand apart by equal gaps of 4+ pixels.

    One NaN cell between tiles was 2 or 3 pixels, and cells sampled one pixel each (2 or 3
    wide by turns) made the 196 tiles one moiré texture.
    """
    from pecli.figures.grids import patch_similarity_figure

    table = grid_table((14, 14), d=768, dtype="float64")
    fig = patch_similarity_figure(table, (14, 14), title="t")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())
    ax = fig.axes[0]
    box = ax.get_window_extent()
    _, y = ax.transData.transform((0.0, 6.5))  # through the middle of the first tile row
    row = pixels[pixels.shape[0] - round(y), int(box.x0) + 2 : int(box.x1) - 2]
    gaps = _white_runs(row)
    assert len(gaps) == 13 and min(gaps) >= 4 and max(gaps) - min(gaps) <= 1, gaps
    assert ax.images[0].get_interpolation() != "nearest"  # a cell < 3 px: filtered


def test_spectrum_band_shades_are_clearly_different():
    from pecli.figures.sinusoidal.spectrum import spectrum_figure

    bands = ["unchanged"] * 4 + ["smoothed"] * 2 + ["interpolated"] * 2
    fig = spectrum_figure({"a": np.arange(1.0, 9.0)}, d=16, bands=bands)
    shades = {}
    for patch in fig.axes[0].patches:
        if patch.get_label() in bands:
            r, g, b, a = to_rgba(patch.get_facecolor())
            shades[patch.get_label()] = np.array(
                [1 - a * (1 - r), 1 - a * (1 - g), 1 - a * (1 - b)]
            )
    assert set(shades) == {"unchanged", "smoothed", "interpolated"}
    assert np.linalg.norm(shades["unchanged"] - shades["smoothed"]) > 0.15
    assert np.linalg.norm(shades["smoothed"] - shades["interpolated"]) > 0.15
    assert np.linalg.norm(shades["unchanged"] - shades["interpolated"]) > 0.1


@pytest.mark.parametrize(("dtype", "n"), [("bfloat16", 2000), ("float32", 3000)])
def test_the_precision_plot_fits_its_data_and_names_the_threshold(dtype, n):
    from pecli.analysis.sinusoidal.precision import precision_report
    from pecli.core.sinusoidal.conventions import convention
    from pecli.figures.sinusoidal.article import precision_figure

    report = precision_report(d=64, n=n, convention=convention("vaswani"), base=1e4, dtype=dtype)
    fig = precision_figure(report)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    errors = np.concatenate([report.framework_error, report.pecli_error, [report.threshold]])
    smallest, largest = errors[errors > 0].min(), errors.max()
    assert smallest / 100 < low < smallest and largest < high < largest * 100
    assert "threshold = 0.001" in ax.get_legend_handles_labels()[1]


def test_the_similarity_legend_cites_the_article(run_cli, tmp_path):
    texts = svg_texts(draw(run_cli, tmp_path, "plot-similarity"))
    assert any(t.startswith("Vaswani et al. 2017, C = 10000") for t in texts)
    assert not any("vaswani (paper)" in t for t in texts)
