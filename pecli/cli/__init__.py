"""The ``pecli`` command line: a thin Typer layer over :mod:`pecli`'s functions."""

from . import (  # noqa: F401  (registers the commands)
    apply,
    compute,
    dialects,
    fourier,
    plots,
    rope,
    rope_checks,
    rope_permute,
    wavelengths,
)
from ._app import app, main

__all__ = ["app", "main"]
