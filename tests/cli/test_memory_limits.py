"""Under an address-space limit pecli runs or fails at once in one line (issue 12, items 2, 3b).

Each case is one bounded subprocess (``prlimit --as``); before this, CSV output under 300 or
500 MB flooded stderr with jemalloc messages or aborted with a Rust panic (status 134).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs util-linux prlimit")


def _capped(pecli_cmd, megabytes: int, *args: str, cwd) -> subprocess.CompletedProcess[bytes]:
    cmd = ["prlimit", f"--as={megabytes << 20}", *pecli_cmd, *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=60, check=False)


@pytest.mark.parametrize("megabytes", [300, 500])
@pytest.mark.parametrize(
    "args",
    [
        ("compute", "--d", "512", "--n", "100000", "-q"),
        ("compute", "--d", "512", "--n", "100000", "-q", "-o", "t.csv"),
        ("add", "x.npy", "-q"),
    ],
    ids=["compute-stdout", "compute-file", "add"],
)
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


def test_under_112_mb_pecli_says_so_at_once_and_at_112_it_starts(pecli_cmd, tmp_path):
    """docs/cli.md: loading takes about 100 MB; "under 112 MB pecli says so at once, --help
    included". At 111 MB: one line naming the 112 it needs; at 112 MB: it starts."""
    refused = _capped(pecli_cmd, 111, "--help", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == b""
    assert refused.stderr.count(b"\n") == 1
    assert b"pecli needs about 112 MB of address space to start" in refused.stderr
    started = _capped(pecli_cmd, 112, "--version", cwd=tmp_path)
    assert started.returncode == 0, started.stderr[:300]
    assert started.stdout.startswith(b"pecli ")


PIDS_ROOT = Path("/sys/fs/cgroup/pids")


@pytest.fixture
def pids_cgroup():
    """A pids cgroup (v1) of our own: ``ulimit -u`` does not bind root, ``pids.max`` does."""
    group = PIDS_ROOT / f"pecli-test-{os.getpid()}"
    try:
        group.mkdir()
    except OSError as error:
        pytest.skip(f"cannot make a pids cgroup here ({error})")
    yield group
    for _ in range(50):  # the cgroup is removable once its processes have gone
        try:
            group.rmdir()
            break
        except OSError:
            time.sleep(0.1)


@pytest.mark.parametrize("pids_max", [12, 40])
def test_csv_under_a_thread_limit_fails_at_once_or_runs(pecli_cmd, tmp_path, pids_cgroup, pids_max):
    (pids_cgroup / "pids.max").write_text(str(pids_max))

    def enter() -> None:  # in the child, before exec: only pecli is in the cgroup
        (pids_cgroup / "cgroup.procs").write_text(str(os.getpid()))

    args = ["compute", "--d", "64", "--n", "100000", "-q", "--format", "csv"]
    result = subprocess.run(
        [*pecli_cmd, *args], cwd=tmp_path, capture_output=True, timeout=60, preexec_fn=enter
    )
    if pids_max == 40:  # room for polars' 15 threads: the whole table
        assert result.returncode == 0, result.stderr[:300]
        assert result.stdout.count(b"\n") == 100001 and result.stderr == b""
    else:  # before: polars' runtime waited forever for a thread it could not start
        assert result.returncode == 1 and result.stdout == b""
        assert result.stderr.count(b"\n") == 1 and b"cannot start threads" in result.stderr


def test_blocks_are_computed_in_line_when_no_thread_can_start(monkeypatch):
    """Under a tight limit the compute-ahead thread may not start: the blocks still come."""
    import threading

    from pecli.core.threads import computed_ahead

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert list(computed_ahead(iter([1, 2, 3]))) == [1, 2, 3]  # before: RuntimeError


def test_split_work_is_done_in_line_when_no_thread_can_start(monkeypatch):
    """run_split: every range is filled, in line, when threads cannot start (prlimit --as)."""
    import threading

    from pecli.core.kernels import fill_sin_cos_consecutive
    from pecli.core.threads import run_split

    def refuse(self):
        raise RuntimeError("can't start new thread")

    done: list[tuple[int, int]] = []
    whole = np.empty((3000, 128))
    omega = 10000.0 ** (-np.arange(64) / 64)
    fill_sin_cos_consecutive(whole[:, 0::2], whole[:, 1::2], 0.0, omega, workers=1)
    monkeypatch.setattr(threading.Thread, "start", refuse)
    run_split(lambda n0, n1: done.append((n0, n1)), [(0, 2), (2, 5), (5, 9)])
    assert done == [(0, 2), (2, 5), (5, 9)]  # before: RuntimeError from the thread pool
    split = np.empty((3000, 128))
    fill_sin_cos_consecutive(split[:, 0::2], split[:, 1::2], 0.0, omega, workers=3)
    np.testing.assert_array_equal(split, whole)
    # p·ω at row 2999, pair 1: the formula, not another pecli call
    assert split[2999, 2] == pytest.approx(np.sin(2999 * 10000.0 ** (-1 / 64)), abs=1e-12)


def test_split_work_raises_the_first_error_after_every_thread_ends():
    import threading

    from pecli.core.threads import run_split

    ended = threading.Event()

    def work(n0: int, n1: int) -> None:
        if n0 == 0:
            raise ValueError("range 0")
        ended.wait(0.2)
        ended.set()

    with pytest.raises(ValueError, match="range 0"):
        run_split(work, [(0, 1), (1, 2)])
    assert ended.is_set()  # the thread's range had finished before the error came out
