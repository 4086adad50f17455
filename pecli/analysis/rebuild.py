"""How a table that was read back is rebuilt: the table command and its arguments, as data.

Below the command line nothing spells an option: an analysis that finds how to rebuild a
table returns a :class:`Rebuild`, and the command line writes it as ``pecli compute …`` or
``pecli grid …`` (:func:`pecli.cli.text.command_line`). Text meant for a reader names a
parameter in backticks (``pytorch `start` 49900``), as :class:`~pecli.core.errors.ParameterError`
rules do, and the command line writes it as the option (``--start``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Argument", "Rebuild", "named"]

#: One argument: a parameter's name and its value as written (``True``: a flag given alone).
Argument = tuple[str, str | bool]


@dataclass(frozen=True)
class Rebuild:
    """The table command that rebuilds a table, and its arguments in the order written.

    ``table`` is the family: ``"encoding"`` (a sinusoidal table) or ``"grid"`` (a grid's
    table); ``positional`` its positional arguments (a grid's sides). Empty, and false, when
    no command rebuilds the table.

    Examples
    --------
    >>> bool(Rebuild()), Rebuild("grid", (2, 3), (("d", "8"),)).arguments
    (False, (('d', '8'),))

    """

    table: str = ""
    positional: tuple[int, ...] = ()
    arguments: tuple[Argument, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.table)


def named(name: str, arguments: tuple[Argument, ...]) -> str:
    """A name with its arguments, for a reader: parameters in backticks.

    >>> named("diffusers", (("flip_sin_to_cos", True), ("downscale_freq_shift", "0")))
    'diffusers `flip_sin_to_cos` `downscale_freq_shift` 0'
    """
    words = [name]
    for parameter, value in arguments:
        words.append(f"`{parameter}`" + ("" if value is True else f" {value}"))
    return " ".join(words)
