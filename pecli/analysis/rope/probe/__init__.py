"""``pecli rope probe``: RoPE read out of q (or k) dumped before and after it.

:func:`probe_rope` (:mod:`.reading`) takes the two dumps as ``(rows, heads, head_dim)`` and
each row's position (or ids); :mod:`.inputs` makes those from a dump's own axes.
"""

from .inputs import as_rows, check_pair, token_positions
from .reading import ProbeReading, probe_rope

__all__ = ["ProbeReading", "as_rows", "check_pair", "probe_rope", "token_positions"]
