"""`make bench`: every bound of the README's Performance table, in one run, as users install pecli.

The commands run from a plain ``pip install --upgrade .`` venv (the newest versions
pyproject.toml allows, refreshed each run: benchmarks/results/plain-venv); start-up also from
the pinned ``make install`` venv beside it. Each group runs its anchor and its candidates in
turn, round after round (interleaved: a machine shared with other jobs drifts between
rounds), one fresh process each. Printed per row: the median wall time, the ratio of medians
to the anchor, the median of the per-round ratios, and the same ratio of CPU time (user +
system of the child, steadier than wall time under load), with the bound. Then each heavy
dependency's import time (``python -X importtime``) in both venvs, so a slow new release is
seen the day it appears. About 5 minutes on a loaded 2-core machine; ``--quick`` is a smoke run.

Run: python benchmarks/bench_headline.py [--quick] [--repeats N]
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
from pathlib import Path

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

SAVE = "import numpy as np, sys; a = np.empty(({n}, {d}), np.float32); a.fill(0.5); np.save(sys.argv[1], a)"  # noqa: E501
READ = "import sys; b = bytearray(16 << 20); f = open(sys.argv[1], 'rb', buffering=0)\nwhile f.readinto(b): pass"  # noqa: E501
TABLE = (  # the table compute writes (start 1, interleaved), in NumPy, float32
    "import math, sys, numpy as np; n, d = 10000, 512\n"
    "p = np.arange(1, n + 1, dtype=np.float64)[:, None]\n"
    "w = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-math.log(1e4) / d))\n"
    "t = np.empty((n, d), np.float32); t[:, 0::2] = np.sin(p * w); t[:, 1::2] = np.cos(p * w)\n"
    "names = [f'{k}_{i}' for i in range(1, d // 2 + 1) for k in ('sin', 'cos')]\n"
)
POLARS = TABLE + (
    "import polars as pl\npl.DataFrame(t, schema=names, orient='row').write_csv(sys.stdout.buffer)"
)
SAVETXT = TABLE + (
    "np.savetxt(sys.stdout.buffer, t, fmt='%.9g', delimiter=',', header=','.join(names),"
    " comments='')"
)
FIGURE = """
import sys, numpy as np
from matplotlib.figure import Figure
d, n = 128, 100
pos = np.arange(1, n + 1, dtype=np.float64)[:, None]
omega = 10000.0 ** (-2.0 * np.arange(d // 2) / d)
table = np.empty((n, d)); table[:, 0::2] = np.sin(pos * omega); table[:, 1::2] = np.cos(pos * omega)
fig = Figure(figsize=(9.0, 4.5), dpi=100, layout="constrained")
ax = fig.add_subplot()
im = ax.imshow(table.T, origin="lower", aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1,
               extent=(0.5, n + 0.5, 0.5, d + 0.5), interpolation="nearest")
ax.set_xlabel("position"); ax.set_ylabel("component"); ax.set_title("floor")
fig.colorbar(im, ax=ax, label="value")
fig.savefig(sys.argv[1])
"""


def plain_python() -> str:
    """The plain venv's interpreter, with pecli and its dependencies upgraded to the newest."""
    python = PLAIN / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PLAIN)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "--upgrade-strategy", "eager", str(ROOT)], check=True)
    subprocess.run([*pip, "--no-deps", "--force-reinstall", str(ROOT)], check=True)  # this tree
    subprocess.run([str(python), "-m", "compileall", "-q", str(PLAIN / "lib")], check=False)
    return str(python)


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall s, CPU s (user + system) and peak RSS (MB) of one child; stdout is /dev/null."""
    with open(os.devnull, "wb") as sink:
        begin = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise RuntimeError(f"{' '.join(cmd[:4])}: wait status {status}")
    return time.perf_counter() - begin, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def compare(title: str, bound: str, rows: dict[str, list[str]], repeats: int) -> None:
    """Run the first row (the anchor) and the others in turn, ``repeats`` rounds; print."""
    for cmd in rows.values():  # warm-up: page cache, bytecode, font cache
        timed(cmd)
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in rows}
    for _ in range(repeats):
        for label, cmd in rows.items():
            runs[label].append(timed(cmd))
    anchor = runs[next(iter(rows))]
    base_wall = statistics.median(r[0] for r in anchor)
    base_cpu = statistics.median(r[1] for r in anchor)
    print(f"\n{title}  (bound {bound}; {repeats} interleaved rounds, load {load()})")
    print(f"  {'':50} {'wall s':>7} {'ratio':>6} {'paired':>7} {'cpu':>6} {'peak MB':>8}")
    for label, results in runs.items():
        wall = statistics.median(r[0] for r in results)
        cpu = statistics.median(r[1] for r in results)
        paired = statistics.median(r[0] / a[0] for r, a in zip(results, anchor, strict=True))
        peak = max(r[2] for r in results)
        print(
            f"  {label[:50]:50} {wall:7.3f} {wall / base_wall:6.2f} {paired:7.2f} "
            f"{cpu / base_cpu:6.2f} {peak:8.0f}"
        )


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


def checkpoint(python: str, path: Path, weight_rows: int) -> None:
    """A .safetensors file: a 4096 x 768 sinusoidal table beside a large float32 weight."""
    code = (
        "import sys, numpy as np; from safetensors.numpy import save_file; "
        "from pecli import encoding_table; "
        f"w = np.random.default_rng(13).standard_normal(({weight_rows}, 1024), dtype=np.float32); "
        "save_file({'encoder.pos_embed': encoding_table(d=768, n=4096, start=0), "
        "'decoder.weight': w}, sys.argv[1])"
    )
    subprocess.run([python, "-c", code, str(path)], check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 rounds")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    quick, rounds = args.quick, 3 if args.quick else args.repeats
    plain = plain_python()
    header(plain)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as folder:
        groups(plain, Path(folder), quick, rounds)
    print("\nheavy imports (median of 5 fresh interpreters timing 'import X')")
    import_times(plain, "plain")
    import_times(sys.executable, "pinned")
    print(f"\nload at the end {load()}")


def fresh(cmd: list[str], tmp: Path) -> list[str]:
    """``cmd`` writing ``-o`` to a new file each run (bash adds about 2 ms).

    Replacing last run's output renames over a file ext4 must free (``discard``) and, by its
    ``auto_da_alloc`` rule, flush first: 60-80 ms for 128 MB on this disk (``strace -T`` on
    ``renameat``), where the anchor's ``O_TRUNC`` of a file never written to disk takes 6 ms.
    """
    return ["bash", "-c", f'exec "$@" -o "{tmp}/fresh-$BASHPID.npy"', "_", *cmd]


def groups(py: str, tmp: Path, quick: bool, rounds: int) -> None:
    pecli = str(Path(py).with_name("pecli"))
    for python, name in ((py, "plain pip install ."), (sys.executable, "pinned, make install")):
        exe = str(Path(python).with_name("pecli"))
        compare(
            f"start-up, {name}",
            "<= 1.2x",
            {
                "python -c 'import numpy, typer'": [python, "-c", "import numpy, typer"],
                "pecli --help": [exe, "--help"],
                "pecli --version": [exe, "--version"],
                "pecli compute --d 512 --n 100 -o start.npy": [
                    exe,
                    "compute",
                    "--d",
                    "512",
                    "--n",
                    "100",
                    "-o",
                    str(tmp / "start.npy"),
                ],
            },
            5 if quick else 21,
        )
    compare(
        "CSV 10,000 x 512 float32 to stdout (> /dev/null)",
        "<= 1.0x the polars script",
        {
            "NumPy table + polars.DataFrame.write_csv": [py, "-c", POLARS],
            "pecli compute --d 512 --n 10000 --format csv": [
                pecli,
                "compute",
                "--d",
                "512",
                "--n",
                "10000",
                "--format",
                "csv",
            ],
            "NumPy table + np.savetxt('%.9g')": [py, "-c", SAVETXT],
        },
        rounds,
    )
    n = 100_000 if quick else 1_000_000
    compare(
        f"npy {n:,} x 512 float32 to a file",
        "<= 1.2x",
        {
            "np.empty + fill + np.save": [py, "-c", SAVE.format(n=n, d=512), str(tmp / "s.npy")],
            f"pecli compute --d 512 --n {n} -o t.npy": [
                pecli,
                "compute",
                "--d",
                "512",
                "--n",
                str(n),
                "-o",
                str(tmp / "t.npy"),
                "-q",
            ],
        },
        rounds,
    )
    for name in ("s.npy", "t.npy"):
        (tmp / name).unlink(missing_ok=True)
    n = 16_384 if quick else 131_072
    rope = [pecli, "rope", "cache", "--theta", "500000", "--head-dim", "128", "--n", str(n), "-q"]
    compare(
        f"RoPE cache {n:,} x 128, cos | sin, float32 .npy",
        "<= 1.5x",
        {
            "np.save of the same bytes": [py, "-c", SAVE.format(n=n, d=256), str(tmp / "s.npy")],
            "pecli rope cache --theta 500000 --head-dim 128": [*rope, "-o", str(tmp / "r.npy")],
            "  the same, to a new file (no output replaced)": fresh(rope, tmp),
        },
        rounds,
    )
    for made in tmp.glob("fresh-*.npy"):
        made.unlink()
    side = 64 if quick else 256
    grid = [pecli, "grid", str(side), str(side), "--d", "1024", "-q"]
    compare(
        f"grid {side} x {side}, d 1024, float32 .npy",
        "<= 1.5x",
        {
            "np.save of the same bytes": [
                py,
                "-c",
                SAVE.format(n=side * side, d=1024),
                str(tmp / "s.npy"),
            ],
            f"pecli grid {side} {side} --d 1024": [*grid, "-o", str(tmp / "g.npy")],
            "  the same, to a new file (no output replaced)": fresh(grid, tmp),
        },
        rounds,
    )
    for made in [*tmp.glob("fresh-*.npy"), tmp / "s.npy", tmp / "r.npy", tmp / "g.npy"]:
        made.unlink(missing_ok=True)
    model = tmp / "model.safetensors"
    checkpoint(py, model, 25_000 if quick else 250_000)
    compare(
        f"identify a {model.stat().st_size / 1e9:.2f} GB .safetensors (4096 x 768 table + "
        "a weight)",
        "<= 1.5x",
        {
            "read the file in 16 MB pieces": [py, "-c", READ, str(model)],
            "pecli identify model.safetensors": [pecli, "identify", str(model)],
        },
        rounds,
    )
    model.unlink()
    compare(
        "figure",
        "<= 1.2x",
        {
            "import matplotlib.figure, render the same image": [
                py,
                "-c",
                FIGURE,
                str(tmp / "f.png"),
            ],
            "pecli heatmap --d 128 --n 100 -o h.png": [
                pecli,
                "heatmap",
                "--d",
                "128",
                "--n",
                "100",
                "-o",
                str(tmp / "h.png"),
            ],
        },
        rounds,
    )


if __name__ == "__main__":
    main()
