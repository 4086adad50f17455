"""Every subcommand of ``pecli rope``, registered in the order ``pecli rope --help`` lists them.

The group's commands live with their subjects: RoPE (:mod:`pecli.cli.rope`), multi-axis RoPE
(:mod:`pecli.cli.multiaxis`) and the engines' dialects; importing this module imports them
all (a module's commands in the order it declares them).
"""

import importlib

from ..listing import COMMANDS

#: The modules registering the group's commands, the group first (``freqs``, in rope.app).
COMMAND_MODULES = tuple(dict.fromkeys(c.module for c in COMMANDS if c.parent == "rope"))
for _module in COMMAND_MODULES:
    importlib.import_module(f"pecli.cli.{_module}")
