"""Every certified writer docs/exactness.md lists has ``--json``, with the one shared help text.

The list is the "What is covered" table: each row whose first cell names a ``pecli`` command
and whose last cell starts with "yes". Each such command must take ``--json`` and be in the
invocations of tests/certified_writers.py, which tests/certificate/test_json_report.py runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from certified_writers import COMMANDS as LISTED

ROOT = Path(__file__).resolve().parent.parent.parent
EXACTNESS = ROOT / "docs" / "exactness.md"


def covered_commands(text: str) -> set[str]:
    """``rope cache``, ``compute``, …: the certified pecli writers of the "What is covered" table.

    >>> covered_commands("## What is covered\\n\\n| w | v | c |\\n|---|---|---|\\n"
    ...                  "| `pecli rope freqs -o f.npy` (float32) | x | yes |\\n"
    ...                  "| `pecli xpos --dtype float64` | x | bound only |\\n")
    {'rope freqs'}
    """
    section = text.split("## What is covered", 1)[1].split("\n## ", 1)[0]
    found = set()
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[-1].startswith("yes"):
            continue
        named = re.match(r"`pecli ([^`]*)`", cells[0])
        if named:
            words = [w for w in named[1].split()]
            command = []
            for word in words:
                if not re.fullmatch(r"[a-z][a-z-]*", word):
                    break
                command.append(word)
            found.add(" ".join(command))
    return found


def _commands() -> dict[str, object]:
    import pecli.cli

    group = typer.main.get_command(pecli.cli.app)
    ctx = typer.Context(group)
    found = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        found[name] = command
        if hasattr(command, "list_commands"):
            sub = typer.Context(command)
            for n in command.list_commands(sub):
                found[f"{name} {n}"] = command.get_command(sub, n)
    return found


COVERED = sorted(covered_commands(EXACTNESS.read_text(encoding="utf-8")))
CLI = _commands()


def test_the_docs_list_is_read():
    assert {"compute", "grid", "rope cache", "rope axes", "xpos", "alibi bias"} <= set(COVERED)


@pytest.mark.parametrize("command", COVERED)
def test_a_certified_writer_has_json(command):
    assert command in CLI, f"docs/exactness.md lists pecli {command}, which does not exist"
    options = {o for p in CLI[command].params for o in p.opts}  # type: ignore[attr-defined]
    assert "--json" in options, f"pecli {command} is a certified writer without --json"


@pytest.mark.parametrize("command", COVERED)
def test_a_certified_writer_is_in_the_shared_list(command):
    assert command in LISTED, f"pecli {command}: add it to tests/certified_writers.py"


def test_json_has_one_help_text_and_only_on_certified_writers():
    helps = {
        name: p.help  # type: ignore[attr-defined]
        for name, command in CLI.items()
        for p in command.params  # type: ignore[attr-defined]
        if "--json" in p.opts and p.help and "certificate" in p.help
    }
    assert set(helps) == set(COVERED) and len(set(helps.values())) == 1
