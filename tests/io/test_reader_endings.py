"""How a reader ends: a .npy file cut short in the same words everywhere; a finding, status 1."""

from __future__ import annotations

import numpy as np
import pytest

COMMANDS = [
    ["identify", "{f}"],
    ["add", "-i", "{f}", "-o", "{out}"],
    ["diff", "{f}", "{whole}"],
    ["rope", "identify", "{f}"],
    ["alibi", "identify", "{f}"],
    ["rope", "identify-axes", "{f}"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_truncated_npy_is_one_line_in_the_same_words(run_cli, tmp_path, command):
    whole = tmp_path / "whole.npy"
    np.save(whole, np.arange(800, dtype=np.float32).reshape(100, 8))
    cut = tmp_path / "cut.npy"
    cut.write_bytes(whole.read_bytes()[:500])  # the 128-byte header and 93 of 800 values
    out = tmp_path / "out.npy"
    args = [a.format(f=cut, whole=whole, out=out) for a in command]
    result = run_cli(*args)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1
    assert "is a truncated .npy file: it ends before its header's shape" in result.output
    assert not out.exists()


def test_a_finding_with_stdout_on_dev_null_is_status_1_not_a_closed_pipe(pecli_cmd, tmp_path):
    """``pecli identify … > /dev/null``: fd 1 on /dev/null is the caller's, not a pipe that
    typer or rich set aside after its reader left (141); a table matching nothing is 1."""
    import subprocess

    table, bias = tmp_path / "r.npy", tmp_path / "b.npy"
    np.save(table, np.random.default_rng(0).normal(size=(10, 8)))
    np.save(bias, -np.abs(np.random.default_rng(0).normal(size=(4, 8, 8))))  # no ALiBi's
    for command in (["identify", str(table)], ["alibi", "identify", str(bias)]):
        done = subprocess.run(
            [*pecli_cmd, *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
        )
        assert done.returncode == 1, (command, done.stderr)
