"""`make bench`: every bound of the README's Performance table, in one run, as users install pecli.

The commands run from a plain ``pip install --upgrade .`` venv (the newest versions
pyproject.toml allows, refreshed each run: benchmarks/results/plain-venv); start-up also from
the pinned ``make install`` venv beside it. Each group runs its anchor and its candidates in
turn, round after round (interleaved: a machine shared with other jobs drifts between
rounds), one fresh process each. Printed per row: the median wall time, the ratio of medians
to the anchor, the median of the per-round ratios, and the same ratio of CPU time (user +
system of the child, steadier than wall time under load), with the bound. Then each heavy
dependency's import time (``python -X importtime``) in both venvs, so a slow new release is
seen the day it appears. About 12 minutes on a quiet 2-core machine, 34 under a load of 12-17;
``--quick`` is a smoke run, ``--only WORD`` runs the groups whose key holds WORD, ``--heavy``
the larger identify inputs, ``--markdown FILE`` also writes the README's table.

Run: python benchmarks/bench_headline.py [--quick] [--heavy] [--only WORD] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import bench_headline_readers as readers
import bench_headline_rows as headline_rows
from bench_headline_rows import Context, Group

ROOT = Path(__file__).resolve().parents[1]
PLAIN = ROOT / "benchmarks" / "results" / "plain-venv"
#: What pecli imports from each heavy dependency (safetensors itself loads its parts lazily).
HEAVY = (
    "numpy",
    "typer",
    "rich.console",
    "polars",
    "matplotlib.figure",
    "ml_dtypes",
    "safetensors.numpy",
)
VERSIONS = ("numpy", "typer", "click", "rich", "polars", "matplotlib", "ml_dtypes", "safetensors")


def plain_python(upgrade: bool = True) -> str:
    """The plain venv's interpreter, with pecli and its dependencies upgraded to the newest."""
    python = PLAIN / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PLAIN)], check=True)
    elif not upgrade:
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--force-reinstall",
                "--disable-pip-version-check",
                str(ROOT),
            ],
            check=True,
        )
        return str(python)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "--upgrade-strategy", "eager", str(ROOT)], check=True)
    subprocess.run([*pip, "--no-deps", "--force-reinstall", str(ROOT)], check=True)  # this tree
    subprocess.run([str(python), "-m", "compileall", "-q", str(PLAIN / "lib")], check=False)
    return str(python)


def timed(cmd: list[str], statuses: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """Wall s, CPU s (user + system) and peak RSS (MB) of one child; stdout is /dev/null."""
    with open(os.devnull, "wb") as sink:
        begin = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) not in statuses:
        raise RuntimeError(f"{' '.join(cmd[:6])}: wait status {status}")
    return time.perf_counter() - begin, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


@dataclass
class Row:
    """One measured row: medians over the rounds, ratios to the group's anchor."""

    group: str
    label: str
    anchor: str
    wall: float
    cpu: float
    ratio: float
    paired: float
    cpu_ratio: float
    peak: float
    bound: str
    load: str


def compare(group: Group) -> list[Row]:
    """Run the first row (the anchor) and the others in turn, ``group.rounds`` rounds; print."""
    for cmd in group.rows.values():  # warm-up: page cache, bytecode, font cache
        timed(cmd, group.statuses)
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in group.rows}
    for _ in range(group.rounds):
        for label, cmd in group.rows.items():
            runs[label].append(timed(cmd, group.statuses))
    anchor_label = next(iter(group.rows))
    anchor = runs[anchor_label]
    base_wall = statistics.median(r[0] for r in anchor)
    base_cpu = statistics.median(r[1] for r in anchor)
    where = load()
    print(
        f"\n{group.title}  (bound {group.bound}; {group.rounds} interleaved rounds, load {where})"
    )
    print(
        f"  {'':52} {'wall s':>7} {'ratio':>6} {'paired':>7} {'cpu s':>6} {'cpu':>6} {'peak MB':>8}"
    )
    rows = []
    for label, results in runs.items():
        wall = statistics.median(r[0] for r in results)
        cpu = statistics.median(r[1] for r in results)
        paired = statistics.median(r[0] / a[0] for r, a in zip(results, anchor, strict=True))
        peak = max(r[2] for r in results)
        row = Row(
            group.title,
            label,
            anchor_label,
            wall,
            cpu,
            wall / base_wall,
            paired,
            cpu / base_cpu,
            peak,
            group.bound,
            where,
        )
        rows.append(row)
        mark = " over" if measured(row) and over(row) else ""
        print(
            f"  {label[:52]:52} {wall:7.3f} {row.ratio:6.2f} {paired:7.2f} {cpu:6.3f} "
            f"{row.cpu_ratio:6.2f} {peak:8.0f}{mark}"
        )
    for note in group.notes:
        print(f"  {note}")
    return rows


def measured(row: Row) -> bool:
    """Whether the row is pecli's (not its anchor, nor another script shown beside it)."""
    return row.label != row.anchor and row.label.strip().startswith(("pecli", "the same"))


