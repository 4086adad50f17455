"""Figures as :class:`matplotlib.figure.Figure` objects, built by pure functions.

Importing a module here imports matplotlib, so only plotting commands import them.
"""

import os

from ..core.errors import RuntimeFailure

try:
    import matplotlib  # noqa: F401  (checks the environment's settings)
except ValueError as error:  # an MPLBACKEND matplotlib does not know; pecli never uses it
    if "backend" not in str(error):
        raise
    setting = os.environ.get("MPLBACKEND", "")
    message = f"MPLBACKEND={setting!r} is not a matplotlib backend: unset it or set it to agg"
    raise RuntimeFailure(message) from None
