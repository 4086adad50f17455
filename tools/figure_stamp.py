"""Keep ``make figures``'s stamp: a hash of the figures' inputs, rewritten only when it changes.

make compares file times, and a fresh clone writes every file at the same moment, so times
alone redraw all the figures. The Makefile's figures depend on a stamp instead, whose time
moves only when the *content* of their inputs (pecli's code, the pinned versions) does:

* same hash as the stamp holds: the stamp is left alone (no figure is redrawn);
* a new hash: the stamp is rewritten now (every figure is redrawn);
* no stamp yet (a fresh clone or a new .venv): when git says the inputs and the figures are
  as committed, the stamp is dated 1970 (the committed figures are what the committed code
  draws: tests/figures/test_committed_figures.py holds main to it); otherwise it is dated now.

Usage: python tools/figure_stamp.py STAMP INPUT...
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path


def inputs_hash(names: list[str]) -> str:
    """SHA-256 of each input's name and bytes, in sorted order (the order make lists is not)."""
    digest = hashlib.sha256()
    for name in sorted(set(names)):
        digest.update(name.encode() + b"\0" + Path(name).read_bytes() + b"\0")
    return digest.hexdigest()


def as_committed(paths: list[str]) -> bool:
    """Whether git knows these paths and none differs from HEAD (False without git)."""
    try:
        found = subprocess.run(
            ["git", "diff", "--quiet", "HEAD", "--", *paths],
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0


def update(stamp: Path, names: list[str]) -> str:
    """Bring ``stamp`` up to date; what was done: ``kept``, ``rewritten`` or ``trusted``."""
    new = inputs_hash(names)
    if stamp.exists() and stamp.read_text().strip() == new:
        return "kept"
    fresh = not stamp.exists()
    stamp.write_text(new + "\n")
    if fresh and as_committed([*names, "figures"]):
        os.utime(stamp, (0, 0))  # older than any figure: the committed ones stand
        return "trusted"
    return "rewritten"


if __name__ == "__main__":
    print(f"figure inputs: {update(Path(sys.argv[1]), sys.argv[2:])}")
