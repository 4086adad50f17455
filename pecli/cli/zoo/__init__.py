"""The zoo on the command line: ``pecli alibi …``, ``t5-buckets``, ``xpos``, ``timestep``."""

from . import alibi, alibi_identify, t5, timestep, xpos  # noqa: F401  (registers the commands)
