"""typer's CliRunner with the click command built once per application, not once per run.

``typer.testing.CliRunner.invoke`` converts the whole Typer application to click commands on
every call (signatures read, type hints resolved, parameters made): ~9 ms for pecli, some
7,000 times a run, a fifth of the suite's CPU. A user's process builds it once; so does this,
again whenever the application's commands change (``pecli.cli.chosen`` trims and restores
them). Each run still gets click's fresh context, streams and exit status.
"""

from __future__ import annotations

from typing import Any

import typer
import typer.main
import typer.testing

_BUILT: dict[Any, Any] = {}


def _shape(app: typer.Typer) -> tuple[Any, ...]:
    """What ``typer.main.get_command`` reads to build ``app``: its callback, commands, groups."""
    return (
        id(app),
        id(app.registered_callback),
        tuple(id(command) for command in app.registered_commands),
        tuple((id(group), _shape(group.typer_instance)) for group in app.registered_groups),
    )


def click_command(app: typer.Typer) -> Any:
    """``typer.main.get_command(app)``, built again only when ``app``'s commands change."""
    key = _shape(app)
    if key not in _BUILT:
        _BUILT.clear()  # (the key holds ids: keep no command of an application that changed)
        _BUILT[key] = typer.main.get_command(app)
    return _BUILT[key]


class CliRunner(typer.testing.CliRunner):
    """``typer.testing.CliRunner`` whose ``invoke`` reuses the application's click command."""

    def invoke(self, app: Any, args: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        command = click_command(app) if isinstance(app, typer.Typer) else app
        return super(typer.testing.CliRunner, self).invoke(command, args, **kwargs)
