"""Every Python example in the README and docs/ runs as written (in a scratch folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def _examples() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((page.relative_to(ROOT).as_posix(), line, match.group(1)))
    return found


EXAMPLES = _examples()


def test_examples_found():
    assert any(page == "README.md" for page, _, _ in EXAMPLES)


@pytest.mark.parametrize(
    ("page", "line", "code"), EXAMPLES, ids=[f"{p}:{n}" for p, n, _ in EXAMPLES]
)
def test_example_runs(page, line, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__doc_example__"})
