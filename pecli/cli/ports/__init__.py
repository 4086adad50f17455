"""Ports to serving engines: ``pecli gguf``, ``pecli diff``, ``pecli rope engines``, ``irope``.

``rope engines`` and ``rope irope`` are subcommands of the ``pecli rope`` group, registered by
:mod:`pecli.cli.rope.commands`; ``gguf`` and ``diff`` are loaded by name
(:data:`pecli.cli.COMMAND_MODULES`).
"""
