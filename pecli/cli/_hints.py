"""What a usage error adds for the mistakes a newcomer makes first (docs/cli.md#errors).

click's messages say what is wrong; these hints say what was probably meant: ``-d`` for
``--d``, an option given before its command, a list given with spaces where the option takes
commas, a name one letter off (the closest name, from :mod:`difflib`, instead of the whole
list). Each takes what click or the library already knows (the context, the parameter, the
command's arguments), and returns ``""`` when it has nothing to add.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "closest",
    "comma_hint",
    "one_dash_hint",
    "one_dash_long",
    "one_dash_reading",
    "one_dash_value",
    "options_first_hint",
    "rule_with_guess",
]


def closest(value: object, names: Sequence[object]) -> str | None:
    """The name most like ``value`` (``difflib``, ratio >= 0.6), or None if none is close.

    >>> closest("pytorc", ["vaswani", "pytorch", "fairseq"]), closest("zzz", ["pytorch"])
    ('pytorch', None)
    """
    found = difflib.get_close_matches(str(value).lower(), [str(n) for n in names], n=1)
    return found[0] if found else None


def _options(command: Any) -> set[str]:
    """Every option string of a click command (``--d``, ``-o``, ``--output``, …)."""
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def one_dash_hint(option: str, command: Any) -> str:
    """``-d`` where ``--d`` exists: long options take two dashes.

    >>> import click
    >>> one_dash_hint("-d", click.Command("c", params=[click.Option(["--d"])]))
    " Did you mean '--d'? Long options take two dashes."
    """
    if option.startswith("--") or "-" + option not in _options(command):
        return ""
    return f" Did you mean '-{option}'? Long options take two dashes."


def one_dash_long(command: Any, words: Sequence[str], option: str | None = None) -> str | None:
    """The first word ``-name`` (or ``-name=value``) of ``words`` where ``--name`` exists.

    click reads ``-dtype`` as the short options ``-d -t -y …`` and stops at the first it
    lacks, so its error names ``-d`` (which ``--d`` matched: the wrong hint) or ``-s`` for
    ``-start`` (no hint at all). ``option``: the short option click named, which the word
    must contain; words after ``--`` are arguments, not options.

    >>> import click
    >>> command = click.Command("c", params=[click.Option(["--dtype"]), click.Option(["--d"])])
    >>> one_dash_long(command, ["--d", "4", "-dtype", "float16"], "-d")
    '-dtype'
    >>> one_dash_long(command, ["-d", "4"], "-d") is None
    True
    """
    known = _options(command)
    for word in words:
        if word == "--":
            break
        name = word.split("=", 1)[0]
        long = len(name) > 2 and name[0] == "-" and name[1] != "-" and "-" + name in known
        if long and (option is None or option.lstrip("-") in name[1:]):
            return name
    return None


def one_dash_reading(command: Any, word: str) -> str:
    """`` ('-output' is read as '-o utput')`` where ``-o`` is a short option of ``command``.

    Only then did click take the word's tail as that option's value; a command whose values
    may start with a dash (``timestep -dtype``) read the word as a value, so it adds nothing.

    >>> import click
    >>> command = click.Command("c", params=[click.Option(["-o", "--output"])])
    >>> one_dash_reading(command, "-output"), one_dash_reading(command, "-dtype")
    (" ('-output' is read as '-o utput')", '')
    """
    if word[:2] not in _options(command):
        return ""
    return f" ('{word}' is read as '{word[:2]} {word[2:]}')"


def one_dash_value(command: Any, words: Sequence[str], message: str) -> str:
    """``timestep -d 8 0.5``: ``-d`` taken as a value (the command takes negative numbers).

    The value's refusal names the word; where ``--d`` exists, say so as for ``compute -d``.

    >>> import click
    >>> command = click.Command("c", params=[click.Option(["--d"])])
    >>> one_dash_value(command, ["-d", "8"], "'-d' is neither a number nor an option")
    ". Did you mean '--d'? Long options take two dashes."
    """
    for word in words:
        if word == "--":
            break
        if len(word) == 2 and word[0] == "-" and f"'{word}'" in message:
            hint = one_dash_hint(word, command)
            if hint:
                return "." + hint
    return ""


def options_first_hint(option: str, group: Any, words: Sequence[str], path: str) -> str:
    """``pecli --d 512 compute``: an option of the command, given before the command's name.

    ``path`` is the group's command path (``pecli``, ``pecli rope``).
    """
    commands = [word for word in words if word in getattr(group, "commands", {})]
    if not commands:
        return ""
    name, given = commands[0], option.split("=", 1)[0]
    known = _options(group.commands[name])
    meant = given if given in known else "-" + given if "-" + given in known else None
    if meant is None:
        return ""
    return f" It is an option of '{name}': options go after the command ({path} {name} {meant} …)."


def comma_hint(command: Any, words: Sequence[str]) -> str:
    """``--pairs 1 10 50`` where ``--pairs`` takes ``1,10,50``: name the separator."""
    for param in command.params:
        if "comma-separated" not in (getattr(param, "help", None) or ""):
            continue
        for opt in param.opts:
            if opt in words:
                start = words.index(opt) + 1
                values = []
                for word in words[start:]:
                    if word.startswith("-"):
                        break
                    values.append(word)
                if len(values) > 1:
                    joined = ",".join(values)
                    return f"; {opt} takes its values comma-separated: {opt} {joined}"
    return ""


_ONE_OF = re.compile(r"must be one of (.+)")


def rule_with_guess(rule: str, value: object) -> str | None:
    """A "must be one of a, b, …" rule as a guess of the closest name, if one is close.

    >>> rule_with_guess("must be one of interleaved, sin-cos", "interleave")
    "is not a valid name; did you mean 'interleaved'?"
    >>> rule_with_guess("must be one of interleaved, sin-cos", "zzz") is None
    True
    """
    names = _ONE_OF.fullmatch(rule)
    if names is None or not isinstance(value, str):
        return None
    return not_one_of(value, names.group(1).split(", "))


def not_one_of(value: str, names: Sequence[str]) -> str | None:
    """The closest name, not the list, when one is close: "is not a valid name; did you mean …?".

    >>> not_one_of("float16", ["float32", "float64"])
    "is not a valid name; did you mean 'float64'?"
    """
    guess = closest(value, names)
    return None if guess is None else f"is not a valid name; did you mean {guess!r}?"
