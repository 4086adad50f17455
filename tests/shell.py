"""Running a bash script in a test: redirections and descriptors as a user's shell makes them."""

from __future__ import annotations

import subprocess
from pathlib import Path


def bash(script: str, cwd: Path | str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``bash -c`` in ``cwd``; stdout and stderr captured as text."""
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
