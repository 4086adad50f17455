"""What the correct-rounding certificate costs a whole command (issue 36: at most 5 %).

Run a pecli command with the rounding to the output dtype done one of three ways (one
process, the same start-up for each):

* ``off``: without the certificate, as pecli wrote before it. The consecutive kernel's
  complex product is rounded straight into the table
  (``np.multiply(..., out=complex64 view, casting="same_kind")``); every other writer
  (the direct kernel: grids, multi-axis caches, half dtypes, an amplitude, relative rows,
  timesteps; a cache's attention factor; ALiBi's products; xPos) still makes its float64
  values and casts them once (``round_certified``'s rounding), but no bound is computed
  (``direct_bound``, ``xpos_bound``: an empty bound) and nothing is checked (``undecided``
  finds nothing), so nothing is recomputed;
* ``numpy``: the certificate's NumPy pass (the reference: product, ``v ± e``, comparison);
* ``compiled``: the certificate's compiled pass (``pecli.core.certificate._fused``), the
  default of an installed pecli.

    python benchmarks/bench_certificate.py run MODE -- ARGS...   # one run: pecli ARGS
    python benchmarks/bench_certificate.py [--rounds N] [--quick] [--only WORD]  # the table

The table: each command under ``off``, ``compiled`` and ``numpy`` in turn, round after round
(interleaved), medians of CPU (user + sys of the child) and user seconds, and the ratios to
``off``: the system time of the 2 GB table is its writing (page cache, writeback), which
varies by seconds from run to run with the disk's state; user time is the computing.
Writes to a scratch folder (2 GB for the largest table) deleted at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("off", "compiled", "numpy")


def run(mode: str, args: list[str]) -> None:
    """Run ``pecli ARGS`` in this process with the rounding done as ``mode`` says."""
    from pecli.core.certificate import blocks

    if mode == "numpy":
        blocks.compiled.usable = lambda: False  # type: ignore[assignment]
    elif mode == "off":
        uncertified()
    elif mode != "compiled":
        raise SystemExit(f"mode must be one of {', '.join(MODES)} (got {mode!r})")
    elif not blocks.compiled.usable():
        raise SystemExit("the compiled pass is not built: pip install -e . with a C compiler")
    sys.argv = ["pecli", *args]
    from pecli._entry import main

    main()


def uncertified() -> None:
    """Every writer's rounding as before the certificate: no bound, no check, a plain cast."""
    import numpy as np

    from pecli.core import direct
    from pecli.core.certificate import ErrorBound, blocks, bounds
    from pecli.core.grids import spec
    from pecli.core.zoo import xpos

    def product(self, r0, r1, anchor, turn):  # the consecutive kernel's writer before it
        if self.pairs is not None:
            np.multiply(anchor, turn, out=self.pairs[r0:r1], casting="same_kind")
            return
        t = np.multiply(anchor, turn, out=self._scratch(anchor.shape))
        self.sin_out[r0:r1], self.cos_out[r0:r1] = t.real, t.imag

    blocks.ProductRounder.__call__ = product  # type: ignore[method-assign]
    nothing = np.zeros(0, dtype=np.int64)
    bounds.undecided = lambda values, bound, dtype: nothing  # round_certified: the cast only
    direct.direct_bound = lambda angle: ErrorBound()  # no bound computed
    xpos.xpos_bound = lambda scales, exponents: ErrorBound()
    spec.direct_bound = lambda angle: ErrorBound(absolute=np.zeros(np.shape(angle[0])))  # a grid


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall, CPU (user + system) and user seconds of one child."""
    begin = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise RuntimeError(f"{' '.join(cmd)}: wait status {status}")
    return time.perf_counter() - begin, usage.ru_utime + usage.ru_stime, usage.ru_utime


def timed_alone(cmd: list[str], out: Path) -> tuple[float, float, float]:
    """:func:`timed` writing ``out`` anew, deleted after (not timed).

    Replacing the last run's file would charge this run for freeing it (2 GB for the
    largest table: seconds of system time, landing on whichever mode ran next).
    """
    try:
        return timed([*cmd, "-q", "-o", str(out)])
    finally:
        out.unlink(missing_ok=True)


def commands(quick: bool) -> dict[str, list[str]]:
    """Each certified writer, by label (``NAME`` stands for its output): pecli's arguments.

    The first two are issue 36's (a 10^6 × 512 table, a 131072 × 128 rotary cache); the
    others are every other certified writer with an honest ``off`` (:func:`uncertified`).
    """
    n, m, k = (100_000, 16_384, 10_000) if quick else (1_000_000, 131_072, 100_000)
    rows = {
        f"compute --d 512 --n {n}": ["compute", "--d", "512", "--n", str(n)],
        f"rope cache --theta 500000 --head-dim 128 --n {m}": [
            *["rope", "cache", "--theta", "500000", "--head-dim", "128", "--n", str(m)]
        ],
        f"rope cache --head-dim 128 --n {m} --rope-type yarn --factor 4": [
            *["rope", "cache", "--head-dim", "128", "--n", str(m), "--rope-type", "yarn"],
            *["--factor", "4", "--original-max-position-embeddings", "32768", "--theta", "10000"],
        ],
        f"compute --d 512 --n {k} --amplitude 'sqrt(2/d)'": [
            *["compute", "--d", "512", "--n", str(k), "--amplitude", "sqrt(2/d)"]
        ],
        f"compute --d 512 --n {k} --dtype float16": [
            *["compute", "--d", "512", "--n", str(k), "--dtype", "float16"]
        ],
        f"compute --d 512 --n {k // 2} --relative": [
            *["compute", "--d", "512", "--n", str(k // 2), "--relative"]
        ],
        "grid 256 256 --d 768": ["grid", "256", "256", "--d", "768"],
        "rope axes --preset wan --grid 21x60x104": [
            *["rope", "axes", "--preset", "wan", "--grid", "5x30x52" if quick else "21x60x104"]
        ],
        f"timestep --model dit --d 256 --linspace 0 999 {k}": [
            *["timestep", "--model", "dit", "--d", "256", "--linspace", "0", "999", str(k)]
        ],
        # 4096 rows: from 8192 (head_dim 128) a scale stays undecided at 256 bits (an xPos bug
        # being fixed beside this; the command stops with status 1)
        "xpos --head-dim 128 --n 4096": ["xpos", "--head-dim", "128", "--n", "4096"],
        f"alibi bias --heads 64 --n {m * 8} --convention mpt": [
            *["alibi", "bias", "--heads", "64", "--n", str(m * 8), "--convention", "mpt"]
        ],
    }
    return {f"pecli {label} -o NAME.npy": args for label, args in rows.items()}


def table(rounds: int, quick: bool, only: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="pecli-bench-cert-") as folder:
        for label, pecli_args in commands(quick).items():
            if only and not any(word in label for word in only):
                continue
            out = Path(folder) / "out.npy"
            cmds = {m: [sys.executable, __file__, "run", m, "--", *pecli_args] for m in MODES}
            for cmd in cmds.values():
                timed_alone(cmd, out)  # warm-up: page cache, bytecode
            runs: dict[str, list[tuple[float, float, float]]] = {m: [] for m in MODES}
            for _ in range(rounds):
                for mode, cmd in cmds.items():
                    runs[mode].append(timed_alone(cmd, out))
            print(f"\n{label}  ({rounds} interleaved rounds, load {os.getloadavg()[0]:.1f})")
            print(f"  {'':10} {'cpu s':>7} {'cpu / off':>26} {'user s':>7} {'user / off':>10}")
            _print(runs)


def _print(runs: dict[str, list[tuple[float, float, float]]]) -> None:
    """Medians of CPU and user seconds, their ratios to ``off`` (CPU: also paired)."""
    base = [statistics.median(r[k] for r in runs["off"]) for k in (1, 2)]
    for mode, results in runs.items():
        cpu, user = (statistics.median(r[k] for r in results) for k in (1, 2))
        paired = statistics.median(r[1] / a[1] for r, a in zip(results, runs["off"], strict=True))
        print(
            f"  {mode:10} {cpu:7.3f} {cpu / base[0]:6.3f}× (paired {paired:.3f}×)"
            f" {user:7.3f} {user / base[1]:6.3f}×"
        )


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "run":
        rest = sys.argv[2:]
        mode, args = rest[0], rest[2:] if rest[1:2] == ["--"] else rest[1:]
        run(mode, args)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="small tables (a smoke run)")
    parser.add_argument("--only", action="append", default=[], help="commands naming WORD")
    options = parser.parse_args()
    table(options.rounds, options.quick, options.only)


if __name__ == "__main__":
    main()
