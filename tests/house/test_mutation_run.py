"""The mutation run (tools/mutation/run.py) resumes: a stopped run loses no mutant's result.

A fresh sample of 100 mutants takes about an hour on a shared machine; the seed-14 run spent
its budget after 83 and could not go on. ``--json FILE`` is now written after each mutant and
read back on the next run with the same command, so only the mutants not yet in it run.
These tests run the campaign with a stand-in for pytest (no tree is copied, nothing mutated
on disk but a scratch module).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools" / "mutation"))

import run  # noqa: E402
from areas import Area  # noqa: E402
from mutants import mutants  # noqa: E402

SOURCE = "def f(x):\n    return x + 1 < 3\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A tree of one module, its 5 mutants, and a pytest stand-in that kills `Add -> Sub`."""
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    area = Area("toy", ["m.py"], ["tests/test_m.py"])
    chosen = [(area, m) for m in mutants("m.py", SOURCE)]
    calls: list[str] = []

    def fake_tests(folder: Path, tests: list[str], timeout: float, log=None) -> tuple[str, float]:
        text = (folder / "m.py").read_text(encoding="utf-8")
        calls.append(text)
        return ("failed" if "x - 1" in text else "passed"), 0.0

    monkeypatch.setattr(run, "run_tests", fake_tests)
    monkeypatch.setattr(run, "type_errors", lambda folder, module: [])  # (mypy: tested below)
    return tmp_path, chosen, calls


def test_the_json_file_is_written_after_each_mutant_and_a_rerun_skips_what_it_holds(tree):
    folder, chosen, calls = tree
    names = ["return None", "Lt -> LtE", "Add -> Sub", "3 -> 4", "1 -> 0"]
    assert [m.description for _, m in chosen] == names
    keep = folder / "run.json"
    # a budget of -1 s: the clean run, then the budget is spent before the first mutant
    first = run.campaign(chosen, folder, -1, run.done(keep, chosen), keep)
    assert first == [] and len(calls) == 1  # the clean run only: the budget is checked first
    run.campaign(chosen[:2], folder, 3600, run.done(keep, chosen), keep)  # "stopped" after 2
    saved = json.loads(keep.read_text(encoding="utf-8"))
    assert [r["mutant"] for r in saved] == [m.ident for _, m in chosen[:2]]
    assert [r["result"] for r in saved] == ["survived", "survived"]
    calls.clear()
    results = run.campaign(chosen, folder, 3600, run.done(keep, chosen), keep)
    assert len(calls) == 1 + 3  # a clean run, then only the three mutants not in the file
    verdicts = ["survived", "survived", "killed", "survived", "survived"]
    assert [r["result"] for r in results] == verdicts
    assert json.loads(keep.read_text(encoding="utf-8")) == results
    assert (folder / "m.py").read_text(encoding="utf-8") == SOURCE  # restored
    assert not list(folder.glob("*.partial"))


def test_a_run_error_is_run_again_and_a_file_of_another_sample_is_refused(tree):
    folder, chosen, _ = tree
    keep = folder / "run.json"
    error = {"mutant": chosen[0][1].ident, "index": 0, "area": "toy", "result": "exit 4"}
    keep.write_text(json.dumps([error]), encoding="utf-8")
    assert run.done(keep, chosen) == []
    assert run.done(folder / "absent.json", chosen) == []
    other = {**error, "mutant": "m.py:9 Lt -> LtE", "result": "killed"}
    keep.write_text(json.dumps([other]), encoding="utf-8")
    with pytest.raises(SystemExit, match="1 mutants not in this sample"):
        run.done(keep, chosen)


def test_a_clean_run_that_fails_is_tried_once_more_and_then_stops_the_run(tmp_path, monkeypatch):
    """Seed 15's clean run of the command line failed on a test that passes alone."""
    outcomes = ["failed", "passed", "failed", "failed"]

    def fake_tests(folder, tests, timeout, log=None):
        log.write_text("FAILED tests/test_m.py::test_x\n", encoding="utf-8")
        return outcomes.pop(0), 4.0

    monkeypatch.setattr(run, "run_tests", fake_tests)
    area = Area("toy", ["m.py"], ["tests/test_m.py"])
    assert run.clean_run(tmp_path, area) == 4.0
    with pytest.raises(SystemExit, match="toy tests fail unmutated twice"):
        run.clean_run(tmp_path, area)
    assert outcomes == []


TYPED = """\
def f(x: int) -> bool:
    return x > 1


def g() -> int:
    return "a"  # type: ignore[return-value]
"""


