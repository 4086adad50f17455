"""``make test --progress-lines`` (tests/progress_lines.py): a line per finished test file."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from progress_lines import ProgressLines, group, minutes

TESTS = [
    "tests/test_a.py::test_one",
    "tests/test_a.py::test_two[x]",
    "tests/test_b.py::test_three",
    "pecli/io/reading/npy.py::pecli.io.reading.npy.read",
    "pecli/io/gguf.py::pecli.io.gguf.read",
]


class Reporter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def _plugin() -> tuple[ProgressLines, Reporter]:
    reporter = Reporter()
    manager = SimpleNamespace(get_plugin=lambda name: reporter)
    plugin = ProgressLines(SimpleNamespace(pluginmanager=manager))  # type: ignore[arg-type]
    plugin.expect(TESTS)
    return plugin, reporter


def _run(plugin: ProgressLines, nodeid: str, outcome: str = "passed") -> None:
    plugin.pytest_runtest_logstart(nodeid)
    for when in ("setup", "call", "teardown"):
        result = outcome if when == "call" else "passed"
        longrepr = ("f", 1, "r") if result == "skipped" else None
        report = pytest.TestReport(nodeid, ("f", 1, "t"), {}, result, longrepr, when)
        plugin.pytest_runtest_logreport(report)


def test_a_line_when_the_last_test_of_a_file_ends():
    plugin, reporter = _plugin()
    _run(plugin, TESTS[0])
    assert reporter.lines == []
    _run(plugin, TESTS[2], "failed")
    _run(plugin, TESTS[1])
    assert [line.split("  ", 1)[1] for line in reporter.lines] == [
        "tests/test_b.py: 1 failed  (1 of 3 files, 2 of 5 tests)",
        "tests/test_a.py: 2 passed  (2 of 3 files, 3 of 5 tests)",
    ]
    assert all(line.startswith("0:00  ") for line in reporter.lines)


def test_doctests_count_as_one_file_per_layer():
    assert group(TESTS[3]) == group(TESTS[4]) == "pecli/io"
    assert group(TESTS[1]) == "tests/test_a.py"
    plugin, reporter = _plugin()
    _run(plugin, TESTS[3], "skipped")
    _run(plugin, TESTS[4])
    assert reporter.lines[0].split("  ", 1)[1].startswith("pecli/io: 1 passed, 1 skipped  (1 of")


def test_a_quiet_spell_names_the_tests_still_running():
    plugin, reporter = _plugin()
    plugin.pytest_runtest_logstart(TESTS[0])
    plugin.last -= 31
    plugin.start -= 95
    _run(plugin, TESTS[2])
    assert reporter.lines[0] == f"1:35  running: {TESTS[0]}, {TESTS[2]}"
    assert len(reporter.lines) == 2  # then the file's line; no second note within 30 s


def test_a_passed_test_prints_no_dot_and_a_failure_its_letter():
    plugin, _ = _plugin()
    passed = pytest.TestReport(TESTS[0], ("f", 1, "t"), {}, "passed", None, "call")
    failed = pytest.TestReport(TESTS[0], ("f", 1, "t"), {}, "failed", "boom", "call")
    assert plugin.pytest_report_teststatus(passed) == ("passed", "", "PASSED")
    assert plugin.pytest_report_teststatus(failed) is None
    assert minutes(59.9) == "0:59" and minutes(3600) == "60:00"
