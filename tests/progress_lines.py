"""``--progress-lines``: a line per finished test file instead of a dot per test (``make test``).

Each line gives the time since the start, the file and its tests' outcomes, and how many
files and tests are done, so a log (CI's, or a terminal's on a machine whose cores are
shared) says the run is alive and how far it is; when no file has finished for
:data:`QUIET_SECONDS`, a line names the tests still running. The doctests of pecli's modules
count as one file per layer (``pecli/core`` …). Works in one process and under pytest-xdist
(the controller prints; workers only run). Skips, xfails and failures keep their letters.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from pathlib import PurePosixPath
from typing import Any

import pytest

#: Seconds without a finished file after which the running tests are named.
QUIET_SECONDS = 30.0


def group(nodeid: str) -> str:
    """The file a test belongs to; pecli's doctests by layer (``pecli/io`` …)."""
    path = PurePosixPath(nodeid.split("::", 1)[0])
    return "/".join(path.parts[:2]) if path.parts[0] == "pecli" else str(path)


def minutes(seconds: float) -> str:
    """``m:ss``."""
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


class ProgressLines:
    """Counts each file's finished tests and prints a line when the last one ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.start = time.monotonic()
        self.last = self.start
        self.total: Counter[str] = Counter()
        self.finished: Counter[str] = Counter()
        self.outcomes: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.failed: set[str] = set()
        self.running: dict[str, None] = {}
        self.files_done = 0

    def expect(self, nodeids: list[str]) -> None:
        """The tests of the run (collected once; every xdist worker collects the same)."""
        if not self.total:
            self.total.update(group(n) for n in nodeids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.expect([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.expect(list(ids))

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        if report.passed and report.when == "call" and not hasattr(report, "wasxfail"):
            return "passed", "", "PASSED"  # no dot: the file's line says it
        return None

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.running[nodeid] = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = report.nodeid
        if report.failed:
            self.failed.add(nodeid)
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.outcomes[group(nodeid)][self._outcome(report)] += 1
        if report.when == "teardown":
            self.running.pop(nodeid, None)
            self._finish(group(nodeid))
        now = time.monotonic()
        if now - self.last > QUIET_SECONDS and self.running:
            names = ", ".join(list(self.running)[:3])
            self._write(f"{minutes(now - self.start)}  running: {names}")

    @staticmethod
    def _outcome(report: pytest.TestReport) -> str:
        if hasattr(report, "wasxfail"):
            return "xfailed" if report.skipped else "xpassed"
        return report.outcome

    def _finish(self, name: str) -> None:
        self.finished[name] += 1
        if self.finished[name] != self.total.get(name):
            return
        self.files_done += 1
        counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(self.outcomes[name].items()))
        done = sum(self.finished.values())
        self._write(
            f"{minutes(time.monotonic() - self.start)}  {name}: {counts or 'no test'}  "
            f"({self.files_done} of {len(self.total)} files, {done} of "
            f"{sum(self.total.values())} tests)"
        )

    def _write(self, line: str) -> None:
        self.last = time.monotonic()
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--progress-lines`` (tests/conftest.py registers :class:`ProgressLines` with it)."""
    parser.addoption(
        "--progress-lines",
        action="store_true",
        help="a line per finished test file (time, outcomes, files and tests done), no dots",
    )
