"""Issue 6, target 1: computing a 1,000,000 x 512 float32 table, interleaved.

Rows, measured side by side in one run, interleaved, median of several repeats:

* floor            np.empty + fill: allocating and touching the output, nothing computed
* pytorch formula  the PyTorch tutorial's formula in NumPy float32
* float64 -> cast  the exact-but-slow anchor: float64 angles, sin, cos, then cast to float32
* pecli            pecli.encoding_table(d=512, n=1_000_000, start=0), the Python API
* kernel, 1 thread pecli.core.kernels.fill_sin_cos_consecutive on one core, for scale

Accuracy: maximum |entry - exact| on spot rows (first, last, middle and random rows), exact =
mpmath at 40 digits, and how many of those entries differ from the correctly rounded float32.
Run: python benchmarks/bench_table.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable

import mpmath
import numpy as np

from pecli import encoding_table
from pecli.core.angles import frequency_residuals
from pecli.core.kernels import fill_sin_cos_consecutive
from pecli.core.sinusoidal.encoding import angular_frequencies

mpmath.mp.dps = 40
BASE = 10000.0


def floor(m: int, d: int) -> np.ndarray:
    out = np.empty((m, d), dtype=np.float32)
    out.fill(0.5)
    return out


def pytorch_formula(m: int, d: int) -> np.ndarray:
    position = np.arange(m, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-(math.log(BASE) / d)))
    pe = np.zeros((m, d), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def float64_then_cast(m: int, d: int) -> np.ndarray:
    omega = angular_frequencies(d, base=BASE)
    out = np.empty((m, d), dtype=np.float32)
    for row in range(0, m, 65536):  # in slices, so the float64 temporaries stay small
        angles = np.arange(row, min(row + 65536, m), dtype=np.float64)[:, None] * omega
        out[row : row + 65536, 0::2] = np.sin(angles)
        out[row : row + 65536, 1::2] = np.cos(angles)
    return out


def pecli_api(m: int, d: int) -> np.ndarray:
    return encoding_table(d=d, n=m, start=0, base=BASE, dtype=np.float32)


def kernel(m: int, d: int, workers: int | None = None) -> np.ndarray:
    omega = angular_frequencies(d, base=BASE)
    residual = frequency_residuals(omega, base=BASE, denominator=d // 2)
    out = np.empty((m, d), dtype=np.float32)
    fill_sin_cos_consecutive(
        out[:, 0::2], out[:, 1::2], 0.0, omega, omega_residual=residual, workers=workers
    )
    return out


def kernel_1_thread(m: int, d: int) -> np.ndarray:
    return kernel(m, d, workers=1)


CANDIDATES: dict[str, Callable[[int, int], np.ndarray]] = {
    "floor (np.empty + fill)": floor,
    "PyTorch formula, NumPy float32": pytorch_formula,
    "float64 -> float32 (direct)": float64_then_cast,
    "pecli.encoding_table": pecli_api,
    "kernel (1 thread)": kernel_1_thread,
}


def exact_rows(rows: np.ndarray, d: int) -> np.ndarray:
    """mpmath values of pe(rows) (0-based positions), interleaved, float64 (40-digit rounded)."""
    omega = [mpmath.power(BASE, -mpmath.mpf(2 * j) / d) for j in range(d // 2)]
    return np.array(
        [[float(f(int(p) * w)) for w in omega for f in (mpmath.sin, mpmath.cos)] for p in rows]
    )


def accuracy(table: np.ndarray, rows: np.ndarray, exact: np.ndarray) -> tuple[float, int]:
    got = table[rows].astype(np.float64)
    if np.all(got[:, 0] == 0.5):  # the floor computes nothing
        return math.nan, -1
    return float(np.abs(got - exact).max()), int(
        np.count_nonzero(table[rows] != exact.astype(np.float32))
    )


def run(m: int, d: int, repeats: int) -> dict[str, float]:
    rng = np.random.default_rng(6)
    rows = np.unique(np.concatenate([[0, 1, m // 2, m - 1], rng.integers(0, m, 8)]))
    exact = exact_rows(rows, d)
    floor(m, d)  # warm-up: the first touch of fresh memory in this VM is much slower
    times: dict[str, list[float]] = {name: [] for name in CANDIDATES}
    errors: dict[str, tuple[float, int]] = {}
    for _ in range(repeats):
        for name, make in CANDIDATES.items():
            start = time.perf_counter()
            table = make(m, d)
            times[name].append(time.perf_counter() - start)
            errors[name] = accuracy(table, rows, exact)
            del table
    report(m, d, repeats, rows.size, times, errors)
    return {name: statistics.median(t) for name, t in times.items()}


def report(m, d, repeats, n_rows, times, errors) -> None:
    base = statistics.median(times["floor (np.empty + fill)"])
    print(f"\nTable {m:,} x {d} float32, interleaved; median of {repeats}, interleaved runs")
    print(f"accuracy on {n_rows} spot rows vs mpmath (40 digits)\n")
    best = min(times["floor (np.empty + fill)"])
    head = f"{'median s':>9} {'x floor':>8} {'best x':>7} {'max |err|':>10} {'≠ rounded':>10}"
    print(f"{'':34} {head}")
    for name, t in times.items():
        med = statistics.median(t)
        err, wrong = errors[name]
        err_text = "—" if math.isnan(err) else f"{err:.3g}"
        wrong_text = "—" if wrong < 0 else f"{wrong}/{n_rows * d}"
        ratios = f"{med / base:8.2f} {min(t) / best:7.2f}"
        print(f"{name:34} {med:9.3f} {ratios} {err_text:>10} {wrong_text:>10}")
    spread = {k: f"{min(v):.3f}–{max(v):.3f}" for k, v in times.items()}
    print("x floor: ratio of medians; best x: ratio of the fastest runs (less hit by noise)")
    print("range of times (s):", "; ".join(f"{k}: {v}" for k, v in spread.items()))


def far_positions(d: int) -> None:
    """The kernel at positions near 1e7 (beyond the benchmark table), against mpmath."""
    first, m = 10_000_000 - 6, 6
    omega = angular_frequencies(d, base=BASE)
    residual = frequency_residuals(omega, base=BASE, denominator=d // 2)
    out = np.empty((m, d), dtype=np.float32)
    fill_sin_cos_consecutive(
        out[:, 0::2], out[:, 1::2], float(first), omega, omega_residual=residual
    )
    positions = np.arange(first, first + m)
    exact = exact_rows(positions, d)
    direct = np.empty((m, d))
    angles = positions[:, None] * omega
    direct[:, 0::2], direct[:, 1::2] = np.sin(angles), np.cos(angles)
    for name, t in (("kernel", out), ("float64 -> float32", direct.astype(np.float32))):
        wrong = np.count_nonzero(t != exact.astype(np.float32))
        print(
            f"positions {first:,}…{first + m - 1:,}: {name:18} max |err| "
            f"{np.abs(t - exact).max():.4g}, ≠ correctly rounded {wrong}/{m * d}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 rows instead of 1,000,000")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    run(100_000 if args.quick else 1_000_000, 512, args.repeats)
    far_positions(512)


if __name__ == "__main__":
    main()
