"""plot-grid's figures: channels as H × W images, and the patches' similarity (ViT Figure 7)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pecli import ParameterError
from pecli.core.grids import grid_column_names, grid_table
from pecli.figures.grids import grid_channels_figure, patch_similarity, patch_similarity_figure


def test_similarity_is_the_mean_of_the_two_axes_cosines():
    # hand-derived: pe(a)·pe(b) = Σ_j cos(ω_j Δr) + Σ_j cos(ω_j Δc) and |pe|² = 2h (h = d/4)
    h, w, d = 5, 7, 16
    sim = patch_similarity(grid_table((h, w), d=d, dtype="float64"))
    omega = [10000 ** (-j / (d // 4)) for j in range(d // 4)]
    for a, b in [(0, 34), (8, 20), (33, 3)]:
        dr, dc = a // w - b // w, a % w - b % w
        want = sum(math.cos(o * dr) + math.cos(o * dc) for o in omega) / (d // 2)
        assert sim[a, b] == pytest.approx(want, abs=1e-14)
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-15)
    np.testing.assert_array_equal(sim, sim.T)


def test_mosaic_tile_r_c_is_patch_r_c_against_every_patch():
    h, w = 4, 6
    table = grid_table((h, w), d=32, preset="timm", dtype="float64")
    fig = patch_similarity_figure(table, (h, w), title="t")
    image = np.ma.filled(fig.axes[0].images[0].get_array(), np.nan)
    assert image.shape == (h * (h + 1) - 1, w * (w + 1) - 1)
    sim = patch_similarity(table)
    for r, c in [(0, 0), (3, 5), (2, 1)]:
        tile = image[r * (h + 1) : r * (h + 1) + h, c * (w + 1) : c * (w + 1) + w]
        np.testing.assert_array_equal(tile, sim[r * w + c].reshape(h, w))
        assert tile[r, c] == pytest.approx(1.0)  # each patch is brightest at its own place
    assert np.isnan(image[h, :]).all()  # the gap between tile rows


def test_one_patch_and_its_bounds():
    table = grid_table((3, 5), d=16, dtype="float64")
    fig = patch_similarity_figure(table, (3, 5), title="t", patch=(2, 4))
    np.testing.assert_array_equal(
        fig.axes[0].images[0].get_array(), patch_similarity(table)[14].reshape(3, 5)
    )
    with pytest.raises(ParameterError) as caught:
        patch_similarity_figure(table, (3, 5), title="t", patch=(3, 0))
    assert caught.value.parameter == "patch"


def test_channels_are_drawn_as_grid_images():
    table = grid_table((3, 5), d=16, preset="mocov3", dtype="float64")
    names = grid_column_names(16, preset="mocov3")
    fig = grid_channels_figure(table[:, [0, 8]], (3, 5), names=[names[0], names[8]], title="t")
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["sin_row_1", "sin_col_1"]
    np.testing.assert_array_equal(panels[0].images[0].get_array(), table[:, 0].reshape(3, 5))
    # sin_row_1 is constant along a row, sin_col_1 along a column
    assert np.ptp(panels[0].images[0].get_array(), axis=1).max() == 0
    assert np.ptp(panels[1].images[0].get_array(), axis=0).max() == 0
    # one colour scale for every panel: the whole range of a sine or cosine, -1 to 1
    assert [ax.images[0].get_clim() for ax in panels] == [(-1.0, 1.0)] * 2


def test_more_than_64_channels_are_refused_by_the_small_multiples():
    """The docstring's "more than 64 channels" refused: 65 columns of a 3 × 5 grid."""
    table = grid_table((3, 5), d=68, preset="t2t-nd", dtype="float64")[:, :65]
    with pytest.raises(ParameterError) as caught:
        grid_channels_figure(table, (3, 5), names=["c"] * 65, title="t")
    assert caught.value.parameter == "channels"
    assert "must be 1 to 64 channels of the 3 × 5 grid" in str(caught.value)


