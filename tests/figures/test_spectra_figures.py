"""plot-similarity and plot-spectrum (docs/figures.md#similarity-against-offset, #spectrum)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from rope_reference import LLAMA31_SCALING

from pecli import wavelengths
from pecli.core.errors import ParameterError
from pecli.core.sinusoidal.similarity import offset_similarity
from pecli.figures.sinusoidal.curves import curves_asked
from pecli.figures.sinusoidal.similarity import similarity_figure
from pecli.figures.sinusoidal.spectrum import band_runs, spectrum_figure

LLAMA31 = [
    *("--rope-type", "llama3", "--theta", "500000", "--factor", "8"),
    *("--low-freq-factor", "1", "--high-freq-factor", "4"),
    *("--original-max-position-embeddings", "8192"),
]


def test_similarity_data_and_legend_name_the_issue_s_values(run_cli, tmp_path):
    out, data = tmp_path / "s.svg", tmp_path / "s.csv"
    result = run_cli("plot-similarity", "-o", str(out), "--data", str(data))
    assert result.exit_code == 0, result.output
    table = np.genfromtxt(data, delimiter=",", names=True)
    assert table.dtype.names == ("offset", "vaswani_C10000")
    values = table["vaswani_C10000"]
    assert table["offset"].tolist() == list(range(201))
    assert [round(values[k], 4) for k in (0, 1, 10, 100)] == [1.0, 0.9731, 0.6789, 0.4373]
    assert values[53] >= 0.5 > values[54]
    assert "below 0.5 from k = 54" in out.read_text()


def test_similarity_figure_draws_one_curve_per_schedule_and_base(run_cli, tmp_path):
    data = tmp_path / "s.npy"
    args = ["--base", "100", "--base", "10000", "--convention", "whisper", "--schedule", "paper"]
    result = run_cli(
        "plot-similarity",
        "--d",
        "64",
        *args,
        "--max-offset",
        "30",
        "-o",
        str(tmp_path / "s.png"),
        "--data",
        str(data),
    )
    assert result.exit_code == 0, result.output
    table = np.load(data)
    assert table.shape == (31, 5)
    k = np.arange(31.0)
    for column, (schedule, base) in enumerate(
        [("tensor2tensor", 100), ("tensor2tensor", 1e4), ("paper", 100), ("paper", 1e4)], start=1
    ):
        want = offset_similarity(k, 64, base=base, schedule=schedule)
        np.testing.assert_array_equal(table[:, column], want)


def test_curve_labels_name_the_source_and_the_base():
    assert [c[0] for c in curves_asked(["pytorch"], ["shift:0.5"], [100.0, 1e4])] == [
        "pytorch (paper), C = 100",
        "pytorch (paper), C = 10000",
        "shift:0.5 schedule, C = 100",
        "shift:0.5 schedule, C = 10000",
    ]
    assert curves_asked(None, None, None) == [("Vaswani et al. 2017, C = 10000", "paper", 1e4)]
    assert curves_asked(["vaswani"], None, [100.0])[0][0] == "Vaswani et al. 2017, C = 100"
    with pytest.raises(ParameterError):
        curves_asked(None, ["paper"], [float(b) for b in range(2, 15)])  # 13 curves


def test_similarity_figure_marks_the_threshold_and_keeps_the_curves():
    k = np.arange(101.0)
    curves = {"a": offset_similarity(k, 512), "b": offset_similarity(k, 512, base=100)}
    fig = similarity_figure(k, curves, d=512, threshold=0.5)
    ax = fig.axes[0]
    lines = ax.get_lines()
    np.testing.assert_array_equal(lines[0].get_ydata(), curves["a"])
    assert lines[0].get_label() == "a (below 0.5 from k = 54)"
    assert lines[1].get_label() == "b (below 0.5 from k = 5)"
    assert any(line.get_ydata()[0] == 0.5 for line in lines[2:])  # the threshold line


@pytest.mark.parametrize(
    "args",
    [
        ["--max-offset", "0"],
        ["--max-offset", "1000001"],
        ["--d", "131072", "--max-offset", "10000"],
    ],
)
def test_similarity_usage_errors(run_cli, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = run_cli("plot-similarity", *args)
    assert result.exit_code == 2 and "'--max-offset'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_spectrum_data_are_the_wavelengths_and_the_context_counts_longer_pairs(run_cli, tmp_path):
    out, data = tmp_path / "p.svg", tmp_path / "p.csv"
    args = ["--d", "128", "--base", "10000", "--base", "500000", "--context", "4096"]
    result = run_cli("plot-spectrum", *args, "-o", str(out), "--data", str(data))
    assert result.exit_code == 0, result.output
    table = np.genfromtxt(data, delimiter=",", names=True)
    assert table.dtype.names == ("pair", "vaswani_C10000", "vaswani_C500000")
    np.testing.assert_array_equal(table["vaswani_C500000"], wavelengths(128, base=5e5))
    # λ_i > 4096 ⇔ 2(i-1)/128 > log(4096/2π)/log(C): i ≥ 47 for C = 1e4 (18 pairs), ≥ 33 (32)
    assert 2 * math.pi * 1e4 ** (2 * 45 / 128) < 4096 < 2 * math.pi * 1e4 ** (2 * 46 / 128)
    text = out.read_text()
    assert "(18 pairs longer than L)" in text and "(32 pairs longer than L)" in text
    assert "context L = 4,096" in text


def test_spectrum_context_is_labelled_as_given(run_cli, tmp_path):
    """--context 131072 was drawn as "context L = 131,100" (four significant digits)."""
    out = tmp_path / "p.svg"
    result = run_cli("plot-spectrum", "--d", "128", "--context", "131072", "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "context L = 131,072" in text and "131,100" not in text


def test_spectrum_bands_hook_shades_runs_and_names_each_label_once():
    labels = ["unchanged"] * 20 + ["smoothed"] * 12 + ["interpolated"] * 32
    assert band_runs(labels) == [
        ("unchanged", 1, 20),
        ("smoothed", 21, 32),
        ("interpolated", 33, 64),
    ]
    fig = spectrum_figure({"C = 10000": wavelengths(128)}, d=128, bands=labels)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert ax.get_xlim() == (0.5, 64.5)  # pairs 1 … d/2 = 64, half a pair either side
    spans = ax.patches
    assert [(p.get_x(), p.get_x() + p.get_width()) for p in spans] == [
        (0.5, 20.5),
        (20.5, 32.5),
        (32.5, 64.5),
    ]
    assert len({to_rgba(p.get_facecolor()) for p in spans}) == 3
    # no outline: adjacent spans would otherwise draw a darker seam on their shared edge
    assert [p.get_linewidth() for p in spans] == [0.0, 0.0, 0.0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["C = 10000", "unchanged", "smoothed", "interpolated"]
    with pytest.raises(ParameterError, match=r"one label per pair \(d/2 = 64\)"):
        spectrum_figure({"x": wavelengths(128)}, d=128, bands=labels[:-1])


YARN_SPECTRUM = [
    "plot-spectrum",
    "--rope-type",
    "yarn",
    "--factor",
    "4",
    "--original-max-position-embeddings",
    "4096",
]


@pytest.mark.parametrize(
    ("command", "suffix"),
    [
        # png and svg of plot-similarity --base 100 --base 10000: test_committed_figures.py
        # rebuilds the committed files byte for byte
        (["plot-similarity", "--base", "100", "--base", "10000"], "pdf"),
        *((["plot-spectrum", "--context", "2048"], suffix) for suffix in ("png", "svg", "pdf")),
        *((YARN_SPECTRUM, suffix) for suffix in ("png", "svg", "pdf")),
    ],
)
def test_two_builds_are_byte_identical(run_cli, tmp_path, command, suffix):
    first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    assert run_cli(*command, "-o", str(first)).exit_code == 0
    assert run_cli(*command, "-o", str(second)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.stat().st_size > 1000


def test_rope_spectrum_shades_the_llama31_bands(run_cli, tmp_path, monkeypatch):
    import rope_reference as ref

    import pecli.figures.sinusoidal.spectrum as module

    drawn = []
    real = module.spectrum_figure
    monkeypatch.setattr(
        module, "spectrum_figure", lambda *a, **k: drawn.append(real(*a, **k)) or drawn[-1]
    )
    out, data = tmp_path / "r.svg", tmp_path / "r.csv"
    result = run_cli("plot-spectrum", *LLAMA31, "-o", str(out), "--data", str(data))
    assert result.exit_code == 0, result.output
    ax = drawn[0].axes[0]
    spans = [(p.get_x(), p.get_x() + p.get_width()) for p in ax.patches]
    assert spans == [(-0.5, 28.5), (28.5, 34.5), (34.5, 63.5)]  # 29 unchanged, 6, 29 (pairs 0…63)
    assert ax.get_xlim() == (-0.5, 63.5)  # inv_freq[0 … 63], half a pair either side
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [
        "unscaled, θ = 500000 (29 pairs longer than L)",
        "llama3, f = 8 (32 pairs longer than L)",
        "context L = 8,192",
        "unchanged",
        "smoothed",
        "interpolated",
    ]
    table = np.genfromtxt(data, delimiter=",", names=True)
    assert table.dtype.names == ("pair", "unscaled_wavelength", "wavelength")
    want = [float(2 * ref.mpmath.pi / w) for w in ref.llama3(500000.0, 128, 8, 1, 4, 8192)]
    np.testing.assert_allclose(table["wavelength"], want, rtol=1e-15)
    unscaled = [float(2 * ref.mpmath.pi / w) for w in ref.default(500000.0, 128)]
    np.testing.assert_allclose(table["unscaled_wavelength"], unscaled, rtol=1e-15)
    assert table["pair"].tolist() == list(range(64))


def test_rope_spectrum_reads_a_config(run_cli, tmp_path):
    import json

    config = {
        "head_dim": 128,
        "rope_scaling": dict(LLAMA31_SCALING),
        "rope_theta": 500000.0,
    }
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    for name, args in (("a", ["--rope-config", str(tmp_path)]), ("b", LLAMA31)):
        result = run_cli(
            "plot-spectrum",
            *args,
            "-o",
            str(tmp_path / f"{name}.svg"),
            "--data",
            str(tmp_path / f"{name}.csv"),
        )
        assert result.exit_code == 0, result.output
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--d", "64"], "--d"),
        (["--base", "100"], "--convention"),
        (["--convention", "whisper"], "--convention"),
        (["--head-dim", "7"], "--head-dim"),
    ],
)
def test_rope_spectrum_refuses_the_encoding_s_options(run_cli, tmp_path, args, option):
    result = run_cli("plot-spectrum", "--theta", "10000", *args, "-o", str(tmp_path / "x.png"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"pecli plot-spectrum: error: Invalid value for '{option}'")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_rope_config_is_named_by_plot_spectrum_s_own_option(run_cli, tmp_path):
    result = run_cli(
        "plot-spectrum", "--rope-config", str(tmp_path / "none.json"), "-o", str(tmp_path / "s.png")
    )
    assert result.exit_code == 2 and "Invalid value for '--rope-config'" in result.stderr
    assert not (tmp_path / "s.png").exists()
