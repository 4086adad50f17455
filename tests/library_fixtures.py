"""Load the tables that the real libraries made (tests/fixtures/libraries/<area>/).

They are written by ``make library-fixtures`` (tools/library_fixtures/) in an environment with
torch, transformers, diffusers, … installed; ``make test`` only reads the committed files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent / "fixtures" / "libraries"


@dataclass(frozen=True)
class Fixture:
    """One table made by a library, and how it was made."""

    name: str
    table: np.ndarray
    library: str
    version: str
    call: str
    params: dict[str, Any]


def load(area: str) -> list[Fixture]:
    """Every fixture of one area, sorted by name (fails when the area has none)."""
    folder = ROOT / area
    fixtures = []
    for meta_path in sorted(folder.glob("*.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        table = np.load(meta_path.with_suffix(".npy"), allow_pickle=False)
        fixtures.append(
            Fixture(
                meta_path.stem,
                table,
                meta["library"],
                meta["version"],
                meta["call"],
                meta["params"],
            )
        )
    if not fixtures:
        raise FileNotFoundError(f"no library fixtures in {folder} (make library-fixtures)")
    return fixtures


def ids(fixtures: list[Fixture]) -> list[str]:
    """Test ids for ``pytest.mark.parametrize``."""
    return [f.name for f in fixtures]
