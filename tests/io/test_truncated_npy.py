"""A .npy file cut short is refused in the same words by every command that reads one."""

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
