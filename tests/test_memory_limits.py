"""Under an address-space limit pecli runs or fails at once in one line (issue 12, items 2, 3b).

Each case is one bounded subprocess (``prlimit --as``); before this, CSV output under 300 or
500 MB flooded stderr with jemalloc messages or aborted with a Rust panic (status 134).
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs util-linux prlimit")


def _capped(pecli_cmd, megabytes: int, *args: str, cwd) -> subprocess.CompletedProcess[bytes]:
    cmd = ["prlimit", f"--as={megabytes << 20}", *pecli_cmd, *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=60, check=False)


@pytest.mark.parametrize("megabytes", [300, 500])
@pytest.mark.parametrize(
    "args",
    [("compute", "--d", "512", "--n", "100000", "-q"),
     ("compute", "--d", "512", "--n", "100000", "-q", "-o", "t.csv"),
     ("add", "x.npy", "-q")],
    ids=["compute-stdout", "compute-file", "add"],
)  # fmt: skip
def test_csv_under_a_small_limit_fails_at_once_in_one_line(pecli_cmd, tmp_path, megabytes, args):
    np.save(tmp_path / "x.npy", np.ones((1000, 64), np.float32))
    result = _capped(pecli_cmd, megabytes, *args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr[:300]
    assert result.stdout == b""
    assert result.stderr.count(b"\n") == 1 and b"out of memory" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


def test_npy_output_runs_under_a_small_limit(pecli_cmd, tmp_path):
    result = _capped(
        pecli_cmd, 300, "compute", "--d", "512", "--n", "20000", "-o", "t.npy", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[:300]
    assert np.load(tmp_path / "t.npy").shape == (20000, 512)


def test_csv_runs_with_fewer_threads_under_a_larger_limit(pecli_cmd, tmp_path):
    result = _capped(pecli_cmd, 1300, "compute", "--d", "512", "--n", "20000", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[:300]
    assert result.stdout.count(b"\n") == 20001 and result.stderr == b""
