"""The ``pecli`` command line: a thin Typer layer over :mod:`pecli`'s functions."""

from . import (  # noqa: F401  (registers the commands)
    apply,
    compute,
    dialects,
    fourier,
    grid,
    plots,
    rope,
    rope_cache,
    rope_checks,
    rope_permute,
    spectra,
    wavelengths,
)
from ._app import app, main

__all__ = ["app", "main"]
