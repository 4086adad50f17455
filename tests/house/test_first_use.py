"""What a newcomer following the README met, each fixed and kept fixed."""

from __future__ import annotations

import numpy as np
import pytest

from pecli import encoding_table


def test_rope_cache_without_theta_says_which_theta_it_used(run_cli):
    args = ("rope", "cache", "--head-dim", "4", "--n", "2", "--format", "csv")
    result = run_cli(*args)
    assert result.exit_code == 0
    assert "note: no --theta (or --config): θ = 10000, transformers' default" in result.stderr
    assert run_cli(*args, "-q").stderr == ""  # -q silences it, as every message
    assert run_cli(*args[:-2], "--theta", "500000", "--format", "csv").stderr == ""


def test_a_missing_rope_field_says_nothing_was_given_not_none(run_cli):
    result = run_cli("rope", "freqs", "--rope-type", "llama3", "--theta", "500000", "--factor", "8")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "is required by rope_type 'llama3' (got nothing)" in result.stderr


def test_rope_identify_offers_only_the_formats_it_writes_and_takes_key(run_cli, tmp_path):
    np.save(tmp_path / "inv.npy", 1 / 10000.0 ** (np.arange(0, 64, 2) / 64))
    help_text = run_cli("rope", "identify", "--help").stdout
    assert "[table|json]" in help_text and "--tensor, --key" in help_text
    refused = run_cli("rope", "identify", "--format", "csv", str(tmp_path / "inv.npy"))
    assert refused.exit_code == 2  # before: csv was offered in --help, then refused


def test_the_rebuild_command_is_one_whole_line_outside_the_table(run_cli, tmp_path):
    np.save(
        tmp_path / "w.npy",
        encoding_table(d=64, n=300, start=99700, schedule="paper", layout="interleaved"),
    )
    lines = run_cli("identify", str(tmp_path / "w.npy")).stdout.splitlines()
    (rebuild,) = [line for line in lines if "rebuild with" in line]
    assert rebuild.startswith("rebuild with: pecli compute --convention pytorch --start 99700")


def test_a_three_axis_grid_is_described_once_and_not_as_rows_and_columns(run_cli, tmp_path):
    out = tmp_path / "video.npy"
    assert (
        run_cli("grid", "4", "8", "8", "--d", "96", "--preset", "tatp22", "-o", str(out)).exit_code
        == 0
    )
    report = run_cli("identify", str(out)).stdout
    assert "rows × columns" not in report and report.count("axes in the order 1, 2, 3") == 1
    assert "rebuild with: pecli grid 4 8 8 --d 96 --preset tatp22" in report


@pytest.mark.parametrize("group", [(), ("rope",)])
def test_group_help_shows_an_example(run_cli, group):
    assert "Example: pecli " in run_cli(*group, "--help").stdout
