"""The zoo on the command line: ``pecli alibi …``, ``pecli t5-buckets``, ``pecli xpos``."""

from . import alibi, alibi_identify, t5, xpos  # noqa: F401  (registers the commands)
