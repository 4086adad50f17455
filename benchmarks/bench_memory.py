"""Peak memory of streamed output: ``pecli compute`` at growing --n, to a file and to stdout.

Each run is a fresh ``pecli`` process; its peak resident set size (ru_maxrss) is read with
``resource.getrusage(RUSAGE_CHILDREN)`` in a small parent process, so runs do not mix.
The full run includes the 2,000,000 × 512 float32 table of the robustness issue (a 4 GB
.npy, written to a temporary folder and removed); ``--quick`` stops at 200,000 rows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PECLI = [str(Path(sys.executable).with_name("pecli"))]
PARENT = (
    "import resource, subprocess, sys;"
    "out = open(sys.argv[1], 'wb');"
    "subprocess.run(sys.argv[2:], check=True, stdout=out);"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_rss(args: list[str], stdout: str) -> tuple[float, float]:
    """Run pecli with ``args``; return (peak RSS in MB, wall seconds)."""
    begin = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PARENT, stdout, *PECLI, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout) / 1024, time.perf_counter() - begin


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stop at 200,000 rows")
    quick = parser.parse_args(argv).quick
    sizes = [1_000, 200_000] if quick else [1_000, 200_000, 2_000_000]
    folder = Path(tempfile.mkdtemp(prefix="pecli-bench-", dir=os.environ.get("BENCH_TMP")))
    rows = []
    try:
        for n in sizes:
            target = folder / "table.npy"
            mb, seconds = peak_rss(
                ["compute", "--d", "512", "--n", str(n), "-o", str(target)], os.devnull
            )
            rows.append((f"npy file, n = {n:,}", target.stat().st_size / 1e6, mb, seconds))
            target.unlink()
        for n in (1_000, 100_000 if quick else 300_000):
            mb, seconds = peak_rss(
                ["compute", "--d", "512", "--n", str(n), "--format", "csv"], os.devnull
            )
            rows.append((f"csv stdout, n = {n:,}", float("nan"), mb, seconds))
    finally:
        shutil.rmtree(folder)
    print("\nmemory: one process per run")
    print(f"{'pecli compute --d 512':<28} {'file MB':>10} {'peak RSS MB':>12} {'wall s':>8}")
    for label, size, mb, seconds in rows:
        print(f"{label:<28} {size:>10.0f} {mb:>12.1f} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
