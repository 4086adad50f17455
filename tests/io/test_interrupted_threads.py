"""A signal at any line of the threading primitives the main thread runs leaves nothing stuck.

A signal handler raises ``KeyboardInterrupt`` in the main thread between any two lines,
including inside ``threading.Condition`` (behind ``queue.Queue`` and ``threading.Event``),
which is written in Python. Interrupted there, the main thread can leave the condition's lock
held, so the other thread waits on it for ever while the main thread waits for that thread
(``compute -o t.npy`` under ``timeout`` once hung so, its ``.part`` left behind), or release a
lock it no longer holds (``RuntimeError: release unlocked lock``, an internal error).

Each case raises one ``KeyboardInterrupt`` from a trace function at the k-th line the
consumer runs in ``threading.py`` or ``queue.py``, for every k of a clean run, and checks
that the consumer ends (done or interrupted, never another error) within seconds and that
the worker has ended too. Lines run while a thread is created or started are left out:
``Thread.start`` itself takes a global lock and waits on an ``Event``, so no code that starts
a thread is safe from a signal there (a lock left held by it stops every later thread).
Since the fix the consumers run no other line of those modules; with ``queue.Queue`` and
``threading.Event`` they did, and the sweep found them stuck at the 120th line
(``computed_ahead``) and the 25th (``run_stoppable``).
"""

from __future__ import annotations

import inspect
import sys
import threading
import time
from collections.abc import Callable

import pytest

from pecli.core.threads import computed_ahead
from pecli.io import guard

PRIMITIVES = ("threading.py", "queue.py")
STARTING = {threading.Thread.start.__code__, threading.Thread.__init__.__code__}
START = threading.Thread.start  # the harness's own threads start even while it is patched


def _starting(frame) -> bool:  # type: ignore[no-untyped-def]
    while frame is not None:
        if frame.f_code in STARTING:
            return True
        frame = frame.f_back
    return False


def _interrupting(at: int, seen: list[int]) -> Callable:
    """A trace function raising KeyboardInterrupt at line event ``at`` of PRIMITIVES."""

    def trace(frame, event, arg):  # type: ignore[no-untyped-def]
        if not frame.f_code.co_filename.endswith(PRIMITIVES):
            return trace
        if event == "line" and not _starting(frame):
            seen[0] += 1
            if seen[0] == at:
                raise KeyboardInterrupt  # the trace function is unset after it raises
        return trace

    return trace


def _run_traced(consumer: Callable[[], None], at: int) -> tuple[str, int]:
    """``consumer`` in a thread traced by ``_interrupting(at)``: its outcome, the lines seen."""
    seen, outcome = [0], ["stuck"]

    def run() -> None:
        sys.settrace(_interrupting(at, seen))
        try:
            consumer()
            outcome[0] = "done"
        except KeyboardInterrupt:
            outcome[0] = "interrupted"
        except BaseException as error:
            outcome[0] = f"{type(error).__name__}: {error}"
        finally:
            sys.settrace(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(5.0)
    return outcome[0], seen[0]


def _ends(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + 2.0
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _sweep(case: Callable[[], tuple[Callable[[], None], Callable[[], bool]]]) -> None:
    """Every injection point of a clean run; ``case()`` gives (consumer, worker ended?)."""
    consumer, _ = case()
    outcome, lines = _run_traced(consumer, at=0)  # never raises: counts the lines
    assert outcome == "done"  # ``lines`` may be 0: no such line, no place to be stuck
    for at in range(1, lines + 1):
        consumer, ended = case()
        outcome, _ = _run_traced(consumer, at)
        assert outcome in ("done", "interrupted"), f"interrupted at line {at}: {outcome}"
        assert _ends(ended), f"interrupted at line {at}: the worker still runs"


def test_computed_ahead_survives_a_signal_at_any_line():
    def case() -> tuple[Callable[[], None], Callable[[], bool]]:
        made = (k for k in range(12))

        def consumer() -> None:
            assert list(computed_ahead(made)) == list(range(12))

        state = inspect.getgeneratorstate
        return consumer, lambda: state(made) in (inspect.GEN_CREATED, inspect.GEN_CLOSED)

    _sweep(case)


@pytest.mark.parametrize("chunks", [0, 5])
def test_run_stoppable_survives_a_signal_at_any_line(chunks):
    """The worker writes ``chunks`` chunks, then waits for ``stop`` (0: it ends at once)."""

    def case() -> tuple[Callable[[], None], Callable[[], bool]]:
        stop, running = threading.Event(), [False]

        def work() -> None:
            running[0] = True
            for _ in range(chunks):
                time.sleep(0.001)
            running[0] = False

        return lambda: guard.run_stoppable(work, stop), lambda: not running[0]

    _sweep(case)


def _interrupted_start(self: threading.Thread) -> None:
    """``Thread.start`` interrupted before the new thread ran (it never will)."""
    raise KeyboardInterrupt


def _ends_within(consumer: Callable[[], None], seconds: float = 5.0) -> str:
    outcome = ["stuck"]

    def run() -> None:
        try:
            consumer()
            outcome[0] = "done"
        except KeyboardInterrupt:
            outcome[0] = "interrupted"

    thread = threading.Thread(target=run, daemon=True)
    START(thread)
    thread.join(seconds)
    return outcome[0]


def test_a_worker_that_never_began_is_not_waited_for(monkeypatch):
    """A signal inside ``Thread.start`` may leave the new thread never running: the consumer
    must then leave at once, not wait for a worker that will never end."""

    def ahead() -> None:
        list(computed_ahead(iter(range(3))))

    def stoppable() -> None:
        guard.run_stoppable(lambda: None, threading.Event())

    with monkeypatch.context() as patched:
        patched.setattr(threading.Thread, "start", _interrupted_start)
        outcomes = [_ends_within(ahead), _ends_within(stoppable)]
    assert outcomes == ["interrupted", "interrupted"]
