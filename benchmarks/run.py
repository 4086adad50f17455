"""Run the benchmarks of issue 6 (`make bench`): python benchmarks/run.py [--quick]."""

from __future__ import annotations

import argparse
import os
import platform

import bench_csv
import bench_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load "
        f"{os.getloadavg()[0]:.2f}; Python {platform.python_version()}"
    )
    quick = ["--quick"] if args.quick else []
    bench_table.main([*quick, "--repeats", str(args.repeats)])
    bench_csv.main([*quick, "--repeats", str(args.repeats)])


if __name__ == "__main__":
    main()
