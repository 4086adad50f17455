"""docs/architecture.md names every module under pecli/, and only modules that exist.

A module is named by its path in backticks, from ``pecli/`` (``pecli/core/rope/spec.py``) or
from ``pecli/`` without the prefix (``core/rope/spec.py``); under a layer's heading
(``### `pecli/core/` …``) a path from that layer's folder (``rope/spec.py``) also names it. A
package's ``__init__.py`` is named the same way (``core/rope/__init__.py``): the test fails on
a module the page does not name, as tests/house/test_docs.py fails on a command lacking docs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PAGE = ROOT / "docs" / "architecture.md"
LAYERS = ("core", "io", "analysis", "figures", "cli")
MODULES = sorted(p.relative_to(ROOT / "pecli").as_posix() for p in (ROOT / "pecli").rglob("*.py"))


def readings(text: str) -> list[tuple[str, set[str]]]:
    """Each path in backticks, and what it may name: the path from pecli/ and, under a
    layer's heading (``### `pecli/core/` …``), the path from that layer's folder.

    >>> path, names = readings("### `pecli/core/`: x\\n* `rope/spec.py`")[-1]
    >>> path, sorted(names)
    ('rope/spec.py', ['core/rope/spec.py', 'rope/spec.py'])
    """
    found = []
    layer = None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = re.match(r"#+ `pecli/([a-z_]+)/`", line)
            layer = heading[1] if heading else None
        for path in re.findall(r"`([A-Za-z0-9_./]+)`", line):
            path = path.removeprefix("pecli/")
            found.append((path, {path} | ({f"{layer}/{path}"} if layer else set())))
    return found


READINGS = readings(PAGE.read_text(encoding="utf-8"))
NAMED = set().union(*(names for _, names in READINGS))


@pytest.mark.parametrize("module", MODULES)
def test_every_module_is_named(module):
    assert module in NAMED, f"pecli/{module} is not named in docs/architecture.md"


def test_every_named_module_exists():
    paths = [(p, names) for p, names in READINGS if p.endswith((".py", "/"))]
    outside = ("tests/", "docs/", "tools/", "benchmarks/")
    stale = [
        p
        for p, names in paths
        if not p.startswith(outside) and not any((ROOT / "pecli" / name).exists() for name in names)
    ]
    assert len(paths) > len(MODULES)  # the page names each module, the folders, and tests
    assert not stale, f"docs/architecture.md names modules that do not exist: {stale}"
