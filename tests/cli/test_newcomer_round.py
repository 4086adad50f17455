"""Frictions a new user met following README.md and docs/ on a clean clone (second wave)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np


def _pecli(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pecli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_identify_axes_without_ids_says_which_options_give_them(tmp_path):
    # A cache of 24 tokens whose ids were not given: the error names the options that give
    # them, instead of "with these ids" when there were none.
    table = np.ones((24, 128), dtype=np.float32)
    table[:, 64:] = 0.0  # cos 1, sin 0: a cache at position 0
    np.save(tmp_path / "cache.npy", table)
    run = _pecli("rope", "identify-axes", str(tmp_path / "cache.npy"))
    assert run.returncode == 2
    error = run.stderr.strip()
    assert "\n" not in error
    assert "--grid" in error and "--tokens" in error and "--ids" in error
    assert "these ids" not in error


def test_axis_map_counts_ltx_padding_apart_from_the_axes():
    # LTX-Video's inner dimension 2048: 2048 % 6 = 2 padding channels (one pair, ω = 0), then
    # 2046 / 6 = 341 pairs per axis t, h, w (diffusers LTXVideoRotaryPosEmbed.forward).
    run = _pecli("rope", "axis-map", "--preset", "ltx-video")
    assert run.returncode == 0, run.stderr
    assert "1024 pairs (t 341, h 341, w 341, padding 1)" in run.stdout


def test_axis_map_legend_names_padding_and_counts_in_the_singular():
    from pecli.figures.axes import axis_map_figure

    columns = {
        "pair": np.arange(3),
        "axis": np.array(["-", "t", "h"]),
        "wavelength": np.array([np.inf, 6.283, 6.283]),
    }
    figure = axis_map_figure(columns, title="t")
    labels = [t.get_text() for t in figure.axes[1].get_legend().get_texts()]
    assert labels == ["padding, ω = 0 (1 pair)", "axis t (1 pair)", "axis h (1 pair)"]


def test_rope_layers_table_title_is_not_a_bare_repeat_of_its_first_column(tmp_path):
    # The table printed a line "layers" above its header "layers  attention …": a stray word.
    import json

    config = {"num_hidden_layers": 2, "head_dim": 64, "rope_theta": 10000.0}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    run = _pecli("rope", "layers", str(tmp_path / "config.json"))
    assert run.returncode == 0, run.stderr
    assert "layers" not in [line.strip() for line in run.stdout.splitlines()]
    assert "runs of equal layers" in run.stdout


def test_rope_axes_help_example_runs_when_copied_up_to_its_comment(tmp_path):
    # The Wan example had "(a latent's size)" between --patch model and -o: copied, it fails.
    import re

    from cli_runner import CliRunner

    from pecli.cli import app

    runner = CliRunner()
    shown = " ".join(runner.invoke(app, ["rope", "axes", "--help"]).output.split())
    example = re.search(r"(pecli rope axes --preset wan [^(]*?)(?: \(|$)", shown)
    assert example is not None
    words = example.group(1).replace("wan.npy", str(tmp_path / "wan.npy")).split()[1:]
    run = runner.invoke(app, words)
    assert run.exit_code == 0, run.output
    # 21 × 60 × 104 latent, Wan's 1×2×2 patches: 21 · 30 · 52 tokens, head 128 → 256 columns
    assert np.load(tmp_path / "wan.npy", mmap_mode="r").shape == (21 * 30 * 52, 256)


def test_rope_cache_of_gemma3_without_layer_does_not_blame_a_field_the_file_lacks(tmp_path):
    # README's Gemma 3 config has rope_scaling and rope_local_base_freq, no rope_parameters:
    # the error used to say "has rope_parameters per layer type".
    import json

    text = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 6,
        "head_dim": 256,
        "sliding_window": 1024,
        "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0,
        "sliding_window_pattern": 6,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    }
    config = tmp_path / "gemma3.json"
    config.write_text(json.dumps({"model_type": "gemma3", "text_config": text}), "utf-8")
    run = _pecli("rope", "cache", "--config", str(config), "--n", "4")
    assert run.returncode == 2
    assert "rope_parameters" not in run.stderr
    assert "pass --layer" in run.stderr and "pecli rope layers" in run.stderr


def test_make_bench_rope_layers_row_runs_on_its_config(tmp_path, monkeypatch):
    # The start-up group's row "pecli rope layers config.json" was given Llama 3.1's rope-only
    # config, which has no num_hidden_layers: the command refused it (status 2) and the row
    # could not be timed. Llama 3.1 8B has 32 layers (its published config.json).
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    monkeypatch.syspath_prepend(str(bench))
    import bench_headline_rows as rows

    pecli = Path(sys.executable).with_name("pecli")
    ctx = rows.Context(py=sys.executable, pinned=sys.executable, tmp=tmp_path, quick=True, rounds=1)
    group = next(rows.start_up(ctx))
    command = group.rows["pecli rope layers config.json"]
    run = subprocess.run([str(pecli), *command[1:]], capture_output=True, text=True)
    for name in [m for m in sys.modules if m.startswith("bench_headline")]:
        del sys.modules[name]
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("32 layers")
