"""A model's ``config.json``: one JSON object from a file, a size-bounded read. No maths here.

Problems raise :class:`~pecli.core.errors.ParameterError` for ``parameter`` (the command
line's ``--config``), so they are usage errors (status 2).
"""

from __future__ import annotations

import json
import os
from typing import Any

from ...core.errors import ParameterError
from ..paths import note_input

__all__ = ["MAX_CONFIG_BYTES", "config_path", "read_json_object"]

#: Larger than any model config (a few kB; Phi-3's long factor lists make it ~10 kB).
MAX_CONFIG_BYTES = 16 << 20


def read_json_object(path: str | os.PathLike[str], *, parameter: str = "config") -> dict[str, Any]:
    """The JSON object in ``path`` (a ``config.json``; a directory means its ``config.json``).

    Raises
    ------
    ParameterError
        If the file is missing, too large, not UTF-8 JSON, or not a JSON object.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "config.json").write_text('{"rope_theta": 500000.0}')
    >>> read_json_object(folder)
    {'rope_theta': 500000.0}
    >>> (folder / "config.json").unlink(); folder.rmdir()

    """
    name = config_path(path)
    if not os.path.isfile(name):
        raise ParameterError(parameter, "must be an existing config.json (or its folder)", name)
    note_input(name)
    if os.path.getsize(name) > MAX_CONFIG_BYTES:
        raise ParameterError(parameter, f"must be at most {MAX_CONFIG_BYTES} bytes", name)
    try:
        with open(name, encoding="utf-8") as handle:
            value = json.load(handle)
    except (UnicodeDecodeError, ValueError) as error:  # ValueError: also 5,000-digit integers
        raise ParameterError(parameter, f"must be JSON ({error})", name) from None
    except RecursionError:
        rule = "must be JSON nested at most a few hundred deep"
        raise ParameterError(parameter, rule, name) from None
    if not isinstance(value, dict):
        raise ParameterError(parameter, "must hold a JSON object", name)
    return value


def config_path(path: str | os.PathLike[str]) -> str:
    """The file a config name means: ``path`` itself, or a folder's ``config.json``."""
    name = os.fspath(path)
    return os.path.join(name, "config.json") if os.path.isdir(name) else name
