"""Mutation run over every area of pecli (``make mutation``).

``python tools/mutation/run.py [--sample N] [--seed S] [--budget SECONDS] [--json FILE]``
(``--area TEXT`` draws from the areas whose name holds TEXT only; ``--only TEXT --show``
prints the diff of the sampled mutants whose name holds TEXT; use ``--sample 100000`` to pick
any mutant; ``--module PATH`` runs every mutant of the one module whose path ends with PATH,
a sweep, resumable with ``--json`` like a sample; ``--list`` names each area's modules and test
files, the modules no area has and the test files no area runs).

Modules and their test files are found by globs on subject folders and file names (see
:mod:`areas`), so the run still works when modules move between layers or into subject
folders. Every one-line mutant of those modules is listed (:mod:`mutants`), a seeded sample
is drawn, and each mutant is written into a copy of the tree (never into the checkout) and
the area's test files are run on it with ``pytest -x``, one process at a time, at low
priority (with the mutated module's doctests, which ``make test`` runs too). A mutant is
*killed* when a test fails (or the run exceeds three times the clean run's time, *timeout*),
else it *survived* — unless the suite's other tests that execute its line (:mod:`covering`:
a coverage map of the whole suite, one context per test, made once per run on two cores) fail
on it: *killed (elsewhere)*, since ``make test`` would catch it too. With the map, the quickest
runs go first (:func:`staged`): the area's tests that execute the line, in seconds, and only a
mutant they let through runs on the other tests and the area's whole files — the same
verdicts, 2.8 s a killed mutant instead of its area's whole run (seed 73: 200 mutants in 30 min
with the map, against seed 70's 60 in 22). ``--area-tests-only`` runs the area's files
alone, without the map; the report gives the score both ways. Before its tests, each mutant is
type-checked as CI's ``make lint`` does (mypy, strict, on the mutated module and what it
imports): a mutant mypy rejects with an error
the unmutated module (printed back the same way, its comments gone) does not have is *killed
(mypy)* without its tests — ``return None`` in a function typed ``-> bool``, ``//`` turned into
``/`` where an ``int`` is due: CI would not let that program land. The report gives the score,
the score per area and every survivor; ``--json FILE`` keeps every mutant's result, rewritten
after each mutant, and makes the run resumable: the mutants already in FILE (killed or
survived) are not run again, so the same command after a spent budget, a ``timeout`` or a crash
goes on where the last one stopped (the mutant being run when it stopped is run again; a FILE
holding mutants this sample does not have, from another seed or another tree, is refused). With
``--rerun``, FILE is written once, merged, at the end. SIGTERM (``timeout``) stops the test
process too.
Needs only the test environment (``.venv``); ``make test`` never runs it.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib.util
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from areas import ROOT, Area, areas, stale, unassigned, unrun
from covering import Covering, collect, test_env
from mutants import Mutant, mutants, mutated_source


def copy_tree(target: Path) -> None:
    """The code and tests the runs need, copied (without caches) into ``target``."""
    ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")
    for name in ("pecli", "tests", "docs", "figures", "benchmarks", "tools"):  # tests read them
        shutil.copytree(ROOT / name, target / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "Makefile", "constraints.txt"):
        shutil.copy2(ROOT / name, target / name)


def run_tests(
    tree: Path, tests: list[str], timeout: float, log: Path | None = None
) -> tuple[str, float]:
    """``pytest -x`` on ``tests`` in ``tree``: (``passed``/``failed``/``timeout``, seconds).

    Its output goes to ``log`` (a clean run's, to say which test failed), else nowhere.
    """
    env = test_env(tree)
    command = [
        "nice",
        "-n",
        "10",
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "--no-header",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--doctest-modules",
        *tests,
    ]
    start = time.monotonic()
    out = log.open("w", encoding="utf-8") if log else subprocess.DEVNULL
    streams = {"stdout": out, "stderr": subprocess.STDOUT}
    with subprocess.Popen(command, cwd=tree, env=env, start_new_session=True, **streams) as process:
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            return "timeout", time.monotonic() - start
        except BaseException:  # interrupted (SIGTERM, ^C): leave no pytest running
            os.killpg(process.pid, 9)
            process.wait()
            raise
        finally:
            if log:
                out.close()  # type: ignore[union-attr]
    seconds = time.monotonic() - start
    return ("passed" if code == 0 else "failed" if code in (1, 2, 3) else f"exit {code}"), seconds


_STAMPS = itertools.count(1_000_000_000)


def type_errors(tree: Path, module: str) -> list[str] | None:
    """The errors mypy finds in ``module`` in ``tree``, without line numbers (None: no mypy here).

    The cache lives in the tree, so after its first run mypy checks again only the module that
    changed and what depends on it (under a second). Line numbers are dropped because the
    printed-back module's lines move.
    """
    if importlib.util.find_spec("mypy") is None:
        return None
    stamp = next(_STAMPS)  # a new whole-second mtime: mypy trusts its cache when the size and
    os.utime(tree / module, (stamp, stamp))  # the mtime in seconds match (a mutant may match)
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(tree / ".mypy_cache")]
    done = subprocess.run(
        [*command, "--no-error-summary", module], cwd=tree, capture_output=True, text=True
    )
    return sorted(
        re.sub(r"^([^:]+):\d+: ", r"\1: ", line)
        for line in done.stdout.splitlines()
        if ": error: " in line
    )


def rejected_by_mypy(tree: Path, mutant: Mutant, original: str, baseline: dict) -> bool:
    """Whether mypy finds an error in the mutated module that the unmutated one lacks.

    ``baseline`` caches each module's errors printed back unmutated (``ast.unparse`` drops
    its comments, ``# type: ignore`` included, so the source as written is no baseline). The
    mutated module must be in place in ``tree``; it is left there.
    """
    path = tree / mutant.path
    mutated = path.read_text(encoding="utf-8")
    if mutant.path not in baseline:
        path.write_text(ast.unparse(ast.parse(original)) + "\n", encoding="utf-8")
        baseline[mutant.path] = type_errors(tree, mutant.path)
        path.write_text(mutated, encoding="utf-8")
    before = baseline[mutant.path]  # None: no mypy here, so no verdict of its own
    return before is not None and bool(set(type_errors(tree, mutant.path) or []) - set(before))


def sample(
    all_areas: list[Area], size: int, seed: int, module: str = ""
) -> list[tuple[Area, Mutant]]:
    """A seeded sample of ``size`` mutants over every module of every area.

    ``module``: every mutant of the one module whose path ends with it (a sweep), instead.
    """
    pool, paths = [], [m for a in all_areas for m in a.modules if m.endswith(module)]
    if module and len(paths) != 1:
        raise SystemExit(f"mutation: --module {module} names {len(paths)} modules: {paths[:5]}")
    for area in all_areas:
        for path in (m for m in area.modules if m in paths):
            source = (ROOT / path).read_text(encoding="utf-8")
            pool.extend((area, m) for m in mutants(path, source))
    chosen = pool if module else random.Random(seed).sample(pool, min(size, len(pool)))
    print(
        f"mutants: {len(pool)} in {len(paths)} modules; "
        + (f"every one of {module}" if module else f"sampled {len(chosen)} (seed {seed})"),
        flush=True,
    )
    return sorted(chosen, key=lambda am: (am[0].name, am[1].path, am[1].index))


def done(path: Path | None, chosen: list[tuple[Area, Mutant]]) -> list[dict]:
    """The results already in the ``--json`` file ``path`` (none if it does not exist yet).

    Only killed and survived mutants count as done (a run error is run again). Raises
    ``SystemExit`` when the file holds a mutant ``chosen`` does not have: another seed, sample
    size or tree, whose results would be merged into the wrong score.
    """
    if path is None or not path.exists():
        return []
    results = [
        r
        for r in json.loads(path.read_text(encoding="utf-8"))
        if r["result"].startswith(("killed", "survived"))
    ]
    names = {m.ident for _, m in chosen}
    strangers = [r["mutant"] for r in results if r["mutant"] not in names]
    if strangers:
        raise SystemExit(
            f"mutation: {path} holds {len(strangers)} mutants not in this sample (another "
            f"seed, size or tree?), e.g. {strangers[0]}; give another --json file"
        )
    return results


def save(path: Path | None, results: list[dict]) -> None:
    """Write ``results`` to ``path`` whole or not at all (a new file renamed over the old)."""
    if path is not None:
        scratch = path.with_name(path.name + ".partial")
        scratch.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        os.replace(scratch, path)


def clean_run(tree: Path, area: Area, skip: tuple[str, ...] = ()) -> float:
    """Seconds the area's tests take unmutated (a failure is tried once more).

    A flaky timing test under load fails now and then (seed 15's first clean run of the
    command line did, then passed alone). Raises ``SystemExit`` with the end of pytest's
    output when both runs fail.
    """
    log = tree / "clean-run.log"
    for _ in range(2):
        status, seconds = run_tests(tree, [*area.tests, *area.doctests, *skip], 1800, log)
        if status == "passed":
            return seconds
        print(f"the {area.name} tests fail unmutated ({status}):", flush=True)
        print("".join(log.read_text(encoding="utf-8").splitlines(True)[-15:]), flush=True)
    raise SystemExit(f"mutation: the {area.name} tests fail unmutated twice")


def campaign(
    chosen: list[tuple[Area, Mutant]],
    tree: Path,
    budget: float,
    results: list[dict] | None = None,
    keep: Path | None = None,
    covering: Covering | None = None,
) -> list[dict]:
    """Run every chosen mutant (until ``budget`` seconds have passed); one result each.

    The mutants already in ``results`` (an earlier, interrupted run's) are not run again;
    ``results`` and each new one are written to ``keep`` after every mutant. With
    ``covering``, each mutant runs :func:`staged` (*killed (elsewhere)* when only a test of
    another area fails), else on the area's files.
    """
    clean: dict[str, float] = {}
    # the tests the coverage map saw fail unmutated can kill nothing: left out of every run
    skip = tuple(f"--deselect={t}" for t in sorted(covering.failing)) if covering else ()
    typed: dict[str, list[str] | None] = {}  # each module's mypy errors, unmutated
    results = list(results or [])
    ran = {r["mutant"] for r in results}
    pending = [(a, m) for a, m in chosen if m.ident not in ran]
    if ran:
        print(f"resumed: {len(ran)} mutants already run, {len(pending)} to go", flush=True)
    start = time.monotonic()
    for area, mutant in pending:
        if area.name not in clean:
            clean[area.name] = clean_run(tree, area, skip)
            print(
                f"clean run of {area.name}: {clean[area.name]:.0f} s ({' '.join(area.tests)})",
                flush=True,
            )
        if time.monotonic() - start > budget:
            print(f"budget of {budget:.0f} s spent: {len(results)} mutants run", flush=True)
            break
        path = tree / mutant.path
        original = path.read_text(encoding="utf-8")
        try:
            path.write_text(mutated_source(original, mutant), encoding="utf-8")
            own = [m for m in area.doctests if m == mutant.path]  # its doctests, if it has
            tests = [*area.tests, *own, *skip]
            begun = time.monotonic()
            if rejected_by_mypy(tree, mutant, original, typed):
                status, seconds = "mypy", time.monotonic() - begun
            elif covering is None:
                status, seconds = run_tests(tree, tests, timeout=3 * clean[area.name] + 30)
            else:
                status, seconds = staged(tree, covering, mutant, tests, 3 * clean[area.name] + 30)
        finally:
            path.write_text(original, encoding="utf-8")
        verdict = {
            "failed": "killed",
            "timeout": "killed (timeout)",
            "mypy": "killed (mypy)",
            "elsewhere": "killed (elsewhere)",
            "passed": "survived",
        }
        result = verdict.get(status, status)
        results.append(
            {
                "mutant": mutant.ident,
                "index": mutant.index,
                "area": area.name,
                "result": result,
                "seconds": round(seconds, 1),
            }
        )
        save(keep, results)
        print(
            f"{len(results):4d} {results[-1]['result']:17s} {seconds:5.1f} s  {mutant.ident}",
            flush=True,
        )
    return results


def staged(
    tree: Path, covering: Covering, mutant: Mutant, tests: list[str], timeout: float
) -> tuple[str, float]:
    """``mutant`` (written in ``tree``) on its area's ``tests`` and the suite, quickest first.

    First the area's tests that run its line (the map's; a kill here is the area's), then the
    suite's other tests that run it, then the whole area run (``tests``: what the map cannot
    see, such as ``pecli`` run in a subprocess, and whether the area alone catches what the
    suite did). Returns ``failed``/``timeout`` (the area's kill), ``elsewhere`` (only another
    area's test fails) or ``passed``, and the seconds taken. Most mutants fall to the first
    run, in seconds instead of the area's whole run.
    """
    files = {t for t in tests if not t.startswith("-")}
    status, seconds = on_map(tree, covering, covering.tests(mutant.path, mutant.line, set(), files))
    if status != "passed":
        return status, seconds
    other, more = on_map(tree, covering, covering.tests(mutant.path, mutant.line, files))
    whole, most = run_tests(tree, tests, timeout)
    if whole == "passed" and other != "passed":
        whole = "elsewhere"
    return whole, seconds + more + most


def on_map(tree: Path, covering: Covering, tests: list[str]) -> tuple[str, float]:
    """``pytest -x`` on the node ids ``tests`` in ``tree`` (none: ``passed`` at once).

    They may take three times their time in the coverage run, plus a minute.
    """
    if not tests:
        return "passed", 0.0
    with tempfile.NamedTemporaryFile("w", suffix=".args", dir=tree, delete=False) as listing:
        listing.write("\n".join(tests) + "\n")  # too many node ids for one command line
    status, seconds = run_tests(tree, [f"@{listing.name}"], 3 * covering.seconds(tests) + 60)
    os.unlink(listing.name)
    return status, seconds


def report(results: list[dict]) -> None:
    """The score, the score of each area and every survivor."""
    print(f"\nkilled {_score(results)}")
    alone = [
        {**r, "result": "survived"} if r["result"] == "killed (elsewhere)" else r for r in results
    ]
    print(f"  by the area's own tests (and mypy): {_score(alone)}")
    for name in dict.fromkeys(r["area"] for r in results):
        print(f"  {name}: {_score([r for r in results if r['area'] == name])}")
    for r in results:
        if not r["result"].startswith("killed"):
            print(f"  {r['result']}: {r['mutant']}")


def _score(results: list[dict]) -> str:
    """``k of n mutants: p %`` (errors of the run itself are not counted)."""
    killed = sum(r["result"].startswith("killed") for r in results)
    counted = sum(r["result"].startswith(("killed", "survived")) for r in results)
    return f"{killed} of {counted} mutants: {100 * killed / max(counted, 1):.1f} %"


def list_areas(all_areas: list[Area]) -> None:
    """Each area's modules and test files; the modules no area has and globs finding nothing."""
    for area in all_areas:
        print(f"{area.name}: {len(area.modules)} modules; tests {' '.join(area.tests)}")
        for module in area.modules:
            print(f"  {module}")
    for module in unassigned():
        print(f"in no area: {module}")
    for path in unrun():
        print(f"test file no area runs: {path}")
    for pattern in stale():
        print(f"glob finding nothing: {pattern}")


def show(chosen: list[tuple[Area, Mutant]]) -> None:
    """Print each chosen mutant as a diff of the unparsed module (``--show``)."""
    for _, mutant in chosen:
        source = (ROOT / mutant.path).read_text(encoding="utf-8")
        before = (ast.unparse(ast.parse(source)) + "\n").splitlines(keepends=True)
        after = mutated_source(source, mutant).splitlines(keepends=True)
        print(f"== {mutant.ident} (site {mutant.index})")
        sys.stdout.writelines(difflib.unified_diff(before, after, n=1))
        print()


def main(argv: list[str] | None = None) -> None:
    """Parse the options, draw the sample, run it, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=150, help="mutants drawn (default 150)")
    parser.add_argument("--seed", type=int, default=21, help="sampling seed (default 21)")
    parser.add_argument("--budget", type=float, default=3600, help="seconds (default 3600)")
    parser.add_argument(
        "--json",
        type=Path,
        help="write every mutant's result to this file after each mutant; the mutants "
        "already in it are not run again (resume a stopped run with the same command)",
    )
    parser.add_argument("--list", action="store_true", help="list areas, modules and tests only")
    parser.add_argument("--area", default="", help="draw only from areas whose name has this")
    parser.add_argument("--only", help="run only mutants whose name contains this text")
    parser.add_argument(
        "--module",
        default="",
        help="every mutant of the one module whose path ends with this (a sweep; no sample)",
    )
    parser.add_argument(
        "--show", action="store_true", help="print the chosen mutants' diffs, run nothing"
    )
    parser.add_argument(
        "--area-tests-only",
        action="store_true",
        help="run each mutant on its area's tests only (no coverage map of the whole suite)",
    )
    parser.add_argument(
        "--rerun",
        help="a --json file of an earlier run with the same sample: run its survivors again "
        "and report the merged score (after tests were added)",
    )
    args = parser.parse_args(argv)
    all_areas = areas()
    if args.list:
        list_areas(all_areas)
        return
    if unassigned():
        print(f"mutation: {len(unassigned())} modules in no area (run.py --list)", flush=True)
    all_areas = [a for a in all_areas if args.area in a.name]
    chosen = drawn = sample(all_areas, args.sample, args.seed, args.module)
    if args.only:
        chosen = [(a, m) for a, m in chosen if args.only in m.ident]
    if args.show:
        show(chosen)
        return
    earlier: list[dict] = []
    if args.rerun:
        earlier = json.loads(Path(args.rerun).read_text(encoding="utf-8"))
        again = {r["mutant"] for r in earlier if r["result"] == "survived"}
        chosen = [(a, m) for a, m in chosen if m.ident in again]  # same seed, same sources
    keep = None if args.rerun else args.json  # a rerun's file is the merged one, at the end
    signal.signal(signal.SIGTERM, _stop)
    with tempfile.TemporaryDirectory(prefix="pecli-mutation-") as folder:
        copy_tree(Path(folder))
        covering = None
        if not args.area_tests_only:
            print("coverage map of the whole suite (one run on two cores)…", flush=True)
            covering = collect(Path(folder))
            print(f"  {len(covering.durations)} tests, {len(covering.failing)} failing", flush=True)
        results = campaign(chosen, Path(folder), args.budget, done(keep, drawn), keep, covering)
    if earlier:
        rerun = {r["mutant"]: r for r in results}
        results = [rerun.get(r["mutant"], r) for r in earlier]
        save(args.json, results)
    report(results)


def _stop(signum: int, frame: object) -> None:
    """SIGTERM (``timeout``): unwind, so the test process and the copied tree go too."""
    raise SystemExit(f"mutation: stopped by signal {signum}")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # `run.py --show | head`: the reader had enough
        os._exit(0)
