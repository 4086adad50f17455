"""The two reports of one ``pecli diff A B``: the text on stdout and the JSON one.

Shared by the diff tests that write both tables from a library's definition
(tests/ports/test_diff_sinusoidal.py, test_diff_grids.py).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def both_reports(
    run_cli: Any, tmp_path: Any, a: np.ndarray, b: np.ndarray, *options: str
) -> tuple[str, dict]:
    """Save ``a`` and ``b`` as .npy, run diff with ``options``: (its stdout, its JSON), status 1."""
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    files = (str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    text = run_cli("diff", *files, *options)
    found = run_cli("diff", *files, *options, "--format", "json")
    assert text.exit_code == found.exit_code == 1, text.output
    return text.stdout, json.loads(found.stdout)
