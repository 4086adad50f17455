import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("MPLBACKEND", "Agg")

#: The checkout these tests belong to. Subprocesses (``pecli_cmd``, ``python -c``) inherit
#: this PYTHONPATH, so they run this tree's pecli and not whichever one is installed
#: (an editable install may point at another worktree). The tests import it first too.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
)


@pytest.fixture
def run_cli():
    """Invoke the Typer app in-process; returns the CliRunner result."""
    from typer.testing import CliRunner

    from pecli.cli import app

    runner = CliRunner()

    def run(*args: str, **kwargs):
        return runner.invoke(app, list(args), **kwargs)

    return run


@pytest.fixture
def fitted_rows(monkeypatch) -> list[int]:
    """The rows each of identify's fits took, in order (a spy on ``passes._best_fit``)."""
    from pecli.analysis.sinusoidal.identify import passes

    rows: list[int] = []
    best_fit = passes._best_fit

    def spy(table, nonzero, storage, n):
        rows.append(n)
        return best_fit(table, nonzero, storage, n)

    monkeypatch.setattr(passes, "_best_fit", spy)
    return rows


@pytest.fixture(scope="session")
def pecli_cmd() -> list[str]:
    """The installed console script (beside this Python), else ``python -m pecli``."""
    script = shutil.which("pecli", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "pecli"]
