"""`make bench` has a row for every command, and its table is well-formed (nothing is timed).

The benchmarks call pecli through its command line; a command added without a row (or a row
whose command was renamed) fails here, so the README's Performance table keeps covering every
command. ``rope layers`` has its row (skipped by a bench run on an older pecli without it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def _bench_text() -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted(BENCH.glob("bench_headline*.py")))


def test_every_command_has_a_row_in_make_bench():
    import typer

    from pecli.cli import app

    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 30
    text = _bench_text()
    missing = [
        " ".join(words)
        for words in commands
        if f"pecli {' '.join(words)}" not in text
        and ", ".join(f'"{w}"' for w in words) not in text  # (words as a list of arguments)
    ]
    assert not missing, f"no make bench row for: {missing}"
    assert "pecli rope layers" in text  # issue 36's row, run once the command lands


@pytest.fixture
def headline(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_headline

    yield bench_headline
    for name in [m for m in sys.modules if m.startswith("bench_headline")]:
        del sys.modules[name]


def test_the_markdown_table_marks_rows_past_their_bound(headline):
    row = headline.Row
    anchor = row("g", "np.save | x", "np.save | x", 1.0, 0.5, 1.0, 1.0, 1.0, 20, "<= 1.2x", "1/1/1")
    within = row("g", "pecli a", "np.save | x", 1.1, 0.5, 1.1, 1.1, 1.0, 30, "<= 1.2x", "1/1/1")
    past = row("g", "pecli b", "np.save | x", 1.1, 0.7, 1.1, 1.1, 1.4, 30, "<= 1.2x", "1/1/1")
    lines = headline.markdown([anchor, within, past]).splitlines()
    assert len(lines) == 4 and all(line.count(" | ") == 5 for line in lines[2:])
    assert "| 1.10× / 1.00× | ≤ 1.2× |" in lines[2] and r"np.save \| x" in lines[2]
    assert "| **1.10× / 1.40×** |" in lines[3]
