"""An input cut short while it is read: one line naming it, never SIGBUS (issue 23).

The safetensors library memory-maps the file; a file truncated meanwhile ended pecli with
SIGBUS (status 135) in ``identify``, ``rope identify`` and ``rope permute``; whole ``.npy``
tables and stored ``.npz`` members were memory-mapped too. The moment is made exact: the
file is truncated to 4 kB right after it is opened or mapped, before its data is read (by
the library's ``safe_open``, ``np.load`` or ``np.memmap`` before, by bounded reads now).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

HOOK = """
import os, sys
done = []
def cut():
    if not done:
        done.append(1)
        os.truncate({name!r}, 4096)
import safetensors
real_open = safetensors.safe_open
class Opened:
    def __init__(self, *args, **kwargs):
        self.inner = real_open(*args, **kwargs)
        cut()
    def __enter__(self):
        self.inner.__enter__()
        return self.inner
    def __exit__(self, *error):
        return self.inner.__exit__(*error)
    def __getattr__(self, name):
        return getattr(self.inner, name)
safetensors.safe_open = Opened
try:
    from pecli.io.reading import safetensors_file
except ImportError:
    pass
else:
    real_read = safetensors_file.SafetensorsFile.read
    def read(self, *args, **kwargs):
        cut()
        return real_read(self, *args, **kwargs)
    safetensors_file.SafetensorsFile.read = read
import numpy
for name in ("load", "memmap"):  # the old readers mapped the file, then read it
    def wrapped(*args, real=getattr(numpy, name), **kwargs):
        result = real(*args, **kwargs)
        cut()
        return result
    setattr(numpy, name, wrapped)
real_preadv = os.preadv
def preadv(*args):
    cut()
    return real_preadv(*args)
os.preadv = preadv
from pecli._entry import main
sys.argv = ["pecli", *{args!r}]
main()
"""

COMMANDS = {
    "identify": ["identify", "f.safetensors"],
    "rope-identify": ["rope", "identify", "f.safetensors"],
    "permute": [
        "rope",
        "permute",
        "--input",
        "f.safetensors",
        "--tensor",
        "cos",
        "--heads",
        "1",
        "-o",
        "out.safetensors",
    ],
}


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_file_cut_short_while_read_is_named(tmp_path, args):
    from safetensors.numpy import save_file

    angles = np.outer(np.arange(256), 1e4 ** -(np.arange(32) / 32))
    cache = np.hstack([angles, angles])  # a rotary cache, half-split
    tensors = {"cos": np.cos(cache).astype(np.float32), "sin": np.sin(cache).astype(np.float32)}
    save_file(tensors, str(tmp_path / "f.safetensors"))
    _check(tmp_path, args, "f.safetensors")


def _check(folder, args, name):
    result = subprocess.run(
        [sys.executable, "-c", HOOK.format(args=args, name=name)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    assert result.stderr.count("\n") == 1, result.stderr
    assert "changed while it was read" in result.stderr and name in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == [name]


TABLES = {
    "identify-npy": ("t.npy", ["identify", "t.npy"]),
    "rope-identify-npy": ("t.npy", ["rope", "identify", "t.npy"]),
    "identify-npz": ("t.npz", ["identify", "t.npz"]),
}


@pytest.mark.parametrize(("name", "args"), TABLES.values(), ids=TABLES.keys())
def test_a_table_cut_short_while_read_is_named(tmp_path, name, args):
    positions = np.arange(2048)[:, None] / 1e4 ** (np.arange(0, 64, 2) / 64)
    table = np.stack([np.sin(positions), np.cos(positions)], axis=2).reshape(2048, 64)
    if name.endswith(".npy"):
        np.save(tmp_path / name, table)
    else:
        np.savez(tmp_path / name, pe=table)  # stored: read straight from the archive
    _check(tmp_path, args, name)
