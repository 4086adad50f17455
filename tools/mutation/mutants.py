"""One-line semantic mutants of a Python module, made on its syntax tree.

Each mutant changes one operator or one constant of one line: a comparison (``<`` to ``<=``,
``==`` to ``!=`` …), an arithmetic operator (``+`` to ``-``, ``*`` to ``/``, ``//`` to ``/`` …),
``and`` to ``or``, a dropped ``not`` or unary minus, a number (``n`` to ``n + 1``, ``0`` to
``1``, ``1`` to ``0``; a float so large that ``n + 1`` is ``n``, from 2^53 up, doubled),
``True`` to ``False``, ``min`` to ``max``, or a ``return`` of ``None``.
Docstrings, type annotations, ``__all__`` and code under ``if TYPE_CHECKING`` are left alone:
changing them changes no behaviour a test could see. So are the guard keywords ``strict=``
(of ``zip``) and ``frozen=`` / ``slots=`` / ``kw_only=`` (of ``dataclass``): they turn on a
check against a bug elsewhere (lengths that differ, an assignment to a record), so on correct
code no input tells their flip apart (seeds 7 and 8 drew three such mutants, all equivalent).
The mutated module is printed back with :func:`ast.unparse` (comments go; line numbers may
move, which no test depends on).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.And: ast.Or,
    ast.Or: ast.And,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
}
FUNCTION_SWAPS = {"min": "max", "max": "min", "floor": "ceil", "ceil": "floor"}
GUARD_KEYWORDS = {"strict", "frozen", "slots", "kw_only"}


@dataclass(frozen=True)
class Mutant:
    """One mutant: where (path, line), what (a short description) and the mutated source."""

    path: str
    line: int
    description: str
    index: int  # which mutable site of the module, in tree order

    @property
    def ident(self) -> str:
        """A name that says where and what, e.g. ``pecli/core/dtypes.py:40 '<' -> '<='``."""
        return f"{self.path}:{self.line} {self.description}"


def _skipped(tree: ast.Module) -> set[int]:
    """``id`` of the nodes left alone: docstrings, annotations, __all__, TYPE_CHECKING, guards."""
    skip: set[int] = set()

    def drop(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        value = first.value if isinstance(first, ast.Expr) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            drop(first)
        if isinstance(node, ast.AnnAssign | ast.arg):
            drop(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            drop(node.returns)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            drop(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            drop(node)
        if isinstance(node, ast.keyword) and node.arg in GUARD_KEYWORDS:
            drop(node.value)
    return skip


def _sites(node: ast.AST) -> Iterator[tuple[str, callable]]:  # type: ignore[valid-type]
    """The mutations one node allows: (description, function that applies it in place)."""
    if isinstance(node, ast.BinOp | ast.BoolOp | ast.AugAssign) and type(node.op) in SWAPS:
        new = SWAPS[type(node.op)]
        yield f"{type(node.op).__name__} -> {new.__name__}", lambda n: setattr(n, "op", new())
    if isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            if type(op) in SWAPS:
                new = SWAPS[type(op)]

                def apply(n: ast.Compare, k: int = k, new: type = new) -> None:
                    n.ops[k] = new()

                yield f"{type(op).__name__} -> {new.__name__}", apply
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield f"drop {type(node.op).__name__}", "unwrap"  # type: ignore[misc]
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        value = node.value
        if isinstance(value, bool):
            yield f"{value} -> {not value}", lambda n: setattr(n, "value", not value)
        elif value in (0, 1):
            flipped = type(value)(1 - value)
            yield f"{value!r} -> {flipped!r}", lambda n: setattr(n, "value", flipped)
        elif value + 1 != value:
            yield f"{value!r} -> {value + 1!r}", lambda n: setattr(n, "value", value + 1)
        else:  # 1e300 + 1 is 1e300: a float that large is doubled instead
            yield f"{value!r} -> {value * 2!r}", lambda n: setattr(n, "value", value * 2)
    if isinstance(node, ast.Call):
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        if name in FUNCTION_SWAPS:
            other = FUNCTION_SWAPS[name]

            def rename(n: ast.Call, other: str = other) -> None:
                setattr(n.func, "id" if isinstance(n.func, ast.Name) else "attr", other)

            yield f"{name}() -> {other}()", rename
    value = getattr(node, "value", None) if isinstance(node, ast.Return) else None
    if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
        yield "return None", lambda n: setattr(n, "value", ast.Constant(None))


def mutants(path: str, source: str) -> list[Mutant]:
    """Every one-line mutant of ``source`` (the module at ``path``), in tree order."""
    tree = ast.parse(source)
    skip = _skipped(tree)
    found: list[Mutant] = []
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        for description, _ in _sites(node):
            found.append(Mutant(path, node.lineno, description, len(found)))
    return found


def mutated_source(source: str, mutant: Mutant) -> str:
    """``source`` with ``mutant`` applied (the tree walked in the same order as :func:`mutants`)."""
    tree = ast.parse(source)
    skip = _skipped(tree)
    count = 0
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        for _, apply in _sites(node):
            if count == mutant.index:
                _apply(tree, node, apply)
                return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
            count += 1
    raise LookupError(f"no mutant {mutant.index} in {mutant.path}")


def _apply(tree: ast.Module, node: ast.AST, apply: object) -> None:
    if apply != "unwrap":
        apply(node)  # type: ignore[operator]
        return
    for parent in ast.walk(tree):  # replace `not x` / `-x` by `x` in its parent
        for field, value in ast.iter_fields(parent):
            if value is node:
                setattr(parent, field, copy.copy(node.operand))  # type: ignore[attr-defined]
                return
            if isinstance(value, list) and any(v is node for v in value):
                value[[v is node for v in value].index(True)] = node.operand  # type: ignore[attr-defined]
                return
