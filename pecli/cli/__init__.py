"""The ``pecli`` command line: a thin Typer layer over :mod:`pecli`'s functions.

Commands by subject: a package per subject with several modules (``sinusoidal/``, ``grids/``,
``rope/``, ``zoo/``), a module for a subject with one (``checkpoints``, ``diff``, ``gguf``);
options shared by several commands are declared once in :mod:`.options`, those of one subject
in its package's ``options`` module. Each module registers its
commands on :data:`pecli.cli._app.app`. A run imports and builds only the command it names
(:func:`main`): importing every command module and building every command's options costs
about 25 ms, a quarter of ``import numpy, typer``; ``pecli --help`` lists the commands from
:mod:`.listing` and imports none. ``pecli.cli.app`` is the whole application (all commands
registered, for tests and docs).
"""

from __future__ import annotations

import copy
import importlib
import os
import sys
from typing import Any

__all__ = [
    "COMMAND_MODULES",
    "GROUPS",
    "GROUP_MODULES",
    "SUBCOMMAND_MODULES",
    "app",
    "load",
    "main",
]

from .listing import COMMANDS

#: Every command module (subcommands' modules excepted: their group's module imports them).
MODULES = tuple(dict.fromkeys(c.module for c in COMMANDS if not c.parent))
#: Each command group and the module registering it with all its commands.
GROUP_MODULES = {c.name: c.module for c in COMMANDS if c.group}
GROUPS = tuple(GROUP_MODULES)
#: The module registering each subcommand of a group whose commands live in several modules:
#: ``pecli rope cache`` imports rope.cache (and the group's app) alone, not the group's 14
#: modules; tests/house/test_lazy_imports.py checks it against the whole application (a
#: subcommand missing here still runs, from the group's whole module).
SUBCOMMAND_MODULES = {
    group: {c.name: c.module for c in COMMANDS if c.parent == group}
    for group in dict.fromkeys(c.parent for c in COMMANDS if c.parent)
}
#: The module registering each command and group outside the groups; tests/house/
#: test_lazy_imports.py checks it against the whole application (a command missing here still
#: runs, from all modules).
COMMAND_MODULES = {c.name: c.module for c in COMMANDS if not c.parent}


def load(modules: tuple[str, ...] = MODULES) -> Any:
    """The application with the commands of ``modules`` registered (default: all)."""
    for name in modules:
        importlib.import_module(f"{__name__}.{name}")
    from ._app import app

    if modules:  # (none for --version, which lists nothing)
        _in_listed_order(app)
    return app


def _in_listed_order(app: Any) -> None:
    """List the commands in the order of ``pecli --help``, whatever the import history.

    A command module imported earlier (by another command module, or a test's doctest)
    registered its commands first.
    """
    from .listing import LISTING

    rank = {name: k for k, name in enumerate(LISTING)}
    app.registered_commands.sort(key=lambda c: rank.get(_name(c), len(rank)))
    app.registered_groups.sort(
        key=lambda g: rank.get(g.name or g.typer_instance.info.name, len(rank))
    )


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole application
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def chosen(argv: list[str]) -> Any:
    """The application trimmed to the command ``argv`` names, or the whole one.

    ``argv`` without the program name. ``pecli``, ``pecli --help``: every command's name and
    help from :data:`.listing.LISTING` (no command module imported); ``pecli --version``: no
    command at all. Other options before the command, an unknown name, a group without its
    subcommand and shell completion get the whole application, so help, suggestions ("Did
    you mean …?") and completion list every command.
    """
    words = [*argv[:2], "", ""]
    if "_PECLI_COMPLETE" in os.environ:
        return load()
    if argv == ["--version"]:
        return load(())  # no command is needed to print the version
    if argv in ([], ["--help"], ["-h"]):
        return _listing()
    if words[0] not in COMMAND_MODULES:
        return load()
    module = SUBCOMMAND_MODULES.get(words[0], {}).get(words[1], COMMAND_MODULES[words[0]])
    whole = load((module,))
    if words[0] in GROUP_MODULES and not _has_command(whole, words[0], words[1]):
        return load()  # the group alone, or a name it lacks: its help or suggestion, in full
    names = set(words[:2]) if words[0] in GROUP_MODULES else {words[0]}
    return _trimmed(whole, lambda name: name in names)


def _listing() -> Any:
    """The application as ``pecli --help`` lists it, from :data:`.listing.LISTING` alone.

    Each command is its name and help, with no options and no module imported: the listing
    needs neither NumPy nor the commands. Should the table miss a command, every command
    module is imported and the listing built from their docstrings.
    """
    from typer.models import CommandInfo

    from .listing import LISTING

    if LISTING.keys() != COMMAND_MODULES.keys():
        return _trimmed(load(), lambda name: True, _listed)
    listed = copy.copy(load(()))
    listed.registered_commands = [
        CommandInfo(name=name, callback=_never_run, help=text) for name, text in LISTING.items()
    ]
    listed.registered_groups = []
    return listed


def _never_run() -> None:  # pragma: no cover - a listing is never run
    raise NotImplementedError


def _has_command(whole: Any, group: str, name: str) -> bool:
    return any(
        _name(c) == name
        for g in whole.registered_groups
        if g.typer_instance.info.name == group
        for c in g.typer_instance.registered_commands
    )


def _trimmed(whole: Any, keep: Any, change: Any = lambda command: command) -> Any:
    """A copy of ``whole`` with its commands (and its groups' commands) that ``keep`` names."""
    trimmed = copy.copy(whole)
    trimmed.registered_commands = [change(c) for c in whole.registered_commands if keep(_name(c))]
    trimmed.registered_groups = []
    for group in whole.registered_groups:
        if keep(group.typer_instance.info.name):
            trimmed.registered_groups.append(copy.copy(group))
            trimmed.registered_groups[-1].typer_instance = _trimmed(
                group.typer_instance, keep, change
            )
    return trimmed


def _listed(command: Any) -> Any:
    """``command`` with no options, for a listing that shows names and help only."""

    def callback() -> None:  # pragma: no cover - a listing is never run
        raise NotImplementedError

    callback.__name__, callback.__doc__ = command.callback.__name__, command.callback.__doc__
    listed = copy.copy(command)
    listed.callback = callback
    return listed


def _name(command: Any) -> str:
    from typer.main import get_command_name

    return str(command.name or get_command_name(command.callback.__name__))


def main() -> None:
    """Console-script entry point: the named command only (see :func:`chosen`)."""
    from ._app import main as run

    run(chosen(sys.argv[1:]))
