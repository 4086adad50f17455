"""The layers only import downwards: cli → analysis, figures, io → core (docs/architecture.md).

Read from the source with :mod:`ast`, so an import hidden in a function body counts too;
imports used only for type annotations (under ``if TYPE_CHECKING:``) do not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent.parent / "pecli"
#: What each layer may import from pecli, besides itself.
ALLOWED = {
    "core": set(),
    "io": {"core"},
    "analysis": {"core"},
    "figures": {"core"},
    "cli": {"core", "io", "analysis", "figures", ""},  # "": the package root (__version__)
}


def _runtime_imports(tree: ast.AST) -> list[ast.ImportFrom | ast.Import]:
    found: list[ast.ImportFrom | ast.Import] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _imported_layers(source: str, here: tuple[str, ...]) -> set[str]:
    """The pecli subpackages a module imports at run time; ``here`` is its package's path."""
    layers = set()
    for node in _runtime_imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names if a.name.startswith("pecli")]
            layers |= {parts[1] if len(parts) > 1 else "" for parts in names}
            continue
        if node.level == 0:
            parts = (node.module or "").split(".")
            if parts[0] == "pecli":
                layers.add(parts[1] if len(parts) > 1 else "")
            continue
        base = list(here[: len(here) - (node.level - 1)])
        target = base + (node.module.split(".") if node.module else [])
        layers.add(target[0] if target else "")
    return layers


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_go_down(path):
    here = path.relative_to(PACKAGE).parts[:-1]
    layer = here[0]
    wrong = _imported_layers(path.read_text(encoding="utf-8"), here) - ALLOWED[layer] - {layer}
    assert not wrong, f"{path.relative_to(PACKAGE)} ({layer}) imports {sorted(wrong)}"


@pytest.mark.parametrize(
    ("source", "here", "layers"),
    [
        ("from ..cli import app", ("core",), {"cli"}),
        ("def f():\n    from ...figures import article", ("io", "reading"), {"figures"}),
        ("import pecli.analysis.sinusoidal.identify", ("core",), {"analysis"}),
        ("from . import angles", ("core",), {"core"}),
        ("if TYPE_CHECKING:\n    from ..figures import article", ("core",), set()),
    ],
)
def test_the_scan_sees_every_kind_of_import(source, here, layers):
    assert _imported_layers(source, here) == layers


def _module_of(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _target(parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The pecli module (relative parts) that ``parts`` names, or None outside pecli."""
    while parts:
        base = PACKAGE.joinpath(*parts)
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return parts
        parts = parts[:-1]
    return None


def _import_graph() -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    """Module → the pecli modules it imports anywhere, type-only imports included."""
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        here = _module_of(path)
        package = here if path.name == "__init__.py" else here[:-1]
        edges = graph.setdefault(here, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [tuple(a.name.split(".")[1:]) for a in node.names]
                found = [_target(n) for n in names if n and node.names[0].name.startswith("pecli")]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                else:
                    base = tuple((node.module or "").split(".")[1:]) if node.module else ()
                    if not (node.module or "").startswith("pecli"):
                        continue
                module = tuple(node.module.split(".")) if node.module and node.level else ()
                found = [_target(base + module + (a.name,)) for a in node.names]
            else:
                continue
            edges |= {t for t in found if t is not None and t != here}
    return graph


def _cycles(graph: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[tuple[str, ...], int] = {}
    low: dict[tuple[str, ...], int] = {}
    stack: list[tuple[str, ...]] = []
    groups: list[list[str]] = []

    def visit(node: tuple[str, ...]) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(".".join(member) or "pecli")
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_module_imports_itself_round_a_circle():
    # Package __init__ files only gather their modules' public names, so an edge into one
    # stands for the modules it re-exports; circles are counted between modules.
    graph = {
        module: {t for t in targets if not PACKAGE.joinpath(*t, "__init__.py").is_file()}
        for module, targets in _import_graph().items()
        if not PACKAGE.joinpath(*module, "__init__.py").is_file()
    }
    assert _cycles(graph) == []


#: Test folders by subject, the same names as the code's subject folders, plus the house's own.
TEST_FOLDERS = {
    "sinusoidal",
    "grids",
    "rope",
    "multiaxis",
    "ports",
    "zoo",
    "checkpoints",
    "certificate",
    "io",
    "cli",
    "figures",
    "house",
}


def test_tests_are_filed_by_subject():
    tests = PACKAGE.parent / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py")), "a test file at tests/'s root"
    folders = {p.parent.name for p in tests.glob("*/test_*.py")}
    assert folders <= TEST_FOLDERS, f"test folders that are no subject: {folders - TEST_FOLDERS}"
    subjects = {p.name for p in (PACKAGE / "core").iterdir() if (p / "__init__.py").is_file()}
    assert subjects <= folders, f"core subjects without a test folder: {subjects - folders}"
