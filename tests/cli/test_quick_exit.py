"""A successful run leaves without the interpreter's teardown, and loses nothing (issue 24).

Freeing every module's objects at exit costs 12-15 ms after NumPy and typer loaded;
:func:`pecli.io.streams.leave_after_success` skips it once the command succeeded, after the
other exit functions ran and with stdout and stderr flushed. Each case runs the console
script's entry point in a fresh interpreter: the hook acts at the process's exit.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

RUN = """
import atexit, os, sys
from pecli._entry import main


class Witness:  # freed by the teardown, which then makes its file
    def __del__(self, os=os):
        os.close(os.open("torn-down", os.O_CREAT | os.O_WRONLY))


witness = Witness()
sys.argv = ["pecli", *sys.argv[1:]]
try:
    main()
finally:
    atexit.register(lambda: open("exit-function-ran", "w").close())  # as a library would
    sys.stdout.write("tail")  # no newline: still in the buffer when the process exits
"""


def _run(tmp_path, *args: str, stdout: int | None = subprocess.PIPE) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    return done.returncode, done.stdout or ""


def _files(tmp_path) -> set[str]:
    return {p.name for p in tmp_path.iterdir()}


def test_a_success_skips_the_teardown_after_the_exit_functions(tmp_path):
    status, out = _run(tmp_path, "compute", "--d", "4", "--n", "2", "--format", "csv")
    assert status == 0
    assert out.startswith("sin_1,cos_1,sin_2,cos_2\n0.84147096,") and out.endswith("tail")
    assert _files(tmp_path) == {"exit-function-ran"}  # no "torn-down": skipped


def test_the_harness_sees_a_teardown(tmp_path):
    """The control: without pecli's success the same script is torn down as usual."""
    status, out = _run(tmp_path, "compute", "--d", "4", "--n", "2", "--dtype", "float8")
    assert status == 2 and out == ""  # a usage error leaves at once, as before (exit_now)
    done = subprocess.run(
        [sys.executable, "-c", RUN.replace("main()", "pass")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout == "tail"
    assert _files(tmp_path) == {"exit-function-ran", "torn-down"}


def test_output_that_cannot_be_flushed_leaves_the_usual_way(monkeypatch):
    """A full disk at the last flush: the interpreter's own exit reports it (status 120)."""
    from pecli.io import streams

    class Full:
        def flush(self):
            raise OSError(28, "No space left on device")

    left = []
    monkeypatch.setattr(streams.os, "_exit", left.append)
    monkeypatch.setattr(streams, "_ended", {"success": True})
    streams._leave_without_teardown()
    assert left == [0]
    monkeypatch.setattr(sys, "stdout", Full())
    streams._leave_without_teardown()
    assert left == [0]  # not left again: the usual exit follows
    monkeypatch.setattr(streams, "_ended", {"success": False})
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    streams._leave_without_teardown()
    assert left == [0]


SEEN = """
import os, sys, types
stand_in = types.ModuleType("pecli.cli")  # the command line, replaced: report what it sees
def main():
    print(os.environ.get("OPENBLAS_NUM_THREADS"), "numpy" in sys.modules)
    raise SystemExit(0)
stand_in.main = main
sys.modules["pecli.cli"] = stand_in
from pecli._entry import main as entry
entry()
"""


def _threads_seen(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SEEN],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_openblas_gets_one_thread_before_numpy_loads_unless_the_caller_chose():
    """pecli's arithmetic is elementwise: OpenBLAS' spinning threads only cost CPU (45 ms)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _threads_seen(env) == "1 False"
    assert _threads_seen({**env, "OPENBLAS_NUM_THREADS": "3"}) == "3 False"


FAILING = """
import sys, types
stand_in = types.ModuleType("pecli.cli")  # the command line, replaced: it fails as it starts
def main():
    raise SystemError("a bug, not memory")
stand_in.main = main
sys.modules["pecli.cli"] = stand_in
from pecli._entry import main as entry
entry()
"""


def test_a_system_error_without_a_memory_limit_is_a_bug_shown_in_full():
    """Only under ``ulimit -v`` is a SystemError taken for memory running out."""
    import resource

    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        pytest.skip("needs no address-space limit")
    done = subprocess.run(
        [sys.executable, "-c", FAILING], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "SystemError: a bug, not memory" in done.stderr and "out of memory" not in done.stderr
