"""``pecli rope``: the group (:mod:`.app`) and its commands, one module per subject."""

from . import app, axes, axis_map, cache, identify, identify_axes, mrope, permute, precision  # noqa: F401  (registers the commands, app first)
