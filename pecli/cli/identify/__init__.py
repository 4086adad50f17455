"""``pecli identify``: the command, its reports and the checkpoint scan."""

from . import command  # noqa: F401  (registers the command)
