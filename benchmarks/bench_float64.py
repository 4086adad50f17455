"""Issue 13, target 4: a float64 table against the plain NumPy float64 formula, with accuracy.

Rows, interleaved, median of several repeats (200,000 x 512 float64, positions 1 … n):

* plain formula  positions x frequencies in float64, np.sin, np.cos, interleaved (target:
  pecli ≤ 1.0x this)
* pecli          ``encoding_table(dtype="float64")``: double-double angles, evaluated directly

Accuracy: every entry of spot rows (first, last and random rows) against mpmath at 40 digits,
in units of the float64 ulp of the exact value (largest, and the share above one ulp).
Run: python benchmarks/bench_float64.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import statistics
import time

import mpmath
import numpy as np

from pecli import encoding_table

mpmath.mp.dps = 40
BASE = 10000.0


def plain_formula(n: int, d: int) -> np.ndarray:
    positions = np.arange(1, n + 1, dtype=np.float64)[:, None]
    angles = positions * np.power(BASE, -np.arange(0, d, 2, dtype=np.float64) / d)
    table = np.empty((n, d))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


def pecli_float64(n: int, d: int) -> np.ndarray:
    return encoding_table(d=d, n=n, base=BASE, dtype="float64")


def exact(rows: np.ndarray, d: int) -> list[list[mpmath.mpf]]:
    omega = [mpmath.power(BASE, -mpmath.mpf(2 * j) / d) for j in range(d // 2)]
    return [[f((int(r) + 1) * w) for w in omega for f in (mpmath.sin, mpmath.cos)] for r in rows]


def ulps(table: np.ndarray, rows: np.ndarray, truth: list[list[mpmath.mpf]]) -> np.ndarray:
    """|entry - exact| / ulp(exact) for every entry of the spot rows."""
    got = table[rows]
    out = np.empty(got.shape)
    for i, row in enumerate(truth):
        for j, value in enumerate(row):
            gap = float(np.spacing(abs(float(value))))
            out[i, j] = float(abs(mpmath.mpf(float(got[i, j])) - value)) / gap
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 rows instead of 200,000")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    n, d = (20_000 if args.quick else 200_000), 512
    rows = np.unique(np.r_[0, n - 1, np.random.default_rng(13).integers(0, n, 4)])
    truth = exact(rows, d)
    candidates = {"plain NumPy float64 formula": plain_formula, "pecli float64": pecli_float64}
    times: dict[str, list[float]] = {name: [] for name in candidates}
    errors = {}
    for _ in range(args.repeats):
        for name, make in candidates.items():
            begin = time.perf_counter()
            table = make(n, d)
            times[name].append(time.perf_counter() - begin)
            errors[name] = ulps(table, rows, truth) if name not in errors else errors[name]
            del table
    anchor = statistics.median(times["plain NumPy float64 formula"])
    print(f"\nfloat64 table {n:,} x {d}; median of {args.repeats}, interleaved runs")
    print(f"accuracy: {rows.size * d} entries of {rows.size} spot rows vs mpmath, in ulps\n")
    print(f"{'':30} {'median s':>9} {'ratio':>6} {'max ulps':>9} {'> 1 ulp':>8}  range s")
    for name, t in times.items():
        err = errors[name]
        share = f"{np.mean(err > 1):.1%}"
        spread = f"{min(t):.2f}–{max(t):.2f}"
        med = statistics.median(t)
        print(f"{name:30} {med:9.3f} {med / anchor:6.2f} {err.max():9.3g} {share:>8}  {spread}")


if __name__ == "__main__":
    main()
