"""Multi-axis rotary embeddings: ``pecli rope axes``, ``axis-map``, ``plot-axes``, ``mrope-ids``.

And ``learned-axes`` and ``identify-axes``: subcommands of the ``pecli rope`` group, registered when
:mod:`pecli.cli.rope` is imported.
"""
