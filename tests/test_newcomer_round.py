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
