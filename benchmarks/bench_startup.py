"""Issue 6, targets 3 and 4: start-up of pecli's commands against bare-import floors.

Each command runs as a fresh process, the candidates interleaved round by round, and the
median wall time of the rounds is reported with its ratio to the floor:

* ``pecli --help``, ``pecli --version`` and ``pecli compute --d 512 --n 100 -o pe.npy``
  against ``python -c "import numpy, typer"`` (target: <= 1.2x), in this environment (the
  pinned versions) and, with ``--plain``, in a second one made by a plain ``pip install .``
  (the newest versions pyproject.toml allows, as users get them; built once in
  benchmarks/results/plain-venv);
* ``pecli heatmap --d 128 --n 100 -o h.png`` against a script that imports
  ``matplotlib.figure`` and renders the same image (target: <= 1.2x).

Run: python benchmarks/bench_startup.py [--repeats N] [--plain]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
ROOT = Path(__file__).resolve().parents[1]
PLAIN = ROOT / "benchmarks" / "results" / "plain-venv"

FIGURE_FLOOR = """
import numpy as np
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
fig.savefig(__import__("sys").argv[1])
"""


def plain_python() -> str:
    """The interpreter of a venv made by ``pip install .`` without constraints (built once)."""
    python = PLAIN / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PLAIN)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, str(ROOT)], check=True)
    return str(python)


def startup(folder: Path, python: str, title: str) -> tuple[str, list[str], dict, float]:
    """The start-up group for the pecli installed beside ``python``."""
    pecli = str(Path(python).with_name("pecli"))
    return (
        title,
        [python, "-c", "import numpy, typer"],
        {
            "pecli --help": [pecli, "--help"],
            "pecli --version": [pecli, "--version"],
            "pecli compute --d 512 --n 100 -o pe.npy": [
                pecli,
                "compute",
                "--d",
                "512",
                "--n",
                "100",
                "-o",
                str(folder / "pe.npy"),
            ],
        },
        1.2,
    )


def groups(folder: Path, plain: bool) -> list[tuple[str, list[str], dict[str, list[str]], float]]:
    """(title, floor command, {label: command}, target ratio) for each target."""
    pecli = str(Path(PYTHON).with_name("pecli"))
    versions = [startup(folder, PYTHON, "start-up (pinned versions)")]
    if plain:
        versions.append(startup(folder, plain_python(), "start-up (plain pip install .)"))
    return [
        *versions,
        (
            "figure",
            [PYTHON, "-c", FIGURE_FLOOR, str(folder / "floor.png")],
            {
                "pecli heatmap --d 128 --n 100 -o h.png": [
                    pecli,
                    "heatmap",
                    "--d",
                    "128",
                    "--n",
                    "100",
                    "-o",
                    str(folder / "h.png"),
                ],
            },
            1.2,
        ),
    ]


def wall(cmd: list[str]) -> float:
    begin = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - begin


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--plain", action="store_true", help="also a plain pip install .")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for title, floor, candidates, target in groups(Path(tmp), args.plain):
            everything = {"floor": floor, **candidates}
            for cmd in everything.values():  # warm-up: caches, font cache, .pyc files
                wall(cmd)
            times: dict[str, list[float]] = {label: [] for label in everything}
            for _ in range(args.repeats):
                for label, cmd in everything.items():
                    times[label].append(wall(cmd))
            base = statistics.median(times["floor"])
            print(f"\n{title}: median of {args.repeats} interleaved runs (target <= {target}x)")
            print(f"  {'floor: ' + ' '.join(floor[:2])[:40]:<44} {1e3 * base:7.0f} ms")
            for label in candidates:
                med = statistics.median(times[label])
                verdict = "ok" if med / base <= target else "OVER"
                print(f"  {label:<44} {1e3 * med:7.0f} ms {med / base:6.2f}x  {verdict}")


if __name__ == "__main__":
    main()