def test_the_similarity_colours_run_from_the_lowest_tenth_to_1_a_tenth_at_least():
    """Colours from the smallest similarity rounded down to a tenth, to 1: on a 3 × 5 MAE grid
    of d = 16 the least similarity, by the formula above over every offset (Δr, Δc), is at
    (2, 3): (Σ_j cos(2 ω_j) + Σ_j cos(3 ω_j)) / 8 ≈ 0.566, so 0.5 to 1; identical rows (every
    similarity 1) still get a tenth, 0.9 to 1, not an empty range."""
    omega = [10000 ** (-j / 4) for j in range(4)]
    least = min(
        sum(math.cos(o * dr) + math.cos(o * dc) for o in omega) / 8
        for dr in range(3)
        for dc in range(5)
    )
    assert least == pytest.approx(0.566, abs=1e-3)
    table = grid_table((3, 5), d=16, dtype="float64")
    for rows, low in [(table, math.floor(least * 10) / 10), (np.ones((15, 16)), 0.9)]:
        for patch in (None, (0, 0)):
            fig = patch_similarity_figure(rows, (3, 5), title="t", patch=patch)
            assert fig.axes[0].images[0].get_clim() == pytest.approx((low, 1.0), abs=1e-12)
            colorbar = fig.axes[1]  # the scale drawn beside it: the same range
            assert colorbar.get_ylim() == pytest.approx((low, 1.0), abs=1e-12)


def test_plot_grid_writes_the_drawn_channels(run_cli, tmp_path):
    result = run_cli(
        "plot-grid",
        "3",
        "5",
        "--d",
        "16",
        "--channels",
        "sin_col_1,9",
        "-o",
        str(tmp_path / "g.png"),
        "--data",
        str(tmp_path / "g.csv"),
    )
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "g.csv").read_text().splitlines()
    assert lines[0] == "sin_col_1,sin_row_2"
    data = np.array([line.split(",") for line in lines[1:]], dtype=np.float64)
    np.testing.assert_array_equal(data, grid_table((3, 5), d=16, dtype="float64")[:, [0, 9]])
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["3", "5", "--channels", "sin_x_1"], "'--channels': must be column names"),
        (["3", "5", "4", "--preset", "tatp22"], "'SHAPE...': must be two sides H W"),
        (["3", "5", "--similarity", "--patch", "0", "9"], "'--patch': must be a row"),
        (["3", "5", "--similarity", "--patch", "3", "0"], "'--patch': must be a row 0 … 2"),
        (["3", "5", "--similarity", "--patch", "0", "5"], "and a column 0 … 4"),
    ],
)
def test_plot_grid_errors(run_cli, tmp_path, args, message):
    result = run_cli("plot-grid", *args, "-o", str(tmp_path / "g.png"))
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "g.png").exists()


def test_the_similarity_mosaic_has_no_frame():
    """The tiles end in white at the axes' edges, not in a black line round the mosaic.

    (viridis's darkest colour, #440154, is no near-black pixel.)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = patch_similarity_figure(grid_table((4, 4), d=64, dtype="float64"), (4, 4), title="t")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())
    box = fig.axes[0].get_window_extent()
    top, left = pixels.shape[0] - round(box.y1), round(box.x0)
    for border in (pixels[top - 1 : top + 2, left:], pixels[top:, left - 1 : left + 2]):
        assert not (border[..., :3].max(axis=-1) < 40).any()


def test_plot_grid_channel_indices_run_0_to_d_minus_1(run_cli, tmp_path):
    """--channels takes 0-based column indices: with d = 16 the last is 15, and 16 is refused
    with the range said as "0 … 15" (16 columns, counted from 0)."""
    out = tmp_path / "g.png"
    result = run_cli("plot-grid", "3", "5", "--d", "16", "--channels", "15", "-o", str(out))
    assert result.exit_code == 0, result.output
    result = run_cli("plot-grid", "3", "5", "--d", "16", "--channels", "16", "-o", str(out))
    assert result.exit_code == 2
    assert "or indices 0 … 15" in " ".join(result.output.split())


def _png_size(path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (bytes 16-23, big-endian; PNG spec 11.2.2)."""
    head = path.read_bytes()[16:24]
    return int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")


