"""Inputs that an output must not replace: compared by what the files are, not their names."""

from __future__ import annotations

import os

from ..core.errors import ParameterError

__all__ = ["refuse_output_over"]


def refuse_output_over(output: str | None, inputs: dict[str, str]) -> None:
    """Refuse an ``-o`` that is one of the inputs (by what the files are, not their names).

    Raises
    ------
    ParameterError
        ``output`` naming the input it would replace.

    """
    if output is None or output == "-" or not os.path.exists(output):
        return
    for name, path in inputs.items():
        if os.path.exists(path) and os.path.samefile(output, path):
            raise ParameterError("output", f"is the input {name}: it would be replaced", output)
