"""The tests, in-process and in subprocesses, run this checkout's pecli, not another copy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pecli

ROOT = Path(__file__).resolve().parent.parent.parent


def test_in_process_pecli_is_this_checkout():
    assert Path(pecli.__file__).resolve() == ROOT / "pecli" / "__init__.py"


def test_subprocesses_import_this_checkout(pecli_cmd):
    code = "import pecli; print(pecli.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert Path(out.stdout.strip()).resolve() == ROOT / "pecli" / "__init__.py"
    # the console script runs under this same interpreter, so it sees the same sys.path
    if pecli_cmd[0] != sys.executable:
        shebang = Path(pecli_cmd[0]).read_text().splitlines()[0]
        script_python = Path(shebang.removeprefix("#!").strip())
        here = Path(sys.executable)  # bin/python and bin/python3 of one venv are the same
        assert script_python.parent == here.parent and script_python.resolve() == here.resolve()
