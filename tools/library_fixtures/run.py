"""Regenerate tests/fixtures/libraries/ from the real libraries (``make library-fixtures``).

Runs every ``generate_<area>.py`` beside this file (or only the areas named on the command
line): ``python tools/library_fixtures/run.py [AREA ...]``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parents[1] / "tests" / "fixtures" / "libraries"


def main(areas: list[str]) -> None:
    """Run the generators of ``areas`` (all of them when empty)."""
    sys.path.insert(0, str(HERE))
    found = sorted(p.stem.removeprefix("generate_") for p in HERE.glob("generate_*.py"))
    for area in areas or found:
        if area not in found:
            raise SystemExit(f"run.py: no generator for {area!r} (have: {', '.join(found)})")
        print(f"fixtures: {area}", flush=True)
        importlib.import_module(f"generate_{area}").generate(OUT / area)


if __name__ == "__main__":
    main(sys.argv[1:])
