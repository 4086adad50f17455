"""The house rules of docs/architecture.md that a scan of the source can check.

* Nothing below the command line spells an option: no ``--option`` in a string literal of
  pecli/core, pecli/analysis or pecli/io. Their errors name parameters (a rule names another
  one in backticks, ```n```) and cli/_app.py writes them as options; a command that rebuilds
  a table is data (:class:`pecli.analysis.rebuild.Rebuild`), written as a command line in cli.
  Docstrings and comments are not scanned, in every layer alike: they are the reader's
  cross-references to the command line (``--full-turns`` in a docstring says which option
  reaches the function), not text a user is shown.
* Nothing outside pecli/io loads a ``.npy`` file: no ``np.load`` (``numpy.load``), whose
  memory maps and unbounded reads pecli/io/reading replaces.

Read with :mod:`ast`, so the scan sees f-strings' parts and ignores what is not a literal.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent.parent / "pecli"
#: An option as the command line spells it: ``--d``, ``--padding-idx`` (not ``x--y``, ``---``).
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
BELOW_CLI = ("core", "analysis", "io")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and its functions."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            found.add(id(body[0].value))
    return found


def spelled_options(source: str) -> set[str]:
    """The options spelled in the string literals of ``source``, docstrings excepted.

    >>> source = "\'\'\'Uses --d.\'\'\'\\nx = f'give --n {n}'\\n# --base\\ny = 'a--b'"
    >>> sorted(spelled_options(source))
    ['--n']
    """
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return {
        option
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        for option in OPTION.findall(node.value)
    }


def loads_npy(source: str) -> bool:
    """Whether ``source`` calls or imports NumPy's ``load`` (not ``loadtxt``).

    >>> loads_npy("import numpy as np\\nnp.load(f)"), loads_npy("np.loadtxt(f)")
    (True, False)
    >>> loads_npy("from numpy import load")
    True
    """
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "load"
            and isinstance(node.value, ast.Name)
            and node.value.id in ("np", "numpy")
        ):
            return True
        imported = isinstance(node, ast.ImportFrom) and node.module == "numpy"
        if imported and any(alias.name == "load" for alias in node.names):  # type: ignore[union-attr]
            return True
    return False


def _modules(*layers: str) -> list[Path]:
    return sorted(p for layer in layers for p in (PACKAGE / layer).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", _modules(*BELOW_CLI), ids=_name)
def test_nothing_below_the_command_line_spells_an_option(path):
    offending = spelled_options(path.read_text(encoding="utf-8"))
    assert not offending, (
        f"{_name(path)} spells {sorted(offending)}: name the parameter (`name` in a rule) "
        "and let cli/_app.py write the option"
    )


@pytest.mark.parametrize("path", _modules("core", "analysis", "figures", "cli"), ids=_name)
def test_nothing_outside_io_loads_npy_files(path):
    assert not loads_npy(path.read_text(encoding="utf-8")), (
        f"{_name(path)} calls np.load: read through pecli.io.reading (bounded, no memory map)"
    )


def test_the_command_line_writes_parameters_as_options():
    """The other side of the rule: cli turns a rule's `name` into the option."""
    from pecli.cli._app import option_words, parameter_message
    from pecli.core.errors import ParameterError

    error = ParameterError("queries", "must be an integer from 1 to `n` (6)", 9)
    expected = "Invalid value for '--queries': must be an integer from 1 to --n (6) (got 9)"
    assert parameter_message(error) == expected
    assert option_words("`padding_idx`, `x`, `output` F") == "--padding-idx, VALUES..., -o F"


def test_every_docstring_example_removes_the_folder_it_makes():
    """A doctest's temporary folder goes at its end: ``make test`` leaves nothing in $TMPDIR."""
    leaks = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                continue
            doc = ast.get_docstring(node) or ""
            made = doc.count("mkdtemp(") + doc.count("TemporaryDirectory(")
            removed = doc.count("rmdir(") + doc.count("rmtree(") + doc.count(".cleanup()")
            if made > removed:
                leaks.append(f"{path.relative_to(PACKAGE.parent)}: {node.name}")
    assert not leaks, leaks
