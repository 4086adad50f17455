"""plot-alibi and plot-t5-buckets (docs/figures.md#alibi-and-t5-buckets)."""

from __future__ import annotations

import numpy as np
import pytest

from pecli.core.zoo.alibi import alibi_bias, alibi_slopes
from pecli.core.zoo.t5_buckets import relative_position_bucket
from pecli.figures.zoo import alibi_figure, t5_buckets_figure


def test_alibi_figure_draws_the_matrix_and_the_slopes():
    slopes = alibi_slopes(12)
    bias = alibi_bias(slopes[3:4], 10)[0]
    other = ("next-power-of-two", alibi_slopes(12, variant="next-power-of-two"))
    fig = alibi_figure(bias, slopes, head=3, convention="causal", max_bias=8, other=other)
    matrix, right, _ = fig.axes  # the image, the slopes, the colour bar
    image = matrix.get_images()[0].get_array()
    assert image.mask[0, 1] and not image.mask[1, 0]  # -inf above the diagonal: blank
    assert np.array_equal(image.data[~image.mask], bias[np.isfinite(bias)])
    lines = right.get_lines()
    assert np.array_equal(lines[0].get_ydata(), slopes)
    assert np.array_equal(lines[1].get_ydata(), other[1]) and lines[1].get_linestyle() == "--"
    assert "head 3 (m = 0.0625)" in matrix.get_title()


def test_a_key_only_alibi_row_is_labelled_as_every_query():
    """BLOOM's bias is one key-only row (1, k): no query axis, a label saying so."""
    slopes = alibi_slopes(4)
    bias = alibi_bias(slopes, 10, convention="bloom")[1]  # head 1: shape (1, 10)
    matrix = alibi_figure(bias, slopes, head=1, convention="bloom", max_bias=8).axes[0]
    assert matrix.get_ylabel() == "every query (one key-only row)" and not matrix.get_yticks().size
    full = alibi_figure(alibi_bias(slopes, 10)[1], slopes, head=1, convention="causal", max_bias=8)
    assert full.axes[0].get_ylabel() == "query row i"


def test_t5_figure_is_the_staircase_with_its_marks():
    rp = np.arange(-200, 201)
    buckets = relative_position_bucket(rp)
    fig = t5_buckets_figure(rp, buckets, num_buckets=32, max_distance=128, bidirectional=True)
    (ax,) = fig.axes
    staircase = ax.get_lines()[0]
    assert np.array_equal(staircase.get_ydata(), buckets)
    marks = sorted(line.get_xdata()[0] for line in ax.get_lines()[1:5])
    assert marks == [-128, -8, 8, 128]
    assert all(line.get_linewidth() > 0 for line in ax.get_lines()[1:5])  # each one drawn


def test_a_causal_t5_figure_marks_the_past_only():
    """Causal T5 (decoder): keys at or before the query, so memory − query ≤ 0; all 32
    buckets serve one side, max_exact = 32 // 2 = 16 (by hand, from T5's bucket rule)."""
    rp = np.arange(-200, 1)
    buckets = relative_position_bucket(rp, bidirectional=False)
    fig = t5_buckets_figure(rp, buckets, num_buckets=32, max_distance=128, bidirectional=False)
    (ax,) = fig.axes
    marks = sorted(line.get_xdata()[0] for line in ax.get_lines()[1:] if len(line.get_xdata()))
    assert marks == [-128, -16]


def test_commands_write_figure_and_data(run_cli, tmp_path):
    out, data = tmp_path / "a.svg", tmp_path / "a.csv"
    args = ("plot-alibi", "--heads", "12", "--compare", "next-power-of-two")
    result = run_cli(*args, "-o", str(out), "--data", str(data))
    assert result.exit_code == 0, result.output
    table = np.genfromtxt(data, delimiter=",", names=True)
    assert np.array_equal(table["slope"], alibi_slopes(12))
    assert out.read_text().startswith("<?xml")
    t5, t5_data = tmp_path / "t.png", tmp_path / "t.npy"
    result = run_cli(
        "plot-t5-buckets", "--causal", "--span", "50", "-o", str(t5), "--data", str(t5_data)
    )
    assert result.exit_code == 0, result.output
    got = np.load(t5_data)
    assert np.array_equal(
        got[:, 1], relative_position_bucket(np.arange(-50, 51), bidirectional=False)
    )


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["plot-alibi", "--n", "1"], "--n"),
        (["plot-alibi", "--head", "8"], "--head"),
        (["plot-alibi", "--heads", "0"], "--heads"),
        (["plot-t5-buckets", "--span", "0"], "--span"),
        (["plot-t5-buckets", "--max-distance", "0"], "'--max-distance'"),  # it named --span
        (["plot-t5-buckets", "--max-distance", "99999999"], "(got 99999999)"),  # not 149999998
        (["plot-t5-buckets", "--num-buckets", "3"], "--num-buckets"),
    ],
)
def test_refusals_write_nothing(run_cli, tmp_path, args, option):
    out = tmp_path / "f.png"
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 2 and option in result.stderr and not out.exists()


