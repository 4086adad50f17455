"""A report's words as the command line writes them: options for parameters, commands.

:func:`command_line` writes a :class:`~pecli.analysis.rebuild.Rebuild` as ``pecli …``;
:func:`report` an analysis' result as plain JSON, naming options where it names parameters.
The tables and lines themselves go out through :mod:`pecli.io.text`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..io.writing import jsonable

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.rebuild import Rebuild


#: The command that writes each family of tables (:class:`pecli.analysis.rebuild.Rebuild`).
TABLE_COMMANDS = {"encoding": "compute", "grid": "grid"}


def command_line(rebuild: Rebuild) -> str:
    """The ``pecli`` command line of a :class:`~pecli.analysis.rebuild.Rebuild` ("" if empty).

    >>> from pecli.analysis.rebuild import Rebuild
    >>> command_line(Rebuild("grid", (4, 4), (("d", "16"), ("extra_tokens", "1"))))
    'pecli grid 4 4 --d 16 --extra-tokens 1'
    >>> command_line(Rebuild("encoding", (), (("full_turns", True), ("output", "pe.safetensors"))))
    'pecli compute --full-turns -o pe.safetensors'

    A value a shell would read otherwise is quoted (``shlex.quote``): the line runs as printed.

    >>> command_line(Rebuild("encoding", (), (("amplitude", "sqrt(2/d)"),)))
    "pecli compute --amplitude 'sqrt(2/d)'"
    """
    import shlex

    from ._app import option_words

    if not rebuild:
        return ""
    words = ["pecli", TABLE_COMMANDS[rebuild.table], *map(str, rebuild.positional)]
    for parameter, value in rebuild.arguments:
        words.append(option_words(f"`{parameter}`"))
        if value is not True:
            words.append(shlex.quote(str(value)))
    return " ".join(words)


#: The fields of the analysis' reports that name parameters in backticks, for a reader.
WORDED = ("presets", "note", "metadata")


def report(found: Any, *, worded: bool = False) -> Any:
    """A report of the analysis layer as plain JSON, as the command line writes it.

    Every :class:`~pecli.analysis.rebuild.Rebuild` becomes its command line, and the text of
    the fields in :data:`WORDED` names options where it names parameters in backticks
    (``pytorch `start` 0`` → ``pytorch --start 0``); the rest as :func:`jsonable`.

    >>> report(["pytorch `start` 0", {"note": "`base`"}])  # no report's WORDED field
    ['pytorch `start` 0', {'note': '`base`'}]
    """
    from ..analysis.rebuild import Rebuild
    from ._app import option_words

    if isinstance(found, Rebuild):
        return command_line(found)
    if dataclasses.is_dataclass(found) and not isinstance(found, type):
        fields = dataclasses.fields(found)
        return {f.name: report(getattr(found, f.name), worded=f.name in WORDED) for f in fields}
    if isinstance(found, dict):
        return {k: report(v, worded=worded) for k, v in found.items()}
    if isinstance(found, list | tuple):
        return [report(v, worded=worded) for v in found]
    if isinstance(found, str) and worded:
        return option_words(found)
    return jsonable(found)
