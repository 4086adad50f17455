"""Issue 14: a RoPE cos/sin cache of 131,072 positions x head_dim 128 (Llama 3.1), to .npy.

Rows, measured side by side in one run, interleaved, median of several repeats:

* floor               writing the same bytes: np.full((n, 256), 0.5, float32) saved as .npy
* transformers-style  NumPy float32 as LlamaRotaryEmbedding.forward does it (inv_freq in
                      float32, angles p·ω in float32, cos/sin in float32), then saved
* pecli               cache_blocks (exact angles, correctly rounded float32) through
                      pecli.io.writing.write_table into the .npy

Accuracy: largest |entry − exact| on spot rows against mpmath (40 digits).
Run: python benchmarks/bench_rope.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import mpmath
import numpy as np

from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, cache_blocks
from pecli.core.rope.formulas import llama3
from pecli.io.writing import write_table

mpmath.mp.dps = 40
SPEC = RopeSpec(
    rope_type="llama3",
    theta=500000.0,
    head_dim=128,
    factor=8.0,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
    original_max_position_embeddings=8192,
)


def floor(n: int, path: str) -> np.ndarray:
    table = np.full((n, 256), 0.5, dtype=np.float32)
    np.save(path, table)
    return table


def transformers_style(n: int, path: str) -> np.ndarray:
    inv = rope_frequencies(SPEC).inv_freq.astype(np.float32)
    freqs = np.arange(n, dtype=np.float32)[:, None] * inv
    emb = np.concatenate([freqs, freqs], axis=1)
    table = np.concatenate([np.cos(emb), np.sin(emb)], axis=1)
    np.save(path, table)
    return table


def pecli_cache(n: int, path: str) -> np.ndarray:
    blocks = cache_blocks(CacheSpec(rope_frequencies(SPEC), n, dtype=np.float32))
    write_table(
        blocks, output=path, fmt="npy", shape=(n, 256), dtype=np.dtype(np.float32), columns=[]
    )
    return np.load(path, mmap_mode="r")


CANDIDATES = {
    "floor (same bytes to .npy)": floor,
    "transformers-style float32": transformers_style,
    "pecli cache_blocks -> .npy": pecli_cache,
}


def exact(rows: np.ndarray) -> np.ndarray:
    inv = [mpmath.mpf(str(w)) for w in llama3(SPEC).inv_freq]
    out = []
    for p in rows:
        cos = [float(mpmath.cos(int(p) * w)) for w in inv]
        sin = [float(mpmath.sin(int(p) * w)) for w in inv]
        out.append(cos + cos + sin + sin)
    return np.array(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="16,384 positions")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    n = 16_384 if args.quick else 131_072
    rows = np.array([0, 1, 4097, n // 2, n - 1])
    want = exact(rows)
    times, errors = time_caches(CANDIDATES, n, rows, want, args.repeats)
    print(f"\nRoPE cache {n:,} x 128 (cos | sin, float32) to .npy; median of {args.repeats}")
    show(times, errors, width=30)


def time_caches(
    candidates: dict, size: object, rows: np.ndarray, want: np.ndarray, repeats: int
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Each candidate's times (interleaved, ``repeats`` rounds) and its largest error at ``rows``.

    A candidate is ``make(size, path) -> table``, writing ``path`` (a .npy in a scratch folder).
    """
    times: dict[str, list[float]] = {k: [] for k in candidates}
    errors: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for name, make in candidates.items():
                path = os.path.join(tmp, "cache.npy")
                start = time.perf_counter()
                table = make(size, path)
                times[name].append(time.perf_counter() - start)
                errors[name] = float(np.abs(np.asarray(table[rows], np.float64) - want).max())
                del table
    return times, errors


def show(times: dict[str, list[float]], errors: dict[str, float], *, width: int) -> None:
    """One line per candidate: median seconds, ratio to the floor (same bytes to .npy), error."""
    base = statistics.median(times["floor (same bytes to .npy)"])
    for name, t in times.items():
        med = statistics.median(t)
        print(
            f"{name:{width}} {med:7.3f} s {med / base:6.2f}x floor   max |err| {errors[name]:.3g}"
        )


if __name__ == "__main__":
    main()
