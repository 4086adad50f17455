"""The ``pecli`` command line: a thin Typer layer over :mod:`pecli`'s functions."""

from . import apply, compute, dialects, fourier, grid, plots, wavelengths  # noqa: F401  (registers the commands)
from ._app import app, main

__all__ = ["app", "main"]
