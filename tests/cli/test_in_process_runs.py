"""The application run again in one process (as tests and embedding callers do) starts afresh.

tests/cli_runner.py builds the click command once; pecli's groups keep the command being run
for the error prefix, so a run must not inherit the one before it.
"""

from __future__ import annotations

import typer
from cli_runner import CliRunner, click_command

from pecli.cli import app, load

RUNS = [  # each after the others, in this order: the prefix names this run's command only
    (["rope", "cache", "--head-dim", "0", "--n", "2"], "pecli rope cache: error:"),
    (["rope", "nosuch"], "pecli rope: error: No such command 'nosuch'."),
    (["--bogus"], "pecli: error: No such option '--bogus'."),
    (["rope", "cache", "--head-dim", "0", "--n", "2"], "pecli rope cache: error:"),
    (["compute", "--d", "0"], "pecli compute: error:"),
    (["--bogus"], "pecli: error: No such option '--bogus'."),
]


def test_each_run_names_its_own_command_in_its_error():
    load()
    runner = CliRunner()
    for args, prefix in RUNS:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith(prefix), (args, result.stderr)


def test_the_command_is_built_again_when_the_application_changes():
    whole = load()
    built = click_command(whole)
    assert click_command(whole) is built
    trimmed = typer.Typer()
    trimmed.command("only")(lambda: None)
    assert click_command(trimmed) is not built
    again = click_command(whole)
    assert sorted(again.commands) == sorted(built.commands)  # type: ignore[attr-defined]
