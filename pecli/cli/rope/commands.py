"""Every subcommand of ``pecli rope``, registered in the order ``pecli rope --help`` lists them.

The group's commands live with their subjects: RoPE (:mod:`pecli.cli.rope`), multi-axis RoPE
(:mod:`pecli.cli.multiaxis`) and the engines' dialects; importing this module imports them
all (a module's commands in the order it declares them).
"""

import importlib

#: The modules registering the group's commands, the group first.
COMMAND_MODULES = (
    "rope.app",
    "multiaxis.mrope",
    "multiaxis.axes",
    "multiaxis.axis_map",
    "multiaxis.learned",
    "rope.cache",
    "ports.engines",
    "rope.identify",
    "multiaxis.identify",
    "rope.probe",
    "ports.irope",
    "rope.layers",
    "rope.permute",
    "rope.precision",
)
for _module in COMMAND_MODULES:
    importlib.import_module(f"pecli.cli.{_module}")
