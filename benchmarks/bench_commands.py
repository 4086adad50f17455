"""Issue 13, target 6: the commands of the other issues, each against moving the same bytes.

One process per run (start-up included), interleaved, median of several repeats, peak RSS of
each child:

* ``pecli grid 256 256 --d 1024 -o grid.npy`` (65,536 x 1,024 float32, 256 MB) against a NumPy
  script that allocates, fills and ``np.save``s the same shape.
* ``pecli identify`` on a ~1 GB .safetensors checkpoint (a 4,096 x 768 sinusoidal table beside
  a 1 GB float32 weight) against a Python script reading the same file in 16 MB pieces.

* ``pecli precision`` with its defaults on a terminal (a pseudo-terminal): when its progress
  bar first shows and when it ends, against ``python -c "import numpy, typer"``.

The RoPE cache row is in bench_rope.py (pecli's writer against saving the same bytes).
Run: python benchmarks/bench_commands.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_end_to_end import PECLI, run

from pecli import encoding_table

SAVE = (
    "import numpy as np, sys; a = np.empty(({n}, {d}), np.float32); a.fill(0.5);"
    " np.save(sys.argv[1], a)"
)
READ = (
    "import sys; b = bytearray(16 << 20); f = open(sys.argv[1], 'rb', buffering=0)\n"
    "while f.readinto(b): pass"
)


def on_terminal(args: list[str]) -> tuple[float, float]:
    """Seconds until ``args`` on a pseudo-terminal first writes anything, and until it ends."""
    import pty
    import select
    import time

    begin = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdout and stderr are the terminal
        os.execv(args[0], args)
    first = None
    with contextlib.suppress(OSError):  # EIO once the child has closed the terminal
        while select.select([fd], [], [], 60)[0] and os.read(fd, 1 << 16):
            first = first or time.perf_counter() - begin
    os.waitpid(pid, 0)
    os.close(fd)
    return first or float("nan"), time.perf_counter() - begin


def precision_rows(repeats: int) -> None:
    """``pecli precision`` on a terminal against the start-up of its imports."""
    anchor = [sys.executable, "-c", "import numpy, typer"]
    firsts, totals, imports = [], [], []
    for _ in range(repeats):
        first, total = on_terminal([PECLI, "precision"])
        firsts.append(first)
        totals.append(total)
        imports.append(on_terminal(anchor)[1])
    floor = statistics.median(imports)
    print(f"\npecli precision (its defaults) on a pseudo-terminal; median of {repeats}")
    rows = {
        "python -c 'import numpy, typer'": imports,
        "precision: first bar shown": firsts,
        "precision: done": totals,
    }
    for name, t in rows.items():
        print(f"{name:36} {statistics.median(t):9.3f} {statistics.median(t) / floor:8.2f}")


def checkpoint(path: Path, weight_rows: int) -> None:
    """A .safetensors file: a sinusoidal table and a large learned-looking weight."""
    from safetensors.numpy import save_file

    weight = np.random.default_rng(13).standard_normal((weight_rows, 1024), dtype=np.float32)
    table = encoding_table(d=768, n=4096, start=0)
    save_file({"encoder.pos_embed": table, "decoder.weight": weight}, str(path))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 64 x 64 grid, a 100 MB checkpoint")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    side, weight_rows = (64, 25_000) if args.quick else (256, 250_000)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as folder:
        npy, model = str(Path(folder) / "grid.npy"), Path(folder) / "model.safetensors"
        checkpoint(model, weight_rows)
        py, tokens = sys.executable, side * side
        rows = {
            "grid: np.empty+fill+np.save": [py, "-c", SAVE.format(n=tokens, d=1024), npy],
            f"grid: pecli grid {side} {side} --d 1024": [
                PECLI,
                "grid",
                str(side),
                str(side),
                "--d",
                "1024",
                "-o",
                npy,
                "-q",
            ],
            "identify: read the file": [py, "-c", READ, str(model)],
            "identify: pecli identify": [PECLI, "identify", str(model)],
        }
        times: dict[str, list[float]] = {name: [] for name in rows}
        peaks: dict[str, float] = {}
        for command in rows.values():  # warm-up: page cache, bytecode
            run(command)
        for _ in range(args.repeats):
            for name, command in rows.items():
                seconds, peaks[name] = run(command)
                times[name].append(seconds)
        size = model.stat().st_size / 1e9
    print(f"\nNew commands (load average {os.getloadavg()[0]:.2f}); median of {args.repeats}")
    print(f"grid: {tokens:,} x 1024 float32; checkpoint: {size:.2f} GB .safetensors\n")
    print(f"{'':36} {'median s':>9} {'x floor':>8} {'peak MB':>8}")
    names = list(rows)
    for anchor, name in ((names[0], names[1]), (names[2], names[3])):
        floor = statistics.median(times[anchor])
        for row in (anchor, name):
            med = statistics.median(times[row])
            print(f"{row:36} {med:9.3f} {med / floor:8.2f} {peaks[row]:8.0f}")
    precision_rows(args.repeats)


if __name__ == "__main__":
    main()