def test_a_mutant_mypy_rejects_is_killed_before_its_tests(tmp_path, monkeypatch):
    """``return None`` in ``-> bool`` fails CI's mypy; a mutant mypy accepts runs its tests.

    The printed-back module loses its comments, ``# type: ignore`` too: g's error is in the
    baseline, so it kills no mutant.
    """
    pytest.importorskip("mypy")
    (tmp_path / "m.py").write_text(TYPED, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n", encoding="utf-8")
    area = Area("toy", ["m.py"], ["tests/test_m.py"])
    chosen = [(area, m) for m in mutants("m.py", TYPED)]
    names = ["m.py:2 return None", "m.py:6 return None", "m.py:2 Gt -> GtE", "m.py:2 1 -> 0"]
    assert [m.ident for _, m in chosen] == names
    tested: list[str] = []

    def fake_tests(folder, tests, timeout, log=None):
        tested.append((folder / "m.py").read_text(encoding="utf-8"))
        return "passed", 0.0

    monkeypatch.setattr(run, "run_tests", fake_tests)
    results = run.campaign(chosen, tmp_path, 3600)
    killed = ["killed (mypy)", "killed (mypy)", "survived", "survived"]  # g: None, not str
    assert [r["result"] for r in results] == killed
    assert len(tested) == 1 + 2  # the clean run, then the two mutants mypy let through
    assert (tmp_path / "m.py").read_text(encoding="utf-8") == TYPED


def test_a_mutant_runs_on_the_tests_that_execute_its_line_first_then_elsewhere_then_its_area(
    tree,
):
    """The area's tests that run the mutated line, then the others that run it, the area's files.

    A kill by the first run is the area's, with no other run; a mutant only a test of another
    area catches is *killed (elsewhere)* once the area's whole files let it through.
    """
    from covering import Covering, read_log

    folder, chosen, _ = tree
    log = "\n".join(
        [
            "0.30s call     tests/test_far.py::test_slow[a b]",
            "0.05s setup    tests/test_far.py::test_slow[a b]",
            "0.10s call     tests/test_near.py::test_quick",
            "0.20s call     tests/test_m.py::test_own",
            "FAILED tests/test_broken.py::test_red - assert 0",
            "ERROR tests/test_broken.py::test_setup_red",
        ]
    )
    covering = read_log(Covering(folder / "none", folder), log)
    assert covering.durations["tests/test_far.py::test_slow[a b]"] == pytest.approx(0.35)
    assert covering.failing == {
        "tests/test_broken.py::test_red",
        "tests/test_broken.py::test_setup_red",
    }
    runners = {"tests/test_far.py::test_slow[a b]", "tests/test_near.py::test_quick"}
    covering._lines["m.py"] = {
        1: {"tests/test_other.py::test_imports"},  # `def` runs at import: seen by no test
        2: runners | {"tests/test_m.py::test_own", "tests/test_broken.py::test_red"},
        5: set(),  # a line run only at import: the module's tests stand in for it
    }
    skip = {"tests/test_m.py"}
    assert covering.tests("m.py", 2, skip) == [
        "tests/test_near.py::test_quick",
        *sorted(runners - {"tests/test_near.py::test_quick"}),
    ]
    assert covering.tests("m.py", 3, skip) == []  # a line never run: nothing can catch it
    everyone = covering.tests("m.py", 5, skip)
    assert set(everyone) == runners | {"tests/test_other.py::test_imports"}
    assert covering.seconds(covering.tests("m.py", 2, skip)) == pytest.approx(0.45)

    ran: list[list[str]] = []

    def fake_tests(where: Path, tests: list[str], timeout: float, log=None) -> tuple[str, float]:
        at = tests[0].startswith("@")  # a list of node ids in a file, as elsewhere() passes
        listed = (where / tests[0][1:]).read_text(encoding="utf-8").splitlines() if at else tests
        ran.append(("map", listed) if at else ("area", list(tests)))
        text = (where / "m.py").read_text(encoding="utf-8")
        caught = "< 4" in text and "tests/test_near.py::test_quick" in listed
        caught |= "x - 1" in text and listed == ["tests/test_m.py::test_own"]  # the area's test
        return ("failed" if caught else "passed"), 1.0

    run.run_tests = fake_tests  # the fixture's monkeypatch restores the original
    results = run.campaign(chosen, folder, 3600, None, None, covering)
    verdicts = [r["result"] for r in results]
    assert verdicts == ["survived", "survived", "killed", "killed (elsewhere)", "survived"]
    own, others = ["tests/test_m.py::test_own"], covering.tests("m.py", 2, skip)
    let_through = [("map", own), ("map", others), "area"]  # line 2's mutants, in this order
    kinds = [run if run[0] == "map" else "area" for run in ran]
    assert kinds == ["area", *let_through * 2, ("map", own), *let_through * 2]  # clean run first
    assert not list(folder.glob("*.args"))  # the list of node ids is removed
    area_runs = [r for kind, r in ran if kind == "area"]  # the clean run and the area's files
    red = {
        "--deselect=tests/test_broken.py::test_red",
        "--deselect=tests/test_broken.py::test_setup_red",
    }
    assert len(area_runs) == 1 + 4 and all(red <= set(r) for r in area_runs)  # fail unmutated


def test_every_mutant_changes_the_source():
    """``1e300 + 1 == 1e300``: such a float is doubled, never 'mutated' into itself."""
    source = "LIMIT = 1e300\nSMALL = 2.5\nBIG = 2.0**53\nEXACT = 9007199254740992.0\n"
    found = {m.description for m in mutants("pecli/x.py", source)}
    assert found == {"1e+300 -> 2e+300", "2.5 -> 3.5", "2.0 -> 3.0", "53 -> 54", "Pow -> Mult"} | {
        "9007199254740992.0 -> 1.8014398509481984e+16"
    }
