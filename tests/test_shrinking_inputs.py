"""A ``.safetensors`` input cut short while it is read: one line naming it, never SIGBUS.

The safetensors library memory-maps the file; a file truncated meanwhile ended pecli with
SIGBUS (status 135, issue 23) in ``identify``, ``rope identify`` and ``rope permute``. The
moment is made exact: the file is truncated to 4 kB right after it is opened, before its
tensors are read (by the library's ``safe_open`` before, by pecli's own reader now).
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
        os.truncate("f.safetensors", 4096)
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
from pecli._entry import main
sys.argv = ["pecli", *{args!r}]
main()
"""

COMMANDS = {
    "identify": ["identify", "f.safetensors"],
    "rope-identify": ["rope", "identify", "f.safetensors"],
    "permute": ["rope", "permute", "--input", "f.safetensors", "--tensor", "cos", "--heads",
                "1", "-o", "out.safetensors"],
}  # fmt: skip


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_file_cut_short_while_read_is_named(tmp_path, args):
    from safetensors.numpy import save_file

    angles = np.outer(np.arange(256), 1e4 ** -(np.arange(32) / 32))
    cache = np.hstack([angles, angles])  # a rotary cache, half-split
    tensors = {"cos": np.cos(cache).astype(np.float32), "sin": np.sin(cache).astype(np.float32)}
    save_file(tensors, str(tmp_path / "f.safetensors"))
    result = subprocess.run(
        [sys.executable, "-c", HOOK.format(args=args)], cwd=tmp_path, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    assert result.stderr.count("\n") == 1, result.stderr
    assert "changed while it was read" in result.stderr and "f.safetensors" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.safetensors"]
