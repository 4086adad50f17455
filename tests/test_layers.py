"""The layers only import downwards: cli → analysis, figures, io → core (docs/architecture.md).

Read from the source with :mod:`ast`, so an import hidden in a function body counts too;
imports used only for type annotations (under ``if TYPE_CHECKING:``) do not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pecli"
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
