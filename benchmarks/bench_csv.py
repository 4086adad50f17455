"""Issue 6, target 2 (measurement only): writing a 10,000 x 512 float32 table as CSV.

Candidates, side by side in one run, interleaved, median of several repeats:
np.savetxt(fmt='%.9g') (the anchor), polars write_csv (a pecli dependency) from the numpy
table and from a DataFrame built beforehand (formatting and writing only: the most any
polars-based writer can reach here), pyarrow.csv (only if installed; not a pecli
dependency). Each file gets a plain header line. The round trip is checked independently
of the writers: np.loadtxt parses every file back (float64, then rounded to float32) and the
result must equal the table bit for bit.
Run: python benchmarks/bench_csv.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pecli import component_names, encoding_table
from pecli.io.writing import write_table


def savetxt(table: np.ndarray, names: list[str], path: Path) -> None:
    np.savetxt(path, table, fmt="%.9g", delimiter=",", header=",".join(names), comments="")


def polars_csv(table: np.ndarray, names: list[str], path: Path) -> None:
    import polars as pl

    pl.DataFrame(table, schema=names, orient="row").write_csv(path)


_BUILT: dict[int, tuple[np.ndarray, object]] = {}  # id(table) -> (table, its DataFrame)


def polars_prebuilt(table: np.ndarray, names: list[str], path: Path) -> None:
    import polars as pl

    if id(table) not in _BUILT:  # built once, outside the timing of later repeats
        _BUILT[id(table)] = (table, pl.DataFrame(table, schema=names, orient="row"))
    frame = _BUILT[id(table)][1]
    assert isinstance(frame, pl.DataFrame)
    frame.write_csv(path)


def pecli_csv(table: np.ndarray, names: list[str], path: Path) -> None:
    write_table(
        [table], output=path, fmt="csv", shape=table.shape, dtype=table.dtype, columns=names
    )


def pyarrow_csv(table: np.ndarray, names: list[str], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    pacsv.write_csv(pa.Table.from_arrays(list(table.T), names=names), path)


def writers() -> dict[str, Callable[[np.ndarray, list[str], Path], None]]:
    found = {
        "np.savetxt %.9g": savetxt,
        "polars write_csv": polars_csv,
        "polars, frame prebuilt": polars_prebuilt,
        "pecli (writing.write_table)": pecli_csv,
    }
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        print("pyarrow is not installed: its row is skipped")
    else:
        found["pyarrow.csv.write_csv"] = pyarrow_csv
    return found


def round_trips(table: np.ndarray, names: list[str], path: Path) -> str:
    with path.open() as f:
        plain_header = f.readline().rstrip("\n") == ",".join(names)
    back = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64).astype(np.float32)
    values = "values exact" if np.array_equal(back, table) else "VALUES DIFFER"
    return f"{values}, header {'plain' if plain_header else 'NOT plain (quoted)'}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 rows instead of 10,000")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    n, d = (1_000 if args.quick else 10_000), 512
    table = encoding_table(d=d, n=n, start=0)
    names = component_names(d)
    candidates = writers()
    times: dict[str, list[float]] = {name: [] for name in candidates}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: Path(tmp) / f"{k}.csv" for k, name in enumerate(candidates)}
        for name, write in candidates.items():  # warm-up: imports (and the frame) untimed
            write(table[:10] if name != "polars, frame prebuilt" else table, names, paths[name])
        for _ in range(args.repeats):
            for name, write in candidates.items():
                start = time.perf_counter()
                write(table, names, paths[name])
                times[name].append(time.perf_counter() - start)
        anchor = statistics.median(times["np.savetxt %.9g"])
        print(f"\nCSV {n:,} x {d} float32; median of {args.repeats}, interleaved runs\n")
        print(f"{'':28} {'median s':>9} {'speed-up':>9} {'MB':>7}  round trip (np.loadtxt)")
        for name, t in times.items():
            med = statistics.median(t)
            size = paths[name].stat().st_size / 1e6
            exact = round_trips(table, names, paths[name])
            print(f"{name:28} {med:9.3f} {anchor / med:8.1f}x {size:7.1f}  {exact}")


if __name__ == "__main__":
    main()