def over(row: Row) -> bool:
    """Whether the row's wall or CPU ratio is past its bound (``<= 1.2x``)."""
    bound = float(row.bound.split()[-1].rstrip("x"))
    return min(row.ratio, row.paired) > bound or row.cpu_ratio > bound


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def import_times(python: str, title: str, repeats: int = 5) -> None:
    """Median time of ``import X`` in a fresh interpreter, for each heavy dependency, in ms.

    The same as the cumulative time ``python -X importtime -c "import X"`` gives X.
    """
    cells = []
    for module in HEAVY:
        code = (
            f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
        )
        times = [
            float(
                subprocess.run(
                    [python, "-c", code], capture_output=True, text=True, check=True
                ).stdout
            )
            for _ in range(repeats)
        ]
        cells.append(f"{module} {1e3 * statistics.median(times):.0f}")
    print(f"  import ms, {title}: " + ", ".join(cells))


def versions(python: str) -> str:
    code = (
        "import importlib.metadata as m\ndef v(p):\n try: return m.version(p)\n"
        " except m.PackageNotFoundError: return '(vendored)'\n"
        f"print(', '.join(f'{{p}} {{v(p)}}' for p in {VERSIONS!r}))"
    )
    return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()


def header(plain: str) -> None:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = platform.processor() or platform.machine()
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
        names = [line.split(":", 1)[1].strip() for line in info if line.startswith("model name")]
    now = datetime.datetime.now(datetime.UTC)
    print(
        f"{now:%Y-%m-%d %H:%M} UTC; {names[0] if names else cpu}, {os.cpu_count()} CPUs, "
        f"{memory:.0f} GiB; load {load()}; Python {platform.python_version()}"
    )
    print(f"plain pip install .: {versions(plain)}")
    print(f"pinned (make install): {versions(sys.executable)}")


#: Every group, in the order they run (``--only WORD`` picks those whose key holds WORD).
GROUPS: dict[str, Callable[[Context], Iterator[Group]]] = {
    "start-up": headline_rows.start_up,
    "csv": headline_rows.csv,
    "writers": headline_rows.writers,
    "certificate": headline_rows.certificate,
    "zoo-writers": headline_rows.small_writers,
    "add": headline_rows.add,
    "identify": readers.identify,
    "rope-readers": readers.rope_readers,
    "gguf": readers.gguf,
    "precision": readers.precision,
    "plots": readers.plots,
}


def markdown(rows: list[Row]) -> str:
    """The README's Performance table: one line per command (anchors inline)."""
    lines = [
        "| command (plain `pip install .`) | pecli | anchor (same run) | ratio wall / CPU "
        "| bound | load |",
        "|---|---|---|---|---|---|",
    ]
    anchors = {(r.group, r.label): r for r in rows if r.label == r.anchor}
    for r in rows:
        if not measured(r):
            continue
        a = anchors[(r.group, r.anchor)]
        ratio = f"{min(r.ratio, r.paired):.2f}× / {r.cpu_ratio:.2f}×"
        ratio = f"**{ratio}**" if over(r) else ratio
        bound = r.bound.replace("<=", "≤").replace("x", "×")
        anchor = r.anchor.replace("|", "\\|")  # a cell of the table
        label = r.label.strip()
        where = " (pinned venv)" if "pinned" in r.group else ""
        lines.append(
            f"| `{label}`{where} | {_seconds(r.wall)}, peak {r.peak:.0f} MB | {anchor}: "
            f"{_seconds(a.wall)} | {ratio} | {bound} | {r.load} |"
        )
    return "\n".join(lines)


def _seconds(value: float) -> str:
    return f"{1e3 * value:.0f} ms" if value < 1 else f"{value:.2f} s"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 rounds")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", action="append", default=[], help="groups whose key holds it")
    parser.add_argument("--markdown", type=Path, help="also write the README's table here")
    parser.add_argument(
        "--heavy",
        action="store_true",
        help="alibi identify on 2^26 values, identify-axes on the whole Wan grid (+2 min)",
    )
    parser.add_argument("--no-upgrade", action="store_true", help="use the plain venv as it is")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.repeats
    plain = plain_python(upgrade=not args.no_upgrade)
    header(plain)
    measured: list[Row] = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as folder:
        scratch = Path(folder) / "run"
        scratch.mkdir()
        ctx = Context(plain, sys.executable, scratch, args.quick, rounds, args.heavy)
        for key, make in GROUPS.items():
            if args.only and not any(word in key for word in args.only):
                continue
            for group in make(ctx):
                measured += compare(group)
    if not args.only:
        print("\nheavy imports (median of 5 fresh interpreters timing 'import X')")
        import_times(plain, "plain")
        import_times(sys.executable, "pinned")
    print(f"\nload at the end {load()}")
    table = markdown(measured)
    print("\n" + table)
    if args.markdown:
        args.markdown.write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
