"""The house's size rules, read from the source with :mod:`ast` (docs/architecture.md).

Modules of at most 300 lines, functions of at most 30 lines of body (docstring excluded), and
command bodies (functions registered with ``@….command()``) of at most 25.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pecli"
MODULES = sorted(PACKAGE.rglob("*.py"))


def _body_lines(node: ast.FunctionDef) -> int:
    body = node.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        body = body[1:]  # the docstring
    if not body:
        return 0
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


def _is_command(node: ast.FunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "command"
        for d in node.decorator_list
    )


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_module_sizes(module):
    lines = module.read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"{module.name}: {lines} lines (split it into a subpackage)"
    too_long = []
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            limit = 25 if _is_command(node) else 30
            if _body_lines(node) > limit:
                too_long.append(f"{node.name}: {_body_lines(node)} > {limit}")
    assert not too_long, too_long


def test_the_check_sees_a_long_command():
    source = "@app.command()\ndef c():\n    '''Doc.'''\n" + "    x = 1\n" * 26
    (node,) = ast.parse(source).body
    assert isinstance(node, ast.FunctionDef) and _is_command(node) and _body_lines(node) == 26