@pytest.mark.parametrize(("dpi", "pixels"), [([], (400, 300)), (["--dpi", "50"], (200, 150))])
def test_plot_grid_png_is_size_times_dpi_pixels(run_cli, tmp_path, dpi, pixels):
    """A 4 × 3 inch figure is 4·dpi × 3·dpi pixels: 400 × 300 at the documented default of
    100 dpi, 200 × 150 at --dpi 50."""
    out = tmp_path / "g.png"
    args = ["3", "5", "--d", "16", "--size", "4", "3", *dpi, "-o", str(out)]
    result = run_cli("plot-grid", *args)
    assert result.exit_code == 0, result.output
    assert _png_size(out) == pixels


@pytest.mark.parametrize(("shape", "points"), [((16, 16), 7.0), ((16, 17), 5.0), ((17, 16), 5.0)])
def test_the_mosaic_labels_each_tile_s_centre_and_shrink_past_16_patches_a_side(shape, points):
    """The mosaic labels every patch row and column at its tile's centre, 7-point text up to
    16 patches a side (ViT-L/14 at 224 px), 5-point beyond. Tiles of ``h × w`` pixels with a
    gap of 3 (a fifth of 16 or 17, rounded): tile c spans ``c·(w+3) … c·(w+3)+w-1``."""
    h, w = shape
    table = np.ones((h * w, 4))  # the labels depend on the shape only
    ax = patch_similarity_figure(table, shape, title="t").axes[0]
    for labels, ticks, side, centre in (
        (ax.get_xticklabels(), ax.get_xticks(), w, lambda c: c * (w + 3) + (w - 1) / 2),
        (ax.get_yticklabels(), ax.get_yticks(), h, lambda r: r * (h + 3) + (h - 1) / 2),
    ):
        assert [t.get_text() for t in labels] == [str(i) for i in range(side)]
        assert {t.get_fontsize() for t in labels} == {points}
        assert ticks.tolist() == [centre(i) for i in range(side)]
    assert ax.xaxis.get_major_ticks()[0].tick1line.get_markersize() == 0  # labels, no ticks
    assert not any(spine.get_visible() for spine in ax.spines.values())  # no frame


@pytest.mark.parametrize(("side", "ok"), [(64, True), (65, False)])
def test_a_mosaic_side_of_64_is_drawn_and_65_is_refused(side, ok):
    """The docstring's "a mosaic side above 64" refused (a 1 × 65 grid); 1 × 64 is drawn."""
    table = np.random.default_rng(2).standard_normal((side, 4))
    if ok:
        assert patch_similarity_figure(table, (1, side), title="t").axes[0].images
        return
    with pytest.raises(ParameterError, match="must have sides up to 64 for the mosaic"):
        patch_similarity_figure(table, (1, side), title="t")


def test_the_figures_are_made_at_100_dpi_unless_told():
    """docs/cli.md: `--dpi` defaults to 100 (the article's figures), for both figures."""
    table = np.random.default_rng(2).standard_normal((15, 4))
    assert patch_similarity_figure(table, (3, 5), title="t").dpi == 100
    assert grid_channels_figure(table[:, :2], (3, 5), names=["a", "b"], title="t").dpi == 100
    assert patch_similarity_figure(table, (3, 5), title="t", dpi=50).dpi == 50
    assert tuple(patch_similarity_figure(table, (3, 5), title="t").get_size_inches()) == (7.5, 6.5)


def test_opposite_rows_have_similarity_minus_1_and_orthogonal_rows_0():
    """Cosine similarity by hand: (1, 0) and (-1, 0) are opposite, -1; (0, 3) is orthogonal to
    both, 0; every row with itself 1; a row of zeros 0 with every row, itself too (docstring)."""
    table = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 3.0], [0.0, 0.0]])
    want = [[1.0, -1.0, 0.0, 0.0], [-1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0] * 4]
    assert patch_similarity(table).tolist() == want


