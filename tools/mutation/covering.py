"""Which tests of the whole suite run each line of pecli: a per-test coverage map.

A mutant its area's tests let through may still be caught by ``make test``: a command-line
test of another subject, a doctest elsewhere. :func:`collect` runs the whole suite once
(unmutated, in the mutation run's copy of the tree) under ``coverage`` with one context per
test (``pytest-cov``'s ``--cov-context=test``), and :class:`Covering` answers, for a mutant's
line, the tests outside its area that execute it — the only tests that can fail on it. A
line run only while modules are imported (a module-level constant, a record of a registry,
a default value) is executed before any test starts, so for it the tests that run any line
of its module are taken instead.

The map also keeps each test's duration (``--durations=0``: setup, call and teardown under
coverage, so a generous baseline for a timeout) and the tests that fail unmutated (never
counted as a kill). It is kept in ``$TMPDIR/pecli-mutation-maps/DIGEST`` (DIGEST a hash of
every file the run copies), so a second seed, a resumed run or a ``--rerun`` on the same
sources reuses it. Making it costs one run of the suite on two cores, about twice
``make test``'s time. Needs ``coverage`` and ``pytest-cov``
(``pip install .[mutation]``).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

_DURATION = re.compile(r"^\s*([0-9.]+)s (?:setup|call|teardown)\s+(\S.*?)\s*$")
_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)")


@dataclass
class Covering:
    """The tests that run each line of each module of a tree (see the module's docstring)."""

    data: Path
    tree: Path
    durations: dict[str, float] = field(default_factory=dict)
    failing: set[str] = field(default_factory=set)
    _lines: dict[str, dict[int, set[str]]] = field(default_factory=dict)

    def lines(self, module: str) -> dict[int, set[str]]:
        """Line number -> the node ids of the tests that run it, for ``module`` (``pecli/…``)."""
        if module not in self._lines:
            from coverage import CoverageData

            data = CoverageData(str(self.data))
            data.read()
            found = data.contexts_by_lineno(str(self.tree / module))
            self._lines[module] = {
                line: {c.rsplit("|", 1)[0] for c in contexts if c}
                for line, contexts in found.items()
            }
        return self._lines[module]

    def tests(
        self, module: str, line: int, skip: set[str], only: set[str] | None = None
    ) -> list[str]:
        """The tests that run ``line`` of ``module``, less those in files ``skip`` names.

        With ``only``, just those in the files it names (and not in ``skip``). A line run only
        at import (no test's context) takes the tests that run any line of the module. Tests
        failing unmutated are left out; the quickest come first.
        """
        lines = self.lines(module)
        chosen = set(lines.get(line, set()))
        if not chosen and line in lines:
            chosen = set().union(*lines.values())
        files = {t: t.split("::", 1)[0] for t in chosen}
        chosen = {t for t in chosen if files[t] not in skip and (only is None or files[t] in only)}
        chosen -= self.failing
        return sorted(chosen, key=lambda t: (self.durations.get(t, 0.0), t))

    def seconds(self, tests: list[str]) -> float:
        """The tests' time in the coverage run (which is slower than a plain run)."""
        return sum(self.durations.get(t, 0.0) for t in tests)


def digest(tree: Path) -> str:
    """A hash of the names and contents of every file under ``tree`` (caches left out)."""
    total = hashlib.sha256()
    for path in sorted(p for p in tree.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        total.update(str(path.relative_to(tree)).encode() + b"\0" + path.read_bytes() + b"\0")
    return total.hexdigest()[:16]


def collect(tree: Path) -> Covering:
    """The map of ``tree``: the kept one of the same sources, else made by :func:`measure`."""
    kept = Path(tempfile.gettempdir()) / "pecli-mutation-maps" / digest(tree)
    if not (kept / "done").exists():
        kept.mkdir(parents=True, exist_ok=True)
        measure(tree, kept)
        (kept / "done").write_text(str(tree), encoding="utf-8")
    where = Path((kept / "done").read_text(encoding="utf-8"))  # the paths coverage recorded
    return read_log(Covering(kept / "coverage", where), (kept / "log").read_text(encoding="utf-8"))


def measure(tree: Path, kept: Path) -> None:
    """Run the whole suite in ``tree`` under coverage, one context per test, into ``kept``.

    ``kept/log`` receives pytest's output (durations, failing tests), ``kept/coverage`` the
    data. Raises ``SystemExit`` when pytest-cov is missing or the run writes no coverage data.
    """
    data, log = kept / "coverage", kept / "log"
    env = {**test_env(tree), "COVERAGE_FILE": str(data)}
    command = [
        *("nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "--no-header"),
        *("-n", "2", "--dist", "worksteal", "-p", "no:cacheprovider", "-rfE"),
        *("--durations=0", "--durations-min=0", "--cov=pecli", "--cov-context=test"),
        "--cov-report=",
    ]
    with log.open("w", encoding="utf-8") as out:
        subprocess.run(command, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT)
    if not data.exists():
        tail = "".join(log.read_text(encoding="utf-8").splitlines(True)[-10:])
        raise SystemExit(f"mutation: the coverage map was not written (pytest-cov?):\n{tail}")


def test_env(tree: Path) -> dict[str, str]:
    """The environment of a pytest run in ``tree``: its sources first, one BLAS thread, no .pyc."""
    return {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(tree),
    }


def read_log(covering: Covering, text: str) -> Covering:
    """``covering`` with the durations and failing tests of a pytest output ``text``."""
    for line in text.splitlines():
        if match := _DURATION.match(line):
            name = match.group(2)
            covering.durations[name] = covering.durations.get(name, 0.0) + float(match.group(1))
        elif match := _FAILED.match(line):
            covering.failing.add(match.group(1))
    return covering
