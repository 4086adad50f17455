"""Issue 25: a multi-axis rotary cache, Wan's 21 × 60 × 104 video grid (131,040 tokens, head
128: cos | sin, 256 float32 columns, 134 MB), to .npy.

Rows, measured side by side in one run, interleaved, median of several repeats:

* floor             writing the same bytes: np.full((n, 256), 0.5, float32) saved as .npy
* diffusers-style   NumPy as WanRotaryPosEmbed does it: a float64 table per axis over 1024
                    positions (interleaved), expanded over the grid, then saved
* pecli             axes_cache_blocks (exact angles, each value rounded once; the grid's ids
                    made a block at a time) through pecli.io.writing.write_table

Accuracy: largest |entry − exact| on spot rows against mpmath (40 digits).
Run: python benchmarks/bench_axes.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse

import mpmath
import numpy as np
from bench_rope import show, time_caches

from pecli.core.multiaxis import AxesSpec, axes_cache_blocks, axis_preset
from pecli.io.writing import write_table

mpmath.mp.dps = 40
WAN = axis_preset("wan")
PLAN = WAN.plan()


def floor(grid: list[int], path: str) -> np.ndarray:
    table = np.full((int(np.prod(grid)), 256), 0.5, dtype=np.float32)
    np.save(path, table)
    return table


def diffusers_style(grid: list[int], path: str) -> np.ndarray:
    tables = []
    for width in (44, 42, 42):
        inv = 1.0 / (10000.0 ** (np.arange(0, width, 2, dtype=np.float64) / width))
        angles = np.outer(np.arange(1024, dtype=np.float64), inv)
        tables.append((np.repeat(np.cos(angles), 2, 1), np.repeat(np.sin(angles), 2, 1)))
    f, h, w = grid
    parts = []
    for k in (0, 1):
        t_, h_, w_ = (tab[k] for tab in tables)
        block = (
            np.concatenate(
                [
                    np.broadcast_to(t_[:f, None, None, :], (f, h, w, 44)),
                    np.broadcast_to(h_[None, :h, None, :], (f, h, w, 42)),
                    np.broadcast_to(w_[None, None, :w, :], (f, h, w, 42)),
                ],
                axis=-1,
            )
            .reshape(f * h * w, 128)
            .astype(np.float32)
        )
        parts.append(block)
    table = np.concatenate(parts, axis=1)
    np.save(path, table)
    return table


def pecli_axes(grid: list[int], path: str) -> np.ndarray:
    source = WAN.id_source(grid)
    blocks = axes_cache_blocks(AxesSpec(PLAN, source))
    write_table(
        blocks,
        output=path,
        fmt="npy",
        shape=(source.n, 256),
        dtype=np.dtype(np.float32),
        columns=[],
    )
    return np.load(path, mmap_mode="r")


CANDIDATES = {
    "floor (same bytes to .npy)": floor,
    "diffusers-style float64": diffusers_style,
    "pecli axes_cache_blocks -> .npy": pecli_axes,
}


def exact(grid: list[int], rows: np.ndarray) -> np.ndarray:
    ids = WAN.ids(grid)[rows]
    out = []
    for row in ids:
        values = []
        for j in range(PLAN.pairs):
            w = mpmath.power(
                mpmath.mpf(10000), -mpmath.mpf(2 * PLAN.index[j]) / PLAN.denominator[j]
            )
            values.append(mpmath.mpf(float(row[PLAN.axis[j]])) * w)
        cos = [float(mpmath.cos(a)) for a in values for _ in (0, 1)]
        sin = [float(mpmath.sin(a)) for a in values for _ in (0, 1)]
        out.append(cos + sin)
    return np.array(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 5 × 30 × 52 grid")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    grid = [5, 30, 52] if args.quick else [21, 60, 104]
    n = int(np.prod(grid))
    rows = np.array([0, 1, 4097, n // 2, n - 1])
    want = exact(grid, rows)
    times, errors = time_caches(CANDIDATES, grid, rows, want, args.repeats)
    print(
        f"\nWan cache {'x'.join(map(str, grid))} ({n:,} tokens) x 128, cos | sin float32, "
        f"to .npy; median of {args.repeats}"
    )
    show(times, errors, width=32)


if __name__ == "__main__":
    main()
