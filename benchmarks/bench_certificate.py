"""What the correct-rounding certificate costs a whole command (issue 36: at most 5 %).

Run a pecli command with the float32 rounding of the consecutive kernel done one of three ways
(one process, the same start-up for each):

* ``off``: without the certificate, as pecli wrote before it: the complex product rounded
  straight into the table (``np.multiply(..., out=complex64 view, casting="same_kind")``),
  nothing checked, nothing recomputed;
* ``numpy``: the certificate's NumPy pass (the reference: product, ``v ± e``, comparison);
* ``compiled``: the certificate's compiled pass (``pecli.core.certificate._fused``), the
  default of an installed pecli.

    python benchmarks/bench_certificate.py run MODE -- ARGS...   # one run: pecli ARGS
    python benchmarks/bench_certificate.py [--rounds N] [--quick] # the table

The table: each command under ``off``, ``compiled`` and ``numpy`` in turn, round after round
(interleaved pairs), medians of CPU (user + sys of the child) and wall seconds, and the
ratios to ``off``. Writes to a scratch folder (2 GB for the table) deleted at the end.
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
    import numpy as np

    from pecli.core.certificate import blocks

    if mode == "numpy":
        blocks.compiled.usable = lambda: False  # type: ignore[assignment]
    elif mode == "off":

        def uncertified(self, r0, r1, anchor, turn):  # the writer before the certificate
            if self.pairs is not None:
                np.multiply(anchor, turn, out=self.pairs[r0:r1], casting="same_kind")
                return
            t = np.multiply(anchor, turn, out=self._scratch(anchor.shape))
            self.sin_out[r0:r1], self.cos_out[r0:r1] = t.real, t.imag

        blocks.ProductRounder.__call__ = uncertified  # type: ignore[method-assign]
    elif mode != "compiled":
        raise SystemExit(f"mode must be one of {', '.join(MODES)} (got {mode!r})")
    elif not blocks.compiled.usable():
        raise SystemExit("the compiled pass is not built: pip install -e . with a C compiler")
    sys.argv = ["pecli", *args]
    from pecli._entry import main

    main()


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child."""
    begin = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise RuntimeError(f"{' '.join(cmd)}: wait status {status}")
    return time.perf_counter() - begin, usage.ru_utime + usage.ru_stime


def commands(tmp: Path, quick: bool) -> dict[str, list[str]]:
    n, m = (100_000, 16_384) if quick else (1_000_000, 131_072)
    return {
        f"pecli compute --d 512 --n {n} -o t.npy": [
            *["compute", "--d", "512", "--n", str(n), "-q", "-o", str(tmp / "t.npy")]
        ],
        f"pecli rope cache --theta 500000 --head-dim 128 --n {m} -o r.npy": [
            *["rope", "cache", "--theta", "500000", "--head-dim", "128", "--n", str(m), "-q"],
            *["-o", str(tmp / "r.npy")],
        ],
    }


def table(rounds: int, quick: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="pecli-bench-cert-") as folder:
        for label, args in commands(Path(folder), quick).items():
            cmds = {m: [sys.executable, __file__, "run", m, "--", *args] for m in MODES}
            for cmd in cmds.values():
                timed(cmd)  # warm-up: page cache, bytecode
            runs: dict[str, list[tuple[float, float]]] = {m: [] for m in MODES}
            for _ in range(rounds):
                for mode, cmd in cmds.items():
                    runs[mode].append(timed(cmd))
            print(f"\n{label}  ({rounds} interleaved rounds, load {os.getloadavg()[0]:.1f})")
            print(f"  {'':10} {'cpu s':>7} {'cpu / off':>10} {'wall s':>7} {'wall / off':>11}")
            base = [statistics.median(r[k] for r in runs["off"]) for k in (0, 1)]
            for mode, results in runs.items():
                wall, cpu = (statistics.median(r[k] for r in results) for k in (0, 1))
                paired = statistics.median(
                    r[1] / a[1] for r, a in zip(results, runs["off"], strict=True)
                )
                print(
                    f"  {mode:10} {cpu:7.3f} {cpu / base[1]:6.3f}×"
                    f" (paired {paired:.3f}×) {wall:7.3f} {wall / base[0]:6.3f}×"
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
    options = parser.parse_args()
    table(options.rounds, options.quick)


if __name__ == "__main__":
    main()