@pytest.mark.parametrize(
    ("count", "grid"), [(1, (1, 1)), (2, (1, 2)), (3, (2, 2)), (5, (2, 3)), (64, (8, 8))]
)
def test_small_multiples_are_laid_out_near_square_wider_than_tall(count, grid):
    """k panels in ceil(√k) columns and as many rows as they need: 2 side by side, 5 as 2 × 3
    (the spare panels switched off)."""
    table = np.random.default_rng(2).standard_normal((15, count))
    fig = grid_channels_figure(table, (3, 5), names=["c"] * count, title="t")
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    assert panels[0].get_subplotspec().get_geometry()[:2] == grid
    assert sum(ax.axison for ax in panels) == count
    rows, columns = grid  # about 2.6 × 2.4 inches a panel, plus room for the titles
    assert tuple(fig.get_size_inches()) == pytest.approx((2.6 * columns + 1.2, 2.4 * rows + 0.6))


@pytest.mark.parametrize(
    ("shape", "gap"), [((1, 1), 1), ((2, 2), 1), ((1, 8), 2), ((12, 3), 2), ((13, 13), 3)]
)
def test_the_mosaic_gap_is_a_fifth_of_the_longest_side_at_least_one(shape, gap):
    """The docstring's rule, by hand: 2/5 rounds to 0, raised to 1; 8/5 = 1.6 -> 2; 12/5 = 2.4
    -> 2; 13/5 = 2.6 -> 3."""
    from pecli.figures.grids import mosaic_gap

    assert mosaic_gap(shape) == gap


def test_no_channel_at_all_is_refused_as_out_of_1_to_64():
    table = np.zeros((15, 0))
    with pytest.raises(ParameterError, match="must be 1 to 64 channels of the 3 × 5 grid"):
        grid_channels_figure(table, (3, 5), names=[], title="t")


@pytest.mark.parametrize(
    ("args", "dpi", "fitted"),
    [
        ([], 790, (6.4, 5.4)),  # 2 × 2 panels: 34.56·790² = 21,568,896 pixels
        (["--similarity"], 1012, (7.5, 6.5)),  # 48.75·1012² = 49,927,020
        (["--similarity"], 1013, "7.5 × 6.5 inches"),  # 48.75·1013² = 50,025,738.75
        (["--channels", ",".join(map(str, range(64)))], 340, "22 × 19.8 inches"),  # 8 × 8
    ],
)
def test_plot_grid_holds_its_fitted_size_to_50_million_pixels(
    run_cli, tmp_path, monkeypatch, args, dpi, fitted
):
    """docs/cli.md: plot-grid's size is fitted to the panels (2.6 × 2.4 inches each plus 1.2 ×
    0.6; the mosaic 7.5 × 6.5), and a figure is at most 50 million pixels: that size is held
    to it, not a fixed 9 × 9 (which refused 790 dpi for 4 panels and let 64 panels through at
    340 dpi, 50,355,360 pixels). The figure is not drawn: its size is all that is asked."""
    from pecli.io import writing

    saved = []
    monkeypatch.setattr(writing, "save_figure_to", lambda f, fig, *_: saved.append(fig))
    out = tmp_path / "g.png"
    result = run_cli("plot-grid", "3", "5", "--d", "256", *args, "--dpi", str(dpi), "-o", str(out))
    if isinstance(fitted, tuple):
        assert result.exit_code == 0, result.output
        assert saved[0].dpi == dpi
        assert tuple(saved[0].get_size_inches()) == pytest.approx(fitted, rel=1e-12)
        return
    assert result.exit_code == 2, result.output
    assert f"gives {fitted} at {dpi} dpi: at most 50 million pixels" in result.stderr
    assert "'--dpi'" in result.stderr and not saved and not out.exists()
