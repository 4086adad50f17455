"""The two kinds of failure pecli reports: a broken argument rule, and a failed run.

:class:`ParameterError` remembers which argument broke which rule, so the command line can
name the matching option (``--d`` for ``d``) without a second copy of the rules
(:mod:`pecli.core.rules` holds the rules).
"""

from __future__ import annotations

__all__ = ["ParameterError", "RuntimeFailure"]


class ParameterError(ValueError):
    """An argument value breaks a documented rule.

    Attributes
    ----------
    parameter : str
        The argument's name in the Python API (``"d"``, ``"n"``, ``"base"``, ...); the
        command-line option of the same name is ``--<parameter>``.
    rule : str
        The rule, phrased to follow the name (``"must be an integer from 1 to 2^53"``). Another
        parameter the rule involves is named in backticks (``"from 1 to `n` (6)"``): the
        command line writes it as its option (``--n``), a library caller reads the name.
    value : object
        The rejected value.

    """

    def __init__(self, parameter: str, rule: str, value: object) -> None:
        self.parameter = parameter
        self.rule = rule
        self.value = value
        super().__init__(f"{parameter} {rule} (got {value!r})")


class RuntimeFailure(Exception):
    """A run cannot go on for a reason outside the arguments (no room on the disk, …).

    The command line prints its message as one line and exits with status 1.
    """
