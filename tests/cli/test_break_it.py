"""What a break-it campaign on the new commands found, each fixed and kept fixed.

Every case is a usage error: one line naming the option and its rule, status 2, no file.
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("args", "named", "rule"),
    [
        (
            ["compute", "--d", "4", "--amplitude", "1e300", "--format", "csv"],
            "--amplitude",
            "must be from 1.18e-38 to 3.4e+38 in magnitude for float32",
        ),  # before: inf values
        (
            ["compute", "--d", "4", "--amplitude", "70000", "--dtype", "float16", "-o", "a.npy"],
            "--amplitude",
            "for float16",
        ),
        (
            ["compute", "--d", "4", "--amplitude", "1e-50", "--format", "csv"],
            "--amplitude",
            "in magnitude for float32",
        ),  # before: an all-zero table
        (
            ["compute", "--d", "4", "-o", "k.safetensors", "--key", ""],
            "--key",
            "must be a non-empty printable name",
        ),  # before: the default key, silently
        (
            ["compute", "--d", "4", "-o", "k.safetensors", "--key", "a\nb"],
            "--key",
            "printable",
        ),  # before: a newline that broke identify's table
        (
            ["plot-grid", "10000", "10000", "--d", "16", "-o", "g.png"],
            "SHAPE...",
            "at most 65,536 tokens",
        ),  # before: silent for minutes
        (
            ["plot-grid", "100", "100", "--d", "16", "--similarity", "-o", "g.png"],
            "SHAPE...",
            "at most 4,096 tokens H·W for --similarity",
        ),
        (
            ["plot-similarity", "--d", "3", "--convention", "distilbert", "-o", "s.png"],
            "--d",
            "must be an even integer",
        ),  # before: suggested --odd-d, which it does not have
        (
            ["plot-similarity", "--threshold", "nan", "-o", "s.png"],
            "--threshold",
            "must be a similarity from -1 to 1",
        ),  # before: accepted
        (["plot-similarity", "--threshold", "5", "-o", "s.png"], "--threshold", "from -1 to 1"),
        (
            ["compute", "--d", "4", "--angle-scale", "1e308"],
            "--angle-scale",
            "must be a number > 0 and at most 1e300",
        ),
    ],  # before: "finite", though 1e308 is
)
def test_usage_errors_name_the_option_and_write_nothing(
    run_cli, tmp_path, monkeypatch, args, named, rule
):
    monkeypatch.chdir(tmp_path)
    result = run_cli(*args, "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and f"'{named}'" in result.stderr
    assert rule in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("extra", "named", "rule"),
    [
        (
            ["--beta-slow", "-1"],
            "--beta-slow",
            "must be a finite number > 0",
        ),  # was an internal error
        (["--beta-fast", "0"], "--beta-fast", "must be a finite number > 0"),  # was the default 32
        (["--attention-factor", "0"], "--attention-factor", "> 0"),  # was an all-zero cache
        (["--beta-slow", "64", "--beta-fast", "1"], "--beta-fast", "must be >= beta_slow = 64"),
        (["--beta-slow", "64"], "--beta-slow", "must be <= beta_fast = 32 (its default)"),
    ],
)
def test_yarn_parameters_are_checked(run_cli, tmp_path, extra, named, rule):
    yarn = [
        "rope",
        "cache",
        "--rope-type",
        "yarn",
        "--factor",
        "4",
        "--head-dim",
        "8",
        "--n",
        "2",
        "--original-max-position-embeddings",
        "4096",
        "-o",
        str(tmp_path / "c.npy"),
    ]
    result = run_cli(*yarn, *extra)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"'{named}'" in result.stderr and rule in result.stderr
    assert list(tmp_path.iterdir()) == []
