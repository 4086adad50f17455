"""The ``pecli`` command line: a thin Typer layer over :mod:`pecli`'s functions.

Commands by subject: one module per command family at this level, a package per subject with
several modules (``rope/``, ``grid/``, ``identify/``); options shared by several commands are
declared once in :mod:`.options` and :mod:`.convention_options`.
"""

from . import (  # noqa: F401  (registers the commands)
    apply,
    compute,
    conventions,
    diff,
    fourier,
    gguf,
    grid,
    identify,
    plots,
    precision,
    rope,
    spectra,
    wavelengths,
    zoo,
)
from ._app import app, main

__all__ = ["app", "main"]
