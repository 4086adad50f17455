"""A signal around the rename of an output: the old file is intact, or the run says it wrote.

``rope permute`` on a large file, SIGTERM at the wrong moment: status 143 and no "wrote"
line, though the old output had been replaced (issue 23, 2 of 11 runs). The moment is made
exact here: the run's own rename (or the step before it) sends the signal, in a subprocess
running the console script's entry point.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

RUN = """
import os, signal, sys
from pecli._entry import main
real = getattr(os, {step!r})
def step(*args, **kwargs):
    result = real(*args, **kwargs)
    if {after!r}:
        os.kill(os.getpid(), signal.SIGTERM)
    return result
setattr(os, {step!r}, step)
sys.argv = ["pecli", *{args!r}]
main()
"""

COMMANDS = {
    "permute": [
        "rope",
        "permute",
        "--heads",
        "1",
        "--tensor",
        "wq",
        "--input",
        "in.safetensors",
        "-o",
        "out.safetensors",
    ],
    "cache": [
        "rope",
        "cache",
        "--n",
        "4",
        "--head-dim",
        "8",
        "--theta",
        "100",
        "-o",
        "out.safetensors",
    ],
    "compute": ["compute", "--d", "4", "--n", "3", "-o", "out.safetensors"],
}


def _run(tmp_path, args, *, step, after):
    from safetensors.numpy import save_file

    save_file(
        {"wq": np.arange(32, dtype=np.float32).reshape(8, 4)}, str(tmp_path / "in.safetensors")
    )
    (tmp_path / "out.safetensors").write_bytes(b"old")
    code = RUN.format(step=step, after=after, args=args)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_signal_just_after_the_rename_is_told_after_wrote(tmp_path, args):
    result = _run(tmp_path, args, step="replace", after=True)
    assert result.returncode == 143, result.stderr
    assert (tmp_path / "out.safetensors").read_bytes() != b"old"
    told = re.sub(r"pecli: every value correctly rounded to \w+: [^\n]*\n$", "", result.stderr)
    assert told.endswith("wrote out.safetensors\n"), result.stderr  # then the certificate


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_signal_just_before_the_rename_keeps_the_old_file(tmp_path, args):
    result = _run(tmp_path, args, step="fchmod", after=True)
    assert result.returncode == 143, result.stderr
    assert (tmp_path / "out.safetensors").read_bytes() == b"old"
    assert "wrote" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.safetensors", "out.safetensors"]


@pytest.mark.parametrize("signum", [2, 15])
def test_a_signal_before_any_command_ends_the_process_with_128_plus_it(signum):
    """The shell's convention: SIGINT (2) gives 130, SIGTERM (15) 143 (by hand: 128 + n)."""
    code = (
        "import os\nfrom pecli.io.guard import leave_on_signal\n"
        f"leave_on_signal()\nos.kill(os.getpid(), {signum})\nraise SystemExit(0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60, check=False)
    assert done.returncode == 128 + signum


def test_a_signal_before_the_rename_leaves_later_signals_raising(monkeypatch):
    """Signals are only recorded once a file has replaced its old version (pecli.io.guard):
    a signal that stops the rename replaces nothing, so the next one still interrupts."""
    from pecli.io import guard

    monkeypatch.setitem(guard._received, "signal", 15)
    monkeypatch.setitem(guard._committed, "held", False)
    renamed = []
    with pytest.raises(KeyboardInterrupt):
        guard._commit(lambda: renamed.append(True))
    assert renamed == []
    with pytest.raises(KeyboardInterrupt):
        guard._interrupt(2, None)
    assert guard._received["signal"] == 2


def test_after_the_rename_a_signal_is_only_recorded(monkeypatch):
    """Once a file has replaced its old version, a signal is recorded, not raised: the run
    goes on to say what it wrote (pecli.io.guard), here without any signal before."""
    from pecli.io import guard

    monkeypatch.setitem(guard._received, "signal", 0)
    monkeypatch.setitem(guard._committed, "held", False)
    renamed = []
    guard._commit(lambda: renamed.append(True))
    assert renamed == [True]
    guard._interrupt(15, None)  # no KeyboardInterrupt
    assert guard._received["signal"] == 15
