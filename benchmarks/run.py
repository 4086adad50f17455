"""Every benchmark in one run (`make bench-all`; `make bench` runs bench_headline.py).

Table compute, CSV export, start-up and figure, peak memory, a RoPE cache, a multi-axis
RoPE cache, whole commands
(npy, CSV), the float64 table, grid / identify / precision; each prints its own table of
ratios against the anchors measured in the same run. ``make bench`` takes 15-30 minutes on a
shared 2-core machine (the memory benchmark writes and deletes a 4 GB file, the end-to-end
one 2 GB files); ``--quick`` is a smoke run.
"""

from __future__ import annotations

import argparse
import os
import platform

import bench_axes
import bench_commands
import bench_csv
import bench_end_to_end
import bench_float64
import bench_memory
import bench_rope
import bench_startup
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
    plain = [] if args.quick else ["--plain"]  # also a venv of the newest allowed versions
    bench_startup.main(["--repeats", "5" if args.quick else "21", *plain])
    bench_memory.main(quick)
    bench_rope.main([*quick, "--repeats", str(args.repeats)])
    bench_axes.main([*quick, "--repeats", str(args.repeats)])
    bench_end_to_end.main([*quick, "--repeats", str(args.repeats)])
    bench_float64.main([*quick, "--repeats", str(args.repeats)])
    bench_commands.main([*quick, "--repeats", str(args.repeats)])


if __name__ == "__main__":
    main()
