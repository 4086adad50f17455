"""The rest of the position zoo on the command line: ``pecli alibi …``, ``pecli t5-buckets``."""

from . import alibi, alibi_identify, t5  # noqa: F401  (registers the commands)
