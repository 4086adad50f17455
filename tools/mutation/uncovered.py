"""Lines and branches of pecli's modules that their area's tests never run.

``python tools/mutation/uncovered.py [--area TEXT]`` runs each area's test files (the areas
of :mod:`areas`, which :mod:`run` uses: every module of pecli is in one) under
``coverage run --branch`` and prints, per module, the lines no test executes and the
branches no test takes, then the modules no area has. A mutant on such a line survives
whatever it changes, so this is the cheap first look before a mutation run: a sampled run
costs about ten seconds per mutant, this costs one test run per area. Needs ``coverage``
(``pip install .[mutation]``; ``make mutation`` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from areas import ROOT, Area, areas, unassigned


def measure(area: Area, folder: Path) -> dict:
    """The JSON report of ``coverage`` for ``area``'s modules after running its tests."""
    data, report = folder / f"{area.name}.coverage", folder / f"{area.name}.json"
    env = {**os.environ, "COVERAGE_FILE": str(data), "OPENBLAS_NUM_THREADS": "1"}
    run = [
        sys.executable,
        "-m",
        "coverage",
        "run",
        "--branch",
        f"--include={','.join(area.modules)}",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--doctest-modules",
        *area.tests,
        *area.doctests,
    ]
    subprocess.run(run, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        [sys.executable, "-m", "coverage", "json", "-q", "-o", str(report)],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return json.loads(report.read_text(encoding="utf-8"))


def lines(report: dict) -> list[str]:
    """One line per module: its unrun lines and untaken branches (``from->to``)."""
    out = []
    for path, entry in sorted(report["files"].items()):
        missing = entry["missing_lines"]
        branches = [f"{a}->{b if b > 0 else 'exit'}" for a, b in entry.get("missing_branches", [])]
        if missing or branches:
            shown = f"lines {_ranges(missing) or '-'}; branches {' '.join(branches) or '-'}"
            out.append(f"  {path}: {shown}")
    return out


def _ranges(numbers: list[int]) -> str:
    """``1-3,7`` for [1, 2, 3, 7]."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)


def main(argv: list[str] | None = None) -> None:
    """Run every area (or those whose name holds ``--area``) and print what is not run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", default="", help="only areas whose name contains this text")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pecli-uncovered-") as folder:
        for area in areas():
            if args.area in area.name:
                report = measure(area, Path(folder))
                total = report["totals"]
                print(
                    f"{area.name}: {total['percent_covered_display']} % of lines and branches",
                    flush=True,
                )
                print("\n".join(lines(report)), flush=True)
    for module in unassigned():
        print(f"in no area (never measured): {module}")


if __name__ == "__main__":
    main()
