"""``pecli rope``: the group (:mod:`.app`) and its commands, one module per subject."""

from . import (  # noqa: F401  (registers the commands, app first)
    app,
    axes,
    axis_map,
    cache,
    engines,
    identify,
    identify_axes,
    irope,
    mrope,
    permute,
    precision,
    probe,
)
