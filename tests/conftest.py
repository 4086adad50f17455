import contextlib
import getpass
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("MPLBACKEND", "Agg")

from progress_lines import ProgressLines, pytest_addoption  # noqa: F401

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
    from cli_runner import CliRunner

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


def pytest_configure(config: pytest.Config) -> None:
    """In the process that reports (not in xdist's workers, which inherit its environment).

    matplotlib gets a font cache of its own for the run, removed at its end: the one in the
    user's ~/.cache/matplotlib may have been written by another matplotlib (a system one that
    lists only /usr/share/fonts), which changed the committed figures' bytes.
    """
    if hasattr(config, "workerinput"):
        return
    if config.getoption("--progress-lines"):
        config.pluginmanager.register(ProgressLines(config), "progress-lines")
    folder = tempfile.mkdtemp(prefix="pecli-tests-matplotlib-")
    os.environ["MPLCONFIGDIR"] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    config.add_cleanup(_remove_pytest_root)


def _remove_pytest_root() -> None:
    """pytest's ``$TMPDIR/pytest-of-USER``, once empty (passed tests' folders are not kept)."""
    with contextlib.suppress(OSError, KeyError):  # not empty, gone, or no user name
        os.rmdir(Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}")


@pytest.fixture(autouse=True)
def _mpmath_precision_kept():
    """A test that sets mpmath's working precision does not lower the next test's.

    Test modules set ``mp.dps = 40`` when imported; a test that sets another precision in its
    body (instead of ``mpmath.workdps``) would otherwise leave it to whatever test the same
    worker runs next, which then compares against a less exact "exact" value.
    """
    import mpmath

    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec
