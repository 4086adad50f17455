"""Peak memory and time of ``pecli add`` on a large .npy: streamed (memory map) vs whole.

Usage: python benchmarks/bench_add.py [ROWS] [D]   (default 200000 x 1024 float32, 0.8 GB)

Each variant runs in its own process; peak RSS is its ru_maxrss (os.wait4). "whole" is the
obvious in-memory alternative: np.load the file, add_encoding on everything, np.save.
Prints one line per variant and the ratios.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WHOLE = (
    "import sys, numpy as np; from pecli import add_encoding;"
    "np.save(sys.argv[2], add_encoding(np.load(sys.argv[1], allow_pickle=False)))"
)


MAKE_INPUT = (
    "import sys, numpy as np; rows, d = int(sys.argv[2]), int(sys.argv[3]);"
    "x = np.lib.format.open_memmap(sys.argv[1], mode='w+', dtype=np.float32, shape=(rows, d));"
    "x[:] = 0.5; x.flush()"
)


def run(command: list[str]) -> tuple[float, float] | None:
    """Wall time in s and peak RSS in MiB of one child process (its own rusage)."""
    start = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:  # e.g. killed by the kernel when out of memory
        print(f"{' '.join(command[:2])}: failed (wait status {status})")
        return None
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    d = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    pecli = str(Path(sys.executable).with_name("pecli"))
    with tempfile.TemporaryDirectory() as tmp:
        source, out = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
        # written by a child, so that this process stays small (a fork copies its RSS)
        subprocess.run([sys.executable, "-c", MAKE_INPUT, source, str(rows), str(d)], check=True)
        size = os.path.getsize(source) / 2**20
        print(f"input: {rows} x {d} float32, {size:.0f} MiB")
        results = {
            "streamed (pecli add)": run([pecli, "add", "-i", source, "-o", out]),
            "whole (np.load + add)": run([sys.executable, "-c", WHOLE, source, out]),
        }
    for name, result in results.items():
        if result is not None:
            print(f"{name:24s} {result[0]:6.2f} s   peak RSS {result[1]:7.0f} MiB")
    streamed, whole = results.values()
    if streamed and whole:
        print(
            f"peak memory ratio whole/streamed: {whole[1] / streamed[1]:.1f}x; "
            f"time ratio streamed/whole: {streamed[0] / whole[0]:.2f}"
        )


if __name__ == "__main__":
    main()
