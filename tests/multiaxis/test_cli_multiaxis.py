"""``pecli rope axes`` and ``pecli rope axis-map``: the files they write against the libraries'
own caches and the core, the metadata, and the refusals (one line, status 2, nothing written)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from library_fixtures import load

from pecli.core.multiaxis import AxesSpec, axes_cache, axis_preset, per_axis

FIXTURES = {f.name: f for f in load("multiaxis")}


def test_csv_half_form_is_the_core_cache(run_cli):
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "flux",
        "--grid",
        "2x3",
        "--text",
        "2",
        "--form",
        "half",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split(",")[:2] == ["cos_0", "cos_1"] and len(lines) == 1 + 8
    table = np.loadtxt(io.StringIO(result.stdout), delimiter=",", skiprows=1, dtype=np.float32)
    preset = axis_preset("flux")
    assert np.array_equal(
        table, axes_cache(AxesSpec(preset.plan(), preset.ids([2, 3], 2), form="half"))
    )


@pytest.mark.parametrize("arithmetic", ["exact", "model"])
def test_npy_wan_cache_is_diffusers_own(run_cli, tmp_path, arithmetic):
    out = tmp_path / "wan.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "wan",
        "--head-dim",
        "96",
        "--grid",
        "3x4x5",
        "--part",
        "cos",
        "--arithmetic",
        arithmetic,
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert np.array_equal(np.load(out), FIXTURES["wan_d96_3x4x5_cos"].table)


def test_complex_form_is_llama4_freqs_ci(run_cli, tmp_path):
    out = tmp_path / "l4.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "llama4-vision",
        "--grid",
        "4",
        "--form",
        "complex",
        "--arithmetic",
        "model",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    ours, theirs = np.load(out), FIXTURES["llama4_vision_4x4"].table
    assert ours.dtype == np.complex64 and ours.shape == theirs.shape == (17, 44)
    assert np.max(np.abs(ours - theirs)) <= 6e-8


def test_matrix_form_npy_has_four_axes(run_cli, tmp_path):
    out = tmp_path / "m.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "flux2",
        "--grid",
        "2x2",
        "--text",
        "1",
        "--form",
        "matrix",
        "--dtype",
        "float64",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    m = np.load(out)
    assert m.shape == (5, 64, 2, 2) and m.dtype == np.float64
    assert np.array_equal(m[..., 0, 1], -m[..., 1, 0]) and np.array_equal(
        m[..., 0, 0], m[..., 1, 1]
    )


def test_safetensors_holds_cos_sin_and_the_plan(run_cli, tmp_path):
    from safetensors import safe_open

    out = tmp_path / "p.safetensors"
    result = run_cli("rope", "axes", "--preset", "pixtral", "--grid", "3x5", "-o", str(out))
    assert result.exit_code == 0, result.output
    with safe_open(str(out), "np") as handle:
        meta = handle.metadata()
        cos, sin = handle.get_tensor("cos"), handle.get_tensor("sin")
    assert meta["preset"] == "pixtral" and meta["channel_axis"] == "H" * 16 + "W" * 16
    assert json.loads(meta["index"])[:3] == [0, 2, 4] and meta["layout"] == "half-split"
    assert np.max(np.abs(cos - FIXTURES["pixtral_3x5_cos"].table)) <= 6e-8
    assert np.max(np.abs(sin - FIXTURES["pixtral_3x5_sin"].table)) <= 6e-8


def test_ids_file_with_fractional_and_negative_ids(run_cli, tmp_path):
    ids = np.array([[0.5, -3.25], [1e6 + 0.5, 7.0], [-2.0, 0.125]])
    np.save(tmp_path / "ids.npy", ids)
    out = tmp_path / "c.npy"
    result = run_cli(
        "rope",
        "axes",
        "--widths",
        "8,12",
        "--theta",
        "100,1000",
        "--layout",
        "half-split",
        "--ids",
        str(tmp_path / "ids.npy"),
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    plan = per_axis([8, 12], theta=[100.0, 1000.0], axes=("y", "x"), layout="half-split")
    assert np.array_equal(np.load(out), axes_cache(AxesSpec(plan, ids)))


def test_theta_override_of_a_preset(run_cli, tmp_path):
    out = tmp_path / "c.npy"
    result = run_cli(
        "rope",
        "axes",
        "--preset",
        "wan",
        "--grid",
        "1x2x2",
        "--theta",
        "10000,20000,20000",
        "--form",
        "half",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    plan = per_axis([44, 42, 42], theta=[10000.0, 20000.0, 20000.0])
    assert np.array_equal(
        np.load(out), axes_cache(AxesSpec(plan, axis_preset("wan").ids([1, 2, 2]), form="half"))
    )


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--preset", "flux", "--grid", "2x3x4"], "--grid"),
        (["--preset", "nope", "--grid", "2x3"], "--preset"),
        (["--grid", "2x3"], "--preset"),
        (["--preset", "flux"], "--grid"),
        (["--preset", "wan", "--grid", "2x3x2000"], "--grid"),
        (["--preset", "hunyuanvideo", "--grid", "2x3x4", "--text", "1"], "--text"),
        (["--preset", "flux", "--head-dim", "64", "--grid", "2x2"], "--head-dim"),
        (["--preset", "flux", "--grid", "2x2", "--widths", "16,56,56"], "--widths"),
        (["--widths", "16,55", "--theta", "100", "--grid", "2x2"], "--widths"),
        (["--widths", "16,56", "--theta", "1", "--grid", "2x2"], "--theta"),
        (["--preset", "flux", "--grid", "2x2", "--theta", "1e4,1e4"], "--theta"),
        (["--preset", "flux", "--grid", "2x2", "--layout", "zigzag"], "--layout"),
        (["--preset", "flux", "--grid", "two"], "--grid"),
        (["--preset", "flux", "--grid", "2x2", "--form", "complex", "-o", "c.csv"], "--output"),
        (
            ["--preset", "flux", "--grid", "2x2", "--form", "complex", "-o", "c.safetensors"],
            "--output",
        ),
        (["--preset", "flux", "--grid", "2x2", "--dtype", "bfloat16", "-o", "c.npy"], "--dtype"),
        (["--preset", "flux", "--grid", "2x2", "--ids", "missing.npy"], "--ids"),
        (["--preset", "flux", "--grid", "2x2", "-o", "c.txt"], "--output"),
    ],
)
def test_refusals_are_one_line_with_status_2(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("rope", "axes", *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_ids_file_is_never_the_output(run_cli, tmp_path):
    ids = tmp_path / "ids.npy"
    np.save(ids, np.zeros((2, 3)))
    before = ids.read_bytes()
    result = run_cli("rope", "axes", "--preset", "flux", "--ids", str(ids), "-o", str(ids))
    assert result.exit_code == 2 and "--output" in result.stderr
    assert ids.read_bytes() == before


def test_ids_with_grid_is_refused(run_cli, tmp_path):
    np.save(tmp_path / "ids.npy", np.zeros((2, 3)))
    result = run_cli(
        "rope", "axes", "--preset", "flux", "--grid", "2x2", "--ids", str(tmp_path / "ids.npy")
    )
    assert result.exit_code == 2 and "--ids" in result.stderr


def test_axis_map_csv_shows_each_axis_restarting_at_one(run_cli):
    result = run_cli("rope", "axis-map", "--preset", "wan", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = [line.split(",") for line in result.stdout.splitlines()]
    assert rows[0] == [
        "pair",
        "channel_a",
        "channel_b",
        "axis",
        "k",
        "D",
        "theta",
        "inv_freq",
        "wavelength",
    ]
    assert rows[1 + 22][3:8] == ["h", "0", "42", "10000.0", "1.0"]
    assert float(rows[1 + 1][7]) == pytest.approx(0.657933225, abs=5e-10)


def test_axis_map_table_and_presets(run_cli):
    table = run_cli("rope", "axis-map", "--preset", "flux")
    assert table.exit_code == 0 and "T" * 8 + "H" * 28 + "W" * 28 in table.stdout
    assert "FluxPosEmbed" in table.stdout and "float64" in table.stdout
    listing = run_cli("rope", "axis-map", "--format", "json")
    names = [row["preset"] for row in json.loads(listing.stdout)]
    assert names[:2] == ["flux", "flux2"] and "llama4-vision" in names


def test_plot_axes_writes_figure_and_data(run_cli, tmp_path):
    out, data = tmp_path / "a.svg", tmp_path / "a.csv"
    result = run_cli("rope", "plot-axes", "--preset", "flux", "-o", str(out), "--data", str(data))
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<?xml")
    table = np.loadtxt(data, delimiter=",", skiprows=1)
    assert table.shape == (64, 6) and table[:, 1].tolist() == [0] * 8 + [1] * 28 + [2] * 28
    assert table[8, 5] == pytest.approx(2 * np.pi)  # each axis restarts at ω = 1


def test_axis_map_figure_has_a_line_per_axis():
    from pecli.core.multiaxis.mrope_presets import MROPE_PRESETS
    from pecli.core.multiaxis.resolve import plan_columns
    from pecli.figures.axes import axis_map_figure

    columns = plan_columns(MROPE_PRESETS["qwen3-vl"].plan())
    fig = axis_map_figure(columns, title="qwen3-vl")
    _strip, waves = fig.axes
    assert [line.get_label() for line in waves.get_lines()] == [
        "axis t (24 pairs)",
        "axis h (20 pairs)",
        "axis w (20 pairs)",
    ]
    h = waves.get_lines()[1].get_xdata()
    assert list(h) == list(range(1, 60, 3))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--widths", "16,56,56"],
            "'--preset': must be given, or --widths and --theta (got --widths without --theta)",
        ),
        (["--theta", "100"], "(got --theta without --widths)"),
        (["--preset", "flux", "--grid", "2x2", "--fps", "30"], "'--fps': is a video preset's"),
        (["--widths", "8,8", "--theta", "100", "--grid", "2x2", "--text", "2"], "needs a --preset"),
        (["--preset", "wan", "--grid", "2x2x2", "--theta", "1e4,nan,1e4"], "finite number > 1"),
    ],
)
def test_the_core_names_other_parameters_and_the_command_line_shows_their_options(
    run_cli, args, message
):
    """The core says `widths` in its own words; the message a user reads says --widths."""
    result = run_cli("rope", "axes", *args)
    assert result.exit_code == 2 and message in result.stderr and "`" not in result.stderr


def test_the_preset_and_model_lists_are_the_records(run_cli):
    """The help lists derive from the preset records: a new preset is in them at once."""
    from pecli.core.multiaxis.resolve import PRESETS, TEXT_PRESETS

    names = list(PRESETS)
    listed = "".join(f"{', '.join(names[:-1])} or {names[-1]}".split())
    for command in ("axes", "axis-map", "plot-axes", "identify-axes"):
        assert listed in "".join(run_cli("rope", command, "--help").stdout.split()), command
    models = "".join(run_cli("rope", "mrope-ids", "--help").stdout.split())
    assert "[" + "|".join(TEXT_PRESETS) + "]" in models  # Qwen-VL, GLM, ERNIE, Omni
    assert "qwen3.5:theidsofqwen3-vl" in models  # Qwen3.5 borrows Qwen3-VL's get_rope_index


def test_axis_map_to_a_file_says_where_it_wrote_unless_quiet(run_cli, tmp_path):
    out = tmp_path / "wan.csv"
    result = run_cli("rope", "axis-map", "--preset", "wan", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stderr and out.read_text().startswith("pair,channel_a")
    quiet = run_cli("rope", "axis-map", "--preset", "wan", "-o", str(out), "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_axis_map_past_4096_pairs_is_csv_only(run_cli):
    """One axis of 8194 channels: 4097 pairs, one more than a table is drawn for. As CSV each
    pair is there, the last one k = 4096 of D = 8194: ω = 10000^(-8192/8194) (by hand)."""
    args = ("rope", "axis-map", "--widths", "8194", "--theta", "10000")
    table = run_cli(*args)
    assert table.exit_code == 2 and "at most 4096 pairs" in table.stderr
    result = run_cli(*args, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()
    assert len(rows) == 1 + 4097
    last = rows[-1].split(",")
    assert last[:6] == ["4096", "8192", "8193", "p", "4096", "8194"]
    assert float(last[7]) == pytest.approx(10000.0 ** (-8192 / 8194), rel=1e-14)


@pytest.mark.parametrize("sin_shape", [(36, 96), (32, 104), (32, 48)])
def test_identify_axes_refuses_cos_and_sin_tensors_of_two_shapes(run_cli, tmp_path, sin_shape):
    """Row r of cos pairs row r of sin: tensors of two shapes are no cache. Before, a sin with
    more rows than cos read in Allegro's own layout stopped with an internal error, and a wider
    sin was read as a match."""
    file = tmp_path / "cache.npz"
    np.savez(file, cos=np.ones((32, 96), np.float32), sin=np.zeros(sin_shape, np.float32))
    result = run_cli("rope", "identify-axes", str(file), "--grid", "2x4x4", "--preset", "allegro")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "must hold tensors cos and sin of one shape" in lines[0]
    assert f"sin {sin_shape}" in lines[0]
