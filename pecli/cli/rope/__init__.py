"""``pecli rope``: the group (:mod:`.app`) and its commands, one module per subject."""

from . import app, cache, engines, identify, irope, permute, precision  # noqa: F401  (registers the commands, app first)
