"""``pecli grid`` and ``pecli plot-grid``: tables of 2-D / N-D grids of tokens."""

from . import commands  # noqa: F401  (registers the commands)
