"""Positions written as numbers that are not integers (``--start 1e30``) get the rule.

click's INT said "'1e30' is not a valid integer.": the option, but neither the range nor that
positions are whole numbers in digits. Each position option now says its rule, exits 2 and
writes nothing; a word that is no number keeps click's message.
"""

from __future__ import annotations

import numpy as np
import pytest


def _walk_start_options():
    """Every command with an integer ``--start`` (or xPos's ``--offset``), by path."""
    import click
    import typer.main

    from pecli.cli import app

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, (*path, name))
        for param in command.params:
            integer = isinstance(param.type, click.types.IntParamType)
            if integer and param.opts[0] in ("--start", "--offset"):
                yield " ".join(path), param.opts[0]

    return sorted(walk(typer.main.get_command(app), ()))


def test_the_walk_finds_every_position_option():
    assert set(_walk_start_options()) >= {
        ("compute", "--start"),
        ("add", "--start"),
        ("diff", "--start"),
        ("rope cache", "--start"),
        ("rope precision", "--start"),
        ("xpos", "--offset"),
    }


@pytest.mark.parametrize(
    ("args", "option", "rule"),
    [
        (
            ["compute", "--d", "4", "--n", "2"],
            "--start",
            "with start and start + n - 1 within ±2^53",
        ),
        (["add", "m.npy"], "--start", "with start and start + n - 1 within ±2^53"),
        (["rope", "cache", "--head-dim", "4", "--n", "2"], "--start", "with |start| + n <= 2^53"),
        (["rope", "precision", "--n", "2"], "--start", "from 0, with start + n - 1 <= 2^53"),
        (["diff", "a.npy", "b.npy"], "--start", "from 0, with start + n - 1 <= 2^53"),
        (["xpos"], "--offset", "from 0 to 2^30"),
    ],
)
@pytest.mark.parametrize("word", ["1e30", "1.5", "-2.5e3", "inf"])
def test_a_number_not_in_digits_names_the_rule(
    run_cli, tmp_path, monkeypatch, args, option, rule, word
):
    monkeypatch.chdir(tmp_path)
    for name in ("m.npy", "a.npy", "b.npy"):
        np.save(name, np.zeros((2, 4)))
    before = sorted(p.name for p in tmp_path.iterdir())
    done = (
        run_cli(*args, option, word, "-o", "out.npy")
        if args[0] != "diff"
        else run_cli(*args, option, word)
    )
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"'{option}'" in lines[0] and "must be an integer" in lines[0], lines[0]
    assert rule in lines[0] and f"(got {word})" in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no file written


@pytest.mark.parametrize(
    "args", [["compute", "--d", "4", "--n", "2"], ["rope", "cache", "--n", "2"]]
)
def test_a_word_that_is_no_number_keeps_clicks_message(run_cli, args):
    done = run_cli(*args, "--start", "abc")
    assert done.exit_code == 2
    assert "Invalid value for '--start': 'abc' is not a valid integer." in done.stderr


def test_integers_still_pass_and_past_the_range_are_refused_by_the_command(run_cli):
    assert (
        run_cli("compute", "--d", "4", "--n", "2", "--start", "-3", "--format", "csv").exit_code
        == 0
    )
    done = run_cli("compute", "--d", "4", "--n", "2", "--start", str(2**53 + 1))
    assert done.exit_code == 2 and "within ±2^53" in done.stderr


@pytest.mark.parametrize(
    ("args", "far"),
    [
        (["compute", "--d", "4", "--n", "2", "-o", "t.npy"], str(2**53 + 1)),
        (["compute", "--d", "4", "--n", "2", "-o", "t.npy"], str(-(2**53) - 1)),
        (["compute", "--d", "4", "--n", "2", "-o", "t.npy"], str(2**53)),  # last row 2^53 + 1
        (["precision", "--d", "4", "--n", "2", "-o", "p.png"], str(2**53 + 1)),
        (["add", "m.npy", "-o", "t.npy"], str(2**53 + 1)),
        (["rope", "cache", "--head-dim", "4", "--n", "2", "-o", "t.npy"], str(2**53)),
        (["rope", "precision", "--n", "2", "-o", "p.csv"], str(2**53 + 1)),
        (["rope", "precision", "--n", "2", "-o", "p.csv"], str(2**53)),
    ],
)
def test_a_start_out_of_range_is_told_the_rule_a_word_not_in_digits_is(
    run_cli, tmp_path, monkeypatch, args, far
):
    """One rule, one wording: --start 2^53+1 broke it in the library's words, nan in --start's."""
    monkeypatch.chdir(tmp_path)
    np.save("m.npy", np.zeros((2, 4)))
    said = []
    for value in (far, "nan"):
        done = run_cli(*args, "--start", value)
        assert done.exit_code == 2, done.output
        assert done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.rstrip().endswith(f"(got {value})"), done.stderr
        said.append(done.stderr.rstrip().removesuffix(f"(got {value})"))
    assert said[0] == said[1], said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npy"]  # nothing written


def _plain_int_options():
    """Every (command path, option) of a plain ``int`` with no range of its own."""
    import click
    import typer.main

    from pecli.cli import app
    from pecli.cli._types import house_type

    found = []

    def walk(command, path):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
            return
        for param in command.params:
            kind = house_type(param.type)
            if isinstance(param, click.Option) and type(kind).__name__ == "_DigitsInt":
                found.append((path, param.opts[0]))

    walk(typer.main.get_command(app), ())
    return found


def test_every_plain_integer_option_tells_a_number_not_in_digits_its_rule(run_cli, tmp_path):
    """``compute --d 1e3``, ``fourier --k 2.0``, ``rope config --seq-len 1e3`` … got click's
    "'1e3' is not a valid integer.", no rule at all (docs/cli.md: the option's rule). Each
    plain integer option of every command now says it must be an integer in digits."""
    options = _plain_int_options()
    assert {("compute",), ("fourier",)} <= {path for path, _ in options} and len(options) > 20
    for path, option in options:
        result = run_cli(*path, option, "1e3")
        assert result.exit_code == 2, (path, option, result.output)
        said = f"Invalid value for '{option}': must be an integer, in digits (got 1e3)"
        assert said in result.stderr and result.stderr.count("\n") == 1, (path, option)
