"""Issue 13, targets 2 and 3: whole commands as a user runs them, against scripts of the same bytes.

Every row is a fresh process (start-up included) except the in-process kernel; all rows run
interleaved, median of several repeats, peak RSS of each child (through a small parent).

* npy 1,000,000 x 512 float32 to a file: ``pecli compute -o t.npy`` against a NumPy script
  that allocates, fills and ``np.save``s the same bytes (target ≤ 1.2x), and ``dd`` of them.
* npy to /dev/null against the kernel making the same blocks in process (target ≤ 1.5x).
* CSV 10,000 x 512 float32 to stdout and to a file against a NumPy script that builds the
  table and calls ``np.savetxt('%.9g')`` (target ≤ 0.35x).

Run: python benchmarks/bench_end_to_end.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pecli.core.sinusoidal.encoding import table_blocks

PECLI = str(Path(sys.executable).with_name("pecli"))
SAVE = (
    "import numpy as np, sys; a = np.empty(({n}, 512), np.float32); a.fill(0.5);"
    " np.save(sys.argv[1], a)"
)
SAVETXT = (
    "import math, sys, numpy as np; n, d = {n}, 512\n"
    "p = np.arange(n, dtype=np.float32)[:, None]\n"
    "w = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-math.log(1e4) / d))\n"
    "t = np.empty((n, d), np.float32); t[:, 0::2] = np.sin(p * w); t[:, 1::2] = np.cos(p * w)\n"
    "np.savetxt(sys.argv[1], t, fmt='%.9g', delimiter=',',"
    " header=','.join(f'c{{k}}' for k in range(d)), comments='')"
)


PARENT = (  # a small parent: the child's peak RSS is its own, not a copy of this process's
    "import resource, subprocess, sys, time; out = open(sys.argv[1], 'wb');"
    "t = time.perf_counter(); subprocess.run(sys.argv[2:], check=True, stdout=out);"
    "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def run(args: list[str], stdout: str = os.devnull) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process."""
    out = subprocess.run(
        [sys.executable, "-c", PARENT, stdout, *args], capture_output=True, text=True, check=True
    )
    seconds, kb = out.stdout.split()
    return float(seconds), int(kb) / 1024


def kernel(n: int) -> tuple[float, float]:
    begin = time.perf_counter()
    for _ in table_blocks(d=512, n=n):
        pass
    return time.perf_counter() - begin, float("nan")


def candidates(n_npy: int, n_csv: int, tmp: Path) -> dict[str, Callable[[], tuple[float, float]]]:
    npy, csv = str(tmp / "t.npy"), str(tmp / "t.csv")
    py = sys.executable
    size = n_npy * 512 * 4 + 128
    return {
        "npy file: np.empty+fill+np.save": lambda: run([py, "-c", SAVE.format(n=n_npy), npy]),
        "npy file: dd of the bytes": lambda: run(
            ["dd", "if=/dev/zero", f"of={npy}", "bs=1M", f"count={size >> 20}", "status=none"]
        ),
        "npy file: pecli compute -o t.npy": lambda: run(
            [PECLI, "compute", "--d", "512", "--n", str(n_npy), "-o", npy, "-q"]
        ),
        "npy: kernel in process": lambda: kernel(n_npy),
        "npy /dev/null: pecli compute": lambda: run(
            [PECLI, "compute", "--d", "512", "--n", str(n_npy), "--format", "npy"]
        ),
        "csv: np.savetxt script": lambda: run([py, "-c", SAVETXT.format(n=n_csv), csv]),
        "csv stdout: pecli compute": lambda: run(
            [PECLI, "compute", "--d", "512", "--n", str(n_csv), "--format", "csv"]
        ),
        "csv file: pecli compute -o t.csv": lambda: run(
            [PECLI, "compute", "--d", "512", "--n", str(n_csv), "-o", csv, "-q"]
        ),
    }


RATIOS = {  # row: (anchor, bound)
    "npy file: dd of the bytes": ("npy file: np.empty+fill+np.save", None),
    "npy file: pecli compute -o t.npy": ("npy file: np.empty+fill+np.save", 1.2),
    "npy /dev/null: pecli compute": ("npy: kernel in process", 1.5),
    "csv stdout: pecli compute": ("csv: np.savetxt script", 0.35),
    "csv file: pecli compute -o t.csv": ("csv: np.savetxt script", 0.35),
}


def report(times: dict[str, list[float]], peaks: dict[str, float], repeats: int) -> None:
    print(f"\nEnd to end, one process per run (start-up included); median of {repeats}")
    print(f"{'':36} {'median s':>9} {'ratio':>6} {'bound':>6} {'anchor':<32} {'peak MB':>8}")
    for name, t in times.items():
        med = statistics.median(t)
        anchor, bound = RATIOS.get(name, (None, None))
        ratio = f"{med / statistics.median(times[anchor]):6.2f}" if anchor else f"{'':6}"
        limit = f"≤{bound:<5}" if bound else f"{'':6}"
        print(f"{name:36} {med:9.3f} {ratio} {limit} {anchor or '':<32} {peaks[name]:8.0f}")
    spread = "; ".join(f"{k}: {min(v):.2f}–{max(v):.2f}" for k, v in times.items())
    print("range of times (s):", spread)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 npy rows, 1,000 CSV rows")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    n_npy, n_csv = (100_000, 1_000) if args.quick else (1_000_000, 10_000)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as folder:
        rows = candidates(n_npy, n_csv, Path(folder))
        times: dict[str, list[float]] = {name: [] for name in rows}
        peaks: dict[str, float] = {}
        for make in rows.values():  # warm-up: page cache, bytecode
            make()
        for _ in range(args.repeats):
            for name, make in rows.items():
                seconds, peaks[name] = make()
                times[name].append(seconds)
    print(f"load average {os.getloadavg()[0]:.2f}")
    report(times, peaks, args.repeats)


if __name__ == "__main__":
    main()