def test_two_builds_are_byte_identical(run_cli, tmp_path):
    first, second = tmp_path / "1.svg", tmp_path / "2.svg"
    for path in (first, second):
        assert run_cli("plot-t5-buckets", "-o", str(path)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()


def test_plot_alibi_draws_the_head_asked_for(run_cli, tmp_path, monkeypatch):
    import pecli.figures.zoo as zoo_figures

    drawn = {}
    real = zoo_figures.alibi_figure

    def spy(bias, slopes, **kwargs):
        drawn.update(bias=bias, head=kwargs["head"])
        return real(bias, slopes, **kwargs)

    monkeypatch.setattr(zoo_figures, "alibi_figure", spy)
    args = ("plot-alibi", "--heads", "12", "--head", "9", "--n", "6", "--convention", "mpt")
    assert run_cli(*args, "-o", str(tmp_path / "a.png")).exit_code == 0
    expected = alibi_bias(alibi_slopes(12)[9:10], 6, convention="mpt")[0]
    assert drawn["head"] == 9 and np.array_equal(drawn["bias"], expected)


@pytest.mark.parametrize("command", [["plot-alibi", "--heads", "12"], ["plot-t5-buckets"]])
def test_svg_text_and_title(run_cli, tmp_path, command):
    import xml.etree.ElementTree as ET

    def texts(*extra):
        out = tmp_path / "f.svg"
        assert run_cli(*command, *extra, "-o", str(out), "-q").exit_code == 0
        root = ET.parse(out).getroot()
        return ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]

    default = texts()
    assert len(default) >= 5
    assert "Figure 2: mine" in texts("--title", "Figure 2: mine")
    assert len(texts("--title", "")) == len(default) - 1


@pytest.fixture
def drawn(monkeypatch):
    """What ``plot-alibi`` hands the figure: its ``bias`` matrix, kept as it passes."""
    import pecli.figures.zoo as zoo_figures

    seen = {}
    real = zoo_figures.alibi_figure

    def spy(bias, slopes, **kwargs):
        seen.update(bias=bias)
        return real(bias, slopes, **kwargs)

    monkeypatch.setattr(zoo_figures, "alibi_figure", spy)
    return seen


def test_plot_alibi_draws_32_keys_by_default(run_cli, tmp_path, drawn):
    """Without --n: 32 keys (the help's default), a 32 × 32 causal matrix of head 0, whose
    entry (31, 0) is -m·31 = -0.5·31 = -15.5 (8 heads: m_0 = 2^-1)."""
    assert run_cli("plot-alibi", "-o", str(tmp_path / "a.svg")).exit_code == 0
    assert drawn["bias"].shape == (32, 32) and drawn["bias"][31, 0] == -15.5


@pytest.mark.parametrize("n", [2, 4096])
def test_plot_alibi_takes_2_to_4096_keys(run_cli, tmp_path, drawn, n):
    """--n is 2 to 4096 in a figure, both ends allowed: BLOOM's key-only row of head 0 of 8
    (m = 2^-1) is m times each key position, 0, 1/2, …, (n - 1)/2, by hand."""
    args = ("plot-alibi", "--n", str(n), "--convention", "bloom")
    result = run_cli(*args, "-o", str(tmp_path / "a.svg"))
    assert result.exit_code == 0, result.output
    assert drawn["bias"].tolist() == [[0.5 * j for j in range(n)]]


@pytest.mark.parametrize(("span", "ok"), [(1, True), (100_000, True), (100_001, False)])
def test_plot_t5_span_is_1_to_100000(run_cli, tmp_path, span, ok):
    """--span is 1 to 100000 in a figure, both ends allowed: 1 draws -1, 0, 1 (buckets 1, 0,
    17: T5's 32 halved, the far side from 16); 100000 draws -100000 … 100000 (far past 128:
    the last bucket of each side, 15 and 31); one more is refused, nothing written."""
    out, data = tmp_path / "t.png", tmp_path / "t.npy"
    result = run_cli("plot-t5-buckets", "--span", str(span), "-o", str(out), "--data", str(data))
    if not ok:
        assert result.exit_code == 2 and "--span" in result.stderr
        assert list(tmp_path.iterdir()) == []
        return
    assert result.exit_code == 0, result.output
    got = np.load(data)
    if span == 1:
        assert got.tolist() == [[-1, 1], [0, 0], [1, 17]]
        return
    assert got.shape == (200_001, 2) and got[0].tolist() == [-100_000, 15]
    assert got[-1].tolist() == [100_000, 31]
